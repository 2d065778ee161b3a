"""Tests of the `asyncfix` command line, driving the built binary.

The binary comes from the ASYNCFIX_BIN environment variable (CTest sets it). Every test works in
its own temporary directory; nothing depends on the repository's paths, timing or scheduling.

Run one area by hand:
    ASYNCFIX_BIN=build/dev/cli/asyncfix python3 -m unittest -v test_cli.DiffTest
"""

import json
import os
import pty
import re
import resource
import select
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
import urllib.parse

BIN = os.environ.get("ASYNCFIX_BIN", "")

NOBODY = 65534

# --- sources used throughout --------------------------------------------------------------------

# One AF101 on line 4, column 12; a safe fix.
TORCH = "import torch\n\nx = torch.zeros(3)\ny = x.cuda(async=True)\n"
TORCH_FIXED = "import torch\n\nx = torch.zeros(3)\ny = x.cuda(non_blocking=True)\n"

# Two AF001 on a function local; their (shared) safe fix renames both.
LOCAL = "def f():\n    async = 1\n    return async\n"
LOCAL_FIXED = "def f():\n    async_ = 1\n    return async_\n"

# A module-level name is visible from outside the file: its fix is unsafe.
MODULE = "async = 3\nprint(async)\n"
MODULE_FIXED = "async_ = 3\nprint(async_)\n"

CLEAN = "import torch\n\nx = torch.zeros(3).cuda(non_blocking=True)\n"


