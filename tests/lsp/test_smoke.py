"""Smoke tests of the real `asyncfix-lsp` binary over stdio (Content-Length framing).

Python's unittest only; the binary comes from $ASYNCFIX_LSP_BIN ($ASYNCFIX_BIN for `asyncfix lsp`).
No timing assumptions beyond a generous timeout for each message.
"""
import json
import os
import select
import subprocess
import tempfile
import unittest

LSP = os.environ.get("ASYNCFIX_LSP_BIN", "asyncfix-lsp")
CLI = os.environ.get("ASYNCFIX_BIN")
TIMEOUT = float(os.environ.get("ASYNCFIX_TEST_TIMEOUT", "60"))  # sanitizer presets raise it


class Client:
    def __init__(self, argv, stderr=subprocess.PIPE):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        self.buffer = b""
        self.next_id = 1

    def send_raw(self, data: bytes):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message):
        body = json.dumps(message).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method, params=None):
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.next_id += 1
        self.send(message)
        return message["id"]

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def _fill(self):
        ready, _, _ = select.select([self.proc.stdout], [], [], TIMEOUT)
        if not ready:
            raise AssertionError("no output from the server within %ss" % TIMEOUT)
        chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
        if not chunk:
            raise EOFError("the server closed its output")
        self.buffer += chunk

    def read(self):
        """The next message; checks the framing strictly (stdout must carry nothing else)."""
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        header, _, rest = self.buffer.partition(b"\r\n\r\n")
        lines = header.split(b"\r\n")
        assert len(lines) == 1 and lines[0].startswith(b"Content-Length: "), header
        length = int(lines[0][len(b"Content-Length: "):])
        while len(rest) < length:
            self.buffer = header + b"\r\n\r\n" + rest
            self._fill()
            header, _, rest = self.buffer.partition(b"\r\n\r\n")
        self.buffer = rest[length:]
        return json.loads(rest[:length])

    def wait_for(self, predicate):
        while True:
            message = self.read()
            if predicate(message):
                return message

    def response(self, request_id):
        return self.wait_for(lambda m: m.get("id") == request_id and "method" not in m)

    def finish(self):
        self.proc.stdin.close()
        rest = self.proc.stdout.read()
        code = self.proc.wait(timeout=TIMEOUT)
        err = self.proc.stderr.read() if self.proc.stderr else b""
        err = err.decode()  # the log is UTF-8 even when the client sent invalid bytes
        self.proc.stdout.close()
        if self.proc.stderr:
            self.proc.stderr.close()
        return code, self.buffer + rest, err


def initialize(client, capabilities=None):
    rid = client.request("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": capabilities or {}})
    result = client.response(rid)["result"]
    client.notify("initialized", {})
    return result


class SessionTest(unittest.TestCase):
    def session(self, argv):
        client = Client(argv)
        result = initialize(client)
        self.assertEqual(result["capabilities"]["positionEncoding"], "utf-16")
        self.assertEqual(result["capabilities"]["textDocumentSync"]["change"], 2)
        uri = "file:///smoke/train.py"
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                                "text": "import torch\nx = torch.zeros(1).cuda(async=True)\n"}})
        published = client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        self.assertEqual(published["params"]["version"], 1)
        [diagnostic] = published["params"]["diagnostics"]
        self.assertEqual(diagnostic["code"], "AF101")
        self.assertEqual(diagnostic["range"]["start"], {"line": 1, "character": 24})
        rid = client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": diagnostic["range"],
                                                         "context": {"diagnostics": [diagnostic]}})
        actions = client.response(rid)["result"]
        self.assertEqual(actions[0]["title"], "Replace `async=` with `non_blocking=`")
        self.assertTrue(actions[0]["isPreferred"])
        rid = client.request("shutdown")
        self.assertIsNone(client.response(rid)["result"])
        client.notify("exit")
        code, rest, err = client.finish()
        self.assertEqual(code, 0)
        self.assertEqual(rest, b"")
        self.assertIn("asyncfix-lsp", err)  # logs go to stderr

    def test_asyncfix_lsp(self):
        self.session([LSP])

    @unittest.skipUnless(CLI, "ASYNCFIX_BIN not set")
    def test_asyncfix_lsp_subcommand(self):
        self.session([CLI, "lsp"])

    def test_vscode_style_arguments(self):
        self.session([LSP, "--stdio", "--log-level", "debug"])


class ExitCodeTest(unittest.TestCase):
    def test_exit_without_shutdown_is_1(self):
        client = Client([LSP])
        initialize(client)
        client.notify("exit")
        self.assertEqual(client.finish()[0], 1)

    def test_end_of_input_without_exit_is_1(self):
        client = Client([LSP])
        initialize(client)
        self.assertEqual(client.finish()[0], 1)

    def test_bad_options(self):
        for argv in ([LSP, "--log-level", "loud"], [LSP, "--frobnicate"]):
            proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT)
            self.assertEqual(proc.returncode, 2, argv)
            self.assertEqual(proc.stdout, b"")

    def test_version(self):
        proc = subprocess.run([LSP, "--version"], capture_output=True, timeout=TIMEOUT)
        self.assertEqual(proc.returncode, 0)
        self.assertTrue(proc.stdout.startswith(b"asyncfix-lsp "))


