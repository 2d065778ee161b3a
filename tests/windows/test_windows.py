"""The Windows x64 build under wine64 (CTest label `windows`, docs/windows.md): asyncfix.exe,
asyncfix-lsp.exe and asyncfix.dll against the native build's commands.

Environment (tests/windows/CMakeLists.txt sets it): ASYNCFIX_WIN_BIN, ASYNCFIX_WIN_LSP,
ASYNCFIX_WIN_CAPI (the C API test program, linked against asyncfix.dll), ASYNCFIX_NATIVE_BIN (the
Linux `asyncfix` to compare with), WINE (wine64), WINEPREFIX, WINEDEBUG.

The programs run with the same working directory and relative paths on both sides, so their
output is compared as it is; where Windows prints a path of its own (an absolute one) the
comparison normalises it, and says so.
"""

import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
import sys
import unittest
import zipfile
from pathlib import Path
from urllib.parse import quote

SOURCE = Path(__file__).resolve().parents[2]
WINE = os.environ.get("WINE", "wine64")
WIN_BIN = os.environ.get("ASYNCFIX_WIN_BIN", "")
WIN_LSP = os.environ.get("ASYNCFIX_WIN_LSP", "")
WIN_CAPI = os.environ.get("ASYNCFIX_WIN_CAPI", "")
NATIVE_BIN = os.environ.get("ASYNCFIX_NATIVE_BIN", "")
WIN_DIST = os.environ.get("ASYNCFIX_WIN_DIST", "")
TIMEOUT = 600


def run(argv, cwd, stdin=None):
    return subprocess.run(argv, cwd=cwd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=TIMEOUT)


def windows(args, cwd, stdin=None):
    return run([WINE, WIN_BIN] + args, cwd, stdin)


def native(args, cwd, stdin=None):
    return run([NATIVE_BIN] + args, cwd, stdin)


DOCS = re.compile(rb"file://[^\s\"'<>]*?/rules/(AF\d+)\.md")


def docs_aside(output: bytes) -> bytes:
    """The rule pages' links with the manual's place left out: each build finds the manual beside
    its own program (files/docs_location.cpp), which differs between the two builds."""
    return DOCS.sub(rb"<docs>/rules/\1.md", output)


