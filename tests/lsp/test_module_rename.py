"""The language server's workspace-wide module rename, applied as a client would apply it.

A project whose own module is named `async` (it cannot be imported since Python 3.7) is copied to a
temporary directory; the real `asyncfix-lsp` offers the rename on an import of it, the test applies
the WorkspaceEdit (text edits in order, then the RenameFile) as an editor does, and checks with the
running CPython that every file compiles and every module imports. Python's unittest only; the
binary comes from $ASYNCFIX_LSP_BIN.
"""
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import urllib.parse

from test_smoke import LSP, Client

FILES = {
    "pkg/__init__.py": "",
    "pkg/async.py": "def helper():\n    return 1\n",
    "pkg/kfac.py": (
        "from .async import helper\n"
        "import pkg.async\n"
        "import pkg.async as a\n"
        "from .async import helper as h2\n"
        "\n"
        "\n"
        "def run():\n"
        "    return helper() + pkg.async.helper() + a.helper() + h2()\n"
    ),
    "pkg/sub/__init__.py": "",
    "pkg/sub/deep.py": "from ..async import helper\nfrom pkg.async import helper as h\n\nx = helper() + h()\n",
    "train.py": "from pkg.async import helper\nimport pkg.async\n\nprint(helper(), pkg.async.helper())\n",
}
CAPABILITIES = {
    "workspace": {"workspaceEdit": {"documentChanges": True, "resourceOperations": ["create", "rename", "delete"]}},
    "textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]}}},
}

PULL_CAPABILITIES = {"workspace": dict(CAPABILITIES["workspace"], diagnostics={"refreshSupport": True}),
                     "textDocument": dict(CAPABILITIES["textDocument"], diagnostic={})}


def uri_of(path):
    return "file://" + urllib.parse.quote(os.path.abspath(path))


def path_of(uri):
    return urllib.parse.unquote(urllib.parse.urlparse(uri).path)


def offset(text, position):
    """The offset of an LSP position (UTF-16 columns; these files are ASCII)."""
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[: position["line"]]) + position["character"]


def apply_edit(edit, unsaved):
    """Applies `documentChanges` in order, as the specification says a client must."""
    for change in edit["documentChanges"]:
        if change.get("kind") == "rename":
            old, new = path_of(change["oldUri"]), path_of(change["newUri"])
            assert change["options"] == {"overwrite": False, "ignoreIfExists": False}, change
            assert os.path.exists(old) and not os.path.exists(new), change
            os.rename(old, new)
            continue
        assert "kind" not in change, change
        path = path_of(change["textDocument"]["uri"])
        assert os.path.exists(path), "a text edit names a file that is not there: " + path
        with open(path) as f:
            text = unsaved.get(path, f.read())
        # Edits of one TextDocumentEdit all refer to the original text: apply from the end.
        for e in sorted(change["edits"], key=lambda e: offset(text, e["range"]["start"]), reverse=True):
            start, end = offset(text, e["range"]["start"]), offset(text, e["range"]["end"])
            text = text[:start] + e["newText"] + text[end:]
        with open(path, "w") as f:
            f.write(text)


