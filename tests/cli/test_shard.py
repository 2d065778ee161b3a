"""Monorepos and CI matrices: `check --files-from`.

Drives the built binary as test_cli.py does (ASYNCFIX_BIN). Run one area by hand:
    ASYNCFIX_BIN=build/ci/cli/asyncfix python3 -m unittest -v test_shard.FilesFromTest
"""

import json
import os
import shutil
import subprocess
import threading
import unittest

from test_cli import CLEAN, LOCAL, MODULE, NOTEBOOK, TORCH, CliTestCase, notebook_text, write


class MonorepoTestCase(CliTestCase):
    def show_files(self, *args, **kwargs):
        res = self.check("--show-files", *args, **kwargs)
        self.assertEqual(res.code, 0, res)
        return res.stdout.splitlines()


# --- --files-from ---------------------------------------------------------------------------------


class FilesFromTest(MonorepoTestCase):
    def setUp(self):
        super().setUp()
        write(self.path("a.py"), TORCH)
        write(self.path("clean.py"), CLEAN)
        write(self.path("pkg", "b.py"), LOCAL)
        write(self.path("pkg", "sub", "c.pyi"), MODULE)
        write(self.path("nb.ipynb"), notebook_text(NOTEBOOK))
        write(self.path("README.md"), TORCH)
        write(self.path("script"), TORCH)
        write(self.path("unlisted.py"), TORCH)
        write(self.path("build", "gen.py"), TORCH)   # excluded from walks by default

    LIST = ("a.py\n"
            "\n"
            "README.md\n"                 # not Python: skipped
            "clean.py\r\n"                # CRLF
            "deleted.py\n"                # gone: a note
            "./nb.ipynb\n"
            "script\n"                    # no extension: skipped
            "pkg/sub\n"                   # a directory: walked
            "build/gen.py\n"              # named: checked though a walk would skip it
            "   \n"                       # a path of blanks that does not exist
            "a.py")                       # twice, no final newline
    LISTED = ["a.py", "build/gen.py", "clean.py", "nb.ipynb", "pkg/sub/c.pyi"]

    def assert_listed(self, res):
        self.assertEqual(res.code, 0, res)
        self.assertEqual(res.stdout.splitlines(), self.LISTED)
        self.assertEqual(res.stderr.splitlines(), [
            "note: deleted.py: listed in --files-from but does not exist; skipped",
            "note:    : listed in --files-from but does not exist; skipped"])

    def test_list_in_a_file(self):
        write(self.path("list.txt"), self.LIST)
        self.assert_listed(self.check("--show-files", "--files-from", "list.txt"))
        res = self.check("--output-format", "json", "--files-from", "list.txt")
        self.assertEqual(res.code, 1, res)
        self.assertEqual(sorted({d["filename"] for d in json.loads(res.stdout)}),
                         ["a.py", "build/gen.py", "nb.ipynb", "pkg/sub/c.pyi"])
        res = self.check("-q", "--files-from", "list.txt")
        self.assertNotIn("note:", res.stderr)

    def test_list_on_stdin(self):
        self.assert_listed(self.check("--show-files", "--files-from", "-", stdin=self.LIST))

    def test_list_from_a_pipe(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)

        def feed():
            with open(fifo, "w") as f:
                f.write(self.LIST)
        writer = threading.Thread(target=feed)
        writer.start()
        try:
            self.assert_listed(self.check("--show-files", "--files-from", fifo))
        finally:
            writer.join(timeout=60)

    def test_nul_separated_list(self):
        write(self.path("new\nline.py"), TORCH)
        write(self.path("\"quoted\".py"), TORCH)
        listing = "\0".join(["a.py", "new\nline.py", "", "\"quoted\".py", "README.md", "gone.py"]) + "\0"
        res = self.check("--show-files", "-z", "--files-from", "-", stdin=listing)
        self.assertEqual(res.code, 0, res)
        self.assertEqual(res.stdout, "\"quoted\".py\na.py\nnew\nline.py\n")
        self.assertIn("note: gone.py:", res.stderr)
        res = self.check("-z")
        self.assertEqual(res.code, 2, res)
        self.assertIn("--null requires --files-from", res.stderr)

    def test_git_quoted_lines_are_decoded(self):
        write(self.path("café.py"), TORCH)
        write(self.path("tab\there.py"), TORCH)
        write(self.path("\"odd.py"), TORCH)
        listing = '"caf\\303\\251.py"\n"tab\\there.py"\n"\\"odd.py"\n"bad\\q.py"\n'
        res = self.check("--show-files", "--files-from", "-", stdin=listing)
        self.assertEqual(res.stdout.splitlines(), ["\"odd.py", "café.py", "tab\there.py"], res)
        # Not git's quoting (an unknown escape): taken as it is, and no such file exists.
        self.assertEqual(res.stderr, 'note: "bad\\q.py": listed in --files-from but does not exist; skipped\n')

    def test_union_with_paths(self):
        write(self.path("list.txt"), "a.py\npkg/b.py\n")
        self.assertEqual(self.show_files("--files-from", "list.txt", "pkg", "clean.py"),
                         ["a.py", "clean.py", "pkg/b.py", "pkg/sub/c.pyi"])
        # An empty list checks nothing: no walk of `.` by default.
        write(self.path("empty.txt"), "")
        self.assertEqual(self.show_files("--files-from", "empty.txt"), [])
        res = self.check("--files-from", "empty.txt")
        self.assertEqual((res.code, res.stdout), (0, "All checks passed!\n"), res)

    def test_missing_or_unreadable_list_is_an_error(self):
        os.mkdir(self.path("dir"))
        for source, reason in (("nolist.txt", "no such file or directory"), ("dir", "is a directory")):
            with self.subTest(source=source):
                res = self.check("--files-from", source)
                self.assertEqual(res.code, 2, res)
                self.assertEqual(res.stdout, "")
                self.assertEqual(res.stderr, f"error: --files-from {source}: {reason}\n")
        res = self.check("--files-from")
        self.assertEqual(res.code, 2, res)

    def test_list_with_source_on_stdin_is_a_usage_error(self):
        write(self.path("list.txt"), "a.py\n")
        for args in (["--stdin-filename", "x.py"], ["-"]):
            res = self.check("--files-from", "list.txt", *args, stdin=TORCH)
            self.assertEqual(res.code, 2, res)
            self.assertIn("--files-from cannot be used when the source is read from standard input",
                          res.stderr)

    @unittest.skipUnless(shutil.which("git"), "git is not installed")
    def test_git_diff_name_only(self):
        env = dict(os.environ, HOME=self.path("home"), GIT_CONFIG_NOSYSTEM="1",
                   GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
        git = lambda *args: subprocess.run(["git", *args], cwd=self.dir, env=env, check=True,
                                           capture_output=True).stdout
        git("init", "-q")
        git("add", "-A")
        git("commit", "-qm", "base")
        os.remove(self.path("pkg", "b.py"))                          # deleted
        write(self.path("a.py"), TORCH + "z = 1\n")                  # modified
        write(self.path("README.md"), "changed\n")                   # not Python
        write(self.path("données", "été.py"), TORCH + TORCH)         # added, quoted by git
        git("add", "-A")
        for args in (["diff", "--name-only", "HEAD"], ["diff", "--name-only", "-z", "HEAD"]):
            with self.subTest(args=args):
                listing = git(*args)
                self.assertIn(b'"donn\\303\\251es/\\303\\251t\\303\\251.py"' if "-z" not in args
                              else "données/été.py".encode(), listing)
                flags = ["-z"] if "-z" in args else []
                res = self.check("--output-format", "json", "--files-from", "-", *flags, stdin=listing)
                self.assertEqual(res.code, 1, res)
                self.assertEqual(sorted({d["filename"] for d in json.loads(res.stdout)}),
                                 ["a.py", "données/été.py"])
                self.assertEqual(res.stderr,
                                 "note: pkg/b.py: listed in --files-from but does not exist; skipped\n")


if __name__ == "__main__":
    unittest.main()
