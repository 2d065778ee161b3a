"""Monorepos and CI matrices: `check --files-from`, `check --shard I/N` and `merge-reports`.

Drives the built binary as test_cli.py does (ASYNCFIX_BIN). Run one area by hand:
    ASYNCFIX_BIN=build/ci/cli/asyncfix python3 -m unittest -v test_shard.MergeReportsTest
"""

import json
import os
import shutil
import subprocess
import threading
import unittest

from test_cli import (CLEAN, LOCAL, MODULE, NOTEBOOK, TORCH, TORCH_FIXED, CliTestCase, code_cell,
                      notebook_text, read, run, write)


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


# --- --shard --------------------------------------------------------------------------------------


MASK = (1 << 64) - 1


def shard_of(path, count):
    """The share `check --shard I/count` puts `path` in, as the README specifies it: FNV-1a
    (64-bit) over the path's bytes, MurmurHash3's fmix64, modulo count, plus one."""
    h = 0xCBF29CE484222325
    for byte in path.encode("utf-8", "surrogateescape"):
        h = ((h ^ byte) * 0x100000001B3) & MASK
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & MASK
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & MASK
    h ^= h >> 33
    return h % count + 1


# Names whose order changes when percent-encoded (`:` and non-ASCII bytes sort after digits and
# letters as bytes, but `%` sorts before them): SARIF's URIs are not in the run's order.
ODD_NAMES = {"a:b.py": TORCH, "a1.py": LOCAL, "é/ü.py": TORCH, "z~.py": MODULE,
             "with space.py": LOCAL + TORCH}

CLEAN_NOTEBOOK = {"cells": [code_cell("import torch\nx = torch.zeros(3)\n")], "metadata": {},
                  "nbformat": 4, "nbformat_minor": 5}


def make_tree(root):
    """A tree with findings in many files (several per file, unsafe and safe fixes, a notebook),
    clean files and a non-Python file; returns the Python files a walk of `root` checks."""
    files = {}
    bodies = [TORCH, LOCAL + TORCH, MODULE, CLEAN, TORCH + MODULE]
    dirs = ["", "src/", "src/pkg/", "tests/", "tools/x y/", "src/pkg/deep/er/"]
    for i in range(42):
        files[f"{dirs[i % len(dirs)]}m{i:02}.py"] = bodies[i % len(bodies)]
    files.update(ODD_NAMES)
    files["stubs/t.pyi"] = MODULE
    files["nb/train.ipynb"] = notebook_text(NOTEBOOK)
    files["nb/clean.ipynb"] = notebook_text(CLEAN_NOTEBOOK)
    for name, body in files.items():
        write(os.path.join(root, name), body)
    write(os.path.join(root, "notes.txt"), TORCH)
    return sorted(files, key=lambda n: n.encode())


