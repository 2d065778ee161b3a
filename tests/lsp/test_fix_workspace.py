"""asyncfix.fixWorkspace against `asyncfix check --fix`: the same run, so the same files after it.

Each small project is copied twice to a temporary directory. In one copy the real `asyncfix-lsp`
fixes the workspace and the test applies the server's one workspace/applyEdit as a client does
(text edits in order, then the RenameFiles; an open document's edits to its unsaved text, which is
then saved). In the other, the open documents' unsaved texts are saved first and `asyncfix check
--fix .` runs there. The two trees must be equal, with the safe fixes and with unsafeFixes (and
`--unsafe-fixes`). Python's unittest only; the binaries come from $ASYNCFIX_LSP_BIN and $ASYNCFIX_BIN.
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from test_module_rename import apply_edit, uri_of
from test_smoke import CLI, LSP, Client

CAPABILITIES = {
    "workspace": {"applyEdit": True,
                  "workspaceEdit": {"documentChanges": True, "resourceOperations": ["create", "rename", "delete"]}},
    "window": {"workDoneProgress": True},
}
NO_RENAME = {"workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True}},
             "window": {"workDoneProgress": True}}

# A public function's parameter `async`, called with `async=` from another module.
CROSS_FILE = {
    "pkg/__init__.py": "",
    "pkg/ops.py": "def to_gpu(x, async=False):\n    return x.cuda(async=async)\n",
    "pkg/train.py": "from pkg.ops import to_gpu\n\ny = to_gpu(1, async=True)\n",
}
# A module named `async`, imported from other modules.
MODULE = {
    "pkg/__init__.py": "",
    "pkg/async.py": "def helper(x):\n    return x.cuda(async=True)\n",
    "pkg/kfac.py": "from .async import helper\nimport pkg.async as a\n\n\ndef run(x):\n    return helper(x), a.helper(x)\n",
    "train.py": "from pkg.async import helper\n\nprint(helper)\n",
}
# An open document whose unsaved text differs from the disk's (and would change the project view).
UNSAVED = {
    "lib.py": "def load(x):\n    return x\n",
    "main.py": "from lib import load\n\nload(1)\n",
}
UNSAVED_OPEN = {
    "lib.py": "def load(x, async=False):\n    return x.cuda(async=async)\n",
    "main.py": "from lib import load\n\nload(1, async=True)\n",
}
# A directory the configuration excludes, and a file it keeps.
EXCLUDED = {
    "pyproject.toml": "[tool.asyncfix]\nexclude = [\"legacy\"]\n",
    "legacy/old.py": "x = y.cuda(async=True)\n",
    "kept.py": "x = y.cuda(async=True)\nasync = 1\n",
}


def write_tree(root, files):
    for name, text in files.items():
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


def read_tree(root):
    tree = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            with open(path, "rb") as f:
                tree[os.path.relpath(path, root)] = f.read().decode()
    return tree


class FixWorkspaceTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="asyncfix-fixws-")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def server_fix(self, root, unsafe, opened, capabilities=CAPABILITIES):
        """Runs asyncfix.fixWorkspace over `root` with `opened` (name → unsaved text) open and
        applies its edit; returns (the edit or None, the progress values, the command's response)."""
        client = Client([LSP])
        try:
            rid = client.request("initialize", {
                "workspaceFolders": [{"uri": uri_of(root), "name": "ws"}], "capabilities": capabilities,
                "initializationOptions": {"unsafeFixes": unsafe}})
            self.assertIn("result", client.response(rid))
            client.notify("initialized", {})
            unsaved = {}
            for name, text in opened.items():
                path = os.path.join(root, name)
                unsaved[path] = text
                client.notify("textDocument/didOpen", {"textDocument": {
                    "uri": uri_of(path), "languageId": "python", "version": 7, "text": text}})
            rid = client.request("workspace/executeCommand",
                                 {"command": "asyncfix.fixWorkspace", "workDoneToken": "t"})
            edit, progress = None, []
            while True:
                message = client.read()
                if message.get("method") == "$/progress":
                    progress.append(message["params"]["value"])
                elif message.get("method") == "workspace/applyEdit":
                    self.assertIsNone(edit, "one workspace/applyEdit")
                    edit = message["params"]["edit"]
                    for change in edit["documentChanges"]:
                        if "textDocument" in change:
                            path = os.path.realpath(
                                change["textDocument"]["uri"][len("file://"):])
                            expected = 7 if any(os.path.realpath(p) == path for p in unsaved) else None
                            self.assertEqual(change["textDocument"]["version"], expected, change)
                    apply_edit(edit, unsaved)
                    client.send({"jsonrpc": "2.0", "id": message["id"], "result": {"applied": True}})
                elif message.get("id") == rid and "method" not in message:
                    response = message
                    break
            # Open documents the edit did not touch keep their unsaved text: the editor saves them.
            for path, text in unsaved.items():
                touched = edit and any(c.get("textDocument", {}).get("uri") == uri_of(path)
                                       for c in edit["documentChanges"])
                if not touched:
                    with open(path, "w") as f:
                        f.write(text)
            client.response(client.request("shutdown"))
            client.notify("exit")
        finally:
            client.finish()
        return edit, progress, response

    def cli_fix(self, root, unsafe):
        argv = [CLI, "check", "--fix", "--exit-zero", "."] + (["--unsafe-fixes"] if unsafe else [])
        run = subprocess.run(argv, cwd=root, capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)

    def differential(self, files, opened=None, capabilities=CAPABILITIES):
        """The trees after the server's fix and after `check --fix`, for each fix safety."""
        opened = opened or {}
        results = []
        for unsafe in (False, True):
            with self.subTest(unsafe=unsafe):
                lsp_root = os.path.join(self.dir, "lsp-%s" % unsafe)
                cli_root = os.path.join(self.dir, "cli-%s" % unsafe)
                write_tree(lsp_root, files)
                write_tree(cli_root, {**files, **opened})
                edit, progress, response = self.server_fix(lsp_root, unsafe, opened, capabilities)
                self.assertEqual(response.get("result", "error"), None, response)
                kinds = [p["kind"] for p in progress]
                self.assertEqual(kinds[0], "begin")
                self.assertEqual(kinds[-1], "end")
                self.assertTrue(all(k == "report" for k in kinds[1:-1]), kinds)
                self.cli_fix(cli_root, unsafe)
                self.assertEqual(read_tree(lsp_root), read_tree(cli_root))
                results.append((edit, progress, read_tree(lsp_root)))
        return results

    def test_cross_file_parameter_rename(self):
        [(edit, progress, tree), _] = self.differential(CROSS_FILE)
        self.assertIn("async_=True", tree["pkg/train.py"])
        self.assertRegex(progress[-1]["message"], r"^Fixed 4 problems in 2 files")

    def test_module_named_async_with_importers(self):
        [(edit, _, tree), _] = self.differential(MODULE)
        self.assertIn("pkg/asynchronous.py", tree)
        self.assertNotIn("pkg/async.py", tree)
        kinds = [c.get("kind", "edit") for c in edit["documentChanges"]]
        self.assertEqual(kinds[-1], "rename")
        self.assertNotIn("rename", kinds[:-1])

    def test_module_named_async_open_with_unsaved_text(self):
        opened = {"pkg/kfac.py": "from .async import helper\n\nhelper(1).cuda(async=True)\n"}
        self.differential(MODULE, opened)

    def test_open_documents_with_unsaved_text(self):
        [(edit, _, tree), _] = self.differential(UNSAVED, UNSAVED_OPEN)
        self.assertIn("async_=True", tree["main.py"])

    def test_excluded_files_are_left_alone(self):
        [(_, _, tree), _] = self.differential(EXCLUDED)
        self.assertEqual(tree["legacy/old.py"], EXCLUDED["legacy/old.py"])
        self.assertIn("non_blocking=True", tree["kept.py"])

    def test_a_client_that_cannot_rename_files_gets_the_imports_unchanged(self):
        root = os.path.join(self.dir, "ws")
        write_tree(root, MODULE)
        edit, progress, response = self.server_fix(root, False, {}, NO_RENAME)
        self.assertIsNone(response.get("result", "error"), response)
        self.assertIn("not renamed (the editor cannot rename files): `pkg.async`", progress[-1]["message"])
        tree = read_tree(root)
        self.assertEqual(sorted(tree), sorted(MODULE))  # no file renamed
        self.assertEqual(tree["pkg/kfac.py"], MODULE["pkg/kfac.py"])  # its imports still name the module
        self.assertEqual(tree["pkg/async.py"], "def helper(x):\n    return x.cuda(non_blocking=True)\n")

    def test_cancelled_before_it_starts(self):
        root = os.path.join(self.dir, "ws")
        write_tree(root, CROSS_FILE)
        client = Client([LSP])
        try:
            rid = client.request("initialize", {"workspaceFolders": [{"uri": uri_of(root), "name": "ws"}],
                                                "capabilities": CAPABILITIES})
            client.response(rid)
            client.notify("initialized", {})
            # The request and its cancel in one write: the server reads both before it starts.
            request = {"jsonrpc": "2.0", "id": 99, "method": "workspace/executeCommand",
                       "params": {"command": "asyncfix.fixWorkspace", "workDoneToken": "t"}}
            cancel = {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 99}}
            data = b""
            for message in (request, cancel):
                body = json.dumps(message).encode()
                data += b"Content-Length: %d\r\n\r\n" % len(body) + body
            client.send_raw(data)
            seen = []
            while True:
                message = client.read()
                seen.append(message)
                if message.get("id") == 99 and "method" not in message:
                    break
            self.assertEqual(message["error"]["code"], -32800, message)
            self.assertFalse(any(m.get("method") == "workspace/applyEdit" for m in seen), seen)
            ends = [m["params"]["value"] for m in seen if m.get("method") == "$/progress"
                    and m["params"]["value"]["kind"] == "end"]
            self.assertEqual(ends, [{"kind": "end", "message": "Cancelled"}])
            client.response(client.request("shutdown"))
            client.notify("exit")
        finally:
            client.finish()
        self.assertEqual(read_tree(root), CROSS_FILE)


if __name__ == "__main__":
    unittest.main()
