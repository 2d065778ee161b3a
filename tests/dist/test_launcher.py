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
    info = {"TAG": "cp311-cp311-manylinux_2_36_x86_64", "MACHINE": os.uname().machine,
            "GLIBC": list(this_glibc()), "PYTHON": list(sys.version_info[:2])}
    info.update(overrides)
    return info


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
        self.assert_refused(result, "cp311-cp311-manylinux_2_36_x86_64", "with glibc 2.999 or newer",
                            "this machine is Linux %s with glibc %d.%d" % (os.uname().machine, major, minor),
                            "build asyncfix from source")

    def test_another_machine_is_refused_before_running(self):
        self.fake_asyncfix()
        result = self.launch(["--version"], info=wheel_info(MACHINE="s390x"))
        self.assert_refused(result, "is for Linux s390x", "this machine is Linux %s" % os.uname().machine)

    def test_a_file_that_is_not_a_program_for_this_machine(self):
        self.command(b"\x00\x01garbage, not ELF and no #! line\n")
        result = self.launch(["--version"], info=wheel_info())
        self.assert_refused(result, "is not a program this machine can run", "(the wheel is cp311-")

    def test_a_program_whose_loader_is_missing(self):
        # /bin/true asking for musl's loader: what a glibc build does on Alpine, seen the other way round.
        with open("/bin/true", "rb") as f:
            data = f.read()
        loader = self.call("elf_interpreter", "/bin/true")
        self.assertTrue(loader and loader.startswith("/lib"), loader)
        musl = "/lib/ld-musl-%s.so.1" % os.uname().machine
        self.assertLessEqual(len(musl), len(loader))
        data = data.replace(loader.encode() + b"\0", musl.encode().ljust(len(loader) + 1, b"\0"), 1)
        self.command(data)
        self.assertEqual(self.call("elf_interpreter", os.path.join(self.bin, "asyncfix")), musl)
        result = self.launch(["--version"], info=wheel_info())
        self.assert_refused(result, "needs the program loader %s, which this machine does not have" % musl)

    def test_a_file_that_is_not_executable(self):
        self.command(b"#!/bin/sh\nexit 0\n", mode=0o644)
        if os.geteuid() == 0 and os.access(os.path.join(self.bin, "asyncfix"), os.X_OK):
            self.skipTest("root may execute anything")
        result = self.launch([], info=wheel_info())
        self.assert_refused(result, "is not executable")

    def test_a_missing_command(self):
        result = self.launch(["--version"], info=wheel_info())
        self.assert_refused(result, "the `asyncfix` command is not installed", self.bin, "pip install --force-reinstall")

    def test_import_error_message_names_the_python_the_wheel_is_for(self):
        message = self.call("import_error_message", "No module named 'asyncfix._asyncfix'",
                            info=wheel_info(PYTHON=[3, 99]))
        self.assertIn("is for CPython 3.99; this is CPython %d.%d" % sys.version_info[:2], message)
        self.assertIn("No module named", message)
        generic = self.call("import_error_message", "boom", info=wheel_info())
        self.assertIn("extension module cannot be loaded (boom)", generic)

    def test_platform_problem_is_none_where_the_wheel_fits(self):
        self.assertIsNone(self.call("platform_problem", info=wheel_info()))
        self.assertIsNone(self.call("python_problem", info=wheel_info()))

    def test_script_dirs_start_with_this_interpreters(self):
        dirs = self.call("script_dirs")
        import sysconfig
        self.assertEqual(dirs[0], sysconfig.get_path("scripts"))
        self.assertEqual(len(dirs), len(set(dirs)))


if __name__ == "__main__":
    unittest.main()
