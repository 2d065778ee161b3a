"""The WebAssembly build against the native one (issue 33; CTest label `wasm`, docs/wasm.md).

The CLI module (wasm/asyncfix.js under Node) must print byte for byte what the native command of
the ci build prints, with the same exit code, for `check`, `check --diff --unsafe-fixes` and
`check --output-format json` on tests/fixtures and examples/; `check --fix` on a copy must leave
the same bytes. The language server module (wasm/asyncfix-lsp.js, a WASI module) must answer the
transcripts of tests/lsp/transcripts as the native asyncfix-lsp answers them over stdio.

The server also runs bench/lsp's typing trace to its end and exits cleanly.

Environment: ASYNCFIX_NATIVE_BIN, ASYNCFIX_NATIVE_LSP_BIN (the native commands), ASYNCFIX_LSP_BENCH
(bench/lsp's driver of the ci build), ASYNCFIX_WASM_DIR
(the wasm build directory), NODE. Python's unittest only.
"""
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NODE = os.environ.get("NODE", "node")
NATIVE = os.environ.get("ASYNCFIX_NATIVE_BIN", os.path.join(ROOT, "build", "ci", "cli", "asyncfix"))
NATIVE_LSP = os.environ.get("ASYNCFIX_NATIVE_LSP_BIN", os.path.join(ROOT, "build", "ci", "lsp", "asyncfix-lsp"))
LSP_BENCH = os.environ.get("ASYNCFIX_LSP_BENCH", os.path.join(ROOT, "build", "ci", "bench", "lsp", "asyncfix_lsp_bench"))
WASM_CLI = [NODE, os.path.join(ROOT, "wasm", "asyncfix.js")]
WASM_LSP = [NODE, os.path.join(ROOT, "wasm", "asyncfix-lsp.js")]
TIMEOUT = float(os.environ.get("ASYNCFIX_TEST_TIMEOUT", "120"))
# The links to rule pages name the manual beside the native program (found through
# /proc/self/exe, which WebAssembly has not): both sides are given the same address.
DOCS = "https://asyncfix.invalid/docs"

def need(path):
    if not os.path.exists(path):
        raise AssertionError("%s is missing: build the ci preset's commands first "
                             "(cmake --build --preset ci --target asyncfix_cli asyncfix_lsp_bin asyncfix_lsp_bench)" % path)


def run(argv, cwd):
    p = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT * 5)
    return p.returncode, p.stdout, p.stderr


