"""`python -m asyncfix`'s launcher (python/asyncfix/_launcher.py): it runs the installed command
with the arguments and its exit code, and when the command cannot run here it says why — wrong
machine, too old a glibc, no glibc loader, not a program, not executable, not installed — in one
message, exit code 2, without running anything. (ctest label `package`)

The launcher is loaded from the source tree on its own (it imports nothing native); each case
runs in a child process, because a successful launch replaces the process.
"""

import json
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import textwrap
import unittest

SOURCE = os.environ.get("ASYNCFIX_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
LAUNCHER = os.path.join(SOURCE, "python", "asyncfix", "_launcher.py")

DRIVER = textwrap.dedent("""
    import importlib.util, json, sys, types
    spec = importlib.util.spec_from_file_location("asyncfix_launcher", sys.argv[1])
    launcher = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(launcher)
    request = json.loads(sys.argv[2])
    info = types.SimpleNamespace(**request["info"]) if request["info"] else None
    if request["call"] == "main":
        sys.exit(launcher.main(request["name"], request["args"], dirs=request["dirs"], info=info))
    kwargs = {"info": info} if info else {}
    print(json.dumps(getattr(launcher, request["call"])(*request["args"], **kwargs)))
""")


def this_glibc():
    name, _, version = os.confstr("CS_GNU_LIBC_VERSION").partition(" ")
    assert name == "glibc", name
    return tuple(int(p) for p in version.split(".")[:2])


def wheel_info(**overrides):
    info = {"TAG": "py3-none-manylinux_2_36_x86_64", "MACHINE": os.uname().machine, "GLIBC": list(this_glibc())}
    info.update(overrides)
    return info


def elf_asking_for(loader):
    """The smallest ELF program for this machine that the kernel starts by opening `loader`: a
    header (class, byte order and machine copied from the running interpreter) and one program
    header, PT_INTERP, naming `loader`. Nothing else in it: the kernel looks for the loader first."""
    with open(os.path.realpath(sys.executable), "rb") as f:
        header = f.read(20)
    assert header[:4] == b"\x7fELF", sys.executable
    ident, bits, order = header[:16], header[4], "<" if header[5] == 1 else ">"
    machine, = struct.unpack_from(order + "H", header, 18)
    path = loader.encode() + b"\0"
    if bits == 2:  # ELF64: 64-byte header, 56-byte program headers
        phoff, phsize = 64, 56
        body = struct.pack(order + "HHIQQQIHHHHHH", 2, machine, 1, 0, phoff, 0, 0, 64, phsize, 1, 0, 0, 0)
        interp = struct.pack(order + "IIQQQQQQ", 3, 4, phoff + phsize, 0, 0, len(path), len(path), 1)
    else:  # ELF32: 52-byte header, 32-byte program headers
        phoff, phsize = 52, 32
        body = struct.pack(order + "HHIIIIIHHHHHH", 2, machine, 1, 0, phoff, 0, 0, 52, phsize, 1, 0, 0, 0)
        interp = struct.pack(order + "IIIIIIII", 3, phoff + phsize, 0, 0, len(path), len(path), 4, 1)
    return ident + body + interp + path


class LauncherTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="asyncfix-launcher-")
        self.bin = os.path.join(self.dir, "bin")
        os.mkdir(self.bin)
        self.marker = os.path.join(self.dir, "ran")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def launch(self, args=(), info=None, name="asyncfix"):
        request = {"call": "main", "name": name, "args": list(args), "dirs": [self.bin], "info": info}
        return subprocess.run([sys.executable, "-c", DRIVER, LAUNCHER, json.dumps(request)],
                              capture_output=True, text=True, timeout=60)

    def call(self, function, *args, info=None):
        request = {"call": function, "args": list(args), "info": info}
        out = subprocess.run([sys.executable, "-c", DRIVER, LAUNCHER, json.dumps(request)],
                             capture_output=True, text=True, timeout=60, check=True).stdout
        return json.loads(out)

    def command(self, body, mode=0o755, name="asyncfix"):
        path = os.path.join(self.bin, name)
        with open(path, "wb") as f:
            f.write(body)
        os.chmod(path, mode)
        return path

    def fake_asyncfix(self):
        """A command that records that it ran, echoes its arguments and exits 3."""
        return self.command(('#!/bin/sh\ntouch "%s"\necho "args: $*"\nexit 3\n' % self.marker).encode())

    def assert_refused(self, result, *phrases):
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertEqual(result.stdout, "")
        self.assertTrue(result.stderr.startswith("asyncfix: "), result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        for phrase in phrases:
            self.assertIn(phrase, result.stderr)
        self.assertFalse(os.path.exists(self.marker), "the command ran")

    def test_runs_the_command_with_its_arguments_and_exit_code(self):
        self.fake_asyncfix()
        result = self.launch(["check", "--fix", "x.py"], info=wheel_info())
        self.assertEqual(result.returncode, 3, result.stderr)
        self.assertEqual(result.stdout, "args: check --fix x.py\n")
        self.assertEqual(result.stderr, "")

    def test_without_wheel_information_it_just_runs(self):
        self.fake_asyncfix()
        self.assertEqual(self.launch(["--version"]).returncode, 3)

    def test_too_old_glibc_is_refused_before_running(self):
        self.fake_asyncfix()
        result = self.launch(["--version"], info=wheel_info(GLIBC=[2, 999]))
        major, minor = this_glibc()
        self.assert_refused(result, "py3-none-manylinux_2_36_x86_64", "with glibc 2.999 or newer",
                            "this machine is Linux %s with glibc %d.%d" % (os.uname().machine, major, minor),
                            "build asyncfix from source")

    def test_another_machine_is_refused_before_running(self):
        self.fake_asyncfix()
        result = self.launch(["--version"], info=wheel_info(MACHINE="s390x"))
        self.assert_refused(result, "is for Linux s390x", "this machine is Linux %s" % os.uname().machine)

    def test_a_file_that_is_not_a_program_for_this_machine(self):
        self.command(b"\x00\x01garbage, not ELF and no #! line\n")
        result = self.launch(["--version"], info=wheel_info())
        self.assert_refused(result, "is not a program this machine can run", "(the wheel is py3-none-")

    def test_a_program_whose_loader_is_missing(self):
        # What a glibc build does on Alpine, seen the other way round: a program for this machine
        # asking for a loader that is not there. Made here, with a loader path inside this test's
        # own directory, so that no package of the machine (musl-tools puts musl's loader in /lib)
        # can provide it.
        loader = os.path.join(self.dir, "no-such-directory", "ld-missing.so.1")
        path = self.command(elf_asking_for(loader))
        self.assertEqual(self.call("elf_interpreter", path), loader)
        result = self.launch(["--version"], info=wheel_info())
        self.assert_refused(result, "needs the program loader %s, which this machine does not have" % loader)

    def test_a_file_that_is_not_executable(self):
        self.command(b"#!/bin/sh\nexit 0\n", mode=0o644)
        if os.geteuid() == 0 and os.access(os.path.join(self.bin, "asyncfix"), os.X_OK):
            self.skipTest("root may execute anything")
        result = self.launch([], info=wheel_info())
        self.assert_refused(result, "is not executable")

    def test_a_missing_command(self):
        result = self.launch(["--version"], info=wheel_info())
        self.assert_refused(result, "the `asyncfix` command is not installed", self.bin, "pip install --force-reinstall")

    def test_import_error_message_says_what_the_wheel_is_for_when_it_does_not_fit(self):
        error = "asyncfix's library /x/libasyncfix.so.4 cannot be loaded (wrong ELF class)"
        message = self.call("import_error_message", error, info=wheel_info(MACHINE="s390x"))
        self.assertTrue(message.startswith("asyncfix cannot be loaded: this asyncfix wheel (py3-none-"), message)
        self.assertIn("is for Linux s390x", message)
        self.assertTrue(message.endswith("(%s)" % error), message)
        self.assertEqual(self.call("import_error_message", error, info=wheel_info()),
                         "asyncfix cannot be loaded: " + error)

    def test_platform_problem_is_none_where_the_wheel_fits(self):
        self.assertIsNone(self.call("platform_problem", info=wheel_info()))

    def test_a_windows_wheel_on_linux_says_what_it_is_for(self):
        message = self.call("platform_problem", info=wheel_info(TAG="py3-none-win_amd64", MACHINE="x86_64",
                                                                GLIBC=None))
        self.assertTrue(message.startswith("this asyncfix wheel (py3-none-win_amd64) is for Windows x86_64; "
                                           "this machine is Linux "), message)
        self.assertIn("Install a wheel built for this platform", message)

    def test_script_dirs_start_with_this_interpreters(self):
        dirs = self.call("script_dirs")
        import sysconfig
        self.assertEqual(dirs[0], sysconfig.get_path("scripts"))
        self.assertEqual(len(dirs), len(set(dirs)))


if __name__ == "__main__":
    unittest.main()