def tree(root):
    """{relative path: bytes} of every file under `root`."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(Path(root).rglob("*")) if p.is_file()}


class WindowsTest(unittest.TestCase):
    def setUp(self):
        for name, value in (("ASYNCFIX_WIN_BIN", WIN_BIN), ("ASYNCFIX_NATIVE_BIN", NATIVE_BIN)):
            if not value or not os.path.exists(value):
                self.fail("%s is not set to a built program (%r); build the ci preset first" % (name, value))
        self.tmp = Path(tempfile.mkdtemp(prefix="asyncfix-windows-"))  # outside the repository's .gitignore
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def assertSameRun(self, args, cwd, stdin=None, what=None):
        w, n = windows(args, cwd, stdin), native(args, cwd, stdin)
        label = what or " ".join(args)
        self.assertEqual(w.returncode, n.returncode, "%s: exit %d on Windows, %d on Linux\n%s" %
                         (label, w.returncode, n.returncode, w.stderr.decode(errors="replace")[-2000:]))
        if docs_aside(w.stdout) != docs_aside(n.stdout):
            wl, nl = docs_aside(w.stdout).splitlines(True), docs_aside(n.stdout).splitlines(True)
            first = next((i for i, (a, b) in enumerate(zip(wl, nl)) if a != b), min(len(wl), len(nl)))
            self.fail("%s: stdout differs at line %d (Windows %d lines, Linux %d)\n  windows: %r\n  linux:   %r" %
                      (label, first + 1, len(wl), len(nl), wl[first] if first < len(wl) else None,
                       nl[first] if first < len(nl) else None))
        return w


class CliParity(WindowsTest):
    """check, --diff, --fix and the output formats on tests/fixtures and examples/: the same bytes."""

    def copy(self, name):
        for part in ("tests/fixtures", "examples"):
            shutil.copytree(SOURCE / part, self.tmp / name / Path(part).name)
        return self.tmp / name

    def test_check_formats(self):
        root = self.copy("a")
        for fmt in ("full", "concise", "json", "json-lines", "github"):
            with self.subTest(fmt=fmt):
                self.assertSameRun(["check", "--output-format", fmt, "fixtures", "examples"], root)
        self.assertSameRun(["check", "--statistics", "fixtures", "examples"], root)
        self.assertSameRun(["check", "--select", "AF101,AF102", "--target-version", "py36", "fixtures"], root)

    def test_diff(self):
        root = self.copy("a")
        self.assertSameRun(["check", "--diff", "fixtures", "examples"], root)
        self.assertSameRun(["check", "--diff", "--unsafe-fixes", "fixtures", "examples"], root)

    def test_fix_leaves_the_same_files(self):
        a, b = self.copy("a"), self.copy("b")
        before = tree(a)
        w = windows(["check", "--fix", "--unsafe-fixes", "fixtures", "examples"], a)
        n = native(["check", "--fix", "--unsafe-fixes", "fixtures", "examples"], b)
        self.assertEqual(w.returncode, n.returncode, w.stderr.decode(errors="replace")[-2000:])
        self.assertEqual(w.stdout, n.stdout)
        ta, tb = tree(a), tree(b)
        self.assertEqual(sorted(ta), sorted(tb), "other files after the fix (a temporary file left behind?)")
        self.assertTrue([k for k in ta if ta[k] != before.get(k)], "the fix changed nothing")
        for k in ta:
            self.assertEqual(ta[k], tb[k], "%s differs after --fix" % k)
        # Idempotent: a second fix changes nothing.
        again = windows(["check", "--fix", "--unsafe-fixes", "fixtures", "examples"], a)
        self.assertEqual(tree(a), ta, again.stderr.decode(errors="replace")[-2000:])

    def test_rules(self):
        self.assertSameRun(["rule", "--all"], self.tmp)
        self.assertSameRun(["rule", "AF101"], self.tmp)


SOURCE_CRLF = (b"import torch\r\n\r\n\r\ndef load(x):\r\n    y = x.cuda(async=True)\r\n"
               b"    return y.to(0,\r\n                async=True)  # comment\r\n")


class Files(WindowsTest):
    """CRLF, non-ASCII names with spaces, read-only files, long paths: as on Linux."""

    def test_crlf_is_kept_byte_for_byte(self):
        for side in ("w", "n"):
            (self.tmp / side).mkdir()
            (self.tmp / side / "crlf.py").write_bytes(SOURCE_CRLF)
        self.assertSameRun(["check", "--diff", "crlf.py"], self.tmp / "w", what="--diff of a CRLF file")
        w = windows(["check", "--diff", "crlf.py"], self.tmp / "w")
        self.assertIn(b"-    y = x.cuda(async=True)\r\n", w.stdout)  # not \r\r\n
        self.assertNotIn(b"\r\r", w.stdout)
        windows(["check", "--fix", "crlf.py"], self.tmp / "w")
        native(["check", "--fix", "crlf.py"], self.tmp / "n")
        fixed = (self.tmp / "w" / "crlf.py").read_bytes()
        self.assertEqual(fixed, (self.tmp / "n" / "crlf.py").read_bytes())
        self.assertEqual(fixed, SOURCE_CRLF.replace(b"async=", b"non_blocking="))
        # Through stdin and stdout (binary both ways).
        self.assertSameRun(["check", "--fix", "--stdin-filename", "x.py"], self.tmp, stdin=SOURCE_CRLF,
                           what="--stdin-filename --fix of a CRLF text")
        self.assertEqual(windows(["check", "--fix", "--stdin-filename", "x.py"], self.tmp, stdin=SOURCE_CRLF).stdout,
                         SOURCE_CRLF.replace(b"async=", b"non_blocking="))

    def test_non_ascii_path_with_spaces(self):
        for side in ("w", "n"):
            d = self.tmp / side / "données d'été" / "ünïcødé dir"
            d.mkdir(parents=True)
            (d / "mödel trän.py").write_bytes(SOURCE_CRLF)
        self.assertSameRun(["check", "--output-format", "concise", "données d'été"], self.tmp / "w")
        self.assertSameRun(["check", "--output-format", "json", "données d'été/ünïcødé dir/mödel trän.py"],
                           self.tmp / "w")
        w, n = windows(["check", "--fix", "données d'été"], self.tmp / "w"), native(["check", "--fix", "données d'été"],
                                                                                  self.tmp / "n")
        self.assertEqual((w.returncode, w.stdout), (n.returncode, n.stdout), w.stderr)
        self.assertEqual(tree(self.tmp / "w"), tree(self.tmp / "n"))
        self.assertIn(b"non_blocking", next((self.tmp / "w").rglob("*.py")).read_bytes())

    def test_read_only_file_is_not_written(self):
        path = self.tmp / "ro.py"
        path.write_bytes(SOURCE_CRLF)
        path.chmod(0o444)
        self.addCleanup(path.chmod, 0o644)
        w = windows(["check", "--fix", "ro.py"], self.tmp)
        self.assertEqual(path.read_bytes(), SOURCE_CRLF)
        self.assertIn(b"ro.py: permission denied", w.stderr)
        self.assertEqual(w.returncode, 2, w.stderr)
        self.assertEqual(sorted(p.name for p in self.tmp.iterdir()), ["ro.py"])  # no temporary file left

    def test_a_symlink_named_on_the_command_line_is_written_through(self):
        # As on Linux: the link stays a link, the file it points to gets the fix.
        for side in ("w", "n"):
            d = self.tmp / side
            d.mkdir()
            (d / "real.py").write_bytes(SOURCE_CRLF)
            (d / "link.py").symlink_to("real.py")
        w, n = windows(["check", "--fix", "link.py"], self.tmp / "w"), native(["check", "--fix", "link.py"], self.tmp / "n")
        self.assertEqual((w.returncode, w.stdout), (n.returncode, n.stdout), w.stderr)
        for side in ("w", "n"):
            d = self.tmp / side
            self.assertTrue((d / "link.py").is_symlink(), side)
            self.assertEqual(os.readlink(d / "link.py"), "real.py")
            self.assertEqual((d / "real.py").read_bytes(), SOURCE_CRLF.replace(b"async=", b"non_blocking="), side)
        self.assertEqual(sorted(p.name for p in (self.tmp / "w").iterdir()), ["link.py", "real.py"])

    def test_namespace_package_named_by_absolute_path(self):
        # The module of a file in a namespace package depends on the `src` roots above it: named by
        # a Windows absolute path (`Z:/…` or `Z:\\…`), it is still `ns.async`, not `async`.
        shutil.copytree(SOURCE / "tests/lsp/projects/namespace", self.tmp / "namespace")
        root = self.tmp / "namespace"
        n = native(["check", "--output-format", "concise", str(root)], root)
        self.assertIn(b"module `ns.async`", n.stdout)
        for spelt in ("Z:" + str(root), "Z:" + str(root).replace("/", "\\")):
            with self.subTest(path=spelt):
                w = windows(["check", "--output-format", "concise", spelt], root)
                self.assertEqual((w.returncode, w.stdout.replace(b"Z:/", b"/")), (n.returncode, n.stdout),
                                 w.stderr)

    def test_long_path(self):
        for side in ("w", "n"):
            d = self.tmp / side
            for i in range(8):
                d = d / ("a very long directory name number %d with spaces" % i)
            d.mkdir(parents=True)
            (d / "deep.py").write_bytes(SOURCE_CRLF)
        self.assertGreater(len(str(d / "deep.py")), 300)
        self.assertSameRun(["check", "--output-format", "concise", "."], self.tmp / "w")
        w, n = windows(["check", "--fix", "."], self.tmp / "w"), native(["check", "--fix", "."], self.tmp / "n")
        self.assertEqual((w.returncode, w.stdout), (n.returncode, n.stdout), w.stderr)
        self.assertEqual(tree(self.tmp / "w"), tree(self.tmp / "n"))
        self.assertIn(b"non_blocking", (d / "deep.py").read_bytes())


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def messages(data: bytes):
    out = []
    while data:
        header, sep, rest = data.partition(b"\r\n\r\n")
        if not sep:
            raise AssertionError("truncated output: %r" % data[:200])
        length = int(re.search(rb"Content-Length: *(\d+)", header, re.I).group(1))
        out.append(rest[:length])
        data = rest[length:]
    return out


def wine_uri(path: Path) -> str:
    """The URI of a Unix path as the Windows server names it: wine's Z: drive, lower case, %3A."""
    return "file:///z%3A" + quote(str(path).replace("\\", "/"), safe="/-._~")