def write(path, data, mode=None):
    """Writes str (as UTF-8, newlines untouched) or bytes to `path`, creating parent dirs."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(path, "wb") as f:
        f.write(data)
    if mode is not None:
        os.chmod(path, mode)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def compiles(path):
    """True when CPython (3.11 here) compiles the file.

    The bytes are compiled, as the interpreter reads a script: decoding them first with open()
    would keep a UTF-8 BOM as U+FEFF, which compile() rejects in a str.
    """
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; p = sys.argv[1]; compile(open(p, 'rb').read(), p, 'exec')", path],
        capture_output=True,
    )
    return proc.returncode == 0


class Result:
    def __init__(self, proc):
        self.code = proc.returncode
        self.stdout_bytes = proc.stdout
        self.stderr_bytes = proc.stderr
        self.stdout = proc.stdout.decode("utf-8", "replace")
        self.stderr = proc.stderr.decode("utf-8", "replace")

    def __repr__(self):
        return f"exit {self.code}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


def run(args, cwd, stdin=None, binary=None, preexec_fn=None, env=None):
    """Runs asyncfix with `args` in `cwd`; stdin is bytes or str."""
    if isinstance(stdin, str):
        stdin = stdin.encode("utf-8")
    full_env = dict(os.environ)
    full_env.pop("NO_COLOR", None)
    if env:
        full_env.update(env)
    proc = subprocess.run(
        [binary or BIN] + list(args),
        cwd=cwd,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=120,
        preexec_fn=preexec_fn,
        env=full_env,
    )
    return Result(proc)


def read_terminal(master):
    """Everything a child writes to the pseudo-terminal `master` until it closes (then closed)."""
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace")


def apply_json_edits(text, edits):
    """Applies JSON edits (1-based rows, 1-based code-point columns) to `text` (a str).

    Rows/columns are converted with Python's own notion of lines and code points, independently
    of the binary, so this checks the binary's position conversion. A leading BOM is not part of
    line 1's columns.
    """
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text[len(bom):]
    lines = body.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(loc):
        return starts[loc["row"] - 1] + loc["column"] - 1

    spans = sorted({(offset(e["location"]), offset(e["end_location"]), e["content"]) for e in edits})
    out, pos = [], 0
    for start, end, content in spans:
        assert start >= pos, "overlapping edits"
        out.append(body[pos:start])
        out.append(content)
        pos = end
    out.append(body[pos:])
    return bom + "".join(out)


class CliTestCase(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        if not BIN or not os.path.isfile(BIN):
            raise unittest.SkipTest("ASYNCFIX_BIN does not name the built asyncfix binary")

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="asyncfix-cli-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def check(self, *args, **kwargs):
        return run(["check", *args], cwd=self.dir, **kwargs)

    def json_check(self, *args, **kwargs):
        res = self.check("--output-format", "json", *args, **kwargs)
        self.assertIn(res.code, (0, 1), res)
        return json.loads(res.stdout)


# --- exit codes ---------------------------------------------------------------------------------


class ExitCodeTest(CliTestCase):
    def test_clean_tree_exits_0(self):
        write(self.path("ok.py"), CLEAN)
        res = self.check()
        self.assertEqual(res.code, 0, res)
        self.assertIn("All checks passed!", res.stdout)

    def test_findings_exit_1(self):
        write(self.path("t.py"), TORCH)
        res = self.check()
        self.assertEqual(res.code, 1, res)

    def test_exit_zero_turns_1_into_0(self):
        write(self.path("t.py"), TORCH)
        res = self.check("--exit-zero")
        self.assertEqual(res.code, 0, res)
        self.assertIn("AF101", res.stdout)

    def test_missing_path_exits_2_but_checks_the_rest(self):
        write(self.path("t.py"), TORCH)
        res = self.check("nope.py", "t.py")
        self.assertEqual(res.code, 2, res)
        self.assertIn("error: nope.py: no such file or directory", res.stderr)
        self.assertIn("t.py:4:12: AF101", res.stdout)

    def test_exit_zero_does_not_hide_errors(self):
        res = self.check("--exit-zero", "nope.py")
        self.assertEqual(res.code, 2, res)

    def test_fix_of_everything_exits_0(self):
        write(self.path("t.py"), TORCH)
        res = self.check("--fix")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(read(self.path("t.py")).decode(), TORCH_FIXED)

    def test_fix_with_unsafe_leftovers_exits_1(self):
        write(self.path("m.py"), MODULE)
        res = self.check("--fix")
        self.assertEqual(res.code, 1, res)
        self.assertEqual(read(self.path("m.py")).decode(), MODULE)

    def test_usage_errors_exit_2(self):
        write(self.path("t.py"), TORCH)
        for args in (
            ["check", "--no-such-option"],
            ["check", "--output-format", "xml"],
            ["check", "--target-version", "py27"],
            ["check", "--target-version", "py315"],
            ["check", "--rename-style", "nope"],
            ["check", "--rename-style", "{name}-x"],
            ["check", "--jobs", "many"],
            ["frobnicate"],
            [],
        ):
            with self.subTest(args=args):
                res = run(args, cwd=self.dir)
                self.assertEqual(res.code, 2, res)
                self.assertTrue(res.stderr.strip(), "a usage error must say what is wrong")

    def test_valid_options_are_accepted(self):
        write(self.path("t.py"), LOCAL)
        for args in (
            ["--target-version", "py36"],
            ["--target-version", "py314"],
            ["--rename-style", "is_async"],
            ["--rename-style", "{name}_"],
            ["-j", "1"],
            ["--jobs", "3"],
        ):
            with self.subTest(args=args):
                res = self.check(*args)
                self.assertEqual(res.code, 1, res)

    def test_rename_style_is_used_by_the_fix(self):
        write(self.path("t.py"), LOCAL)
        res = self.check("--fix", "--rename-style", "is_async")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(read(self.path("t.py")).decode(), LOCAL.replace("async", "is_async"))

    def test_version_and_help(self):
        res = run(["--version"], cwd=self.dir)
        self.assertEqual(res.code, 0, res)
        self.assertRegex(res.stdout.strip(), r"^asyncfix \d+\.\d+\.\d+")
        # `asyncfix lsp` is `asyncfix-lsp`, whose --version an editor's health check may ask.
        res = run(["lsp", "--version"], cwd=self.dir)
        self.assertEqual(res.code, 0, res)
        self.assertRegex(res.stdout.strip(), r"^asyncfix-lsp \d+\.\d+\.\d+$")
        for args in (["--help"], ["check", "--help"], ["rule", "--help"], ["lsp", "--help"]):
            with self.subTest(args=args):
                res = run(args, cwd=self.dir)
                self.assertEqual(res.code, 0, res)
                self.assertIn("Usage", res.stdout + res.stderr)
        self.assertIn("--unsafe-fixes", run(["check", "--help"], cwd=self.dir).stdout)


# --- output formats -----------------------------------------------------------------------------


class JsonOutputTest(CliTestCase):
    KEYS = ["code", "name", "message", "severity", "filename", "location", "end_location", "fix", "url"]

    def test_shape_of_a_fixable_diagnostic(self):
        write(self.path("t.py"), TORCH)
        out = self.json_check("t.py")
        self.assertEqual(len(out), 1, out)
        d = out[0]
        self.assertEqual(list(d.keys()), self.KEYS)
        self.assertEqual(d["code"], "AF101")
        self.assertEqual(d["name"], "torch-async-kwarg")
        self.assertEqual(d["severity"], "error")
        self.assertEqual(d["filename"], "t.py")
        self.assertIsInstance(d["message"], str)
        self.assertTrue(d["message"])
        # The range is the `async` token, not the call.
        self.assertEqual(d["location"], {"row": 4, "column": 12})
        self.assertEqual(d["end_location"], {"row": 4, "column": 17})
        self.assertEqual(list(d["fix"].keys()), ["applicability", "message", "edits"])
        self.assertEqual(d["fix"]["applicability"], "safe")
        self.assertTrue(d["fix"]["message"])
        for edit in d["fix"]["edits"]:
            self.assertEqual(list(edit.keys()), ["content", "location", "end_location"])
        self.assertEqual(apply_json_edits(TORCH, d["fix"]["edits"]), TORCH_FIXED)
        rule = json.loads(run(["rule", "AF101", "--output-format", "json"], cwd=self.dir).stdout)
        self.assertEqual(d["url"], rule["url"])
        self.assertTrue(d["url"].endswith("/rules/AF101.md"), d["url"])  # the rule's page (tests/docs: it resolves)

    def test_clean_file_gives_an_empty_array(self):
        write(self.path("ok.py"), CLEAN)
        res = self.check("--output-format", "json")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(json.loads(res.stdout), [])
        self.assertNotIn("All checks passed", res.stdout)

    def test_output_is_pretty_printed_with_two_spaces(self):
        write(self.path("t.py"), TORCH)
        res = self.check("--output-format", "json")
        self.assertTrue(res.stdout.startswith("[\n  {\n    \"code\": \"AF101\""), res.stdout)

    def test_columns_count_code_points(self):
        prefix = 's = "é😀"; y = x.cuda('
        line = prefix + "async=True)\n"
        write(self.path("u.py"), line)
        (d,) = self.json_check("u.py")
        column = len(prefix) + 1  # code points
        byte_column = len(prefix.encode("utf-8")) + 1
        utf16_column = len(prefix.encode("utf-16-le")) // 2 + 1
        self.assertNotEqual(column, byte_column)
        self.assertNotEqual(column, utf16_column)
        self.assertEqual(d["location"], {"row": 1, "column": column})
        self.assertEqual(d["end_location"], {"row": 1, "column": column + 5})
        self.assertEqual(apply_json_edits(line, d["fix"]["edits"]),
                         line.replace("async=", "non_blocking="))

    def test_bom_is_not_part_of_line_1(self):
        text = "\ufeffy = x.cuda(async=True)\nz = x.cuda(async=True)\n"
        write(self.path("b.py"), text)
        out = self.json_check("b.py")
        self.assertEqual([d["location"] for d in out],
                         [{"row": 1, "column": 12}, {"row": 2, "column": 12}])
        for d in out:
            fixed = apply_json_edits(text, d["fix"]["edits"])
            self.assertEqual(fixed.count("non_blocking=True"), 1)

    def test_crlf_positions(self):
        text = TORCH.replace("\n", "\r\n")
        write(self.path("c.py"), text)
        (d,) = self.json_check("c.py")
        self.assertEqual(d["location"], {"row": 4, "column": 12})

    def test_edits_are_in_the_original_coordinates(self):
        # Several diagnostics per file, one rename touching two lines: applying every fix's edits
        # to the original text (independently converted here) must give what --fix writes.
        text = "é = 1\n" + TORCH + "\n" + LOCAL + "z = x.to('cuda', async=False)  # 😀\n"
        write(self.path("e.py"), text)
        out = self.json_check("e.py")
        self.assertEqual(sorted(d["code"] for d in out), ["AF001", "AF001", "AF101", "AF101"])
        edits = [e for d in out for e in d["fix"]["edits"]]
        expected = apply_json_edits(text, edits)
        res = self.check("--fix", "e.py")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(read(self.path("e.py")).decode(), expected)

    def test_unsafe_fix_is_reported_as_unsafe(self):
        write(self.path("m.py"), MODULE)
        out = self.json_check("m.py")
        self.assertEqual([d["code"] for d in out], ["AF001", "AF001"])
        self.assertEqual({d["fix"]["applicability"] for d in out}, {"unsafe"})
        self.assertEqual(apply_json_edits(MODULE, out[0]["fix"]["edits"]), MODULE_FIXED)

    def test_severity_follows_the_target_version(self):
        write(self.path("t.py"), TORCH)
        self.assertEqual(self.json_check("--target-version", "py36")[0]["severity"], "warning")
        self.assertEqual(self.json_check("--target-version", "py37")[0]["severity"], "error")

    def test_json_lines(self):
        write(self.path("t.py"), TORCH)
        write(self.path("l.py"), LOCAL)
        array = self.json_check()
        res = self.check("--output-format", "json-lines")
        self.assertEqual(res.code, 1, res)
        lines = res.stdout.splitlines()
        self.assertEqual(len(lines), 3)
        self.assertEqual([json.loads(line) for line in lines], array)
        for line in lines:
            self.assertTrue(line.startswith("{\"code\":"), line)  # compact, one per line
        self.assertEqual([d["filename"] for d in array], ["l.py", "l.py", "t.py"])

    def test_json_lines_clean_is_empty(self):
        write(self.path("ok.py"), CLEAN)
        res = self.check("--output-format", "json-lines")
        self.assertEqual((res.code, res.stdout), (0, ""), res)


class TextOutputTest(CliTestCase):
    def test_concise(self):
        write(self.path("t.py"), TORCH)
        write(self.path("m.py"), MODULE)
        res = self.check("--output-format", "concise")
        self.assertEqual(res.code, 1, res)
        lines = res.stdout.splitlines()
        self.assertRegex(lines[0], r"^m\.py:1:1: AF001 `async`")  # unsafe: no [*]
        self.assertRegex(lines[1], r"^m\.py:2:7: AF001 `async`")
        self.assertRegex(lines[2], r"^t\.py:4:12: AF101 \[\*\] \S")
        self.assertIn("Found 3 errors.", lines)
        self.assertIn("[*] 1 fixable with the --fix option "
                      "(2 hidden fixes can be enabled with the --unsafe-fixes option).", lines)

        res = self.check("--output-format", "concise", "--unsafe-fixes")
        lines = res.stdout.splitlines()
        self.assertRegex(lines[0], r"^m\.py:1:1: AF001 \[\*\] ")
        self.assertIn("[*] 3 fixable with the --fix option.", lines)

    def test_full_shows_the_line_and_a_caret_under_the_token(self):
        write(self.path("t.py"), TORCH)
        res = self.check()
        self.assertEqual(res.code, 1, res)
        lines = res.stdout.splitlines()
        self.assertRegex(lines[0], r"^t\.py:4:12: AF101 \[\*\] \S")
        source = next(l for l in lines if l.startswith("4 | "))
        self.assertEqual(source, "4 | y = x.cuda(async=True)")
        caret = lines[lines.index(source) + 1]
        self.assertTrue(caret.startswith("  | "), caret)
        self.assertEqual(caret.index("^"), source.index("async"))
        self.assertEqual(caret.count("^"), len("async"))
        self.assertTrue(any(re.match(r"^  = help: \S", l) for l in lines), lines)
        self.assertIn("Found 1 error.", lines)
        self.assertIn("[*] 1 fixable with the --fix option.", lines)

    def test_full_caret_with_tabs_and_wide_characters(self):
        text = "if True:\n\ts = 'é😀'; y = x.cuda(async=True)\n"
        write(self.path("t.py"), text)
        lines = self.check().stdout.splitlines()
        source = next(l for l in lines if l.startswith("2 | "))
        self.assertEqual(source, "2 | \ts = 'é😀'; y = x.cuda(async=True)")
        caret = lines[lines.index(source) + 1]
        # Tabs are kept in both lines; the emoji is two columns wide on a terminal (é is one), so
        # the caret sits under `async` on screen.
        expected = "  | \t" + " " * (len("s = 'é😀'; y = x.cuda(") + 1) + "^^^^^"
        self.assertEqual(caret[: len(expected)], expected)

    def test_full_caret_under_cjk(self):
        write(self.path("t.py"), "x = '中文'; y.cuda(async=True)\n")
        lines = self.check().stdout.splitlines()
        source = next(l for l in lines if l.startswith("1 | "))
        caret = lines[lines.index(source) + 1]
        # Two CJK characters: two extra columns.
        self.assertEqual(caret, "  | " + " " * (len("x = '中文'; y.cuda(") + 2) + "^^^^^ AF101")

    def test_full_unsafe_fix_hint(self):
        write(self.path("m.py"), MODULE)
        lines = self.check().stdout.splitlines()
        helps = [l for l in lines if "= help:" in l]
        self.assertEqual(len(helps), 2, lines)
        for line in helps:
            self.assertIn("--unsafe-fixes", line)
        self.assertIn("No fixes available (2 hidden fixes can be enabled with the --unsafe-fixes "
                      "option).", lines)

    def test_fix_summary(self):
        write(self.path("t.py"), TORCH)
        write(self.path("m.py"), MODULE)
        res = self.check("--fix", "--output-format", "concise")
        self.assertEqual(res.code, 1, res)
        self.assertIn("Fixed 1 error (2 remaining).", res.stdout.splitlines())

    def test_quiet_prints_only_diagnostics(self):
        write(self.path("t.py"), TORCH)
        res = self.check("--quiet", "--output-format", "concise")
        self.assertEqual(res.code, 1, res)
        self.assertEqual(len(res.stdout.splitlines()), 1, res)
        write(self.path("t.py"), CLEAN)
        res = self.check("--quiet")
        self.assertEqual((res.code, res.stdout), (0, ""), res)

    def test_statistics(self):
        write(self.path("t.py"), TORCH + "z = y.to('cuda', async=True)\n")
        write(self.path("m.py"), MODULE + LOCAL)
        res = self.check("--statistics")
        self.assertEqual(res.code, 1, res)
        rows = [re.split(r"\t", l) for l in res.stdout.splitlines()]
        self.assertEqual([[c.strip() for c in r] for r in rows],
                         [["4", "AF001", "[*] async-identifier"],
                          ["2", "AF101", "[*] torch-async-kwarg"]])
        res = self.check("--statistics", "--output-format", "json")
        self.assertEqual(json.loads(res.stdout)[0],
                         {"code": "AF001", "name": "async-identifier", "count": 4, "fixable": True})

    def test_no_color_in_a_pipe(self):
        write(self.path("t.py"), TORCH)
        self.assertNotIn("\x1b[", self.check().stdout)

    def _run_on_terminal(self, env):
        try:
            master, slave = pty.openpty()
        except OSError as e:
            self.skipTest(f"no pseudo-terminal available: {e}")
        full_env = dict(os.environ)
        full_env.pop("NO_COLOR", None)
        full_env.update(env)
        proc = subprocess.Popen([BIN, "check"], cwd=self.dir, stdout=slave,
                                stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=full_env)
        os.close(slave)
        terminal = read_terminal(master)
        self.assertEqual(proc.wait(timeout=60), 1)
        return terminal

    def test_color_on_a_terminal_unless_no_color(self):
        write(self.path("t.py"), TORCH)
        self.assertIn("\x1b[", self._run_on_terminal({"TERM": "xterm"}))
        plain = self._run_on_terminal({"TERM": "xterm", "NO_COLOR": "1"})
        self.assertNotIn("\x1b[", plain)
        self.assertIn("AF101", plain)


# --- --diff -------------------------------------------------------------------------------------


class DiffTest(CliTestCase):
    def assert_untouched(self, path, before, stat_before):
        self.assertEqual(read(path), before)
        after = os.stat(path)
        self.assertEqual((after.st_ino, after.st_mtime_ns), (stat_before.st_ino, stat_before.st_mtime_ns))

    def test_diff_prints_the_change_and_writes_nothing(self):
        write(self.path("t.py"), TORCH)
        st = os.stat(self.path("t.py"))
        res = self.check("--diff")
        self.assertEqual(res.code, 1, res)
        self.assertEqual(res.stdout, (
            "--- a/t.py\n"
            "+++ b/t.py\n"
            "@@ -1,4 +1,4 @@\n"
            " import torch\n"
            " \n"
            " x = torch.zeros(3)\n"
            "-y = x.cuda(async=True)\n"
            "+y = x.cuda(non_blocking=True)\n"))
        self.assertIn("Would fix 1 error.", res.stderr)
        self.assert_untouched(self.path("t.py"), TORCH.encode(), st)
        self.assertEqual(os.listdir(self.dir), ["t.py"])

    def test_no_changes_exit_0_and_empty_output(self):
        write(self.path("ok.py"), CLEAN)
        write(self.path("m.py"), MODULE)  # only an unsafe fix: not applied without --unsafe-fixes
        res = self.check("--diff")
        self.assertEqual((res.code, res.stdout), (0, ""), res)
        self.assertIn("--unsafe-fixes", res.stderr)

    def test_exit_zero(self):
        write(self.path("t.py"), TORCH)
        self.assertEqual(self.check("--diff", "--exit-zero").code, 0)

    def test_diff_with_fix_still_writes_nothing(self):
        write(self.path("t.py"), TORCH)
        st = os.stat(self.path("t.py"))
        res = self.check("--diff", "--fix")
        self.assertEqual(res.code, 1, res)
        self.assertIn("+y = x.cuda(non_blocking=True)\n", res.stdout)
        self.assert_untouched(self.path("t.py"), TORCH.encode(), st)

    def test_separate_hunks_with_three_lines_of_context(self):
        lines = [f"a{i} = {i}\n" for i in range(1, 21)]
        lines[1] = "y = x.cuda(async=True)\n"
        lines[17] = "z = x.cuda(async=False)\n"
        write(self.path("h.py"), "".join(lines))
        res = self.check("--diff")
        self.assertEqual(res.code, 1, res)
        headers = [l for l in res.stdout.splitlines() if l.startswith("@@")]
        self.assertEqual(headers, ["@@ -1,5 +1,5 @@", "@@ -15,6 +15,6 @@"])

    def test_crlf_and_missing_final_newline(self):
        write(self.path("c.py"), TORCH.replace("\n", "\r\n"))
        write(self.path("n.py"), "y = x.cuda(async=True)")
        res = self.check("--diff")
        self.assertEqual(res.code, 1, res)
        self.assertIn(b"-y = x.cuda(async=True)\r\n+y = x.cuda(non_blocking=True)\r\n", res.stdout_bytes)
        self.assertIn(b"--- a/n.py\n+++ b/n.py\n@@ -1 +1 @@\n"
                      b"-y = x.cuda(async=True)\n\\ No newline at end of file\n"
                      b"+y = x.cuda(non_blocking=True)\n\\ No newline at end of file\n",
                      res.stdout_bytes)
        self.assertIn("Would fix 2 errors.", res.stderr)

    def test_diff_applies_with_patch_and_matches_fix(self):
        if shutil.which("patch") is None:
            self.skipTest("patch is not installed")
        sources = {
            "lf.py": TORCH + "\n" + LOCAL,
            "crlf.py": (TORCH + LOCAL).replace("\n", "\r\n"),
            "bom.py": "\ufeff" + TORCH,
            "nonl.py": LOCAL + "y = x.cuda(async=True)",
            "pkg/deep.py": "\t\n" + LOCAL + "\n" * 10 + TORCH,
        }
        for name, text in sources.items():
            write(self.path("orig", name), text)
        shutil.copytree(self.path("orig"), self.path("fixed"))
        diff = run(["check", "--diff", "."], cwd=self.path("orig"))
        self.assertEqual(diff.code, 1, diff)
        self.assertEqual(run(["check", "--fix", "."], cwd=self.path("fixed")).code, 0)
        write(self.path("d.patch"), diff.stdout_bytes)
        proc = subprocess.run(["patch", "-p1", "--binary", "-s", "-i", self.path("d.patch")],
                              cwd=self.path("orig"), capture_output=True)
        self.assertEqual(proc.returncode, 0, proc)
        for name in sources:
            self.assertEqual(read(self.path("orig", name)), read(self.path("fixed", name)), name)


# --- --fix --------------------------------------------------------------------------------------


class FixTest(CliTestCase):
    def test_fix_preserves_every_byte_outside_the_edits(self):
        cases = {
            "lf.py": (TORCH + "\n" + LOCAL, TORCH_FIXED + "\n" + LOCAL_FIXED),
            "crlf.py": ((TORCH + LOCAL).replace("\n", "\r\n"),
                        (TORCH_FIXED + LOCAL_FIXED).replace("\n", "\r\n")),
            "bom.py": ("\ufeff" + TORCH, "\ufeff" + TORCH_FIXED),
            "tabs.py": ("def f():\n\tasync = 1  \n\treturn async\t\n\n\n# trailing   \n",
                        "def f():\n\tasync_ = 1  \n\treturn async_\t\n\n\n# trailing   \n"),
            "nonl.py": ("y = x.cuda(async=True)", "y = x.cuda(non_blocking=True)"),
            "mixed.py": ("y = x.cuda(async=True)\r\nz = x.cuda(\n    0,  # device\n    async=True,\n)\r\n",
                         "y = x.cuda(non_blocking=True)\r\nz = x.cuda(\n    0,  # device\n"
                         "    non_blocking=True,\n)\r\n"),
            "strings.py": ("s = 'x.cuda(async=True)'  # async=True\ny = x.cuda(async=True)\n",
                           "s = 'x.cuda(async=True)'  # async=True\ny = x.cuda(non_blocking=True)\n"),
        }
        modes = {"lf.py": 0o640, "crlf.py": 0o755, "bom.py": 0o600, "tabs.py": 0o664}
        for name, (before, _) in cases.items():
            write(self.path("src", name), before, modes.get(name))
        res = self.check("--fix", "src")
        self.assertEqual(res.code, 0, res)
        for name, (_, after) in cases.items():
            with self.subTest(file=name):
                self.assertEqual(read(self.path("src", name)), after.encode("utf-8"))
                if name in modes:
                    self.assertEqual(stat.S_IMODE(os.stat(self.path("src", name)).st_mode), modes[name])
        # No temporary file is left behind.
        self.assertEqual(sorted(os.listdir(self.path("src"))), sorted(cases))

    def test_unchanged_files_are_not_rewritten(self):
        write(self.path("ok.py"), CLEAN)
        write(self.path("m.py"), MODULE)  # has findings, but no fix that may be applied
        write(self.path("t.py"), TORCH)
        before = {n: os.stat(self.path(n)) for n in ("ok.py", "m.py", "t.py")}
        res = self.check("--fix")
        self.assertEqual(res.code, 1, res)
        for name in ("ok.py", "m.py"):
            after = os.stat(self.path(name))
            self.assertEqual((after.st_ino, after.st_mtime_ns),
                             (before[name].st_ino, before[name].st_mtime_ns), name)
        self.assertNotEqual(os.stat(self.path("t.py")).st_ino, before["t.py"].st_ino,
                            "a changed file is replaced by rename")
        # A second run has nothing left to do: fixing is idempotent.
        again = {n: os.stat(self.path(n)).st_mtime_ns for n in ("ok.py", "m.py", "t.py")}
        res = self.check("--fix")
        self.assertEqual(res.code, 1, res)
        self.assertEqual({n: os.stat(self.path(n)).st_mtime_ns for n in again}, again)

    def test_remaining_diagnostics_refer_to_the_fixed_file(self):
        # The safe AF101 fix lengthens line 2; the unsafe AF001 after it is reported where it is
        # in the file as written, and its edits apply to that file.
        write(self.path("x.py"), "async = 1\ny = x.cuda(async=True); z = async\n")
        res = self.check("--fix", "--output-format", "json")
        self.assertEqual(res.code, 1, res)
        fixed = read(self.path("x.py")).decode()
        self.assertEqual(fixed, "async = 1\ny = x.cuda(non_blocking=True); z = async\n")
        out = json.loads(res.stdout)
        self.assertEqual([(d["code"], d["location"]) for d in out],
                         [("AF001", {"row": 1, "column": 1}),
                          ("AF001", {"row": 2, "column": len("y = x.cuda(non_blocking=True); z = ") + 1})])
        self.assertEqual(apply_json_edits(fixed, out[1]["fix"]["edits"]),
                         "async_ = 1\ny = x.cuda(non_blocking=True); z = async_\n")

    def test_unsafe_fixes_leave_code_that_compiles(self):
        sources = {
            "train.py": (
                "import torch\n"
                "import torch.nn as nn\n\n"
                "async = True\n\n"
                "def train(model, loader, async=False):\n"
                "    for batch, target in loader:\n"
                "        batch = batch.cuda(async=True)\n"
                "        target = target.cuda(0, async=async)\n"
                "        out = model(batch.to('cuda', async=True))\n"
                "    return out\n\n"
                "def helper():\n"
                "    await = 2\n"
                "    return await\n\n"
                "train(None, [], async=async)\n"
            ),
            "crlf.py": "def g(x):\r\n    async = x.cuda(async=True)\r\n    return async\r\n",
            "bom.py": "\ufeffclass C:\n    def run(self, await=None):\n        return await\n",
            "nonl.py": "y = x.type('torch.cuda.FloatTensor', async=True)",
        }
        for name, text in sources.items():
            write(self.path(name), text)
            self.assertFalse(compiles(self.path(name)), f"{name} should not compile before the fix")
        res = self.check("--fix", "--unsafe-fixes")
        self.assertEqual(res.code, 0, res)
        for name in sources:
            with self.subTest(file=name):
                self.assertTrue(compiles(self.path(name)), read(self.path(name)).decode())
        self.assertTrue(read(self.path("crlf.py")).endswith(b"\r\n"))
        self.assertNotIn(b"\n", read(self.path("crlf.py")).replace(b"\r\n", b""))
        self.assertTrue(read(self.path("bom.py")).startswith(b"\xef\xbb\xbf"))
        self.assertFalse(read(self.path("nonl.py")).endswith(b"\n"))
        self.assertEqual(self.check().code, 0)

    def test_await_name_followed_by_an_operator(self):
        # `await + 1`, `await - 1` and `await [0]` also parse as an await expression (tree-sitter
        # reads `await` + a unary/list primary), but in a function that binds `await` they are
        # references to that name, and CPython 3.11 rejects them outside an async function.
        source = ("def f():\n"
                  "    await = [1]\n"
                  "    a = await + 1\n"
                  "    b = await - 1\n"
                  "    return await[0] + a + b\n")
        write(self.path("aw.py"), source)
        self.assertFalse(compiles(self.path("aw.py")))
        self.assertEqual(len(self.json_check("aw.py")), 4)
        res = self.check("--fix", "--unsafe-fixes")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(read(self.path("aw.py")).decode(), source.replace("await", "await_"))
        self.assertTrue(compiles(self.path("aw.py")))

    def test_fix_through_a_symlink_keeps_the_link(self):
        write(self.path("real", "t.py"), TORCH)
        os.symlink(os.path.join("real", "t.py"), self.path("link.py"))
        res = self.check("--fix", "link.py")
        self.assertEqual(res.code, 0, res)
        self.assertTrue(os.path.islink(self.path("link.py")))
        self.assertEqual(read(self.path("real", "t.py")).decode(), TORCH_FIXED)


# --- files that cannot be processed -------------------------------------------------------------


class BadInputTest(CliTestCase):
    def test_undecodable_and_binary_files_are_reported_and_the_rest_is_fixed(self):
        latin1 = b"# caf\xe9\ny = x.cuda(async=True)\n"
        nul = b"y = x.cuda(async=True)\n\x00\n"
        write(self.path("latin1.py"), latin1)
        write(self.path("nul.py"), nul)
        write(self.path("t.py"), TORCH)
        res = self.check("--fix")
        self.assertEqual(res.code, 2, res)
        errors = [l for l in res.stderr.splitlines() if l.startswith("error:")]
        self.assertEqual(len(errors), 2, res.stderr)
        self.assertRegex(errors[0], r"^error: latin1\.py: not valid UTF-8 .*offset 5\b.*line 1\b")
        self.assertRegex(errors[1], r"^error: nul\.py: binary file .*offset 23\b")
        self.assertEqual(read(self.path("latin1.py")), latin1)
        self.assertEqual(read(self.path("nul.py")), nul)
        self.assertEqual(read(self.path("t.py")).decode(), TORCH_FIXED)

    def test_declared_encodings_are_decoded_and_fixed_in_their_encoding(self):
        latin1 = b"# -*- coding: latin-1 -*-\n# caf\xe9\ns = '\xe9t\xe9'\ny = x.cuda(async=True)\n"
        bad = b"# coding: cp1252\ns = '\x81'\ny = x.cuda(async=True)\n"
        write(self.path("legacy.py"), latin1)
        write(self.path("bad.py"), bad)
        res = self.check("--output-format", "concise")
        self.assertEqual(res.code, 2, res)
        self.assertIn("legacy.py:4:12: AF101", res.stdout)
        self.assertIn("error: bad.py: not valid in its declared encoding `cp1252` "
                      "(byte 0x81 at byte offset 22, line 2)", res.stderr)
        res = self.check("--diff", "legacy.py")
        self.assertEqual(res.code, 1, res)
        self.assertIn(b" # caf\xe9\n s = '\xe9t\xe9'\n-y = x.cuda(async=True)\n+y = x.cuda(non_blocking=True)\n",
                      res.stdout_bytes)
        res = self.check("--fix")
        self.assertEqual(res.code, 2, res)
        self.assertEqual(read(self.path("legacy.py")), latin1.replace(b"async=", b"non_blocking="))
        self.assertTrue(compiles(self.path("legacy.py")))
        self.assertEqual(read(self.path("bad.py")), bad)

    def test_declared_encodings_on_stdin(self):
        latin1 = b"# -*- coding: latin-1 -*-\ns = '\xe9'\ny = x.cuda(async=True)\n"
        res = self.check("--stdin-filename", "l.py", "--fix", stdin=latin1)
        self.assertEqual(res.code, 0, res)
        self.assertEqual(res.stdout_bytes, latin1.replace(b"async=", b"non_blocking="))
        res = self.check("--stdin-filename", "l.py", "--add-noqa", stdin=latin1)
        self.assertEqual(res.stdout_bytes, latin1.replace(b"True)\n", b"True)  # noqa: AF101\n"))
        res = self.check("--stdin-filename", "l.py", "--output-format", "json", stdin=latin1)
        self.assertEqual([(d["location"]["row"], d["location"]["column"]) for d in json.loads(res.stdout)], [(3, 12)])

    def test_check_reports_them_too(self):
        write(self.path("latin1.py"), b"s = '\xff'\n")
        write(self.path("t.py"), TORCH)
        res = self.check("--output-format", "json")
        self.assertEqual(res.code, 2, res)
        self.assertEqual([d["filename"] for d in json.loads(res.stdout)], ["t.py"])
        self.assertIn("error: latin1.py: not valid UTF-8", res.stderr)

    def test_invalid_utf8_sequences(self):
        for name, data in {
            "overlong.py": b"a = '\xc0\xaf'\n",
            "surrogate.py": b"a = '\xed\xa0\x80'\n",
            "truncated.py": b"a = '\xe2\x82'\n",
            "too_big.py": b"a = '\xf4\x90\x80\x80'\n",
        }.items():
            with self.subTest(name=name):
                write(self.path(name), data)
                res = self.check(name)
                self.assertEqual(res.code, 2, res)
                self.assertIn(f"error: {name}: not valid UTF-8", res.stderr)
        write(self.path("fine.py"), "a = 'é€中😀'\n")
        self.assertEqual(self.check("fine.py").code, 0)

    def test_a_directory_named_explicitly_as_a_file_is_walked(self):
        write(self.path("pkg.py", "t.py"), TORCH)
        res = self.check("--output-format", "concise", "pkg.py")
        self.assertEqual(res.code, 1, res)
        self.assertIn("pkg.py/t.py:4:12: AF101", res.stdout)

    def test_a_fifo_does_not_hang(self):
        os.mkfifo(self.path("fifo.py"))
        write(self.path("t.py"), TORCH)
        res = self.check("fifo.py", "t.py")
        self.assertEqual(res.code, 2, res)
        self.assertIn("error: fifo.py: not a regular file", res.stderr)


def drop_to_nobody():
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


class AsNobodyTestCase(CliTestCase):
    """Runs the binary where permission bits hold: root bypasses them, so as root the binary runs
    as `nobody` on a tree owned by `nobody` (the honest test of the permission checks)."""

    def setUp(self):
        super().setUp()
        self.binary = BIN
        self.preexec = None
        if os.geteuid() == 0:
            try:
                subprocess.run(["true"], preexec_fn=drop_to_nobody, check=True)
            except (OSError, subprocess.SubprocessError) as e:
                self.skipTest(f"running as root and cannot switch to uid {NOBODY}: {e}")
            # A copy of the binary that `nobody` can surely execute, whatever the build dir's modes.
            bindir = tempfile.mkdtemp(prefix="asyncfix-bin-")
            self.addCleanup(shutil.rmtree, bindir, ignore_errors=True)
            os.chmod(bindir, 0o755)
            self.binary = os.path.join(bindir, "asyncfix")
            shutil.copy2(BIN, self.binary)
            os.chmod(self.binary, 0o755)
            self.preexec = drop_to_nobody
        os.chmod(self.dir, 0o755)

    def run_fix(self, *args):
        if os.geteuid() == 0:
            for root, dirs, files in os.walk(self.dir):
                for name in dirs + files:
                    os.lchown(os.path.join(root, name), NOBODY, NOBODY)
            os.lchown(self.dir, NOBODY, NOBODY)
        return run(["check", "--fix", *args], cwd=self.dir, binary=self.binary,
                    preexec_fn=self.preexec)


class ReadOnlyTest(AsNobodyTestCase):
    """Files that cannot be written, read or listed are reported; everything else is processed.
    An immutable file (chattr +i, which stops root too) is tested separately."""

    def test_read_only_file_is_reported_and_the_rest_fixed(self):
        write(self.path("ro.py"), TORCH)
        write(self.path("ok.py"), TORCH)
        os.chmod(self.path("ro.py"), 0o444)
        res = self.run_fix()
        self.assertEqual(res.code, 2, res)
        self.assertIn("error: ro.py: permission denied", res.stderr)
        self.assertEqual(read(self.path("ro.py")).decode(), TORCH)
        self.assertEqual(stat.S_IMODE(os.stat(self.path("ro.py")).st_mode), 0o444)
        self.assertEqual(read(self.path("ok.py")).decode(), TORCH_FIXED)
        # The unwritten file's diagnostics are still reported, against the file as it is.
        self.assertIn("ro.py:4:12: AF101", res.stdout)

    def test_read_only_directory_leaves_no_temporary_file(self):
        write(self.path("locked", "t.py"), TORCH)
        write(self.path("ok.py"), TORCH)
        os.chmod(self.path("locked"), 0o555)
        self.addCleanup(os.chmod, self.path("locked"), 0o755)
        res = self.run_fix()
        self.assertEqual(res.code, 2, res)
        self.assertRegex(res.stderr, r"error: locked/t\.py: .*permission denied")
        self.assertEqual(os.listdir(self.path("locked")), ["t.py"])
        self.assertEqual(read(self.path("locked", "t.py")).decode(), TORCH)
        self.assertEqual(read(self.path("ok.py")).decode(), TORCH_FIXED)

    def test_unreadable_file_and_directory(self):
        write(self.path("secret.py"), TORCH)
        write(self.path("closed", "t.py"), TORCH)
        write(self.path("ok.py"), TORCH)
        os.chmod(self.path("secret.py"), 0o000)
        os.chmod(self.path("closed"), 0o000)
        self.addCleanup(os.chmod, self.path("closed"), 0o755)
        res = self.run_fix()
        self.assertEqual(res.code, 2, res)
        self.assertIn("error: secret.py: permission denied", res.stderr)
        self.assertIn("error: closed: permission denied", res.stderr)
        self.assertEqual(read(self.path("ok.py")).decode(), TORCH_FIXED)

    def test_immutable_file_as_root(self):
        if os.geteuid() != 0:
            self.skipTest("chattr +i needs root")
        if shutil.which("chattr") is None:
            self.skipTest("chattr is not installed")
        write(self.path("imm.py"), TORCH)
        write(self.path("ok.py"), TORCH)
        if subprocess.run(["chattr", "+i", self.path("imm.py")], capture_output=True).returncode != 0:
            self.skipTest("this file system does not support chattr +i")
        self.addCleanup(subprocess.run, ["chattr", "-i", self.path("imm.py")], capture_output=True)
        res = run(["check", "--fix"], cwd=self.dir)  # as root
        self.assertEqual(res.code, 2, res)
        self.assertIn("error: imm.py: permission denied", res.stderr)
        self.assertEqual(read(self.path("imm.py")).decode(), TORCH)
        self.assertEqual(read(self.path("ok.py")).decode(), TORCH_FIXED)
        self.assertEqual(sorted(os.listdir(self.dir)), ["imm.py", "ok.py"])


# --- stdin --------------------------------------------------------------------------------------


class StdinTest(CliTestCase):
    def test_check_reports_under_the_given_name(self):
        res = self.check("--stdin-filename", "pkg/mod.py", "--output-format", "concise", stdin=TORCH)
        self.assertEqual(res.code, 1, res)
        self.assertRegex(res.stdout.splitlines()[0], r"^pkg/mod\.py:4:12: AF101 \[\*\] ")
        self.assertFalse(os.path.exists(self.path("pkg")))

    def test_dash_reads_stdin(self):
        res = self.check("--output-format", "json", "-", stdin=TORCH)
        self.assertEqual(res.code, 1, res)
        self.assertEqual(json.loads(res.stdout)[0]["filename"], "-")

    def test_fix_prints_only_the_fixed_source(self):
        res = self.check("--stdin-filename", "m.py", "--fix", stdin=TORCH + LOCAL)
        self.assertEqual(res.code, 0, res)
        self.assertEqual(res.stdout, TORCH_FIXED + LOCAL_FIXED)

    def test_fix_keeps_crlf_and_bom_and_reports_leftovers_on_stderr(self):
        source = ("\ufeff" + TORCH + MODULE).replace("\n", "\r\n").encode()
        res = self.check("--stdin-filename", "m.py", "--fix", "--output-format", "concise", stdin=source)
        self.assertEqual(res.code, 1, res)
        self.assertEqual(res.stdout_bytes, ("\ufeff" + TORCH_FIXED + MODULE).replace("\n", "\r\n").encode())
        self.assertIn("m.py:5:1: AF001", res.stderr)

    def test_fix_of_clean_input_echoes_it(self):
        source = "x = 1\r\n\tno_newline_at_end = 'é'"
        res = self.check("--stdin-filename", "c.py", "--fix", stdin=source)
        self.assertEqual(res.code, 0, res)
        self.assertEqual(res.stdout, source)

    def test_diff(self):
        res = self.check("--stdin-filename", "m.py", "--diff", stdin=TORCH)
        self.assertEqual(res.code, 1, res)
        self.assertTrue(res.stdout.startswith("--- a/m.py\n+++ b/m.py\n@@ "), res)
        self.assertIn("Would fix 1 error.", res.stderr)

    def test_undecodable_input(self):
        res = self.check("--stdin-filename", "bad.py", stdin=b"x = '\xe9'\n")
        self.assertEqual(res.code, 2, res)
        self.assertIn("error: bad.py: not valid UTF-8", res.stderr)
        # With --fix the input is passed through untouched, so a pipe never loses it.
        res = self.check("--stdin-filename", "bad.py", "--fix", stdin=b"x = '\xe9'\n")
        self.assertEqual(res.code, 2, res)
        self.assertEqual(res.stdout_bytes, b"x = '\xe9'\n")

    def test_stdin_ignores_paths_and_touches_no_file(self):
        write(self.path("t.py"), TORCH)
        res = self.check("--stdin-filename", "s.py", "--fix", "t.py", stdin=CLEAN)
        self.assertEqual(res.code, 0, res)
        self.assertEqual(res.stdout, CLEAN)
        self.assertEqual(read(self.path("t.py")).decode(), TORCH)


# --- rule selection -----------------------------------------------------------------------------


class SelectionTest(CliTestCase):
    def codes(self, *args):
        write(self.path("t.py"), TORCH + LOCAL)
        return sorted({d["code"] for d in self.json_check(*args)})

    def test_select_ignore_extend_select(self):
        self.assertEqual(self.codes(), ["AF001", "AF101"])
        self.assertEqual(self.codes("--select", "AF101"), ["AF101"])
        self.assertEqual(self.codes("--select", "AF0"), ["AF001"])
        self.assertEqual(self.codes("--ignore", "AF101"), ["AF001"])
        self.assertEqual(self.codes("--ignore", "AF1,AF0"), [])
        self.assertEqual(self.codes("--select", "AF101", "--extend-select", "AF001"), ["AF001", "AF101"])
        self.assertEqual(self.codes("--select", "AF101", "--select", "AF001"), ["AF001", "AF101"])
        self.assertEqual(self.codes("--select", "AF101, AF001"), ["AF001", "AF101"])
        self.assertEqual(self.codes("--select", "ALL", "--ignore", "AF001"), ["AF101"])

    def test_a_selector_flag_takes_one_value_and_paths_follow(self):
        # `--select AF101 t.py` must not read t.py as a second selector.
        write(self.path("t.py"), TORCH + LOCAL)
        write(self.path("u.py"), "x = 1\n")
        for option in ("--select", "--ignore", "--extend-select"):
            with self.subTest(option=option):
                res = self.check(option, "AF001", "t.py", "u.py", "--output-format", "json")
                self.assertIn(res.code, (0, 1), res)
                names = {d["filename"] for d in json.loads(res.stdout)}
                self.assertTrue(names <= {"t.py"}, names)

    def test_everything_ignored_exits_0(self):
        write(self.path("t.py"), TORCH)
        self.assertEqual(self.check("--ignore", "ALL").code, 0)

    def test_unknown_selector_is_a_usage_error(self):
        write(self.path("t.py"), TORCH)
        for option in ("--select", "--ignore", "--extend-select"):
            with self.subTest(option=option):
                res = self.check(option, "AF101,AF999")
                self.assertEqual(res.code, 2, res)
                self.assertIn("AF999", res.stderr)
                self.assertNotIn("AF101`", res.stderr)
                self.assertEqual(res.stdout, "")

    def test_selection_applies_to_fixes(self):
        write(self.path("t.py"), TORCH + LOCAL)
        res = self.check("--fix", "--select", "AF101")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(read(self.path("t.py")).decode(), TORCH_FIXED + LOCAL)


# --- asyncfix rule ------------------------------------------------------------------------------


class RuleCommandTest(CliTestCase):
    def test_one_rule(self):
        res = run(["rule", "AF101"], cwd=self.dir)
        self.assertEqual(res.code, 0, res)
        self.assertTrue(res.stdout.startswith("# torch-async-kwarg (AF101)\n\n"), res.stdout)
        self.assertIn("What it does", res.stdout)
        self.assertIn("non_blocking", res.stdout)
        self.assertEqual(run(["rule", "torch-async-kwarg"], cwd=self.dir).stdout, res.stdout)

    def test_all_rules(self):
        res = run(["rule", "--all"], cwd=self.dir)
        self.assertEqual(res.code, 0, res)
        headers = re.findall(r"^# (\S+) \((AF\d+)\)$", res.stdout, re.M)
        codes = [code for _, code in headers]
        self.assertEqual(codes, sorted(codes))
        self.assertTrue({"AF001", "AF002", "AF101"} <= set(codes), headers)
        self.assertIn(run(["rule", "AF002"], cwd=self.dir).stdout, res.stdout)

    def test_unknown_rule_exits_2(self):
        res = run(["rule", "AF999"], cwd=self.dir)
        self.assertEqual(res.code, 2, res)
        self.assertIn("AF999", res.stderr)
        self.assertEqual(run(["rule"], cwd=self.dir).code, 2)

    def test_json(self):
        res = run(["rule", "AF001", "--output-format", "json"], cwd=self.dir)
        self.assertEqual(res.code, 0, res)
        rule = json.loads(res.stdout)
        self.assertEqual((rule["code"], rule["name"]), ("AF001", "async-identifier"))
        self.assertIn("What it does", rule["explanation"])
        every = json.loads(run(["rule", "--all", "--output-format", "json"], cwd=self.dir).stdout)
        self.assertIn(rule, every)


# --- directory walks ----------------------------------------------------------------------------


class WalkTest(CliTestCase):
    def files_in(self, res):
        return [json.loads(l)["filename"] for l in res.stdout.splitlines()]

    def test_walk_skips_excluded_hidden_and_symlinked_entries(self):
        checked = ["a.py", "b.pyi", "pkg/d.py", "pkg/sub/o.py", "pkg/.hidden_file.py", "pkg/environment/p.py"]
        skipped = ["c.txt", "venv/e.py", ".venv/f.py", ".git/g.py", "__pycache__/h.py",
                   "node_modules/i.py", "build/j.py", "dist/k.py", "env/l.py", ".eggs/m.py",
                   ".hidden/n.py", "pkg/venv/q.py", "pkg/sub/__pycache__/r.py"]
        for name in checked + skipped:
            write(self.path("tree", name), TORCH)
        write(self.path("outside", "x.py"), TORCH)
        os.symlink(self.path("outside"), self.path("tree", "linkdir"))
        os.symlink(self.path("tree", "a.py"), self.path("tree", "link.py"))
        os.symlink(self.path("outside", "x.py"), self.path("tree", "pkg", "out.py"))
        os.symlink(self.path("tree"), self.path("tree", "pkg", "loop"))
        os.symlink(self.path("nowhere.py"), self.path("tree", "dangling.py"))
        res = run(["check", "--output-format", "json-lines"], cwd=self.path("tree"))
        self.assertEqual(res.code, 1, res)
        self.assertEqual(self.files_in(res), sorted(checked))
        self.assertEqual(res.stderr, "")

        # The same with the directory named explicitly, spelt in several ways.
        for spelling in ("tree", "tree/", "./tree", "tree/./pkg/.."):
            with self.subTest(spelling=spelling):
                res = self.check("--output-format", "json-lines", spelling)
                self.assertEqual(self.files_in(res), sorted("tree/" + n for n in checked))

    def test_a_walk_of_many_directories_finds_each_file_and_configuration(self):
        """The walk keeps directories open for their files' readers, a few dozen at a time, and
        tells the configuration and ignore lookups what each listing holds: with many
        directories, -j 1 (the walk runs ahead of every read), -j 2 and a low limit on open files
        find the same files and settings as the list that --show-files prints."""
        expected = []
        for i in range(150):
            d = f"d{i:03d}"
            for n in range(3):
                write(self.path("tree", d, f"m{n}.py"), TORCH)
            if i % 10 == 0:  # its files are checked under a configuration that ignores AF101
                write(self.path("tree", d, "pyproject.toml"), "[tool.asyncfix]\nignore = [\"AF101\"]\n")
            if i % 7 == 0:
                write(self.path("tree", d, ".gitignore"), "m1.py\n")
            expected += [f"tree/{d}/m{n}.py" for n in range(3)
                         if i % 10 != 0 and not (i % 7 == 0 and n == 1)]
        subprocess.run(["git", "init", "-q", self.path("tree")], check=True)
        listed = self.check("--show-files", "tree")
        self.assertEqual(listed.code, 0, listed)
        self.assertEqual(len(listed.stdout.splitlines()), 450 - 22)  # 22 directories ignore m1.py
        outputs = []
        for jobs, files in (("1", None), ("2", None), ("2", 48)):
            with self.subTest(jobs=jobs, open_files=files):
                limit = (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))) if files else None
                res = subprocess.run([BIN, "check", "--output-format", "json-lines", "-j", jobs, "tree"],
                                     cwd=self.dir, capture_output=True, text=True, preexec_fn=limit)
                self.assertEqual(res.returncode, 1, res.stderr)
                self.assertEqual(res.stderr, "")
                self.assertEqual(sorted(set(self.files_in(res))), expected)
                outputs.append(res.stdout)
        self.assertEqual(outputs[0], outputs[1])
        self.assertEqual(outputs[0], outputs[2])

    def test_many_roots_at_one_job_stay_under_the_open_files_limit(self):
        """The directories kept open for their files' readers are counted over the whole run: at
        -j 1 no file is read before the walk of every root ends."""
        roots = []
        for r in range(12):
            for d in range(30):
                write(self.path(f"r{r:02d}", f"s{d:02d}", "a.py"), TORCH)
            roots.append(f"r{r:02d}")
        limit = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
        res = subprocess.run([BIN, "check", "--output-format", "json-lines", "-j", "1", *roots],
                             cwd=self.dir, capture_output=True, text=True, preexec_fn=limit)
        self.assertEqual(res.returncode, 1, res.stderr)
        self.assertEqual(res.stderr, "")
        self.assertEqual(len(set(self.files_in(res))), 360)

    def test_a_run_goes_on_with_the_threads_the_system_gives(self):
        """-j 4 where no thread can be started (a stack limit of a terabyte: each thread's stack
        is that size, and the kernel refuses the mapping) checks every file, fixes included, on
        the calling thread, and says nothing: the output is the -j 1 output. (It was `internal
        error: Resource temporarily unavailable`, exit 2.)"""
        huge = 1 << 40
        limit = lambda: resource.setrlimit(resource.RLIMIT_STACK, (huge, resource.RLIM_INFINITY))
        with open(BIN, "rb") as f:  # a sanitizer's runtime maps its shadow where that limit puts stacks
            program = f.read()
        sanitized = b"__asan_" in program or b"__tsan_" in program
        if sanitized:
            limit = None  # the sanitizer lanes check that -j 4 gives what -j 1 gives, threads started
        else:
            probe = subprocess.run([sys.executable, "-c", "import threading; threading.Thread(target=int).start()"],
                                   capture_output=True, text=True, preexec_fn=limit)
            self.assertNotEqual(probe.returncode, 0, "the premise: under this limit no thread starts")
        for d in range(6):
            write(self.path("tree", f"d{d}", "a.py"), TORCH)
            write(self.path("tree", f"d{d}", "b.py"), CLEAN)
        one = subprocess.run([BIN, "check", "--output-format", "json-lines", "-j", "1", "tree"],
                             cwd=self.dir, capture_output=True, text=True)
        four = subprocess.run([BIN, "check", "--output-format", "json-lines", "-j", "4", "tree"],
                              cwd=self.dir, capture_output=True, text=True, preexec_fn=limit)
        self.assertEqual((four.returncode, four.stderr), (1, ""), four.stderr)
        self.assertEqual(four.stdout, one.stdout)
        fixed = subprocess.run([BIN, "check", "--fix", "-j", "4", "tree"],
                               cwd=self.dir, capture_output=True, text=True, preexec_fn=limit)
        self.assertEqual(fixed.returncode, 0, fixed.stderr)
        for d in range(6):
            self.assertEqual(read(self.path("tree", f"d{d}", "a.py")).decode(), TORCH_FIXED)

    def test_a_root_that_climbs_out_of_a_link_is_checked_as_it_is_spelt(self):
        """`proj/link/..` is `proj` to the user (and to --show-settings and --fix, which read by
        that path) but `real` to the kernel: the walk must not judge proj's files by real's
        listing, nor read real's files in their place. (Both directories hold the same names:
        the walk names real's entries as proj's.)"""
        for proj, real, proj_a, with_config in (("p1", "r1", TORCH, True), ("p2", "r2", CLEAN, False)):
            with self.subTest(proj=proj):
                if with_config:  # proj's settings ignore AF101, real has none
                    write(self.path(proj, "pyproject.toml"), "[tool.asyncfix]\nignore = [\"AF101\"]\n")
                write(self.path(proj, "a.py"), proj_a)
                write(self.path(proj, "inner", "x.py"), CLEAN)
                write(self.path(real, "a.py"), TORCH)
                write(self.path(real, "inner", "x.py"), CLEAN)
                os.symlink(os.path.join("..", real, "inner"), self.path(proj, "link"))
                res = self.check("--output-format", "concise", f"{proj}/link/..")
                self.assertEqual(res.code, 0, res)
                self.assertIn("All checks passed!", res.stdout)

    def test_explicit_files_are_checked_whatever_their_kind(self):
        write(self.path("script"), TORCH)
        write(self.path("venv", "e.py"), TORCH)
        write(self.path("real.py"), TORCH)
        os.symlink("real.py", self.path("link.py"))
        res = self.check("--output-format", "json-lines", "venv/e.py", "script", "link.py", "./script")
        self.assertEqual(res.code, 1, res)
        self.assertEqual(self.files_in(res), ["link.py", "script", "venv/e.py"])

    def test_explicit_excluded_directory_is_walked(self):
        write(self.path("build", "gen.py"), TORCH)
        res = self.check("--output-format", "json-lines", "build")
        self.assertEqual(self.files_in(res), ["build/gen.py"])

    def test_files_are_deduplicated(self):
        write(self.path("a.py"), TORCH)
        res = self.check("--output-format", "json-lines", "a.py", ".", "./a.py")
        self.assertEqual(self.files_in(res), ["a.py"])

    def test_one_file_under_several_names_is_fixed_once(self):
        write(self.path("b.py"), TORCH)
        os.symlink("b.py", self.path("alias.py"))
        names = ("b.py", self.path("b.py"), "alias.py")
        res = self.check("--output-format", "json-lines", *names)
        self.assertEqual(len(self.files_in(res)), 1, res)
        res = self.check("--fix", *names)
        self.assertEqual(res.code, 0, res)
        self.assertEqual(res.stderr, "")
        self.assertEqual(read(self.path("b.py")).decode(), TORCH_FIXED)

    def test_absolute_paths_stay_absolute(self):
        write(self.path("a.py"), TORCH)
        res = self.check("--output-format", "json-lines", self.dir)
        self.assertEqual(self.files_in(res), [self.path("a.py")])


class OrderingTest(CliTestCase):
    def test_output_does_not_depend_on_the_number_of_threads(self):
        for i in range(60):
            body = TORCH if i % 3 else LOCAL + TORCH
            write(self.path(f"d{i % 7}", f"m{i:03}.py"), body * (1 + i % 4))
        write(self.path("bad.py"), b"\xff\n")
        outputs = {}
        for jobs in ("1", "2", "4", "16"):
            for fmt in ("full", "json"):
                res = self.check("-j", jobs, "--output-format", fmt)
                self.assertEqual(res.code, 2, res)
                outputs.setdefault(fmt, set()).add((res.stdout, res.stderr))
        for fmt, seen in outputs.items():
            self.assertEqual(len(seen), 1, f"{fmt} output differs between -j values")
        names = [d["filename"] for d in json.loads(next(iter(outputs["json"]))[0])]
        self.assertEqual(names, sorted(names))
        self.assertEqual(len(set(names)), 60)

    def test_one_file_under_several_names_is_reported_once(self):
        # Workers check files while the walk still finds them; the first name in path order of
        # each file is kept at the end: overlapping paths, a path spelt twice, hard links.
        for i in range(30):
            write(self.path("pkg", f"m{i:02}.py"), TORCH)
        os.link(self.path("pkg", "m05.py"), self.path("pkg", "z_link.py"))
        for jobs in ("1", "2", "8"):
            res = self.check("-j", jobs, "--output-format", "json", "pkg", "pkg/m07.py", "./pkg/m08.py", "pkg")
            self.assertEqual(res.code, 1, res)
            names = [d["filename"] for d in json.loads(res.stdout)]
            self.assertEqual(names, sorted(f"pkg/m{i:02}.py" for i in range(30)), jobs)
        # Fixing through overlapping paths rewrites each file once.
        res = self.check("--fix", "-j", "8", "pkg", "pkg/m07.py", "./pkg/m08.py")
        self.assertEqual(res.code, 2, res)  # the hard-linked file is not written
        self.assertRegex(res.stderr, r"pkg/m05\.py: has 2 hard links, not written")
        self.assertNotIn("z_link.py", res.stderr)
        self.assertIn("Fixed 29 errors", res.stdout)
        self.assertEqual(read(self.path("pkg", "m07.py")).decode(), TORCH_FIXED)

    def test_fix_in_parallel(self):
        for i in range(40):
            write(self.path(f"m{i:02}.py"), LOCAL + TORCH)
        res = self.check("--fix", "-j", "8")
        self.assertEqual(res.code, 0, res)
        for i in range(40):
            self.assertEqual(read(self.path(f"m{i:02}.py")).decode(), LOCAL_FIXED + TORCH_FIXED)


# --- configuration files, suppression ---------------------------------------------------------


class ConfigTest(CliTestCase):
    def codes(self, *args, cwd=None):
        res = run(["check", "--output-format", "json", *args], cwd=cwd or self.dir)
        self.assertIn(res.code, (0, 1), res)
        return sorted((d["filename"], d["code"]) for d in json.loads(res.stdout))

    def test_pyproject_and_nearest_file(self):
        write(self.path("pyproject.toml"), "[tool.asyncfix]\nignore = [\"AF001\"]\n")
        write(self.path("a.py"), TORCH + LOCAL)
        write(self.path("sub/asyncfix.toml"), "ignore = [\"AF101\"]\n")
        write(self.path("sub/b.py"), TORCH + LOCAL)
        self.assertEqual(self.codes(), [("a.py", "AF101"), ("sub/b.py", "AF001"), ("sub/b.py", "AF001")])
        # Flags win over files; --isolated and --config replace them.
        self.assertEqual(self.codes("--ignore", "AF0", "a.py"), [("a.py", "AF101")])
        self.assertEqual(len(self.codes("--isolated")), 6)
        self.assertEqual(self.codes("--config", "sub/asyncfix.toml", "a.py"),
                         [("a.py", "AF001"), ("a.py", "AF001")])

    def test_the_torch_tables_grow_from_the_configuration(self):
        # Issue 28: AF310's renames and AF316's removals are data that pyproject.toml extends.
        write(self.path("pyproject.toml"),
              "[tool.asyncfix]\nselect = [\"AF3\"]\n\n[tool.asyncfix.renames]\n"
              "api = [{ old = \"mylib.nets.build_net\", new = \"mylib.nets.make_net\" },\n"
              "       { old = \"mylib.ops.old_solve\", message = \"use `mylib.ops.solve(A, B)`\" }]\n")
        write(self.path("a.py"), "import mylib.nets\nimport mylib.ops\nnet = mylib.nets.build_net()\n"
                                 "x = mylib.ops.old_solve(b, A)\n")
        self.assertEqual(self.codes(), [("a.py", "AF310"), ("a.py", "AF316")])
        res = self.check("--output-format", "concise", "a.py")
        self.assertIn("`mylib.ops.old_solve` was removed (a row of `[tool.asyncfix.renames] api`): use "
                      "`mylib.ops.solve(A, B)`", res.stdout)
        self.assertEqual(self.codes("--isolated", "--select", "AF3"), [])

    def test_configuration_errors_exit_2_and_name_the_place(self):
        write(self.path("pyproject.toml"), "[tool.asyncfix]\nselect = [\"AF101\"]\nselct = 1\n")
        write(self.path("a.py"), TORCH)
        res = self.check("a.py")
        self.assertEqual(res.code, 2, res)
        self.assertIn("pyproject.toml:3:1: unknown key `selct`", res.stderr)
        res = self.check("--isolated", "a.py")
        self.assertEqual(res.code, 1, res)

    def test_per_file_ignores_exclude_and_show_files(self):
        write(self.path("asyncfix.toml"),
              "extend-exclude = [\"generated\"]\n[per-file-ignores]\n\"tests/*.py\" = [\"AF1\"]\n")
        write(self.path("tests/t.py"), TORCH)
        write(self.path("src/m.py"), TORCH)
        write(self.path("src/generated/g.py"), TORCH)
        write(self.path("build/b.py"), TORCH)
        self.assertEqual(self.codes(), [("src/m.py", "AF101")])
        res = self.check("--show-files")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(res.stdout.splitlines(), ["src/m.py", "tests/t.py"])

    def test_show_settings_says_where_each_value_came_from(self):
        write(self.path("pyproject.toml"),
              "[project]\nrequires-python = \">=3.6\"\n[tool.asyncfix]\nrename-style = \"is_async\"\n")
        write(self.path("a.py"), "")
        res = self.check("--show-settings", "a.py", "--select", "AF1")
        self.assertEqual(res.code, 0, res)
        out = res.stdout
        self.assertIn("Configuration file: " + os.path.realpath(self.path("pyproject.toml")), out.replace(self.dir, os.path.realpath(self.dir)))
        self.assertRegex(out, r'rename-style = "is_\{name\}"  # .*pyproject.toml')
        self.assertRegex(out, r'target-version = "py36"  # .*pyproject.toml \(project.requires-python\)')
        self.assertIn('select = ["AF1"]  # override', out)
        self.assertIn('ignore = []  # default', out)

    def test_unsafe_fixes_and_rename_style_from_the_file(self):
        write(self.path("asyncfix.toml"), "unsafe-fixes = true\nrename-style = \"is_async\"\n")
        write(self.path("m.py"), MODULE)
        res = self.check("--fix", "m.py")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(read(self.path("m.py")).decode(), MODULE.replace("async", "is_async"))

    def test_stdin_uses_the_configuration_of_its_filename(self):
        write(self.path("pkg/asyncfix.toml"), "ignore = [\"AF101\"]\n")
        res = self.check("--stdin-filename", "pkg/x.py", "--output-format", "json", stdin=TORCH.encode())
        self.assertEqual(res.code, 0, res)
        self.assertEqual(json.loads(res.stdout), [])

    def test_gitignore_is_respected_in_walks(self):
        subprocess.run(["git", "init", "-q", self.dir], check=True)
        write(self.path(".gitignore"), "ignored_dir/\n*.gen.py\n!keep.gen.py\n")
        write(self.path(".git/info/exclude"), "excluded.py\n")
        home = self.path("home")
        write(os.path.join(home, ".gitconfig"), "[core]\n\texcludesFile = " + os.path.join(home, "global_ignore") + "\n")
        write(os.path.join(home, "global_ignore"), "global.py\n")
        for name in ("a.py", "ignored_dir/b.py", "x.gen.py", "keep.gen.py", "excluded.py", "global.py"):
            write(self.path(name), TORCH)
        env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"))
        listed = lambda *args: run(["check", "--show-files", *args], cwd=self.dir, env=env).stdout.split()
        self.assertEqual(listed(), ["a.py", "keep.gen.py"])
        self.assertEqual(listed("--no-respect-gitignore"),
                         ["a.py", "excluded.py", "global.py", "ignored_dir/b.py", "keep.gen.py", "x.gen.py"])
        # A file named on the command line is checked even when ignored, like Ruff.
        self.assertEqual(listed("x.gen.py"), ["x.gen.py"])
        write(self.path("asyncfix.toml"), "respect-gitignore = false\n")
        self.assertEqual(len(listed()), 6)

    def test_add_noqa(self):
        write(self.path("a.py"), TORCH + LOCAL)
        res = self.check("--add-noqa", "a.py")
        self.assertEqual(res.code, 0, res)
        self.assertIn("Added 3 noqa directives.", res.stdout)
        text = read(self.path("a.py")).decode()
        self.assertIn("y = x.cuda(async=True)  # noqa: AF101\n", text)
        self.assertIn("    async = 1  # noqa: AF001\n", text)
        self.assertEqual(self.check("a.py").code, 0)
        # Unused suppressions are reported once the code is fixed.
        write(self.path("a.py"), text.replace("async=True", "non_blocking=True"))
        res = self.check("--output-format", "json", "a.py")
        self.assertEqual([d["code"] for d in json.loads(res.stdout)], ["AF900"])
        res = self.check("--fix", "a.py")
        self.assertEqual(res.code, 0, res)
        self.assertIn("y = x.cuda(non_blocking=True)\n", read(self.path("a.py")).decode())

    def test_blanket_noqa_does_not_hide_a_syntax_error(self):
        # kombu's own code (2016): flake8's unused-import `# noqa` on a line that Python 3.7 and
        # later cannot compile. The finding is reported and fixed; --add-noqa names the code.
        source = "from kombu.async import timer as _timer  # noqa\n"
        write(self.path("k.py"), source)
        res = self.check("--output-format", "json", "k.py")
        self.assertEqual(res.code, 1, res)
        self.assertEqual([d["code"] for d in json.loads(res.stdout)], ["AF201"])
        # Before 3.7 it compiles: the blanket noqa hides it as before.
        self.assertEqual(self.check("--target-version", "py36", "k.py").code, 0)
        res = self.check("--fix", "k.py")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(read(self.path("k.py")).decode(),
                         "from kombu.asynchronous import timer as _timer  # noqa\n")
        write(self.path("k.py"), source)
        res = self.check("--add-noqa", "k.py")
        self.assertEqual(res.code, 0, res)
        self.assertIn("Added 1 noqa directive", res.stdout)
        text = read(self.path("k.py")).decode()
        self.assertEqual(text, "from kombu.async import timer as _timer  # noqa  # noqa: AF201\n")
        self.assertEqual(self.check("k.py").code, 0)
        self.assertEqual(self.check("--add-noqa", "k.py").code, 0)
        self.assertEqual(read(self.path("k.py")).decode(), text)


# --- CI output formats: sarif, github, gitlab, junit -------------------------------------------

SARIF_SCHEMA = os.environ.get("ASYNCFIX_SARIF_SCHEMA", "")

# Validates the SARIF log on stdin against the JSON schema named by argv[1] with `jsonschema`
# (whichever draft the schema declares); prints one line per error, exits 1 when there are some.
_VALIDATE_SARIF = r"""
import json, sys
import jsonschema
with open(sys.argv[1], encoding="utf-8") as f:
    schema = json.load(f)
