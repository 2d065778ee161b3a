"""The platform-specific VS Code extension (editors/vscode/package.sh DEST SERVER): it carries a
server that runs on a machine with nothing installed — executable in the archive, linked
against glibc only, answering an LSP handshake — and says which platform it is for.

Environment: ASYNCFIX_PLATFORM_VSIX (the .vsix), ASYNCFIX_VERSION, ASYNCFIX_VSIX_TARGET (linux-x64).
"""
import json
import os
import re
import stat
import subprocess
import tempfile
import unittest
import zipfile

VSIX = os.environ["ASYNCFIX_PLATFORM_VSIX"]
VERSION = os.environ["ASYNCFIX_VERSION"]
TARGET = os.environ["ASYNCFIX_VSIX_TARGET"]
SERVER = f"extension/bundled/{TARGET}/asyncfix-lsp"
# What a binary may need from the machine: glibc's libraries and its loader.
GLIBC = re.compile(r"^(libc|libm|libpthread|libdl|librt|ld-linux[-\w]*)\.so(\.\d+)+$")


def frame(message):
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class PlatformVsix(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.archive = zipfile.ZipFile(VSIX)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.server = os.path.join(cls.tmp.name, "asyncfix-lsp")
        with open(cls.server, "wb") as out:
            out.write(cls.archive.read(SERVER))
        mode = (cls.archive.getinfo(SERVER).external_attr >> 16) & 0o777
        os.chmod(cls.server, mode or 0o644)

    @classmethod
    def tearDownClass(cls):
        cls.archive.close()
        cls.tmp.cleanup()

    def test_the_manifest_names_the_target(self):
        manifest = self.archive.read("extension.vsixmanifest").decode()
        self.assertIn(f'TargetPlatform="{TARGET}"', manifest)
        package = json.loads(self.archive.read("extension/package.json"))
        self.assertEqual(package["version"], VERSION)

    def test_the_rule_pages_lie_where_the_server_links(self):
        # The server at bundled/<target>/ links to <its directory>/../share/doc/asyncfix/rules/.
        names = set(self.archive.namelist())
        pages = "extension/bundled/share/doc/asyncfix/rules/"
        for code in ("AF001", "AF101", "AF201"):
            self.assertIn(pages + code + ".md", names)
        self.assertIn(pages + "README.md", names)

    def test_the_server_is_executable_in_the_archive(self):
        mode = (self.archive.getinfo(SERVER).external_attr >> 16) & 0o777
        self.assertTrue(mode & stat.S_IXUSR, oct(mode))

    def test_the_server_needs_glibc_only_and_is_stripped(self):
        dynamic = subprocess.run(["readelf", "-d", self.server], capture_output=True, text=True, check=True).stdout
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
        self.assertTrue(needed)
        self.assertEqual([lib for lib in needed if not GLIBC.match(lib)], [])
        sections = subprocess.run(["readelf", "-S", self.server], capture_output=True, text=True, check=True).stdout
        self.assertNotIn(".debug_info", sections)
        self.assertNotIn(".symtab", sections)

    def test_the_server_answers_a_handshake(self):
        version = subprocess.run([self.server, "--version"], capture_output=True, text=True, timeout=30)
        self.assertEqual(version.stdout.strip(), f"asyncfix-lsp {VERSION}")
        messages = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
            {"jsonrpc": "2.0", "method": "initialized", "params": {}},
            {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
            {"jsonrpc": "2.0", "method": "exit"},
        ]
        run = subprocess.run([self.server], input=b"".join(map(frame, messages)), capture_output=True, timeout=30)
        self.assertEqual(run.returncode, 0, run.stderr.decode(errors="replace"))
        self.assertIn(b'"serverInfo"', run.stdout)


if __name__ == "__main__":
    unittest.main()