def tree_bytes(root):
    out = {}
    for directory, _, files in os.walk(root):
        for name in files:
            path = os.path.join(directory, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = f.read()
    return out


class CliTest(unittest.TestCase):
    """The same output and exit code from both commands (run from the repository, relative paths)."""

    @classmethod
    def setUpClass(cls):
        need(NATIVE)

    def same(self, *args):
        argv = ["check", *args, "--docs-url", DOCS]
        native = run([NATIVE, *argv], ROOT)
        wasm = run([*WASM_CLI, *argv], ROOT)
        self.assertEqual(wasm[2].decode(errors="replace"), native[2].decode(errors="replace"), "stderr of %s" % argv)
        self.assertEqual(wasm[1], native[1], "stdout of %s" % argv)
        self.assertEqual(wasm[0], native[0], "exit code of %s" % argv)
        self.assertGreater(len(native[1]), 0, "nothing to compare: %s printed nothing" % argv)

    def test_check(self):
        for target in ("tests/fixtures", "examples"):
            with self.subTest(target=target):
                self.same(target)

    def test_diff_unsafe_fixes(self):
        for target in ("tests/fixtures", "examples"):
            with self.subTest(target=target):
                self.same("--diff", "--unsafe-fixes", target)

    def test_json(self):
        for target in ("tests/fixtures", "examples"):
            with self.subTest(target=target):
                self.same("--output-format", "json", target)

    def test_jobs_accepted(self):
        # The WebAssembly build has no threads: -j 4 runs on the one there is, with the same output.
        self.same("-j", "4", "--output-format", "concise", "tests/fixtures")

    def test_stdin(self):
        with open(os.path.join(ROOT, "tests", "fixtures", "AF101.py"), "rb") as f:
            source = f.read()
        argv = ["check", "--fix", "--stdin-filename", "AF101.py", "-"]
        native = subprocess.run([NATIVE, *argv], input=source, stdout=subprocess.PIPE, timeout=TIMEOUT)
        wasm = subprocess.run([*WASM_CLI, *argv], input=source, stdout=subprocess.PIPE, timeout=TIMEOUT)
        self.assertNotEqual(native.stdout, source)
        self.assertEqual(wasm.stdout, native.stdout)
        self.assertEqual(wasm.returncode, native.returncode)


class FixTest(unittest.TestCase):
    """`check --fix --unsafe-fixes` on two copies leaves the same bytes in both."""

    def test_fix_copies(self):
        need(NATIVE)
        for target in ("tests/fixtures", "examples"):
            with self.subTest(target=target), tempfile.TemporaryDirectory() as tmp:
                copies = []
                for side, argv0 in (("native", [NATIVE]), ("wasm", WASM_CLI)):
                    copy = os.path.join(tmp, side)
                    shutil.copytree(os.path.join(ROOT, target), copy)
                    code, out, err = run([*argv0, "check", "--fix", "--unsafe-fixes", "--docs-url", DOCS, "."], copy)
                    copies.append((code, out, err, tree_bytes(copy)))
                (n_code, n_out, n_err, n_tree), (w_code, w_out, w_err, w_tree) = copies
                self.assertEqual(w_err, n_err)
                self.assertEqual(w_out, n_out)
                self.assertEqual(w_code, n_code)
                self.assertEqual(sorted(w_tree), sorted(n_tree))
                original = tree_bytes(os.path.join(ROOT, target))
                changed = [name for name in n_tree if n_tree[name] != original.get(name)]
                self.assertTrue(changed, "the fix changed nothing in %s: nothing compared" % target)
                for name in n_tree:
                    self.assertEqual(w_tree[name], n_tree[name], name)


# Transcripts whose server reads files of the workspace from disk (asyncfix.fixWorkspace, the
# project view of module renames, pull diagnostics of files not open): the WASI server reads only
# what the client sends (docs/wasm.md), so they are not expected to agree.
DISK_TRANSCRIPTS = {"execute_command", "module_rename", "module_rename_inline", "module_rename_taken",
                    "module_rename_unsafe", "module_rename_unsupported", "pull_diagnostics"}


def parse_transcript(text):
    """Steps of messages (tests/lsp/transcript_test.cpp's format)."""
    steps, message = [[]], []

    def end_message():
        m = "\n".join(message).strip()
        message.clear()
        if m:
            steps[-1].append(m)

    for line in text.split("\n"):
        line = line.rstrip("\r")
        if line.startswith("#"):
            continue
        if line == "---":
            end_message()
            steps.append([])
        elif line == "+++":
            end_message()
        else:
            message.append(line)
    end_message()
    return [s for s in steps if s]


# Notifications after which the native server analyzes on its worker thread and publishes
# later: the driver waits until the server has been quiet for QUIET seconds (its settler runs
# after 400 ms of quiet), so that the next request sees what an in-process replay would see.
ANALYZING = ("textDocument/didOpen", "textDocument/didChange", "workspace/didChangeConfiguration",
             "notebookDocument/didOpen", "notebookDocument/didChange", "textDocument/didClose")
QUIET = 0.7
STEP_LIMIT = 30.0  # a step whose answers do not all come (a request the server must not answer)


class Server:
    """A language server over stdio, read without blocking (select) into whole messages."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.buffer = b""
        self.closed = False

    def send(self, bodies):
        try:
            self.proc.stdin.write(b"".join(b"Content-Length: %d\r\n\r\n" % len(b) + b for b in bodies))
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.closed = True

    def messages(self, timeout):
        """The whole messages that arrive within `timeout` seconds (fewer when it has exited)."""
        if not self.closed:
            ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
                if chunk:
                    self.buffer += chunk
                else:
                    self.closed = True
        out = []
        while b"\r\n\r\n" in self.buffer:
            header, _, rest = self.buffer.partition(b"\r\n\r\n")
            length = int(header.split(b"Content-Length: ")[1].split(b"\r\n")[0])
            if len(rest) < length:
                break
            out.append(json.loads(rest[:length]))
            self.buffer = rest[length:]
        return out


def transcript_answers(argv, steps):
    """What the server says to a transcript: its responses by id, each document's last pushed
    diagnostics (the final state), the requests it sends the client, and its exit code."""
    server = Server([*argv, "--docs-url", DOCS])
    responses, last_diagnostics, requests_seen = {}, {}, []

    def take(message):
        if "method" not in message:
            responses[json.dumps(message.get("id"))] = message
        elif message["method"] == "textDocument/publishDiagnostics":
            last_diagnostics[message["params"]["uri"]] = message["params"]
        elif "id" in message:
            requests_seen.append(message["method"])

    try:
        for step in steps:
            wanted, analyzing = [], False
            for raw in step:
                try:
                    m = json.loads(raw)
                except ValueError:
                    continue
                if not isinstance(m, dict):
                    continue
                method = m.get("method")
                if isinstance(method, str) and isinstance(m.get("id"), (int, str)) and m.get("jsonrpc") == "2.0":
                    wanted.append(json.dumps(m["id"]))
                analyzing = analyzing or method in ANALYZING
            server.send([raw.encode("utf-8", "surrogateescape") for raw in step])
            deadline = time.monotonic() + STEP_LIMIT
            quiet_since = time.monotonic()
            while time.monotonic() < deadline and not server.closed:
                got = server.messages(0.05)
                for message in got:
                    take(message)
                if got:
                    quiet_since = time.monotonic()
                answered = all(w in responses for w in wanted)
                if answered and (not analyzing or time.monotonic() - quiet_since >= QUIET):
                    break
        server.proc.stdin.close()
        deadline = time.monotonic() + STEP_LIMIT
        while not server.closed and time.monotonic() < deadline:
            for message in server.messages(0.2):
                take(message)
        code = server.proc.wait(timeout=TIMEOUT)
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    return responses, last_diagnostics, requests_seen, code


# A WASI module whose _start traps (`unreachable`) and which exports a memory, as node:wasi wants.
TRAPPING_MODULE = bytes.fromhex(
    "0061736d01000000"                                      # magic, version 1
    "010401600000"                                          # types: () -> ()
    "03020100"                                              # functions: one of type 0
    "0503010001"                                            # memory: 1 page
    "071302065f7374617274000006" "6d656d6f7279" "0200"      # exports: _start (func 0), memory (memory 0)
    "0a05010300000b")                                       # code: no locals, unreachable, end


class LspTest(unittest.TestCase):
    def test_trap_is_reported(self):
        # A trap inside the module: the launcher says so on stderr and exits with code 70, for the
        # client to start the server again (the VS Code extension does: tests/editors/vscode).
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "asyncfix-lsp.wasm"), "wb") as f:
                f.write(TRAPPING_MODULE)
            p = subprocess.run(WASM_LSP, input=b"", stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT,
                               env=dict(os.environ, ASYNCFIX_WASM_DIR=tmp))
            self.assertEqual(p.returncode, 70, p.stderr)
            self.assertIn(b"asyncfix-lsp: the WebAssembly module stopped: RuntimeError: unreachable", p.stderr)
            self.assertEqual(p.stdout, b"")

    def test_transcripts(self):
        need(NATIVE_LSP)
        directory = os.path.join(ROOT, "tests", "lsp", "transcripts")
        names = sorted(f[:-len(".jsonrpc")] for f in os.listdir(directory) if f.endswith(".jsonrpc"))
        compared = 0
        for name in names:
            if name in DISK_TRANSCRIPTS:
                continue
            # As written, bytes that are no UTF-8 too (robustness.jsonrpc)
            with open(os.path.join(directory, name + ".jsonrpc"), encoding="utf-8", errors="surrogateescape") as f:
                steps = parse_transcript(f.read())
            with self.subTest(transcript=name):
                native = transcript_answers([NATIVE_LSP], steps)
                wasm = transcript_answers(WASM_LSP, steps)
                self.assertEqual(wasm[0], native[0], "responses")
                self.assertEqual(wasm[1], native[1], "last diagnostics of each document")
                self.assertEqual(wasm[2], native[2], "requests to the client")
                self.assertEqual(wasm[3], native[3], "exit code")
                compared += 1
        self.assertGreater(compared, 10)

    def test_warm_up_session(self):
        # The launcher's warm-up (wasm/warm_up.js): a second instance of the server's module on a
        # worker thread, serving a scripted session from memory. It must run the keystroke path
        # for real: every request answered without an error, a publish after the changes (the
        # typed `async=True` reported, and gone once the line is deleted again), nothing logged
        # at the level error, and exit code 0 after `exit`.
        script = ("const fs = require('node:fs');"
                  "const { locate } = require(process.argv[1] + '/locate.js');"
                  "const { warmUp } = require(process.argv[1] + '/warm_up.js');"
                  "const m = new WebAssembly.Module(fs.readFileSync(locate('asyncfix-lsp', 'asyncfix-lsp.wasm')));"
                  "warmUp(m, (r) => process.stdout.write(JSON.stringify(r))).ref();")
        p = subprocess.run([NODE, "-e", script, os.path.join(ROOT, "wasm")], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=TIMEOUT)
        self.assertEqual(p.returncode, 0, p.stderr)
        report = json.loads(p.stdout)
        self.assertEqual(report["code"], 0)
        self.assertEqual(report["log"], "")
        messages = []
        rest = report["output"].encode()
        while rest:
            header, _, rest = rest.partition(b"\r\n\r\n")
            length = int(header.split(b":")[1])
            messages.append(json.loads(rest[:length]))
            rest = rest[length:]
        responses = [m for m in messages if "id" in m]
        self.assertEqual([m["id"] for m in responses], list(range(1, len(responses) + 1)))
        self.assertGreaterEqual(len(responses), 4)  # initialize, a code action, a hover, shutdown
        for m in responses:
            self.assertNotIn("error", m)
        published = [m["params"]["diagnostics"] for m in messages
                     if m.get("method") == "textDocument/publishDiagnostics"
                     and m["params"]["uri"] == "untitled:warm-up.py"]  # the one typed into
        self.assertGreater(len(published), 100)
        others = {m["params"]["uri"] for m in messages if m.get("method") == "textDocument/publishDiagnostics"}
        self.assertEqual(len(others), 5)  # and four larger ones, each edited once
        codes = lambda diagnostics: sorted(d["code"] for d in diagnostics)
        self.assertEqual(codes(published[-1]), codes(published[0]))
        self.assertTrue(any(len(d) > len(published[0]) for d in published), "the typed line was never reported")


class TypingTest(unittest.TestCase):
    def test_typing_with_settles_then_exit(self):
        # bench/lsp's typing trace on 20 000 lines with pauses past the quiet period, so that the
        # server settles (seconds of fresh parsing here) between keystrokes: it answers every
        # keystroke and request, and exits with code 0 after `exit`. With node:wasi's
        # returnOnExit, the exit unwound the module's stack by a JavaScript exception, and Node
        # 20 crashed doing so (signal 11) after such a trace.
        need(LSP_BENCH)
        p = subprocess.run([LSP_BENCH, "--server", os.path.join(ROOT, "wasm", "asyncfix-lsp.js"), "--typing",
                            "--lines", "20000", "--repeat", "1", "--pause", "450"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
        out = p.stdout.decode(errors="replace")
        self.assertEqual(p.returncode, 0, out[-3000:])
        self.assertIn("62 keystrokes didChange -> publishDiagnostics", out)
        self.assertIn("exit code 0\n", out)


if __name__ == "__main__":
    unittest.main()