log = json.load(sys.stdin)
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
errors = sorted(cls(schema).iter_errors(log), key=lambda e: [str(p) for p in e.absolute_path])
for e in errors:
    print("/".join(str(p) for p in e.absolute_path) + ": " + e.message[:300])
sys.exit(1 if errors else 0)
"""


def _python_with_jsonschema():
    """This interpreter when it has jsonschema, else Debian's python3 (python3-jsonschema)."""
    for python in (sys.executable, "/usr/bin/python3"):
        if python and os.path.exists(python) and subprocess.run(
                [python, "-c", "import jsonschema"], capture_output=True).returncode == 0:
            return python
    return None


# A SARIF `uri` is a URI reference: only these characters, `%` only before two hex digits.
URI_REFERENCE = re.compile(r"^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#\[\]]|%[0-9A-Fa-f]{2})*$")


def utf16_offset(text, line, column):
    """Offset in `text` (a str without BOM) of a 1-based line and 1-based UTF-16 column."""
    starts = [0]
    for piece in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(piece))
    pos, units = starts[line - 1], 0
    while units < column - 1:
        units += 2 if ord(text[pos]) > 0xFFFF else 1
        pos += 1
    return pos


def apply_sarif_fix(text, fix):
    """Applies a SARIF fix's replacements (regions in UTF-16 columns) to `text` (a str)."""
    spans = []
    for change in fix["artifactChanges"]:
        for r in change["replacements"]:
            d = r["deletedRegion"]
            spans.append((utf16_offset(text, d["startLine"], d["startColumn"]),
                          utf16_offset(text, d["endLine"], d["endColumn"]),
                          r.get("insertedContent", {}).get("text", "")))
    out, pos = [], 0
    for start, end, content in sorted(spans):
        assert start >= pos, "overlapping replacements"
        out += [text[pos:start], content]
        pos = end
    return "".join(out) + text[pos:]