class Session:
    """A test's session with the server over the project in self.root."""

    def result(self, client, request_id):
        response = client.response(request_id)
        self.assertIn("result", response, response)  # an error names itself
        return response["result"]

    def rename_edit(self, open_name, line, folders=None, text=None, between=None):
        """The resolved edit of the one rename offered on `line` of `open_name` (under self.root),
        with the workspace folders `folders` (relative to self.root; the root alone by default);
        `between(client)` runs after the code action, before it is resolved."""
        title, response = self.resolve_rename(open_name, line, folders, text, between)
        self.assertEqual(title, "Rename module `pkg.async` to `pkg.asynchronous` and update its imports")
        self.assertIn("result", response, response)  # an error names itself
        return response["result"]["edit"]

    @contextlib.contextmanager
    def server(self, folders=None, options=None, capabilities=CAPABILITIES, folder_uris=None):
        """An initialized server over the workspace folders `folders` (relative to self.root; the
        root alone by default) or `folder_uris`, shut down when the block ends."""
        client = Client([LSP])
        try:
            uris = folder_uris or [uri_of(os.path.join(self.root, f)) for f in (folders or ["."])]
            self.result(client, client.request("initialize", {
                "workspaceFolders": [{"uri": uri, "name": str(i)} for i, uri in enumerate(uris)],
                "capabilities": capabilities, "initializationOptions": options or {}}))
            client.notify("initialized", {})
            yield client
            client.response(client.request("shutdown"))
            client.notify("exit")
        finally:
            client.finish()

    def open_document(self, client, name, text):
        """Opens `name` (under self.root) with `text`; returns its URI."""
        uri = uri_of(os.path.join(self.root, name))
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": text}})
        return uri

    def code_actions(self, client, uri, line, character=0):
        return self.result(client, client.request("textDocument/codeAction", {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": line, "character": character}, "end": {"line": line, "character": character}},
            "context": {"diagnostics": []}}))

    def rename_actions(self, client, uri, line, character=0):
        """The module renames offered at (`line`, `character`) of `uri`."""
        return [a for a in self.code_actions(client, uri, line, character) if a["title"].startswith("Rename module")]

    def resolve_rename(self, open_name, line, folders=None, text=None, between=None, options=None, before=None,
                       capabilities=CAPABILITIES):
        """(title, codeAction/resolve response) of the one rename offered on `line` of
        `open_name`; `options` are the initializationOptions, `before(client)` runs before the
        code action is asked for. A client without resolve support gets the edit in the code
        action: (title, the action)."""
        with self.server(folders, options, capabilities) as client:
            if before:
                before(client)
            uri = self.open_document(client, open_name, FILES[open_name] if text is None else text)
            actions = self.code_actions(client, uri, line)
            renames = [a for a in actions if a["title"].startswith("Rename module `pkg.async`")]
            self.assertEqual(len(renames), 1, actions)
            if between:
                between(client)
            if "data" in renames[0]:
                response = client.response(client.request("codeAction/resolve", renames[0]))
            else:
                response = {"result": renames[0]}
        return renames[0]["title"], response


