"""The aarch64 Linux wheel (issue 31), label `dist`:

- Aarch64Build: scripts/build-manylinux.sh --arch aarch64 (bullseye's g++-aarch64-linux-gnu in the
  debootstrapped root dist.wheel builds in) into <build>/tests/dist/wheelhouse-aarch64, the
  fixture of the others.
- Aarch64Contents, Aarch64Manylinux: test_wheel.WheelContents and test_manylinux.ManylinuxContents
  on it: the files, RECORD, the tag py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64 from
  the files (readelf: AArch64, only glibc, no symbol version above GLIBC_2.17).
- Aarch64Run: the wheel's commands and library under qemu-aarch64-static with the root's aarch64
  glibc (`-L <root>/usr/aarch64-linux-gnu`; binfmt_misc is not needed), each beside the same from
  dist.wheel's x86_64 wheel: check, --diff and --fix on tests/fixtures and examples/ print and
  write the same bytes; language-server transcripts of tests/lsp/transcripts get the same
  responses; the C API (capi_probe.c, cross-compiled in the root and compiled here) checks and
  fixes the fixtures alike.

No aarch64 Python runs the wheel here (that needs an arm64 root under qemu, minutes more on every
run): the Python package is the same source in both wheels, and its library is what the probe runs.
"""

import glob
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
import unittest
import zipfile

import test_manylinux
import test_wheel
from dist_util import AARCH64_WHEELHOUSE, BUILD_ROOT_KEY, CACHE, SOURCE, VERSION, main, run, the_wheel

ROOT = os.path.join(CACHE, BUILD_ROOT_KEY)
SYSROOT = os.path.join(ROOT, "usr", "aarch64-linux-gnu")  # bullseye's libc6-arm64-cross
QEMU = shutil.which("qemu-aarch64-static")
TIMEOUT = 120  # per language-server message, under emulation on a loaded machine
# Transcripts that need no files on disk (no ${WORKSPACE}), each ending in shutdown or exit.
TRANSCRIPTS = ["code_actions", "hover", "incremental_edits", "positions_utf8", "torch_migration", "notebooks"]


def need_root_and_qemu():
    if os.geteuid() != 0:
        raise unittest.SkipTest("debootstrap and chroot need root")
    if not QEMU:
        raise unittest.SkipTest("qemu-aarch64-static is not installed (scripts/install-deps.sh dist)")


class Aarch64Build(unittest.TestCase):
    def test_build(self):
        need_root_and_qemu()
        os.makedirs(AARCH64_WHEELHOUSE, exist_ok=True)
        for old in glob.glob(os.path.join(AARCH64_WHEELHOUSE, "*.whl")):
            os.remove(old)
        started = time.monotonic()
        result = subprocess.run([os.path.join(SOURCE, "scripts", "build-manylinux.sh"), "--arch", "aarch64",
                                 AARCH64_WHEELHOUSE], env=dict(os.environ, ASYNCFIX_DIST_CACHE=CACHE), timeout=3500)
        if result.returncode == 77:
            self.skipTest("scripts/build-manylinux.sh cannot run here (its message above)")
        self.assertEqual(result.returncode, 0)
        print("aarch64 wheel built in %.0f s" % (time.monotonic() - started))
        self.assertEqual(os.path.basename(the_wheel(AARCH64_WHEELHOUSE)),
                         "asyncfix-%s-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.whl" % VERSION)


class Aarch64Contents(test_wheel.WheelContents):
    wheelhouse = AARCH64_WHEELHOUSE
    machine = "aarch64"


class Aarch64Manylinux(test_manylinux.ManylinuxContents):
    wheelhouse = AARCH64_WHEELHOUSE
    machine = "aarch64"


def unpack(wheel, prefix):
    """The wheel's files as an installation would lay them out under prefix: bin/ (the commands),
    share/ (man pages, the manual the commands link to), lib/ (the Python package's library)."""
    data = "asyncfix-%s.data/" % VERSION
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.startswith(data + "scripts/"):
                target = os.path.join(prefix, "bin", name[len(data + "scripts/"):])
            elif name.startswith(data + "data/"):
                target = os.path.join(prefix, name[len(data + "data/"):])
            elif name.startswith("asyncfix/libasyncfix.so"):
                target = os.path.join(prefix, "lib", os.path.basename(name))
            else:
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(z.read(name))
            if z.getinfo(name).external_attr >> 16 & 0o111:
                os.chmod(target, 0o755)
    return prefix