class SarifOutputTest(CliTestCase):
    def sarif(self, *args, **kwargs):
        res = self.check("--output-format", "sarif", *args, **kwargs)
        self.assertIn(res.code, (0, 1), res)
        self.assertEqual(res.stderr, "", res)
        return res.stdout

    def assertValidSarif(self, text):
        """Validates against the official SARIF 2.1.0 JSON schema fetched at configure time."""
        if not SARIF_SCHEMA:
            self.skipTest("ASYNCFIX_SARIF_SCHEMA is not set (CTest sets it; see cmake/TestDeps.cmake)")
        self.assertTrue(os.path.isfile(SARIF_SCHEMA), SARIF_SCHEMA)
        python = _python_with_jsonschema()
        self.assertIsNotNone(python, "no Python with jsonschema: install python3-jsonschema "
                                     "(scripts/install-deps.sh)")
        proc = subprocess.run([python, "-c", _VALIDATE_SARIF, SARIF_SCHEMA], input=text.encode(),
                              capture_output=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stdout.decode() + proc.stderr.decode())
        # The schema's `format`s are not checked by jsonschema without extra packages: URIs here.
        log = json.loads(text)
        for run_ in log["runs"]:
            for base in run_.get("originalUriBaseIds", {}).values():
                self.assertRegex(base["uri"], URI_REFERENCE)
            for result in run_["results"]:
                for loc in result["locations"]:
                    self.assertRegex(loc["physicalLocation"]["artifactLocation"]["uri"], URI_REFERENCE)
        return log

    def test_the_pytorch_migration_rules_in_every_format(self):
        # Issue 28 item 4: the AF3xx rules through the CLI's statistics, formats and `rule`.
        write(self.path("legacy.py"),
              "import torch\nimport torch.nn as nn\nfrom torch.autograd import Variable\n"
              "loss = nn.CrossEntropyLoss()(out, y)\nprint(loss.data[0])\nv = Variable(x, volatile=True)\n"
              "A = torch.gesv(b, M)\n")
        res = self.check("--statistics")
        self.assertEqual(res.code, 1, res)
        rows = [[c.strip() for c in re.split(r"\t", l)] for l in res.stdout.splitlines()]
        self.assertEqual(sorted(rows), [["1", "AF301", "[*] zero-dim-tensor-index"],
                                        ["1", "AF314", "[*] volatile-variable"],
                                        ["1", "AF316", "[ ] removed-torch-api"]])
        found = {d["code"]: d for d in json.loads(self.check("--output-format", "json").stdout)}
        self.assertEqual(sorted(found), ["AF301", "AF314", "AF316"])
        self.assertEqual(found["AF301"]["fix"]["applicability"], "safe")
        self.assertIsNone(found["AF316"]["fix"])
        self.assertTrue(found["AF316"]["url"].endswith("AF316.md"), found["AF316"]["url"])
        log = self.assertValidSarif(self.sarif())
        rules = {r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]}
        self.assertTrue({"AF301", "AF314", "AF316"} <= rules, rules)
        github = self.check("--output-format", "github").stdout
        self.assertEqual(len(re.findall(r"^::(?:warning|error|notice) .*AF3\d\d", github, re.M)), 3, github)
        for code in ("AF301", "AF314", "AF316", "AF318"):
            page = run(["rule", code], cwd=self.dir)
            self.assertEqual(page.code, 0, page)
            for heading in ("## What it does", "## Why is this bad?", "## Fix safety"):
                self.assertIn(heading, page.stdout, code)
        everything = run(["rule", "--all"], cwd=self.dir).stdout
        for code in ["AF30%d" % i for i in range(1, 7)] + ["AF3%d" % i for i in range(10, 19)]:
            self.assertIn("(%s)" % code, everything)

    def test_the_validator_rejects_an_invalid_log(self):
        write(self.path("t.py"), TORCH)
        log = json.loads(self.sarif())
        log["runs"][0]["results"][0]["level"] = "fatal"
        with self.assertRaises(AssertionError):
            self.assertValidSarif(json.dumps(log))

    def test_valid_against_the_schema(self):
        write(self.path("t.py"), TORCH)
        write(self.path("local.py"), LOCAL)
        write(self.path("mod.py"), MODULE)                      # unsafe fixes
        write(self.path("imp.py"), "from m import async\n")     # a finding without a fix
        write(self.path("wide.py"), "s = '\u00e9\U0001F600'; async = 1\n")
        write(self.path("odd name %#[x].py"), TORCH)
        write(self.path("clean.py"), CLEAN)
        self.assertValidSarif(self.sarif())
        self.assertValidSarif(self.sarif("--target-version", "py36"))
        self.assertValidSarif(self.sarif("--fix", "--unsafe-fixes"))  # nothing left: no results
        self.assertValidSarif(self.sarif("--stdin-filename", "pkg/in.py", stdin=TORCH))

    def test_structure(self):
        write(self.path("t.py"), TORCH)
        log = self.assertValidSarif(self.sarif())
        self.assertEqual(log["$schema"], "https://json.schemastore.org/sarif-2.1.0.json")
        self.assertEqual(log["version"], "2.1.0")
        self.assertEqual(len(log["runs"]), 1)
        run_ = log["runs"][0]
        driver = run_["tool"]["driver"]
        self.assertEqual(driver["name"], "asyncfix")
        self.assertEqual("asyncfix " + driver["version"], run(["--version"], cwd=self.dir).stdout.strip())
        self.assertTrue(driver["informationUri"].endswith("/README.md"), driver["informationUri"])  # docs/README.md
        docs = json.loads(run(["rule", "--all", "--output-format", "json"], cwd=self.dir).stdout)
        self.assertEqual([r["id"] for r in driver["rules"]], [d["code"] for d in docs])
        for rule, doc in zip(driver["rules"], docs):
            self.assertEqual(rule["name"], doc["name"])
            self.assertEqual(rule["shortDescription"], {"text": doc["summary"]})
            self.assertEqual(rule["fullDescription"]["text"], doc["explanation"])
            self.assertEqual(rule["help"]["markdown"], doc["explanation"])
            self.assertIn(doc["url"], rule["help"]["text"])
            self.assertEqual(rule["helpUri"], doc["url"])
        self.assertEqual(run_["columnKind"], "utf16CodeUnits")
        self.assertEqual(run_["originalUriBaseIds"],
                         {"%SRCROOT%": {"uri": "file://" + os.path.realpath(self.dir) + "/"}})
        [result] = run_["results"]
        rules = [r["id"] for r in driver["rules"]]
        location = {"uri": "t.py", "uriBaseId": "%SRCROOT%"}
        region = {"startLine": 4, "startColumn": 12, "endLine": 4, "endColumn": 17}
        self.assertEqual(result, {
            "ruleId": "AF101",
            "ruleIndex": rules.index("AF101"),
            "level": "error",
            "message": {"text": "`async=` is a syntax error since Python 3.7; PyTorch renamed it `non_blocking=`"},
            "locations": [{"physicalLocation": {"artifactLocation": location, "region": region}}],
            "partialFingerprints": result["partialFingerprints"],
            "fixes": [{
                "description": {"text": "Replace `async=` with `non_blocking=`"},
                "artifactChanges": [{"artifactLocation": location, "replacements": [
                    {"deletedRegion": region, "insertedContent": {"text": "non_blocking"}}]}],
                "properties": {"applicability": "safe"},
            }],
        })
        self.assertRegex(result["partialFingerprints"]["asyncfix/v1"], r"^[0-9a-f]{16}$")

    def test_clean_tree_gives_a_run_without_results(self):
        write(self.path("c.py"), CLEAN)
        res = self.check("--output-format", "sarif")
        self.assertEqual(res.code, 0, res)
        log = self.assertValidSarif(res.stdout)
        self.assertEqual(log["runs"][0]["results"], [])
        self.assertTrue(log["runs"][0]["tool"]["driver"]["rules"])

    def test_columns_count_utf16_code_units_and_fixes_apply(self):
        # An astral character counts 2 UTF-16 units, é counts 1; a code point column would be 1 less.
        source = "s = '\u00e9\U0001F600'; async = 1\nprint(async)\n"
        write(self.path("m.py"), source)
        log = self.assertValidSarif(self.sarif("--unsafe-fixes"))
        first = log["runs"][0]["results"][0]
        region = first["locations"][0]["physicalLocation"]["region"]
        start = len("s = '\u00e9\U0001F600'; ".encode("utf-16-le")) // 2 + 1
        self.assertEqual((region["startLine"], region["startColumn"], region["endColumn"]),
                         (1, start, start + 5))
        self.assertEqual(utf16_offset(source, 1, start), source.index("async"))
        fixed = apply_sarif_fix(source, first["fixes"][0])
        self.assertEqual(first["fixes"][0]["properties"], {"applicability": "unsafe"})
        self.assertEqual(fixed, source.replace("async", "async_"))
        res = self.check("--fix", "--unsafe-fixes", "m.py")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(read(self.path("m.py")).decode(), fixed)

    def test_levels_follow_the_severity(self):
        write(self.path("t.py"), TORCH)
        level = lambda log: [r["level"] for r in log["runs"][0]["results"]]
        self.assertEqual(level(json.loads(self.sarif())), ["error"])
        self.assertEqual(level(json.loads(self.sarif("--target-version", "py36"))), ["warning"])
        write(self.path("asyncfix.toml"), "[severity]\nAF101 = \"info\"\n")
        self.assertEqual(level(json.loads(self.sarif())), ["note"])
        write(self.path("asyncfix.toml"), "[severity]\nAF101 = \"hint\"\n")
        self.assertEqual(level(self.assertValidSarif(self.sarif())), ["note"])

    def test_no_fixes_without_a_fix(self):
        write(self.path("imp.py"), "from m import async\n")
        [result] = json.loads(self.sarif())["runs"][0]["results"]
        self.assertEqual(result["ruleId"], "AF001")
        self.assertNotIn("fixes", result)

    def test_uris(self):
        write(self.path("sub dir/a%b#c.py"), TORCH)
        outside = tempfile.mkdtemp(prefix="asyncfix-outside-")
        self.addCleanup(shutil.rmtree, outside, ignore_errors=True)
        write(os.path.join(outside, "o.py"), TORCH)
        log = self.assertValidSarif(self.sarif(os.path.join(self.dir, "sub dir"), "./sub dir/../sub dir",
                                               os.path.join(outside, "o.py")))
        uris = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"]]
        self.assertIn({"uri": "sub%20dir/a%25b%23c.py", "uriBaseId": "%SRCROOT%"}, uris)
        self.assertIn({"uri": "file://" + os.path.join(outside, "o.py")}, uris)
        for uri in uris:
            if "uriBaseId" in uri:
                self.assertTrue(os.path.exists(self.path(urllib.parse.unquote(uri["uri"]))), uri)
        # A path that climbs out of the working directory is reported absolute.
        write(self.path("up.py"), TORCH)
        os.makedirs(self.path("below"))
        res = run(["check", "--output-format", "sarif", "../up.py"], cwd=self.path("below"))
        log = self.assertValidSarif(res.stdout)
        self.assertEqual(log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"],
                         {"uri": "file://" + urllib.parse.quote(self.path("up.py"))})