class Transcripts(unittest.TestCase):
    """tests/lsp/transcripts against asyncfix-lsp.exe over stdio: each transcript's messages are sent
    step by step, each step followed by two requests for an unknown method (their error answers
    mark the end of the step's output, see replay()); the output, pretty-printed and normalised as
    tests/lsp/transcript_test.cpp does, must equal the .expected file."""

    DIR = SOURCE / "tests" / "lsp"
    SYNC = "$/asyncfix.windowsTestSync"

    def steps(self, text, workspace, projects):
        steps, message = [[]], []

        def end():
            m = "".join(message).strip()
            message.clear()
            if m:
                steps[-1].append(m.replace("${WORKSPACE}", workspace).replace("${PROJECTS}", projects))

        for line in text.splitlines():
            if line.startswith("#"):
                continue
            if line == "---":
                end()
                if steps[-1]:
                    steps.append([])
            elif line == "+++":
                end()
            else:
                message.append(line + "\n")
        end()
        return [s for s in steps if s]

    def replay(self, name):
        workspace, projects = wine_uri(self.DIR / "workspace"), wine_uri(self.DIR / "projects")
        text = (self.DIR / "transcripts" / (name + ".jsonrpc")).read_text(encoding="utf-8", errors="surrogateescape")
        steps = self.steps(text, workspace, projects)
        proc = subprocess.Popen([WINE, WIN_LSP], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, cwd=self.DIR)
        out, buffer, exited = "", b"", False
        try:
            for i, step in enumerate(steps):
                header = "=== %d:" % (i + 1)
                data = b""
                for m in step:
                    header += " " + self.describe(m)
                    data += frame(m.encode("utf-8", "surrogateescape"))
                sync = "sync-%d" % i
                last = any(self.is_exit(m) for m in step)
                if not last:
                    data += frame(json.dumps({"jsonrpc": "2.0", "id": sync, "method": self.SYNC}).encode())
                # The whole step in one write: it is in the pipe at once (a step is far below the
                # pipe's 64 KiB), so the server, which publishes when no input waits, never sees
                # a step's first messages without the rest (as the in-process replay feeds it).
                send(proc, data)
                out += header + "\n"
                bodies = []
                if last:
                    proc.stdin.close()
                    rest = proc.stdout.read()
                    bodies = messages(buffer + rest)
                    buffer = b""
                    exited = True
                else:
                    # The answer to the first marker follows the step's own answers; what the
                    # server does once its input is drained (publishing diagnostics, as the
                    # in-process replay's drain() does) comes before the answer to the second.
                    bodies, buffer = messages_until(proc, buffer, sync)
                    send(proc, frame(json.dumps({"jsonrpc": "2.0", "id": sync + "b", "method": self.SYNC}).encode()))
                    more, buffer = messages_until(proc, buffer, sync + "b")
                    bodies += more
                for body in bodies:
                    j = json.loads(body)
                    if j.get("id") in (sync, sync + "b") or self.SYNC in json.dumps(j.get("params")):
                        continue  # the markers, and the server's trace of them ($/logTrace)
                    out += self.normalise(json.dumps(j, indent=2, sort_keys=True, ensure_ascii=False),
                                          workspace, projects) + "\n"
                if exited:
                    break
            if not exited:
                proc.stdin.close()
                proc.stdout.read()
            code = proc.wait(timeout=TIMEOUT)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.stdout.close()
        out += ("=== exit code %d\n" % code) if exited else "=== still running\n"
        return out

    @staticmethod
    def is_exit(message):
        try:
            return json.loads(message).get("method") == "exit"
        except (ValueError, AttributeError):
            return False

    @staticmethod
    def no_constant(name):
        raise ValueError(name + " is no JSON")  # Python reads NaN and Infinity; JSON has neither

    @staticmethod
    def check_strings(value):
        """Python reads an escaped lone surrogate (`\\ud800`) into a string; JSON's strings are
        Unicode text, and the server refuses it: raises UnicodeEncodeError for one, at any depth."""
        pending = [value]
        while pending:
            v = pending.pop()
            if isinstance(v, str):
                v.encode("utf-8")
            elif isinstance(v, dict):
                pending.extend(v.keys())
                pending.extend(v.values())
            elif isinstance(v, list):
                pending.extend(v)

    @staticmethod
    def describe(raw):
        try:
            raw.encode("utf-8")  # invalid UTF-8 (kept as surrogates) is no JSON to the server
            j = json.loads(raw, parse_constant=Transcripts.no_constant)
            Transcripts.check_strings(j)
        except (ValueError, UnicodeEncodeError):
            return "(invalid JSON)"
        if not isinstance(j, dict):
            return "(not an object)"
        out = j["method"] if isinstance(j.get("method"), str) else "(response)"
        if "id" in j:
            out += " #" + json.dumps(j["id"], separators=(",", ":"), ensure_ascii=False)
        return out

    @staticmethod
    def normalise(text, workspace, projects):
        # The manual's address (where the build put it, on Z:) as ${DOCS}, as the in-process test.
        # (the Windows build's default is its installed docdir: file:///usr/local/share/doc/asyncfix)
        text = re.sub(r'file:///usr/local/share/doc/asyncfix/rules/(AF\d+)\.md', r"${DOCS}/rules/\1.md", text)
        text = text.replace(workspace, "${WORKSPACE}").replace(projects, "${PROJECTS}")
        return re.sub(r'"disk:(\d+):-?\d+:(\d+)"', r'"disk:\1:<mtime>:\2"', text)

    def test_transcripts(self):
        names = sorted(p.stem for p in (self.DIR / "transcripts").glob("*.jsonrpc"))
        self.assertGreater(len(names), 10)
        failed = []
        for name in names:
            with self.subTest(transcript=name):
                got = self.replay(name)
                expected = (self.DIR / "transcripts" / (name + ".expected")).read_text(encoding="utf-8")
                if got != expected:
                    gl, el = got.splitlines(), expected.splitlines()
                    at = next((i for i, (a, b) in enumerate(zip(gl, el)) if a != b), min(len(gl), len(el)))
                    failed.append(name)
                    self.fail("%s differs at line %d\n  expected: %r\n  actual:   %r" %
                              (name, at + 1, el[at] if at < len(el) else None, gl[at] if at < len(gl) else None))