class RobustnessTest(unittest.TestCase):
    def test_malformed_header_and_invalid_json(self):
        client = Client([LSP])
        initialize(client)
        client.send_raw(b"Content-Length: nope\r\n\r\n")          # skipped, logged
        client.send_raw(b"Content-Length: 5\r\n\r\n{oops")          # -32700
        error = client.wait_for(lambda m: "error" in m)
        self.assertEqual(error["error"]["code"], -32700)
        self.assertIsNone(error["id"])
        rid = client.request("shutdown")
        self.assertIsNone(client.response(rid)["result"])
        client.notify("exit")
        code, _, err = client.finish()
        self.assertEqual(code, 0)
        self.assertIn("malformed message header", err)

    def test_huge_document(self):
        client = Client([LSP])
        initialize(client)
        lines = ["x%d = %d" % (i, i) for i in range(200000)]
        lines[150000] = "y = t.cuda(async=True)"
        uri = "file:///smoke/huge.py"
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                                "text": "\n".join(lines) + "\n"}})
        published = client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        [diagnostic] = published["params"]["diagnostics"]
        self.assertEqual(diagnostic["range"]["start"], {"line": 150000, "character": 11})
        # One keystroke far from the finding: re-published for version 2.
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 10, "character": 0}, "end": {"line": 10, "character": 0}}, "text": "#"}]})
        published = client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        self.assertEqual(published["params"]["version"], 2)
        self.assertEqual(len(published["params"]["diagnostics"]), 1)
        rid = client.request("shutdown")
        client.response(rid)
        client.notify("exit")
        self.assertEqual(client.finish()[0], 0)

    def test_hostile_messages_are_answered_or_skipped_and_the_server_keeps_serving(self):
        client = Client([LSP])
        initialize(client)
        # Over the 1 GiB limit: the header is skipped, nothing is allocated.
        client.send_raw(b"Content-Length: 99999999999999\r\n\r\n")
        client.send_raw(b"Content-Length: 18446744073709551617\r\n\r\n")
        # Valid JSON that is no JSON-RPC message, invalid UTF-8, 100 000 nested arrays.
        for body in (b"[]", b"42", b'"x"', b'{"jsonrpc":"2.0","id":7}', b'{"jsonrpc":"2.0","id":8,"method":5}',
                     b'{"jsonrpc":"2.0","id":9,"method":"textDocument/hover","params":{"textDocument":{"uri":"\xff"}}}',
                     b"[" * 100000 + b"]" * 100000, b'{"a":' * 50000 + b"1" + b"}" * 50000):
            client.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        # A request with wrong parameter types is an InvalidParams error, not a crash.
        rid = client.request("textDocument/hover", {"textDocument": {"uri": 5}, "position": {"line": -1}})
        self.assertEqual(client.response(rid)["error"]["code"], -32602)
        rid = client.request("shutdown")
        self.assertIsNone(client.response(rid)["result"])
        client.notify("exit")
        code, _, err = client.finish()
        self.assertEqual(code, 0, err)
        self.assertIn("invalid Content-Length", err)
        self.assertIn("ill-formed UTF-8 byte; last read: '\"\ufffd'", err)

    def test_client_disappearing_mid_message_exits_cleanly(self):
        # A header promising 1 000 bytes, 10 of them, then the client is gone: exit 1, at once.
        client = Client([LSP])
        initialize(client)
        client.notify("textDocument/didOpen", {"textDocument": {"uri": "file:///gone/a.py", "languageId": "python",
                                                                "version": 1, "text": "async = 1\n"}})
        client.send_raw(b"Content-Length: 1000\r\n\r\n{\"jsonrpc\"")
        code, _, err = client.finish()
        self.assertEqual(code, 1, err)
        self.assertNotIn("Sanitizer", err)

    def test_client_disappearing_mid_header_and_during_a_request(self):
        for tail in (b"Content-Len", b"Content-Length: 40\r\n",
                     json.dumps({"jsonrpc": "2.0", "id": 99, "method": "workspace/executeCommand",
                                 "params": {"command": "asyncfix.fixWorkspace"}}).encode()):
            with self.subTest(tail=tail[:20]):
                client = Client([LSP])
                initialize(client)
                if tail.startswith(b"{"):
                    tail = b"Content-Length: %d\r\n\r\n" % len(tail) + tail
                client.send_raw(tail)
                code, _, err = client.finish()
                self.assertEqual(code, 1, err)

    def test_log_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = os.path.join(tmp, "lsp.log")
            client = Client([LSP, "--log-file", log, "--log-level", "debug"])
            initialize(client)
            client.notify("custom/unknown", {})
            rid = client.request("shutdown")
            client.response(rid)
            client.notify("exit")
            code, _, err = client.finish()
            self.assertEqual(code, 0)
            self.assertEqual(err, "")
            with open(log, encoding="utf-8") as f:
                text = f.read()
            self.assertIn("notification `custom/unknown` ignored", text)


if __name__ == "__main__":
    unittest.main()