class GithubOutputTest(CliTestCase):
    def github(self, *args, **kwargs):
        res = self.check("--output-format", "github", *args, **kwargs)
        self.assertIn(res.code, (0, 1), res)
        return res.stdout

    def test_workflow_commands(self):
        write(self.path("t.py"), TORCH)
        write(self.path("l.py"), LOCAL)
        self.assertEqual(self.github().splitlines(), [
            "::error title=asyncfix (AF001),file=l.py,line=2,col=5,endLine=2,endColumn=10::"
            "`async` is a reserved keyword since Python 3.7 and cannot be used as a variable name",
            "::error title=asyncfix (AF001),file=l.py,line=3,col=12,endLine=3,endColumn=17::"
            "`async` is a reserved keyword since Python 3.7 and cannot be used as a variable name",
            "::error title=asyncfix (AF101),file=t.py,line=4,col=12,endLine=4,endColumn=17::"
            "`async=` is a syntax error since Python 3.7; PyTorch renamed it `non_blocking=`",
        ])

    def test_lower_severities_are_warnings_and_notices(self):
        write(self.path("t.py"), TORCH)
        self.assertTrue(self.github("--target-version", "py36").startswith("::warning title="))
        write(self.path("asyncfix.toml"), "[severity]\nAF101 = \"info\"\n")
        self.assertTrue(self.github().startswith("::notice title="))
        write(self.path("asyncfix.toml"), "[severity]\nAF101 = \"hint\"\n")
        self.assertTrue(self.github().startswith("::notice title="))

    def test_escaping(self):
        # Properties escape %, CR, LF, `,` and `:` (as @actions/core does); the message the same
        # way minus `,`/`:` (the messages hold no %, CR or LF: the file name carries them here).
        out = self.github("--stdin-filename", "d/a,b:c%d\re\nf.py", stdin=TORCH)
        self.assertEqual(out, "::error title=asyncfix (AF101),file=d/a%2Cb%3Ac%25d%0De%0Af.py,"
                              "line=4,col=12,endLine=4,endColumn=17::`async=` is a syntax error "
                              "since Python 3.7; PyTorch renamed it `non_blocking=`\n")
        self.assertEqual(out.count("\n"), 1)

    def test_columns_are_code_points_and_clean_prints_nothing(self):
        # As in the text and JSON formats: the emoji is one column (UTF-16 would count two).
        write(self.path("w.py"), "s = '\U0001F600'; async = 1\n")
        self.assertIn(",line=1,col=10,endLine=1,endColumn=15::", self.github())
        write(self.path("w.py"), CLEAN)
        self.assertEqual(self.github(), "")


