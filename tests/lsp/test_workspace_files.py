"""The language server lists a workspace's files as `asyncfix check` walks them: the files of
workspace/diagnostic are those of `asyncfix check --show-files` in each folder (the notebooks
aside, which workspace/diagnostic does not report), whatever decides a walk — `exclude` of nested
configuration files, git's ignore rules, default excludes, hidden directories, symlinks and hard
links (one file, one name). The server has no walk of its own: it asks the run (asyncfix/run.h).

Python's unittest only; the binaries come from $ASYNCFIX_LSP_BIN and $ASYNCFIX_BIN.
"""
import os
import shutil
import subprocess
import tempfile
import unittest

from test_module_rename import PULL_CAPABILITIES, path_of, uri_of
from test_smoke import CLI, LSP, Client

LEGACY = "x = y.cuda(async=True)\n"
NOTEBOOK = ('{"cells": [{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], '
            '"source": "x = y.cuda(async=True)\\n"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n')
FILES = {
    ".gitignore": "ignored_dir/\n*.gen.py\n!keep.gen.py\n",
    "a.py": LEGACY,
    "stub.pyi": "def f(async): ...\n",
    "ignored_dir/b.py": LEGACY,
    "x.gen.py": LEGACY,
    "keep.gen.py": LEGACY,
    "local_only.py": LEGACY,  # in .git/info/exclude
    "sub/asyncfix.toml": 'extend-exclude = ["skipped.py", "generated"]\n',
    "sub/kept.py": LEGACY,
    "sub/skipped.py": LEGACY,
    "sub/generated/c.py": LEGACY,
    "sub/deeper/skipped.py": LEGACY,
    "other/skipped.py": LEGACY,  # not under sub/'s configuration
    "other/.gitignore": "local.py\n",
    "other/local.py": LEGACY,
    "build/out.py": LEGACY,  # a default exclude
    ".hidden/h.py": LEGACY,
    "explore.ipynb": NOTEBOOK,
    "notes.txt": LEGACY,
}


@unittest.skipUnless(CLI, "ASYNCFIX_BIN is not set")
class WorkspaceFilesTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="asyncfix-wsfiles-")
        self.root = os.path.join(self.dir, "project")
        self.home = os.path.join(self.dir, "home")  # no global ignore file of the user's
        os.makedirs(self.home)
        subprocess.run(["git", "init", "-q", self.root], check=True)
        for name, text in FILES.items():
            path = os.path.join(self.root, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        with open(os.path.join(self.root, ".git", "info", "exclude"), "a") as f:
            f.write("local_only.py\n")
        os.symlink("a.py", os.path.join(self.root, "link.py"))  # a walk follows no symlink
        os.link(os.path.join(self.root, "a.py"), os.path.join(self.root, "z_alias.py"))  # one file, two names

        # Both commands read git's global ignore file: none here.
        self.saved_env = {key: os.environ.get(key) for key in ("HOME", "XDG_CONFIG_HOME")}
        os.environ.update(HOME=self.home, XDG_CONFIG_HOME=os.path.join(self.home, ".config"))

    def tearDown(self):
        for key, value in self.saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(self.dir, ignore_errors=True)

    def command_files(self, *args):
        result = subprocess.run([CLI, "check", "--show-files", *args], cwd=self.root, capture_output=True,
                                text=True, timeout=120)
        self.assertEqual(result.stderr, "")
        return [name for name in result.stdout.split() if not name.endswith(".ipynb")]

    def workspace_files(self, options=None):
        client = Client([LSP], stderr=subprocess.DEVNULL)
        try:
            client.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "workspaceFolders": [{"uri": uri_of(self.root), "name": "project"}],
                "capabilities": PULL_CAPABILITIES, "initializationOptions": options or {}}})
            self.assertIn("result", client.response(1))
            client.notify("initialized", {})
            response = client.response(client.request("workspace/diagnostic", {"previousResultIds": []}))
            self.assertIn("result", response, response)
            files = [os.path.relpath(path_of(item["uri"]), self.root) for item in response["result"]["items"]]
            client.response(client.request("shutdown"))
            client.notify("exit")
        finally:
            client.finish()
        return sorted(files)

    def test_workspace_diagnostic_lists_the_files_check_walks(self):
        expected = self.command_files()
        self.assertEqual(expected, ["a.py", "keep.gen.py", "other/skipped.py", "stub.pyi", "sub/kept.py"])
        self.assertEqual(self.workspace_files(), expected)

    def test_a_configuration_without_gitignore_is_the_same_for_both(self):
        with open(os.path.join(self.root, "asyncfix.toml"), "w") as f:
            f.write("respect-gitignore = false\n")
        expected = self.command_files()
        self.assertIn("ignored_dir/b.py", expected)
        self.assertEqual(self.workspace_files(), expected)

if __name__ == "__main__":
    unittest.main()