def send(proc, data):
    """Writes `data` to the process's input with as few write(2) calls as the pipe takes (one
    unless it is full)."""
    view = memoryview(data)
    while view:
        view = view[os.write(proc.stdin.fileno(), view):]


def messages_until(proc, buffer, sync):
    """Reads the server's messages until the answer to the request `sync`; (bodies, rest)."""
    bodies = []
    while True:
        while b"\r\n\r\n" in buffer:
            header, _, rest = buffer.partition(b"\r\n\r\n")
            length = int(re.search(rb"Content-Length: *(\d+)", header, re.I).group(1))
            if len(rest) < length:
                break
            body, buffer = rest[:length], rest[length:]
            bodies.append(body)
            if json.loads(body).get("id") == sync:
                return bodies, buffer
        chunk = os.read(proc.stdout.fileno(), 1 << 16)
        if not chunk:
            return bodies, buffer
        buffer += chunk


sys.path.insert(0, str(SOURCE / "packaging" / "pep517"))
from asyncfix_build import pe  # noqa: E402


class Artefacts(unittest.TestCase):
    """The py3-none-win_amd64 wheel and the win32-x64 .vsix that scripts/windows-artefacts.sh puts
    in the build's dist/ (scripts/run.sh windows runs it before the tests): their tags, files and
    machine types, and their programs and DLL run under wine. (No Windows CPython runs here: the
    Python module on Windows is tested through the DLL it loads.)"""

    def setUp(self):
        self.dist = Path(WIN_DIST)
        self.tmp = Path(tempfile.mkdtemp(prefix="asyncfix-windows-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def one(self, pattern):
        found = sorted(self.dist.glob(pattern))
        self.assertEqual(len(found), 1, "%s in %s: %s (scripts/windows-artefacts.sh makes them)" %
                         (pattern, self.dist, [p.name for p in found]))
        return found[0]

    def unpack(self, archive, name, into):
        target = self.tmp / into / Path(name).name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(archive.read(name))
        return target

    def test_wheel(self):
        path = self.one("asyncfix-*-py3-none-win_amd64.whl")
        with zipfile.ZipFile(path) as wheel:
            names = wheel.namelist()
            version = path.name.split("-")[1]
            self.assertIn("Tag: py3-none-win_amd64\n", wheel.read("asyncfix-%s.dist-info/WHEEL" % version).decode())
            self.assertIn("TAG = 'py3-none-win_amd64'", wheel.read("asyncfix/_wheel_info.py").decode())
            # The library where _capi.py looks for it on Windows, and the commands pip puts in Scripts.
            self.assertIn('"asyncfix.dll" if os.name == "nt"', wheel.read("asyncfix/_capi.py").decode())
            programs = ["asyncfix/asyncfix.dll", "asyncfix-%s.data/scripts/asyncfix.exe" % version,
                        "asyncfix-%s.data/scripts/asyncfix-lsp.exe" % version]
            for name in programs + ["asyncfix/__init__.py", "asyncfix/_launcher.py", "asyncfix/flake8_plugin.py",
                                    "asyncfix-%s.data/data/share/doc/asyncfix/rules/AF101.md" % version]:
                self.assertIn(name, names)
            self.assertFalse([n for n in names if ".so" in n or n.endswith("/asyncfix")], names)
            dll = self.unpack(wheel, programs[0], "pkg")
            exe = self.unpack(wheel, programs[1], "scripts")
        for f in (dll, exe):
            self.assertEqual(pe.machine(str(f)), ("x86_64", "win_amd64"), f)
        # The wheel's DLL through the C API (capi_test.c loads the asyncfix.dll beside it).
        shutil.copy(WIN_CAPI, self.tmp / "pkg")
        r = subprocess.run([WINE, str(self.tmp / "pkg" / Path(WIN_CAPI).name)], capture_output=True, timeout=TIMEOUT)
        self.assertEqual(r.returncode, 0, r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace"))
        self.assertIn(b"capi: ok", r.stdout)
        r = subprocess.run([WINE, str(exe), "--version"], capture_output=True, timeout=TIMEOUT)
        self.assertEqual((r.returncode, r.stdout), (0, subprocess.run([WINE, WIN_BIN, "--version"],
                                                                      capture_output=True).stdout))

    def test_vsix(self):
        path = self.one("asyncfix-win32-x64-*.vsix")
        with zipfile.ZipFile(path) as vsix:
            self.assertIn('TargetPlatform="win32-x64"', vsix.read("extension.vsixmanifest").decode())
            self.assertIn("extension/bundled/share/doc/asyncfix/rules/AF101.md", vsix.namelist())
            server = self.unpack(vsix, "extension/bundled/win32-x64/asyncfix-lsp.exe", "vsix")
        self.assertEqual(pe.machine(str(server)), ("x86_64", "win_amd64"))
        r = subprocess.run([WINE, str(server), "--version"], capture_output=True, timeout=TIMEOUT)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"asyncfix-lsp", r.stdout + r.stderr)


class CApi(unittest.TestCase):
    """asyncfix.dll through its C API (tests/windows/capi_test.c, under wine)."""

    def test_c_api(self):
        r = subprocess.run([WINE, WIN_CAPI], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
        self.assertEqual(r.returncode, 0, r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace"))
        self.assertIn(b"capi: ok", r.stdout)


if __name__ == "__main__":
    unittest.main()