class GitlabOutputTest(CliTestCase):
    def gitlab(self, *args, **kwargs):
        res = self.check("--output-format", "gitlab", *args, **kwargs)
        self.assertIn(res.code, (0, 1), res)
        return json.loads(res.stdout)

    def test_structure(self):
        write(self.path("pkg/t.py"), TORCH)
        [issue] = self.gitlab()
        self.assertEqual(issue, {
            "description": "AF101: `async=` is a syntax error since Python 3.7; PyTorch renamed it `non_blocking=`",
            "check_name": "AF101",
            "fingerprint": issue["fingerprint"],
            "severity": "critical",
            "location": {"path": "pkg/t.py", "lines": {"begin": 4, "end": 4}},
        })
        self.assertRegex(issue["fingerprint"], r"^[0-9a-f]{16}$")
        write(self.path("pkg/t.py"), CLEAN)
        self.assertEqual(self.gitlab(), [])

    def test_severities(self):
        write(self.path("t.py"), TORCH)
        self.assertEqual(self.gitlab("--target-version", "py36")[0]["severity"], "major")
        for level, expected in (("info", "minor"), ("hint", "info"), ("error", "critical")):
            write(self.path("asyncfix.toml"), f"[severity]\nAF101 = \"{level}\"\n")
            self.assertEqual(self.gitlab()[0]["severity"], expected)

    def test_fingerprints_survive_a_line_shift_and_stay_unique(self):
        body = TORCH + "z = y.cuda(async=True)\nz = y.cuda(async=True)\n" + LOCAL
        write(self.path("a.py"), body)
        write(self.path("b.py"), body)
        before = self.gitlab()
        prints = [i["fingerprint"] for i in before]
        self.assertEqual(len(set(prints)), len(prints), before)  # identical lines, other files
        # Lines added above every finding: the same fingerprints, on other lines.
        write(self.path("a.py"), "# header\n\n\n" + body)
        after = self.gitlab()
        self.assertEqual([i["fingerprint"] for i in after], prints)
        self.assertEqual([i["location"]["lines"]["begin"] for i in after if i["location"]["path"] == "a.py"],
                         [i["location"]["lines"]["begin"] + 3 for i in before if i["location"]["path"] == "a.py"])
        # Changing the flagged line changes its fingerprint, and only its.
        write(self.path("a.py"), body.replace("y = x.cuda(async=True)", "y = x.cuda(async=False)"))
        changed = [i["fingerprint"] for i in self.gitlab()]
        self.assertNotEqual(changed[0], prints[0])
        self.assertEqual(changed[1:], prints[1:])