class ModuleRenameTest(Session, unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="asyncfix-rename-")
        for name, text in FILES.items():
            path = os.path.join(self.root, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)

    def tearDown(self):
        shutil.rmtree(self.root)

    def check_project(self):
        for directory, _, names in os.walk(self.root):
            for name in names:
                if name.endswith(".py"):
                    path = os.path.join(directory, name)
                    with open(path) as f:
                        compile(f.read(), path, "exec")  # raises SyntaxError
        for module in ("pkg.asynchronous", "pkg.kfac", "pkg.sub.deep", "train"):
            run = subprocess.run([sys.executable, "-c", "import " + module], cwd=self.root,
                                 capture_output=True, text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
            self.assertEqual(run.returncode, 0, module + ": " + run.stderr)

    def test_applied_rename_leaves_every_file_compiling_and_importable(self):
        # Before: nothing that imports the module compiles on this Python.
        with self.assertRaises(SyntaxError):
            compile(FILES["pkg/kfac.py"], "kfac.py", "exec")
        edit = self.rename_edit("pkg/kfac.py", 0)
        kinds = [c.get("kind", "edit") for c in edit["documentChanges"]]
        self.assertEqual(kinds[-1], "rename")
        self.assertNotIn("rename", kinds[:-1])
        edited = sorted(os.path.relpath(path_of(c["textDocument"]["uri"]), self.root)
                        for c in edit["documentChanges"] if "textDocument" in c)
        self.assertEqual(edited, ["pkg/kfac.py", "pkg/sub/deep.py", "train.py"])
        apply_edit(edit, {})
        self.assertFalse(os.path.exists(os.path.join(self.root, "pkg/async.py")))
        self.check_project()

    def test_an_importer_created_after_the_code_action_is_edited(self):
        # A file made from a terminal between the offer and its resolve (the server watches no
        # Python file): the edit lists the workspace's files again.
        def create(_client):
            with open(os.path.join(self.root, "late.py"), "w") as f:
                f.write("import pkg.async\n")
        edit = self.rename_edit("pkg/kfac.py", 0, between=create)
        edited = sorted(os.path.relpath(path_of(c["textDocument"]["uri"]), self.root)
                        for c in edit["documentChanges"] if "textDocument" in c)
        self.assertEqual(edited, ["late.py", "pkg/kfac.py", "pkg/sub/deep.py", "train.py"])
        apply_edit(edit, {})
        self.check_project()

    def test_a_module_opened_later_is_offered_under_a_folder_uri_ending_in_a_slash(self):
        with self.server(folder_uris=[uri_of(self.root) + "/"]) as client:
            def rename_titles(name, text):
                return [a["title"] for a in self.rename_actions(client, self.open_document(client, name, text), 0)]

            self.assertEqual(rename_titles("train.py", FILES["train.py"]),
                             ["Rename module `pkg.async` to `pkg.asynchronous` and update its imports"])
            # A second module `async`, created and opened now: the editor's didOpen makes it known.
            os.makedirs(os.path.join(self.root, "other"))
            for name, text in (("other/__init__.py", ""), ("other/async.py", "x = 1\n")):
                with open(os.path.join(self.root, name), "w") as f:
                    f.write(text)
            self.assertEqual(rename_titles("other/async.py", "x = 1\n"),
                             ["Rename module `other.async` to `other.asynchronous` and update its imports"])

    def test_the_workspace_is_listed_on_the_worker_not_on_the_message_loop(self):
        # The message loop hands a code action over and answers a hover at once; the worker is
        # busy first with a large document's "Fix all" (queued before it, done in order). A module
        # created after the hover's answer (so after the message loop handled the code action)
        # and before the worker gets to the code action is offered: the workspace was listed on
        # the worker. Listed on the message loop, it was not there yet.
        os.remove(os.path.join(self.root, "pkg/async.py"))
        with self.server() as client:
            uri = self.open_document(client, "train.py", FILES["train.py"])
            client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"]["uri"] == uri)
            large = "import torch\nx = a.cuda(async=True)\n" + "".join(
                "def f%d(a, b):\n    y = b.cuda(async=True)\n    return a + y\n\n" % i for i in range(6000))
            large_uri = self.open_document(client, "large.py", large)
            busy = client.request("codeAction/resolve", {
                "title": "Fix all AF101 problems in this file", "kind": "quickfix",
                "data": {"uri": large_uri, "version": 1, "action": "fixAll", "code": "AF101"}})
            asked = client.request("textDocument/codeAction", {
                "textDocument": {"uri": uri},
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                "context": {"diagnostics": []}})
            hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                          "position": {"line": 0, "character": 10}})
            answers = {}

            def answered(request_id):
                while request_id not in answers:
                    m = client.read()
                    if "id" in m and "method" not in m:
                        answers[m["id"]] = m
                return answers[request_id]

            answered(hover)
            self.assertNotIn(busy, answers, "the worker was not busy long enough for this test")
            with open(os.path.join(self.root, "pkg/async.py"), "w") as f:
                f.write(FILES["pkg/async.py"])
            actions = answered(asked)["result"]
            self.assertIn("Rename module `pkg.async` to `pkg.asynchronous` and update its imports",
                          [a["title"] for a in actions])
            answered(busy)

    def test_files_git_ignores_are_left_alone_as_the_cli_leaves_them(self):
        # `asyncfix check --fix` walks no directory .gitignore names; neither does the server.
        subprocess.run(["git", "init", "-q", self.root], check=True)
        os.makedirs(os.path.join(self.root, "generated"))
        with open(os.path.join(self.root, ".gitignore"), "w") as f:
            f.write("generated/\n")
        with open(os.path.join(self.root, "generated/copy.py"), "w") as f:
            f.write("import pkg.async\n")
        edit = self.rename_edit("pkg/kfac.py", 0)
        edited = sorted(os.path.relpath(path_of(c["textDocument"]["uri"]), self.root)
                        for c in edit["documentChanges"] if "textDocument" in c)
        self.assertEqual(edited, ["pkg/kfac.py", "pkg/sub/deep.py", "train.py"])

    def test_a_namespace_package_without_configuration_lies_under_the_workspace_folder(self):
        # No asyncfix.toml and no __init__.py in ns/: the default `src` (".") is the workspace
        # folder's, not the server's current directory, so `ns/async.py` is `ns.async` (in a
        # namespace package: the rename is unsafe).
        os.makedirs(os.path.join(self.root, "ns"))
        with open(os.path.join(self.root, "ns/async.py"), "w") as f:
            f.write("def helper():\n    return 1\n")
        text = "from ns.async import helper\n"
        with open(os.path.join(self.root, "ns/user.py"), "w") as f:
            f.write(text)
        with self.server(options={"unsafeFixes": True}) as client:
            actions = self.code_actions(client, self.open_document(client, "ns/user.py", text), 0, 8)
            self.assertIn("Rename module `ns.async` to `ns.asynchronous` and update its imports (unsafe)",
                          [a["title"] for a in actions])

    def edited(self, edit):
        return sorted(os.path.relpath(path_of(c["textDocument"]["uri"]), self.root)
                      for c in edit["documentChanges"] if "textDocument" in c)

    def test_a_suppressed_import_makes_the_rename_unsafe(self):
        # `legacy.py` keeps its import (`# noqa: AF201`): after the rename it would import a module
        # that is no longer there. As `asyncfix check --fix` does, the rename is unsafe then.
        legacy = os.path.join(self.root, "legacy.py")
        with open(legacy, "w") as f:
            f.write("from pkg.async import helper  # noqa: AF201\n")
        place = "`" + legacy + ":1` would still import it"
        _, response = self.resolve_rename("pkg/kfac.py", 0)
        self.assertEqual(response.get("error", {}).get("code"), -32803, response)  # RequestFailed
        self.assertEqual(response["error"]["message"],
                         "renaming `pkg.async` is an unsafe fix (" + place + "): it needs unsafeFixes")
        _, response = self.resolve_rename("pkg/kfac.py", 0, options={"unsafeFixes": True})
        edit = response["result"]["edit"]
        self.assertEqual(self.edited(edit), ["pkg/kfac.py", "pkg/sub/deep.py", "train.py"])
        # A client that cannot resolve sees it in the title, and the action is not preferred.
        inline = {"workspace": CAPABILITIES["workspace"]}
        title, action = self.resolve_rename("pkg/kfac.py", 0, options={"unsafeFixes": True}, capabilities=inline)
        self.assertEqual(title, "Rename module `pkg.async` to `pkg.asynchronous` and update its imports "
                                "(unsafe: " + place + ")")
        self.assertFalse(action["result"].get("isPreferred", False))
        self.assertEqual(self.edited(action["result"]["edit"]), ["pkg/kfac.py", "pkg/sub/deep.py", "train.py"])
        apply_edit(edit, {})
        with open(legacy) as f:
            self.assertEqual(f.read(), "from pkg.async import helper  # noqa: AF201\n")

    def test_an_importer_no_edit_can_reach_refuses_the_rename(self):
        # Issue 30, as `asyncfix check --fix` refuses it: `rpc@v2.py` is no module (its name is no
        # identifier), so its relative import cannot be rewritten, and after the rename it would
        # import a module that is no longer there. Before, the server renamed it all the same.
        rpc = os.path.join(self.root, "pkg/rpc@v2.py")

        def create(_client):
            with open(rpc, "w") as f:
                f.write("from .async import helper\n")

        refusal = ("cannot rename `" + os.path.join(self.root, "pkg/async.py") + "` to `" +
                   os.path.join(self.root, "pkg/asynchronous.py") + "`: `" + rpc + ":1` imports it relatively but "
                   "is no module (`rpc@v2` is no identifier), so that import cannot be rewritten")
        for options in ({}, {"unsafeFixes": True}):
            # Offered before the file was made, resolved after: the resolve reads the files again.
            _, response = self.resolve_rename("pkg/kfac.py", 0, between=create, options=options)
            self.assertEqual(response.get("error", {}).get("code"), -32803, response)  # RequestFailed
            self.assertEqual(response["error"]["message"], refusal)
            os.remove(rpc)
        create(None)
        with self.server(options={"unsafeFixes": True}) as client:
            uri = self.open_document(client, "pkg/kfac.py", FILES["pkg/kfac.py"])
            self.assertEqual(self.rename_actions(client, uri, 0), [])
        self.assertTrue(os.path.exists(os.path.join(self.root, "pkg/async.py")))

    def test_a_notebook_on_disk_is_edited(self):
        notebook = os.path.join(self.root, "explore.ipynb")
        cell = "from pkg.async import helper\nprint(helper())\n"
        with open(notebook, "w") as f:
            json.dump({"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                                  "source": cell.splitlines(keepends=True)}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, f, indent=1)
        edit = self.rename_edit("pkg/kfac.py", 0)
        self.assertEqual(self.edited(edit), ["explore.ipynb", "pkg/kfac.py", "pkg/sub/deep.py", "train.py"])
        apply_edit(edit, {})
        self.check_project()
        with open(notebook) as f:
            source = "".join(json.load(f)["cells"][0]["source"])
        self.assertEqual(source, cell.replace("pkg.async", "pkg.asynchronous"))
        run = subprocess.run([sys.executable, "-c", source], cwd=self.root, capture_output=True, text=True,
                             env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
        self.assertEqual(run.returncode, 0, run.stderr)

    def notebook_opener(self, cell):
        """A `before` for resolve_rename: opens `explore.ipynb` (on disk, empty) in the editor with
        one code cell holding `cell`. Returns (the notebook's path, the opener)."""
        notebook = os.path.join(self.root, "explore.ipynb")
        with open(notebook, "w") as f:
            json.dump({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, f)
        cell_uri = "vscode-notebook-cell:" + notebook + "#c1"

        def open_notebook(client):
            client.notify("notebookDocument/didOpen", {
                "notebookDocument": {"uri": uri_of(notebook), "notebookType": "jupyter-notebook", "version": 1,
                                     "cells": [{"kind": 2, "document": cell_uri}]},
                "cellTextDocuments": [{"uri": cell_uri, "languageId": "python", "version": 1, "text": cell}]})
        return notebook, open_notebook

    def test_a_notebook_open_in_the_editor_makes_it_unsafe(self):
        # Its cells are the editor's: a text edit of the file cannot reach them.
        notebook, open_notebook = self.notebook_opener("import pkg.async\n")
        _, response = self.resolve_rename("pkg/kfac.py", 0, before=open_notebook)
        self.assertEqual(response["error"]["message"],
                         "renaming `pkg.async` is an unsafe fix (`" + notebook + "` is open in a notebook editor, "
                         "whose cells the rename does not edit): it needs unsafeFixes")

    def test_a_notebook_open_in_the_editor_that_names_no_module_is_no_obstacle(self):
        _, open_notebook = self.notebook_opener("import asyncio\n\nasync def f():\n    await asyncio.sleep(0)\n")
        _, response = self.resolve_rename("pkg/kfac.py", 0, before=open_notebook)
        self.assertIn("result", response, response)
        apply_edit(response["result"]["edit"], {})
        self.check_project()

    def test_a_module_inside_a_renamed_package_is_renamed_with_it(self):
        # `pkg/async/await.py` moves to `pkg/asynchronous/awaitable.py`: its imports spell both
        # new names, so renaming it alone would leave them naming a package that is not there.
        shutil.rmtree(self.root)
        os.makedirs(os.path.join(self.root, "pkg/async"))
        for name, text in {"pkg/__init__.py": "", "pkg/async/__init__.py": "",
                           "pkg/async/await.py": "def h():\n    return 1\n",
                           "pkg/async/async.py": "def g():\n    return 2\n",
                           "main.py": ("import pkg.async.await\nimport pkg.async.async\n\n"
                                       "print(pkg.async.await.h(), pkg.async.async.g())\n")}.items():
            with open(os.path.join(self.root, name), "w") as f:
                f.write(text)
        with self.server() as client:
            with open(os.path.join(self.root, "main.py")) as f:
                renames = self.rename_actions(client, self.open_document(client, "main.py", f.read()), 0)
            self.assertEqual([a["title"] for a in renames],
                             ["Rename module `pkg.async.await` to `pkg.asynchronous.awaitable` (with `pkg.async`, "
                              "`pkg.async.async`) and update its imports"])
            edit = self.result(client, client.request("codeAction/resolve", renames[0]))["edit"]
        apply_edit(edit, {})
        self.assertTrue(os.path.exists(os.path.join(self.root, "pkg/asynchronous/awaitable.py")))
        self.assertTrue(os.path.exists(os.path.join(self.root, "pkg/asynchronous/asynchronous.py")))
        run = subprocess.run([sys.executable, "-c", "import main"], cwd=self.root, capture_output=True, text=True,
                             env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
        self.assertEqual(run.returncode, 0, run.stderr)

    def test_a_workspace_folder_inside_the_package_makes_it_unsafe(self):
        # The folder is `pkg/`: `train.py` beside it imports the module and would keep the old name.
        title, response = self.resolve_rename("pkg/kfac.py", 0, folders=["pkg"])
        self.assertEqual(response["error"]["message"],
                         "renaming `pkg.async` is an unsafe fix (the workspace does not walk `" + self.root +
                         "`, whose other files may import it): it needs unsafeFixes")

    def test_a_name_taken_by_a_module_file_refuses_until_it_goes(self):
        # `pkg/asynchronous.py` takes the name `pkg/async/` would get (the package would hide it):
        # nothing is offered; once the file is gone, the rename is.
        os.remove(os.path.join(self.root, "pkg/async.py"))
        os.makedirs(os.path.join(self.root, "pkg/async"))
        for name, text in (("pkg/async/__init__.py", "def helper():\n    return 1\n"),
                           ("pkg/asynchronous.py", "x = 1\n")):
            with open(os.path.join(self.root, name), "w") as f:
                f.write(text)
        with self.server() as client:
            uri = self.open_document(client, "train.py", FILES["train.py"])

            def titles():
                return [a["title"] for a in self.rename_actions(client, uri, 1)]

            self.assertEqual(titles(), [])
            self.assertEqual(titles(), [])  # the view is kept while the file that takes the name stays
            os.remove(os.path.join(self.root, "pkg/asynchronous.py"))
            self.assertEqual(titles(), ["Rename module `pkg.async` to `pkg.asynchronous` and update its imports"])

    def module_report(self, options=None, capabilities=CAPABILITIES, expected=True, text=FILES["pkg/async.py"]):
        """(the AF201 findings last published for `pkg/async.py` once it is open, the rename
        actions offered on its first line when the client echoes them). With `expected`, waits
        for a publication with AF201 first; the code action (done on the worker after the look-up
        the open asked for) and a hover after it make the rest of the publications arrive."""
        with self.server(options=options, capabilities=capabilities) as client:
            uri = self.open_document(client, "pkg/async.py", text)
            published = []

            def take(m):
                if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                    published.append([d for d in m["params"]["diagnostics"] if d.get("code") == "AF201"])
                    return bool(published[-1])
                return False

            def answer(request_id):
                while True:
                    m = client.read()
                    take(m)
                    if m.get("id") == request_id and "method" not in m:
                        return m["result"]

            if expected:
                client.wait_for(take)
            position = {"line": 0, "character": 0}
            actions = answer(client.request("textDocument/codeAction", {
                "textDocument": {"uri": uri}, "range": {"start": position, "end": position},
                "context": {"diagnostics": published[-1] if published else []}}))
            answer(client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position}))
        return (published[-1] if published else []), [a for a in actions if a["title"].startswith("Rename module")]

    def test_the_module_itself_is_reported_as_check_reports_it(self):
        # Before: the module's own file showed nothing in the editor (`check` reports it at 1:1).
        found, actions = self.module_report()
        self.assertEqual(len(found), 1, found)
        self.assertEqual(found[0]["message"], "The project's module `pkg.async` cannot be imported since Python 3.7 "
                                              "(`async` is a reserved keyword); rename it `pkg.asynchronous`")
        self.assertEqual(found[0]["range"], {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}})
        self.assertEqual(found[0]["severity"], 1)
        self.assertNotIn("tags", found[0])  # not Deprecated: no word of the file is struck through
        self.assertEqual(found[0]["data"]["fix"], "safe")
        self.assertEqual([a["title"] for a in actions],
                         ["Rename module `pkg.async` to `pkg.asynchronous` and update its imports"])
        self.assertEqual(actions[0]["diagnostics"], found)  # the action fixes what is shown
        # As `check` does, in the words of its refusal when the new name is taken; nothing offered.
        with open(os.path.join(self.root, "pkg/asynchronous.py"), "w") as f:
            f.write("x = 1\n")
        found, actions = self.module_report()
        self.assertEqual([d["message"] for d in found],
                         ["The project's module `pkg.async` cannot be imported since Python 3.7 (`async` is a "
                          "reserved keyword); cannot rename `" + os.path.join(self.root, "pkg/async.py") + "` to `" +
                          os.path.join(self.root, "pkg/asynchronous.py") + "`: `" +
                          os.path.join(self.root, "pkg/asynchronous.py") + "` exists"])
        self.assertEqual(actions, [])

    def pull_until_the_module_is_reported(self, client, uri):
        """The first pulled report of `uri` that holds the module's finding alone: the file's own
        findings come first, the module's after the refresh its look-up asks for."""
        previous = None
        for _ in range(3):
            request = {"textDocument": {"uri": uri}}
            if previous:
                request["previousResultId"] = previous
            report = self.result(client, client.request("textDocument/diagnostic", request))
            if report["kind"] == "full":
                previous = report["resultId"]
                if [d["code"] for d in report["items"]] == ["AF201"]:
                    return report
            refresh = client.wait_for(lambda m: m.get("method") == "workspace/diagnostic/refresh")
            client.send({"jsonrpc": "2.0", "id": refresh["id"], "result": None})
        self.fail("the module was never reported")

    def test_a_pull_client_gets_the_module_reported_after_a_refresh(self):
        with self.server(capabilities=PULL_CAPABILITIES) as client:
            uri = self.open_document(client, "pkg/async.py", FILES["pkg/async.py"])
            report = self.pull_until_the_module_is_reported(client, uri)
            self.assertIn("cannot be imported since Python 3.7", report["items"][0]["message"])

    def test_a_workspace_pull_while_the_module_is_being_linted_reports_it(self):
        # Before: a workspace/diagnostic that came while the module's new version was linted
        # answered from a fresh lint without the module's finding, under the result id the full
        # report would have: the client kept "unchanged" and lost the finding until the next edit.
        # Also over the size limit (8 MB): such a text is not linted, its module finding stands.
        for text in (FILES["pkg/async.py"] + "x = [1, 2, 3]\n" * 40000,  # long enough to be linted a while
                     FILES["pkg/async.py"] + "x = [1, 2, 3]\n" * 650000):
            with self.subTest(len(text)):
                self.pull_during_an_edit(text)

    def pull_during_an_edit(self, text):
        with open(os.path.join(self.root, "pkg/async.py"), "w") as f:
            f.write(text)
        with self.server(capabilities=PULL_CAPABILITIES) as client:
            uri = self.open_document(client, "pkg/async.py", text)
            self.pull_until_the_module_is_reported(client, uri)
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
                {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "#\n"}]})
            result = self.result(client, client.request("workspace/diagnostic", {"previousResultIds": []}))
            items = [item for item in result["items"] if item["uri"] == uri]
            self.assertEqual([[d["code"] for d in item["items"]] for item in items], [["AF201"]])

    def test_the_module_is_not_reported_where_af201_is_off(self):
        found, actions = self.module_report(options={"ignore": ["AF201"]}, expected=False)
        self.assertEqual((found, actions), ([], []))

    def test_a_module_under_skip_file_is_left_alone_as_check_leaves_it(self):
        text = "# asyncfix: skip-file\n" + FILES["pkg/async.py"]
        with open(os.path.join(self.root, "pkg/async.py"), "w") as f:
            f.write(text)
        self.assertEqual(self.module_report(text=text, expected=False), ([], []))
        with self.server() as client:  # nor offered from an importer
            self.assertEqual(self.rename_actions(client, self.open_document(client, "train.py", FILES["train.py"]), 0),
                             [])

    def test_the_module_is_reported_to_a_client_that_cannot_rename_files(self):
        found, actions = self.module_report(capabilities={})
        self.assertEqual([d["code"] for d in found], ["AF201"])
        self.assertNotIn("fix", found[0]["data"])  # nothing fixes it for this client
        self.assertEqual(actions, [])

    def test_offered_from_a_top_level_importer_too(self):
        edit = self.rename_edit("train.py", 0)
        apply_edit(edit, {})
        self.check_project()