class Lsp:
    """A language server over stdio, driven step by step through a transcript
    (tests/lsp/transcript_test.cpp's format: `---` between steps, `+++` between messages of a
    step, `#` comments); after each step, the responses to its requests are awaited, and the
    diagnostics of each text it opened or changed."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.buffer = b""
        self.responses = {}

    def read(self):
        while True:
            header, sep, rest = self.buffer.partition(b"\r\n\r\n")
            if sep:
                length = int(header.split(b"Content-Length: ")[1])
                if len(rest) >= length:
                    self.buffer = rest[length:]
                    return json.loads(rest[:length])
            ready, _, _ = select.select([self.proc.stdout], [], [], TIMEOUT)
            if not ready:
                raise AssertionError("no message from the server within %d s" % TIMEOUT)
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                raise EOFError("the server closed its output")
            self.buffer += chunk

    def step(self, messages):
        waiting = set()
        for text in messages:
            body = text.encode()
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            message = json.loads(text)
            if "id" in message and "method" in message:
                waiting.add(json.dumps(message["id"]))
            if message.get("method") in ("textDocument/didOpen", "textDocument/didChange"):
                # As an editor would: what comes next is asked of the analysed text (the server
                # answers at once, from what its worker has done so far).
                document = message["params"]["textDocument"]
                waiting.add(json.dumps([document["uri"], document["version"]]))
            if message.get("method") == "exit":
                self.proc.stdin.close()
                self.proc.wait(timeout=TIMEOUT)
                return False
        self.proc.stdin.flush()
        while waiting:
            message = self.read()
            if "id" in message and "method" not in message:
                key = json.dumps(message["id"])
                self.responses[key] = message
                waiting.discard(key)
            elif message.get("method") == "textDocument/publishDiagnostics":
                published = message["params"]
                waiting -= {w for w in waiting if w.startswith("[") and json.loads(w)[0] == published["uri"]
                            and json.loads(w)[1] <= published.get("version", -1)}
        return True

    def run(self, steps):
        try:
            for messages in steps:
                if not self.step(messages):
                    return self.responses
            self.step(['{"jsonrpc":"2.0","id":"end","method":"shutdown"}', '{"jsonrpc":"2.0","method":"exit"}'])
            return self.responses
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def transcript_steps(name):
    with open(os.path.join(SOURCE, "tests", "lsp", "transcripts", name + ".jsonrpc"), encoding="utf-8") as f:
        text = f.read()
    steps, messages, current = [], [], []

    def end_message():
        message = "\n".join(current).strip()
        current.clear()
        if message:
            messages.append(message)

    for line in text.splitlines():
        if line.startswith("#"):
            continue
        if line in ("---", "+++"):
            end_message()
            if line == "---":
                steps.append(list(messages))
                messages.clear()
            continue
        current.append(line)
    end_message()
    steps.append(messages)
    return [s for s in steps if s]


class Aarch64Run(unittest.TestCase):
    """The aarch64 wheel's programs under qemu beside the x86_64 wheel's, natively."""

    @classmethod
    def setUpClass(cls):
        need_root_and_qemu()
        cls.dir = tempfile.mkdtemp(prefix="asyncfix-aarch64-")
        # (the outputs hold paths into them, the manual's address: normalized() hides the prefix)
        cls.x86 = unpack(the_wheel(), os.path.join(cls.dir, "x86_64"))
        cls.arm = unpack(the_wheel(AARCH64_WHEELHOUSE), os.path.join(cls.dir, "aarch64"))

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "dir", None):
            shutil.rmtree(cls.dir, ignore_errors=True)

    def command(self, prefix, *argv):
        program = os.path.join(prefix, *argv[0].split("/"))
        if prefix == self.arm:
            return [QEMU, "-L", SYSROOT, program] + list(argv[1:])
        return [program] + list(argv[1:])

    def normalized(self, prefix, text):
        return text.replace(prefix, "<PREFIX>")

    def test_the_commands_are_aarch64_programs_that_run_under_qemu(self):
        self.assertEqual(run(["readelf", "-h", os.path.join(self.arm, "bin", "asyncfix")]).stdout.count("AArch64"), 1)
        self.assertEqual(run(self.command(self.arm, "bin/asyncfix", "--version")).stdout.strip(),
                         "asyncfix %s" % VERSION)
        self.assertIn("asyncfix-lsp", run(self.command(self.arm, "bin/asyncfix-lsp", "--help")).stdout)

    def test_check_diff_and_fix_on_the_fixtures_match_x86_64_byte_for_byte(self):
        for prefix in (self.x86, self.arm):
            test_manylinux.fixtures(os.path.join(prefix, "work"))
        codes = []
        for args in test_manylinux.CLI_RUNS:
            with self.subTest(args=" ".join(args)):
                got = {}
                for prefix in (self.x86, self.arm):
                    result = run(self.command(prefix, "bin/asyncfix", *args), check=False,
                                 cwd=os.path.join(prefix, "work"), timeout=900)
                    got[prefix] = (result.returncode, self.normalized(prefix, result.stdout))
                self.assertEqual(got[self.arm], got[self.x86])
                self.assertEqual(test_manylinux.tree(os.path.join(self.arm, "work", "fixtures")),
                                 test_manylinux.tree(os.path.join(self.x86, "work", "fixtures")))
                codes.append(got[self.x86][0])
        self.assertEqual(codes[0], 1)  # findings: the runs compared something

    def test_language_server_transcripts_get_the_same_responses(self):
        for name in TRANSCRIPTS:
            with self.subTest(transcript=name):
                steps = transcript_steps(name)
                x86 = Lsp(self.command(self.x86, "bin/asyncfix-lsp")).run(steps)
                arm = Lsp(self.command(self.arm, "bin/asyncfix-lsp")).run(steps)
                self.assertTrue(x86)
                self.assertEqual(self.normalized(self.arm, json.dumps(arm, sort_keys=True, indent=1)),
                                 self.normalized(self.x86, json.dumps(x86, sort_keys=True, indent=1)))

    def test_the_library_checks_and_fixes_like_x86_64(self):
        probe = os.path.join(SOURCE, "tests", "dist", "capi_probe.c")
        x86_probe = os.path.join(self.dir, "capi_probe-x86_64")
        run(["cc", "-std=c99", "-Wall", "-Werror", "-o", x86_probe, probe, "-ldl"])
        # Cross-compiled in the build root, where the aarch64 compiler is.
        work = os.path.join(ROOT, "tmp", "asyncfix-capi-probe")
        os.makedirs(work, exist_ok=True)
        self.addCleanup(shutil.rmtree, work, True)
        shutil.copy(probe, work)
        run([shutil.which("chroot") or "/usr/sbin/chroot", ROOT, "aarch64-linux-gnu-gcc", "-std=c99", "-Wall",
             "-Werror", "-o", "/tmp/asyncfix-capi-probe/probe", "/tmp/asyncfix-capi-probe/capi_probe.c", "-ldl"],
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
        arm_probe = os.path.join(work, "probe")
        [x86_lib] = glob.glob(os.path.join(self.x86, "lib", "libasyncfix.so.*"))
        [arm_lib] = glob.glob(os.path.join(self.arm, "lib", "libasyncfix.so.*"))
        files = sorted(p for p in glob.glob(os.path.join(SOURCE, "tests", "fixtures", "*.py"))
                       if not p.endswith(".fixed.py"))
        self.assertGreater(len(files), 10)
        x86 = run([x86_probe, x86_lib] + files, timeout=600).stdout
        arm = run([QEMU, "-L", SYSROOT, arm_probe, arm_lib] + files, timeout=900).stdout
        self.assertIn("AF101", x86)
        self.assertIn("version %s\n" % VERSION, x86)
        self.assertEqual(arm, x86)


if __name__ == "__main__":
    main()