class JunitOutputTest(CliTestCase):
    def junit(self, *args, **kwargs):
        import xml.etree.ElementTree as ET

        res = self.check("--output-format", "junit", *args, **kwargs)
        self.assertIn(res.code, (0, 1), res)
        self.assertTrue(res.stdout.startswith('<?xml version="1.0" encoding="UTF-8"?>\n'), res)
        return ET.fromstring(res.stdout_bytes)

    def test_one_suite_per_file(self):
        write(self.path("t.py"), TORCH)
        write(self.path("l.py"), LOCAL)
        write(self.path("c.py"), CLEAN)
        root = self.junit()
        self.assertEqual(root.tag, "testsuites")
        self.assertEqual((root.get("name"), root.get("tests"), root.get("failures"), root.get("errors")),
                         ("asyncfix", "3", "3", "0"))
        suites = root.findall("testsuite")
        self.assertEqual([(s.get("name"), s.get("tests"), s.get("failures")) for s in suites],
                         [("l.py", "2", "2"), ("t.py", "1", "1")])
        [case] = suites[1].findall("testcase")
        self.assertEqual(case.attrib, {"name": "AF101 (torch-async-kwarg) at 4:12", "classname": "t.py",
                                       "file": "t.py", "line": "4"})
        [failure] = list(case)
        self.assertEqual(failure.tag, "failure")
        self.assertEqual(failure.get("type"), "AF101")
        self.assertEqual(failure.get("message"),
                         "`async=` is a syntax error since Python 3.7; PyTorch renamed it `non_blocking=`")
        self.assertEqual(failure.text, "t.py:4:12: AF101 " + failure.get("message") +
                         "\nhelp: Replace `async=` with `non_blocking=`")

    def test_clean_run_is_one_passing_case(self):
        write(self.path("c.py"), CLEAN)
        root = self.junit()
        self.assertEqual((root.get("tests"), root.get("failures")), ("1", "0"))
        [suite] = root.findall("testsuite")
        [case] = suite.findall("testcase")
        self.assertEqual(case.get("name"), "No errors found")
        self.assertEqual(list(case), [])

    def test_everything_is_escaped(self):
        name = "a<b>&c\"d'e\tf\x01g\r\nh.py"
        root = self.junit("--stdin-filename", name, stdin=TORCH)
        [suite] = root.findall("testsuite")
        # Markup characters, tab, CR and LF survive (as references where a parser would normalize
        # them); a C0 control, which XML 1.0 cannot hold at all, becomes its symbol (U+2401).
        shown = name.replace("\x01", "\u2401")
        self.assertEqual(suite.get("name"), shown)
        self.assertEqual(suite.find("testcase").get("classname"), shown)
        self.assertTrue(suite.find("testcase/failure").text.startswith(shown + ":4:12: AF101 "))
        # File names that are not UTF-8 still give well-formed UTF-8 XML.
        write(self.path(os.fsdecode(b"bad\xff<&.py")), TORCH)
        root = self.junit()
        self.assertEqual(root.find("testsuite").get("name"), "bad\ufffd<&.py")


class ExitNonZeroOnFixTest(CliTestCase):
    def test_exit_1_when_something_was_fixed(self):
        write(self.path("t.py"), TORCH)
        res = self.check("--fix", "--exit-non-zero-on-fix")
        self.assertEqual(res.code, 1, res)
        self.assertEqual(read(self.path("t.py")).decode(), TORCH_FIXED)
        self.assertIn("Fixed 1 error.", res.stdout)
        # Nothing left to fix: 0.
        res = self.check("--fix", "--exit-non-zero-on-fix")
        self.assertEqual(res.code, 0, res)

    def test_without_the_flag_and_with_exit_zero(self):
        write(self.path("t.py"), TORCH)
        self.assertEqual(self.check("--fix").code, 0)
        write(self.path("t.py"), TORCH)
        self.assertEqual(self.check("--fix", "--exit-non-zero-on-fix", "--exit-zero").code, 0)
        self.assertEqual(read(self.path("t.py")).decode(), TORCH_FIXED)

    def test_remaining_findings_still_exit_1_and_stdin(self):
        write(self.path("m.py"), MODULE)  # unsafe only: nothing fixed, findings remain
        self.assertEqual(self.check("--fix", "--exit-non-zero-on-fix").code, 1)
        self.assertEqual(read(self.path("m.py")).decode(), MODULE)
        res = self.check("--stdin-filename", "s.py", "--fix", "--exit-non-zero-on-fix", stdin=TORCH)
        self.assertEqual((res.code, res.stdout), (1, TORCH_FIXED), res)
        res = self.check("--stdin-filename", "s.py", "--fix", "--exit-non-zero-on-fix", stdin=CLEAN)
        self.assertEqual((res.code, res.stdout), (0, CLEAN), res)


class ProgressBarTest(CliTestCase):
    def make_files(self, count, text=CLEAN):
        for i in range(count):
            write(self.path(f"p{i // 100}", f"m{i:04}.py"), text)

    def run_with_terminal_stderr(self, *args):
        """Runs `check` with stderr on a pseudo-terminal and stdout on a pipe."""
        try:
            master, slave = pty.openpty()
        except OSError as e:
            self.skipTest(f"no pseudo-terminal available: {e}")
        proc = subprocess.Popen([BIN, "check", *args], cwd=self.dir, stdout=subprocess.PIPE,
                                stderr=slave, stdin=subprocess.DEVNULL)
        os.close(slave)
        terminal = read_terminal(master)
        stdout = proc.stdout.read().decode()
        proc.stdout.close()
        return proc.wait(timeout=60), stdout, terminal

    def test_bar_on_a_terminal_for_many_files(self):
        self.make_files(201)
        code, stdout, terminal = self.run_with_terminal_stderr()
        self.assertEqual(code, 0, terminal)
        self.assertEqual(stdout, "All checks passed!\n")
        self.assertIn("Checking [", terminal)
        self.assertIn("/201 files", terminal)
        # The bar erases itself: the last thing on the terminal is a blanked line.
        self.assertRegex(terminal, r"\r +\r$")

    def test_messages_come_after_the_erased_bar(self):
        self.make_files(210)
        write(self.path("p9", "bad.py"), b"x = '\xff'\n")
        code, _, terminal = self.run_with_terminal_stderr()
        self.assertEqual(code, 2, terminal)
        self.assertRegex(terminal, r"\r +\rerror: p9/bad.py: ")
        self.assertGreater(terminal.index("error:"), terminal.rindex("Checking ["))

    def test_no_bar_for_few_files_quiet_or_a_pipe(self):
        self.make_files(200)
        code, _, terminal = self.run_with_terminal_stderr()
        self.assertEqual((code, terminal), (0, ""))
        self.make_files(250)
        code, _, terminal = self.run_with_terminal_stderr("--quiet")
        self.assertEqual((code, terminal), (0, ""))
        res = self.check()
        self.assertEqual((res.code, res.stderr), (0, ""), res)


# --- Jupyter notebooks ------------------------------------------------------------------------


def code_cell(source, outputs=(), count=None, metadata=None):
    return {"cell_type": "code", "execution_count": count, "metadata": metadata or {},
            "outputs": list(outputs), "source": source}


# Cell numbers count every cell (markdown and raw ones too), as Jupyter shows them.
NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {},                                   # cell 1
         "source": ["# Training — `x.cuda(async=True)` in prose is not code\n", "Ünïcödé ✓"]},
        code_cell(["%time import torch\n",                                         # cell 2
                   "!pip install torch\n",
                   "import torch\n",
                   "x = torch.zeros(3)  # « é » ✓\n",
                   "y = x.cuda(async=True)\n",
                   "async = 1"],
                  outputs=[{"name": "stdout", "output_type": "stream", "text": ["Collecting torch\n", "ok\n"]}],
                  count=1, metadata={"tags": ["setup"], "collapsed": False}),
        {"cell_type": "markdown", "metadata": {}, "source": ["## Model\n", "`def f(async=False)` below."]},  # 3
        code_cell(["def f(async=False):\n",                                          # cell 4
                   "    s = 'ü→'; return async\n",
                   "print(f(async=True), async)\n"],
                  outputs=[{"data": {"text/plain": ["'é'"]}, "execution_count": 2, "metadata": {},
                            "output_type": "execute_result"}], count=2),
        code_cell(["%%bash\n", "echo async = 1\n", "x.cuda(async=True)\n"]),          # cell 5
        {"cell_type": "raw", "metadata": {}, "source": ["x.cuda(async=True)"]},        # cell 6
        code_cell("z = x.to('cuda', async=True)  # ✓ 🚀\nx.cuda?\n"),                 # cell 7
        code_cell([]),                                                                 # cell 8
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                 "language_info": {"name": "python", "version": "3.6.9"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}

# (code, cell, row, column) of every finding, columns in code points within the cell's line.
NOTEBOOK_FINDINGS = [
    ("AF101", 2, 5, 12), ("AF001", 2, 6, 1),
    ("AF001", 4, 1, 7), ("AF001", 4, 2, len("    s = 'ü→'; return ") + 1),
    ("AF001", 4, 3, 9), ("AF001", 4, 3, 22),
    ("AF101", 7, 1, 18),
]


def notebook_text(nb):
    """A notebook as nbformat writes it (nbformat.writes: indent=1, sorted keys, real UTF-8)."""
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def cell_source(cell):
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def is_ipython_line(line):
    body = line.strip()
    return bool(body) and (body[0] in "%!?" or body.endswith("?"))


def python_of(cell):
    """A code cell's Python, as IPython would run it: None for a cell magic, magics dropped."""
    lines = cell_source(cell).splitlines(keepends=True)
    first = next((l for l in lines if l.strip()), "")
    if first.lstrip().startswith("%%"):
        return None
    return "".join("\n" if is_ipython_line(l) else l for l in lines)


def source_literal(cell):
    """The exact text of a cell's `"source": …` member in nbformat's layout (cells sit at depth 2)."""
    return '"source": ' + json.dumps(cell["source"], indent=1, ensure_ascii=False).replace("\n", "\n   ")


def outside_sources(text, nb, indices):
    """`text` cut at the "source" members of the cells at `indices`: the bytes that must not change."""
    pieces, pos = [], 0
    for i in sorted(indices):
        literal = source_literal(nb["cells"][i])
        at = text.index(literal, pos)
        pieces.append(text[pos:at])
        pos = at + len(literal)
    pieces.append(text[pos:])
    return pieces