class ShardTest(MonorepoTestCase):
    def test_shards_partition_the_walk(self):
        expected = make_tree(self.dir)
        everything = self.show_files()
        self.assertEqual(everything, expected)
        for n in range(1, 5):
            shares = [self.show_files("--shard", f"{i}/{n}") for i in range(1, n + 1)]
            with self.subTest(n=n):
                union = [f for share in shares for f in share]
                self.assertEqual(sorted(union), everything)                 # covers every file
                self.assertEqual(len(union), len(set(union)))               # each once: disjoint
                for i, share in enumerate(shares, start=1):
                    self.assertEqual(share, sorted(share))                  # still in path order
                    self.assertEqual(share, [f for f in everything if shard_of(f, n) == i])
                if n > 1:
                    self.assertTrue(all(len(share) < len(everything) for share in shares), shares)

    def test_a_files_share_depends_on_its_path_only(self):
        names = make_tree(self.dir)
        before = {i: set(self.show_files("--shard", f"{i}/3")) for i in (1, 2, 3)}
        # Half the files gone, others added: the remaining files keep their share.
        for name in names[::2]:
            os.remove(self.path(name))
        for k in range(10):
            write(self.path("new", f"n{k}.py"), TORCH)
        for i in (1, 2, 3):
            after = set(self.show_files("--shard", f"{i}/3"))
            kept = {f for f in after if not f.startswith("new/")}
            self.assertEqual(kept, {f for f in before[i] if f in names[1::2]})

    def test_shares_are_stable_across_releases_and_machines(self):
        # Pinned values of the documented hash: a change to it reshuffles every CI matrix.
        paths = ["data/loader.py", "src/train.py", "models/resnet.py"]
        self.assertEqual([shard_of(p, 4) for p in paths], [1, 2, 3])
        for p in paths:
            write(self.path(p), TORCH)
        for i in range(1, 5):
            self.assertEqual(self.show_files("--shard", f"{i}/4"), paths[i - 1:i])

    def test_spellings_of_a_path_land_in_one_share(self):
        names = [f"src/m{i}.py" for i in range(12)]
        for name in names:
            write(self.path(name), TORCH)
        for n in (2, 3):
            for name in names:
                share = shard_of(name, n)
                for spelling in (name, "./" + name, self.path(name), "src/../" + name):
                    with self.subTest(spelling=spelling, n=n):
                        self.assertEqual(len(self.show_files("--shard", f"{share}/{n}", spelling)), 1)
                        other = share % n + 1
                        self.assertEqual(self.show_files("--shard", f"{other}/{n}", spelling), [])
        # The path is taken relative to the working directory: run every shard from one place.
        for i in (1, 2, 3):
            res = run(["check", "--show-files", "--shard", f"{i}/3"], cwd=self.path("src"))
            self.assertEqual(res.stdout.splitlines(),
                             sorted(n[4:] for n in names if shard_of(n[4:], 3) == i), res)

    def test_named_files_are_sharded(self):
        names = make_tree(self.dir)
        named = [n for n in names if n.startswith("src/")]
        everything = self.show_files(*named)
        self.assertEqual(everything, named)
        shares = [self.show_files("--shard", f"{i}/3", *named) for i in (1, 2, 3)]
        self.assertEqual(sorted(f for s in shares for f in s), named)
        self.assertEqual(sum(map(len, shares)), len(named))

    def test_lists_are_sharded(self):
        names = [f"s/m{i}.py" for i in range(20)]
        for name in names:
            write(self.path(name), TORCH)
        write(self.path("list.txt"), "\n".join(names[:15]) + "\n")
        for i in (1, 2, 3):
            self.assertEqual(self.show_files("--files-from", "list.txt", "--shard", f"{i}/3"),
                             sorted(n for n in names[:15] if shard_of(n, 3) == i))

    def test_fix_touches_only_its_share(self):
        names = [f"m{i}.py" for i in range(16)]
        for name in names:
            write(self.path(name), TORCH)
        res = self.check("--fix", "--shard", "2/3")
        self.assertEqual(res.code, 0, res)
        for name in names:
            self.assertEqual(read(self.path(name)).decode(),
                             TORCH_FIXED if shard_of(name, 3) == 2 else TORCH, name)
        contents = [read(self.path(n)).decode() for n in names]
        self.assertIn(TORCH, contents)
        self.assertIn(TORCH_FIXED, contents)

    def test_bad_shard_values_are_usage_errors(self):
        write(self.path("a.py"), TORCH)
        cases = {
            "0/4": "I must be between 1 and N", "5/4": "I must be between 1 and N",
            "1/0": "N must be at least 1", "0/0": "N must be at least 1",
            "abc": "expected I/N", "1": "expected I/N", "1/": "expected I/N", "/4": "expected I/N",
            "1/4/2": "expected I/N", "-1/4": "expected I/N", "+1/4": "expected I/N",
            " 1/4": "expected I/N", "1/4 ": "expected I/N", "1.0/4": "expected I/N",
            "1/99999999999999999999": "expected I/N", "": "expected I/N",
        }
        for value, reason in cases.items():
            with self.subTest(value=value):
                res = self.check("--shard", value)
                self.assertEqual(res.code, 2, res)
                self.assertEqual(res.stdout, "")
                self.assertIn(f"error: invalid --shard `{value}`: {reason}", res.stderr)
        res = self.check("--shard", "1/1")
        self.assertEqual(res.code, 1, res)

    def test_shard_of_stdin_is_a_usage_error(self):
        for args in (["--stdin-filename", "x.py"], ["-"]):
            res = self.check("--shard", "1/2", *args, stdin=TORCH)
            self.assertEqual(res.code, 2, res)
            self.assertIn("--shard cannot be used when the source is read from standard input", res.stderr)


# --- merge-reports --------------------------------------------------------------------------------