class TwoFoldersTest(Session, unittest.TestCase):
    """Two workspace folders that both hold `pkg/async.py`: an import of `pkg.async` may mean
    either, and the AF201 fix of every importer names both files, so the rename must move both
    (as `asyncfix check a b --fix` does); moving one and rewriting the imports of both breaks the
    other folder."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="asyncfix-rename-")
        for folder in ("a", "b"):
            for name, text in {"pkg/__init__.py": "", "pkg/async.py": "def helper():\n    return 1\n",
                               "user1.py": "import pkg.async\n\nprint(pkg.async.helper())\n"}.items():
                path = os.path.join(self.root, folder, name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)

    def check_folder(self, folder):
        for module in ("pkg.asynchronous", "user1"):
            run = subprocess.run([sys.executable, "-c", "import " + module], cwd=os.path.join(self.root, folder),
                                 capture_output=True, text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
            self.assertEqual(run.returncode, 0, folder + ": " + module + ": " + run.stderr)

    def test_the_module_of_both_folders_is_renamed(self):
        with open(os.path.join(self.root, "b/user1.py")) as f:
            text = f.read()
        edit = self.rename_edit("b/user1.py", 0, folders=["a", "b"], text=text)
        apply_edit(edit, {})
        for folder in ("a", "b"):
            self.assertFalse(os.path.exists(os.path.join(self.root, folder, "pkg/async.py")), folder)
            self.check_folder(folder)

    def tearDown(self):
        shutil.rmtree(self.root)


if __name__ == "__main__":
    unittest.main()