class NotebookTest(CliTestCase):
    def write_notebook(self, name="nb.ipynb", nb=None):
        text = notebook_text(nb or NOTEBOOK)
        write(self.path(name), text)
        return text

    def test_walks_collect_notebooks(self):
        for name in ("a.py", "nb.ipynb", "sub/m.ipynb", "sub/.ipynb_checkpoints/m-checkpoint.ipynb",
                     "venv/v.ipynb", "notes.txt"):
            write(self.path(name), TORCH if name.endswith(".py") else notebook_text(NOTEBOOK))
        res = self.check("--show-files")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(res.stdout.splitlines(), ["a.py", "nb.ipynb", "sub/m.ipynb"])
        res = self.check("--show-files", "venv/v.ipynb")
        self.assertEqual(res.stdout.splitlines(), ["venv/v.ipynb"])
        # Checking walks them too.
        res = self.check("--output-format", "json-lines")
        self.assertEqual(sorted({json.loads(l)["filename"] for l in res.stdout.splitlines()}),
                         ["a.py", "nb.ipynb", "sub/m.ipynb"])

    def test_json_positions_are_cell_relative(self):
        self.write_notebook()
        write(self.path("t.py"), TORCH)
        out = self.json_check()
        plain = [d for d in out if d["filename"] == "t.py"]
        found = [d for d in out if d["filename"] == "nb.ipynb"]
        self.assertEqual(len(plain), 1)
        self.assertNotIn("cell", plain[0])             # a .py file keeps the documented shape
        self.assertNotIn("cell", plain[0]["fix"]["edits"][0])
        self.assertEqual([(d["code"], d["cell"], d["location"]["row"], d["location"]["column"]) for d in found],
                         NOTEBOOK_FINDINGS)
        self.assertEqual(list(found[0]), ["code", "name", "message", "severity", "filename", "cell",
                                          "location", "end_location", "fix", "url"])
        cells = NOTEBOOK["cells"]
        for d in found:
            # Each range, read back from the cell's own source, is the `async` it flags.
            line = cell_source(cells[d["cell"] - 1]).splitlines()[d["location"]["row"] - 1]
            self.assertEqual(d["end_location"]["row"], d["location"]["row"])
            self.assertEqual(line[d["location"]["column"] - 1:d["end_location"]["column"] - 1], "async", d)
            for edit in d["fix"]["edits"]:
                self.assertEqual(list(edit), ["content", "cell", "location", "end_location"])
                edit_line = cell_source(cells[edit["cell"] - 1]).splitlines()[edit["location"]["row"] - 1]
                self.assertEqual(edit_line[edit["location"]["column"] - 1:edit["end_location"]["column"] - 1],
                                 "async", edit)
        # The module-level `async` of cell 2 is read in cell 4: one rename, edits in both cells.
        [module] = [d for d in found if (d["cell"], d["location"]["row"]) == (2, 6)]
        self.assertEqual([(e["cell"], e["location"]["row"], e["location"]["column"]) for e in module["fix"]["edits"]],
                         [(2, 6, 1), (4, 3, 22)])
        self.assertEqual(module["fix"]["applicability"], "unsafe")

    def test_text_output_names_the_cell_and_shows_its_line(self):
        self.write_notebook()
        res = self.check("--output-format", "concise")
        self.assertEqual(res.code, 1, res)
        lines = res.stdout.splitlines()[:len(NOTEBOOK_FINDINGS)]
        expected = [f"nb.ipynb:cell {c}:{r}:{col}: {code} " for code, c, r, col in NOTEBOOK_FINDINGS]
        self.assertEqual([line[:len(prefix)] for line, prefix in zip(lines, expected)], expected)
        res = self.check()
        self.assertIn("nb.ipynb:cell 4:2:22: AF001 `async` is a reserved keyword", res.stdout)
        self.assertIn("  |\n2 |     s = 'ü→'; return async\n  |                      ^^^^^ AF001\n", res.stdout)
        self.assertIn("nb.ipynb:cell 7:1:18: AF101 [*]", res.stdout)
        self.assertIn("1 | z = x.to('cuda', async=True)  # ✓ 🚀\n", res.stdout)
        self.assertIn("Found 7 errors.", res.stdout)

    def test_fix_rewrites_only_the_changed_cells_sources(self):
        original = self.write_notebook()
        # Sanity: the original code cells do not compile.
        with self.assertRaises(SyntaxError):
            compile(python_of(NOTEBOOK["cells"][1]), "cell 2", "exec")
        res = self.check("--fix", "--unsafe-fixes", "nb.ipynb")
        self.assertEqual(res.code, 0, res)
        self.assertIn("Fixed 7 errors.", res.stdout)
        self.assertEqual(res.stderr, "")
        fixed_text = read(self.path("nb.ipynb")).decode("utf-8")
        fixed = json.loads(fixed_text)
        changed = [i for i, (a, b) in enumerate(zip(NOTEBOOK["cells"], fixed["cells"])) if a != b]
        self.assertEqual(changed, [1, 3, 6])  # cells 2, 4 and 7
        # JSON level: every key outside those cells' "source" is equal.
        restored = json.loads(fixed_text)
        for i in changed:
            self.assertEqual(set(fixed["cells"][i]) ^ set(NOTEBOOK["cells"][i]), set())
            restored["cells"][i]["source"] = NOTEBOOK["cells"][i]["source"]
        self.assertEqual(restored, NOTEBOOK)
        # The new sources, line by line (a string source stays a string).
        self.assertEqual(fixed["cells"][1]["source"],
                         ["%time import torch\n", "!pip install torch\n", "import torch\n",
                          "x = torch.zeros(3)  # « é » ✓\n", "y = x.cuda(non_blocking=True)\n", "async_ = 1"])
        self.assertEqual(fixed["cells"][3]["source"],
                         ["def f(async_=False):\n", "    s = 'ü→'; return async_\n", "print(f(async_=True), async_)\n"])
        self.assertEqual(fixed["cells"][6]["source"], "z = x.to('cuda', non_blocking=True)  # ✓ 🚀\nx.cuda?\n")
        # Byte level: the file is what nbformat would write, and identical outside those sources.
        self.assertEqual(fixed_text, notebook_text(fixed))
        self.assertEqual(outside_sources(original, NOTEBOOK, changed), outside_sources(fixed_text, fixed, changed))
        # CPython compiles every code cell (IPython lines dropped, the %%bash cell skipped).
        for number, cell in enumerate(fixed["cells"], 1):
            if cell["cell_type"] == "code" and python_of(cell) is not None:
                compile(python_of(cell), f"cell {number}", "exec")
        res = self.check("nb.ipynb")
        self.assertEqual(res.code, 0, res)
        self.assertIn("All checks passed!", res.stdout)
        # Fixing again changes nothing, not even the file's inode.
        st = os.stat(self.path("nb.ipynb"))
        self.assertEqual(self.check("--fix", "--unsafe-fixes", "nb.ipynb").code, 0)
        self.assertEqual(os.stat(self.path("nb.ipynb")).st_ino, st.st_ino)

    def test_safe_fixes_only_and_crlf_layout(self):
        # Without --unsafe-fixes only the two AF101 are fixed; a notebook saved with CRLF keeps it.
        text = notebook_text(NOTEBOOK).replace("\n", "\r\n")
        write(self.path("nb.ipynb"), text)
        res = self.check("--fix", "nb.ipynb")
        self.assertEqual(res.code, 1, res)
        self.assertIn("Fixed 2 errors (5 remaining).", res.stdout)
        expected = json.loads(notebook_text(NOTEBOOK))
        expected["cells"][1]["source"][4] = "y = x.cuda(non_blocking=True)\n"
        expected["cells"][6]["source"] = expected["cells"][6]["source"].replace("async=", "non_blocking=")
        self.assertEqual(read(self.path("nb.ipynb")).decode("utf-8"), notebook_text(expected).replace("\n", "\r\n"))

    def test_diff_shows_the_notebook_json_change(self):
        original = self.write_notebook()
        shutil.copy(self.path("nb.ipynb"), self.path("fixed.ipynb"))
        self.assertEqual(self.check("--fix", "--unsafe-fixes", "fixed.ipynb").code, 0)
        res = self.check("--diff", "--unsafe-fixes", "nb.ipynb")
        self.assertEqual(res.code, 1, res)
        self.assertTrue(res.stdout.startswith("--- a/nb.ipynb\n+++ b/nb.ipynb\n@@ "), res)
        self.assertIn('-    "y = x.cuda(async=True)\\n",\n-    "async = 1"\n'
                      '+    "y = x.cuda(non_blocking=True)\\n",\n+    "async_ = 1"\n', res.stdout)
        self.assertIn("Would fix 7 errors.", res.stderr)
        self.assertEqual(read(self.path("nb.ipynb")).decode(), original)
        if shutil.which("patch") is None:
            self.skipTest("patch is not installed")
        write(self.path("d.patch"), res.stdout_bytes)
        proc = subprocess.run(["patch", "-p1", "-s", "-i", self.path("d.patch")], cwd=self.dir, capture_output=True)
        self.assertEqual(proc.returncode, 0, proc)
        self.assertEqual(read(self.path("nb.ipynb")), read(self.path("fixed.ipynb")))

    def test_stdin_filename_ipynb_reads_a_notebook(self):
        original = self.write_notebook()
        res = self.check("--stdin-filename", "in.ipynb", "--output-format", "json", stdin=original)
        self.assertEqual(res.code, 1, res)
        self.assertEqual([(d["filename"], d["cell"]) for d in json.loads(res.stdout)],
                         [("in.ipynb", c) for _, c, _, _ in NOTEBOOK_FINDINGS])
        res = self.check("--stdin-filename", "in.ipynb", "--fix", "--unsafe-fixes", stdin=original)
        self.assertEqual(res.code, 0, res)
        self.assertEqual(self.check("--fix", "--unsafe-fixes", "nb.ipynb").code, 0)
        self.assertEqual(res.stdout_bytes, read(self.path("nb.ipynb")))
        # A notebook that cannot be parsed is echoed unchanged by --fix, with the error.
        res = self.check("--stdin-filename", "in.ipynb", "--fix", stdin="{\"cells\": [")
        self.assertEqual(res.code, 2, res)
        self.assertEqual(res.stdout, "{\"cells\": [")
        self.assertIn("error: in.ipynb: invalid notebook JSON", res.stderr)

    def test_malformed_notebooks_exit_2_and_the_rest_is_checked(self):
        self.write_notebook("good.ipynb")
        write(self.path("t.py"), TORCH)
        bad = {
            "broken.ipynb": ("{\"cells\": [", "invalid notebook JSON"),
            "empty.ipynb": ("", "invalid notebook JSON"),
            "list.ipynb": ("[1, 2]\n", "invalid notebook JSON"),
            "nocells.ipynb": ("{\"metadata\": {}, \"nbformat\": 4}\n", "not a Jupyter notebook (no `cells` list)"),
            "nosource.ipynb": ("{\"cells\": [{\"cell_type\": \"markdown\", \"source\": []}, {\"cell_type\": \"code\"}]}",
                               "cell 2 has no `source`"),
            "latin1.ipynb": (b"{\"cells\": [], \"x\": \"\xe9\"}", "not valid UTF-8"),
        }
        for name, (content, _) in bad.items():
            write(self.path(name), content)
        for args in ((), ("--fix", "--unsafe-fixes")):
            with self.subTest(args=args):
                before = {name: read(self.path(name)) for name in bad}
                res = self.check("--output-format", "json", *args)
                self.assertEqual(res.code, 2, res)
                for name, (_, message) in bad.items():
                    self.assertRegex(res.stderr, "(?m)^error: " + re.escape(name) + ": " + re.escape(message), name)
                    self.assertEqual(read(self.path(name)), before[name])
                self.assertEqual(len(res.stderr.splitlines()), len(bad), res)
                if not args:
                    self.assertEqual(sorted({d["filename"] for d in json.loads(res.stdout)}), ["good.ipynb", "t.py"])
                else:
                    self.assertEqual(json.loads(res.stdout), [])
                    self.assertEqual(read(self.path("t.py")).decode(), TORCH_FIXED)

    def test_findings_in_ipython_syntax_are_not_reported(self):
        magic = {"cells": [
            code_cell(["%time y = x.cuda(async=True)\n", "!echo async=1\n", "x = 1\n", "  async?\n"]),
            code_cell(["%%bash\n", "async = 1\n"]),
        ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        text = self.write_notebook("magic.ipynb", magic)
        res = self.check("--output-format", "json", "magic.ipynb")
        self.assertEqual((res.code, json.loads(res.stdout), res.stderr), (0, [], ""), res)
        res = self.check("--fix", "--unsafe-fixes", "magic.ipynb")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(read(self.path("magic.ipynb")).decode(), text)
        # Control: the same line without the magic is reported.
        magic["cells"][0]["source"][0] = "y = x.cuda(async=True)\n"
        self.write_notebook("magic.ipynb", magic)
        self.assertEqual([(d["code"], d["cell"]) for d in self.json_check("magic.ipynb")], [("AF101", 1)])

    def test_a_fix_touching_ipython_syntax_is_not_written(self):
        # A shell line's own comment is IPython syntax too: never flagged (no AF900 here).
        nb = {"cells": [code_cell(["!pip install torch  # noqa: AF101\n", "y = x.cuda(async=True)\n"])],
              "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        self.write_notebook("n.ipynb", nb)
        self.assertEqual([d["code"] for d in self.json_check("n.ipynb")], ["AF101"])
        # AF105 would drop the whole shim, IPython line included: the notebook is left alone.
        shim = {"cells": [code_cell(["try:\n", "    x = x.cuda(non_blocking=True)\n", "except TypeError:\n",
                                     "    !echo old torch\n", "    x = x.cuda(async=True)\n"])],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        text = self.write_notebook("s.ipynb", shim)
        self.assertEqual([d["code"] for d in self.json_check("s.ipynb")], ["AF105"])
        res = self.check("--fix", "s.ipynb")
        self.assertEqual(res.code, 1, res)
        self.assertIn("warning: s.ipynb: a fix touched notebook IPython syntax; not written\n", res.stderr)
        self.assertEqual(read(self.path("s.ipynb")).decode(), text)
        self.assertIn("Found 1 error.", res.stdout)

    def test_add_noqa_writes_into_the_cells(self):
        original = self.write_notebook()
        res = self.check("--add-noqa", "nb.ipynb")
        self.assertEqual(res.code, 0, res)
        self.assertRegex(res.stdout, r"Added \d+ noqa directives\.")
        text = read(self.path("nb.ipynb")).decode()
        fixed = json.loads(text)
        self.assertEqual(fixed["cells"][1]["source"][4], "y = x.cuda(async=True)  # noqa: AF101\n")
        self.assertEqual(fixed["cells"][1]["source"][:2], NOTEBOOK["cells"][1]["source"][:2])
        self.assertEqual(outside_sources(original, NOTEBOOK, [1, 3, 6]), outside_sources(text, fixed, [1, 3, 6]))
        self.assertEqual(self.check("nb.ipynb").code, 0)

    def test_per_file_ignores_apply_to_the_notebook_path(self):
        self.write_notebook("nbs/nb.ipynb")
        write(self.path("nbs/t.py"), LOCAL)
        write(self.path("asyncfix.toml"), "[per-file-ignores]\n\"*.ipynb\" = [\"AF001\"]\n")
        self.assertEqual(sorted((d["filename"], d["code"]) for d in self.json_check()),
                         [("nbs/nb.ipynb", "AF101"), ("nbs/nb.ipynb", "AF101"), ("nbs/t.py", "AF001"), ("nbs/t.py", "AF001")])
        res = self.check("--statistics")
        self.assertIn("AF101", res.stdout)

    def test_ci_formats_name_the_cell(self):
        self.write_notebook()
        res = self.check("--output-format", "sarif")
        self.assertEqual(res.code, 1, res)
        log = SarifOutputTest.assertValidSarif(self, res.stdout)
        results = log["runs"][0]["results"]
        self.assertEqual([(r["ruleId"], r["properties"]["cell"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
                          for r in results], [(c, n, r) for c, n, r, _ in NOTEBOOK_FINDINGS])
        # Columns in UTF-16 units within the cell; no fixes (their regions would address the JSON).
        region = results[-1]["locations"][0]["physicalLocation"]["region"]
        self.assertEqual((region["startColumn"], region["endColumn"]), (18, 23))
        self.assertTrue(all("fixes" not in r for r in results))

        res = self.check("--output-format", "github")
        self.assertIn("::error title=asyncfix (AF101),file=nb.ipynb,line=5,col=12,endLine=5,endColumn=17"
                      "::cell 2:5:12: `async=` is a syntax error", res.stdout)
        gitlab = json.loads(self.check("--output-format", "gitlab").stdout)
        self.assertTrue(gitlab[0]["description"].startswith("AF101: cell 2:5:12: `async=`"), gitlab[0])
        self.assertEqual(gitlab[0]["location"], {"path": "nb.ipynb", "lines": {"begin": 5, "end": 5}})
        self.assertEqual(len({g["fingerprint"] for g in gitlab}), len(NOTEBOOK_FINDINGS))
        junit = self.check("--output-format", "junit").stdout
        self.assertIn('<testcase name="AF101 (torch-async-kwarg) at cell 2:5:12" classname="nb.ipynb"', junit)
        self.assertIn(">nb.ipynb:cell 7:1:18: AF101 ", junit)


# --- the bundled legacy example -----------------------------------------------------------------

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")


def normalized_ast(source, **parse_args):
    """The AST dump with the spellings the fixes change mapped back, so that an original and its
    fixed version compare equal exactly when nothing but those spellings changed."""
    import ast

    dump = ast.dump(ast.parse(source, **parse_args))
    for new, old in (("'async_'", "'async'"), ("'await_'", "'await'"), ("'non_blocking'", "'async'")):
        dump = dump.replace(new, old)
    return dump


class ExamplesTest(CliTestCase):
    def test_fixing_the_examples_leaves_code_python3_compiles_with_nothing_else_changed(self):
        tree = self.path("examples")
        shutil.copytree(EXAMPLES, tree)
        originals = {}
        for root, _, files in os.walk(tree):
            for name in files:
                if name.endswith(".py"):
                    p = os.path.join(root, name)
                    originals[p] = read(p).decode()
        self.assertGreaterEqual(len(originals), 2)
        # Before: legacy code that Python 3.6 accepts and this Python rejects.
        self.assertTrue(any(not compiles(p) for p in originals))
        self.assertEqual(self.check("examples").code, 1)

        # The Python 3.7 fixes first (AF0xx-AF2xx): they rename, the program stays the same.
        res = self.check("--fix", "--unsafe-fixes", "--ignore", "AF3", "examples")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(self.check("--ignore", "AF3", "examples").code, 0)
        for p, original in originals.items():
            with self.subTest(file=os.path.relpath(p, tree)):
                fixed = read(p).decode()
                self.assertTrue(compiles(p), p)
                if os.path.basename(p) == "finetune_2017.py":
                    self.assert_runs_on_modern_pytorch(fixed)
                    continue
                # Only names and keywords were renamed: the same program.
                self.assertEqual(normalized_ast(fixed),
                                 normalized_ast(original, feature_version=(3, 6)))
                # Comments are code too, for the reader: every one survives byte for byte.
                self.assertEqual(re.findall(r"#.*", fixed), re.findall(r"#.*", original))
        # Then the PyTorch-migration fixes (AF3xx), which change what the programs do (on purpose:
        # tests/torch runs imagenet_2017.py fixed): nothing is left to report.
        res = self.check("--fix", "--unsafe-fixes", "examples")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(self.check("examples").code, 0)

    def assert_runs_on_modern_pytorch(self, source):
        """No argument is left that a PyTorch 2.x callee rejects: no `async`, no keyword on
        `.cpu()`, no `non_blocking` on the modules' `.cuda()`, no bool in `.to()`'s dtype slot,
        and no try/except TypeError shim left."""
        import ast

        tree = ast.parse(source)
        modules = {"self", "backbone"}  # what the example binds to nn.Module instances
        for node in ast.walk(tree):
            if isinstance(node, ast.Try):
                self.assertFalse(any(isinstance(h.type, ast.Name) and h.type.id == "TypeError"
                                     for h in node.handlers), ast.unparse(node))
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            keywords = {k.arg for k in node.keywords}
            call = ast.unparse(node)
            self.assertNotIn("async", keywords, call)
            if node.func.attr == "cpu":
                self.assertEqual(keywords, set(), call)
            if node.func.attr == "cuda" and isinstance(node.func.value, ast.Name) and node.func.value.id in modules:
                self.assertNotIn("non_blocking", keywords, call)
            if node.func.attr == "to" and len(node.args) == 2:
                self.assertFalse(isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, bool), call)
        self.assertIn("pin_memory=True", source)


if __name__ == "__main__":
    unittest.main()