class MergeReportsTest(MonorepoTestCase):
    def output(self, *args):
        res = self.check(*args)
        self.assertIn(res.code, (0, 1), res)
        self.assertEqual(res.stderr, "", res)
        return res.stdout_bytes

    def merge(self, fmt, *reports, stdin=None):
        return run(["merge-reports", "--output-format", fmt, *reports], cwd=self.dir, stdin=stdin)

    def shard_reports(self, fmt, n, *args):
        names = []
        for i in range(1, n + 1):
            name = f"shard{i}of{n}.{fmt}"
            with open(self.path(name), "wb") as f:
                f.write(self.output("--output-format", fmt, "--shard", f"{i}/{n}", *args))
            names.append(name)
        return names

    def assert_merges_to_one_run(self, fmt, *args):
        single = self.output("--output-format", fmt, *args)
        for n in range(1, 5):
            reports = self.shard_reports(fmt, n, *args)
            # Whatever order the CI hands the reports over in.
            for order in (reports, reports[::-1], reports[1:] + reports[:1]):
                with self.subTest(fmt=fmt, n=n, order=order):
                    res = self.merge(fmt, *order)
                    self.assertEqual((res.code, res.stderr), (0, ""), res)
                    self.assertEqual(res.stdout_bytes, single)
        return single

    def test_merged_json_is_one_run_byte_for_byte(self):
        names = make_tree(self.dir)
        single = json.loads(self.assert_merges_to_one_run("json"))
        files = [d["filename"] for d in single]
        # Findings in many files, notebooks too, and not in every file.
        self.assertIn("nb/train.ipynb", files)
        self.assertGreater(len(set(files)), 25)
        self.assertLess(len(set(files)), len(names))

    def test_merged_json_lines_is_one_run_byte_for_byte(self):
        make_tree(self.dir)
        self.assertGreater(len(self.assert_merges_to_one_run("json-lines").splitlines()), 60)

    def test_merged_sarif_is_one_run_byte_for_byte(self):
        make_tree(self.dir)
        single = json.loads(self.assert_merges_to_one_run("sarif"))
        results = single["runs"][0]["results"]
        uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
        self.assertIn("nb/train.ipynb", uris)
        self.assertIn("fixes", results[0])
        # The run's order is not the order of its URIs: a merge that sorted by URI would fail.
        self.assertNotEqual(uris, sorted(uris))

    def test_merge_of_named_files_and_lists(self):
        names = make_tree(self.dir)
        write(self.path("list.txt"), "\n".join(names[::3]) + "\n")
        self.assert_merges_to_one_run("json", "--files-from", "list.txt", "src")

    def test_reports_without_findings_change_nothing(self):
        make_tree(self.dir)
        write(self.path("clean", "c.py"), CLEAN)
        for fmt in ("json", "json-lines", "sarif"):
            with self.subTest(fmt=fmt):
                with open(self.path("all." + fmt), "wb") as f:
                    f.write(self.output("--output-format", fmt))
                with open(self.path("none." + fmt), "wb") as f:
                    f.write(self.output("--output-format", fmt, "clean"))
                res = self.merge(fmt, "none." + fmt, "all." + fmt, "none." + fmt)
                self.assertEqual((res.code, res.stderr), (0, ""), res)
                self.assertEqual(res.stdout_bytes, read(self.path("all." + fmt)))
                res = self.merge(fmt, "none." + fmt)
                self.assertEqual(res.stdout_bytes, read(self.path("none." + fmt)))

    def test_a_report_on_stdin(self):
        make_tree(self.dir)
        single = self.output("--output-format", "sarif")
        first, second = self.shard_reports("sarif", 2)
        res = self.merge("sarif", first, "-", stdin=read(self.path(second)))
        self.assertEqual((res.code, res.stdout_bytes), (0, single), res)
        res = self.merge("sarif", "-", "-", stdin=read(self.path(second)))
        self.assertEqual(res.code, 2, res)

    def test_overlapping_reports_are_refused(self):
        make_tree(self.dir)
        for fmt in ("json", "sarif"):
            with self.subTest(fmt=fmt):
                first, _ = self.shard_reports(fmt, 2)
                res = self.merge(fmt, first, first)
                self.assertEqual(res.code, 2, res)
                self.assertEqual(res.stdout, "")
                self.assertIn(f"is in both {first} and {first}", res.stderr)

    def test_reports_of_another_format_or_no_report(self):
        make_tree(self.dir)
        json_report, = self.shard_reports("json", 1)
        sarif_report, = self.shard_reports("sarif", 1)
        write(self.path("garbage.json"), "[{\"filename\": ")
        cases = [
            ("sarif", json_report, "not a SARIF log with one run"),
            ("json", sarif_report, "not an asyncfix JSON report"),
            ("json-lines", sarif_report, "not valid JSON"),
            ("json", "garbage.json", "garbage.json: not valid JSON"),
            ("json", "missing.json", "error: missing.json: no such file or directory"),
        ]
        for fmt, report, message in cases:
            with self.subTest(fmt=fmt, report=report):
                res = self.merge(fmt, report)
                self.assertEqual(res.code, 2, res)
                self.assertIn(message, res.stderr)
        for args in (["merge-reports", json_report], ["merge-reports", "--output-format", "full", json_report],
                     ["merge-reports", "--output-format", "json"]):
            res = run(args, cwd=self.dir)
            self.assertEqual(res.code, 2, res)

    def test_sarif_of_other_versions_or_directories(self):
        make_tree(self.dir)
        first, second = self.shard_reports("sarif", 2)
        log = json.loads(read(self.path(second)))
        log["runs"][0]["tool"]["driver"]["version"] = "0.0.1"
        write(self.path("old.sarif"), json.dumps(log, indent=2, ensure_ascii=False) + "\n")
        res = self.merge("sarif", first, "old.sarif")
        self.assertEqual(res.code, 2, res)
        self.assertIn("differ in `tool`", res.stderr)

        log = json.loads(read(self.path(second)))
        log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] = "file:///elsewhere/"
        write(self.path("moved.sarif"), json.dumps(log, indent=2, ensure_ascii=False) + "\n")
        res = self.merge("sarif", first, "moved.sarif")
        self.assertEqual(res.code, 0, res)
        self.assertIn("moved.sarif was written in another directory", res.stderr)
        self.assertEqual(res.stdout_bytes, self.output("--output-format", "sarif"))


if __name__ == "__main__":
    unittest.main()
