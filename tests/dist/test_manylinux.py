"""The release wheel as manylinux2014 (issue 31), label `dist`, on the wheel dist.wheel builds with
scripts/build-manylinux.sh (bullseye's g++-10 in a debootstrapped root); skipped where that script
cannot run and dist.wheel fell back to this machine's wheel:

- ManylinuxContents: the tag is py3-none-manylinux_2_17_<arch>.manylinux2014_<arch>, in the file
  name and in WHEEL; each ELF file (readelf, not the backend's own reader) needs only glibc's
  libraries, no glibc symbol version above 2.17, and not __cxa_thread_atexit_impl. test_aarch64
  runs it on the aarch64 wheel too.
- Bullseye: the wheel in Debian bullseye (glibc 2.31, Python 3.9, pip 20.3: an older userland than
  this machine's), a copy of the build root without its compilers and libstdc++.
- Bookworm: the wheel in the minimal bookworm root dist.debootstrap uses (cached once for both).

In both roots: pip install --no-index into a venv; the CLI on the fixtures (tests/fixtures and
examples/: check, --diff, --fix) prints and writes byte for byte what this machine's build does;
`python -m asyncfix`; the module (check, fix, rules, a configuration error, threads); the
language server's --help.
"""

import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import unittest
import zipfile

from dist_util import BUILD_ROOT_KEY, CACHE, SOURCE, VERSION, bookworm_root, is_manylinux, main, run, the_wheel

HOST_BIN = os.environ.get("ASYNCFIX_BIN", "")
GLIBC_LIBS = re.compile(r"^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|"
                        r"ld-linux[-a-z0-9_.]*\.so\.[0-9]+)$")


def release_wheel(wheelhouse=None):
    """The manylinux wheel in `wheelhouse` (default dist.wheel's); skips when dist.wheel built
    this machine's wheel instead (scripts/build-manylinux.sh could not run: not root, no mirror)."""
    wheel = the_wheel(wheelhouse)
    if not is_manylinux(wheel):
        raise unittest.SkipTest("%s is this machine's wheel (scripts/build-manylinux.sh could not run here)"
                                % os.path.basename(wheel))
    return wheel


class ManylinuxContents(unittest.TestCase):
    wheelhouse = None  # dist.wheel's; test_aarch64's subclass names its own
    machine = os.uname().machine

    def test_tag_and_what_each_file_needs(self):
        wheel = release_wheel(self.wheelhouse)
        tag = "py3-none-manylinux_2_17_%s.manylinux2014_%s" % (self.machine, self.machine)
        self.assertEqual(os.path.basename(wheel), "asyncfix-%s-%s.whl" % (VERSION, tag))
        tmp = tempfile.mkdtemp(prefix="asyncfix-manylinux-elf-")
        try:
            with zipfile.ZipFile(wheel) as z:
                self.assertIn("Tag: %s\n" % tag, z.read("asyncfix-%s.dist-info/WHEEL" % VERSION).decode())
                self.assertIn("GLIBC = (2, 17)", z.read("asyncfix/_wheel_info.py").decode())
                elves = [n for n in z.namelist() if z.read(n).startswith(b"\x7fELF")]
                self.assertEqual(len(elves), 3, elves)  # asyncfix, asyncfix-lsp, the package's library
                for name in elves:
                    path = os.path.join(tmp, os.path.basename(name))
                    with open(path, "wb") as f:
                        f.write(z.read(name))
                    dynamic = run(["readelf", "--wide", "-d", path]).stdout
                    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
                    self.assertEqual([n for n in needed if not GLIBC_LIBS.match(n)], [], name)
                    versions = run(["readelf", "--wide", "-V", path]).stdout
                    glibc = [(int(a), int(b)) for a, b in re.findall(r"Name: GLIBC_(\d+)\.(\d+)", versions)]
                    self.assertTrue(glibc, name)
                    self.assertLessEqual(max(glibc), (2, 17), name)
                    self.assertEqual(re.findall(r"Name: (GLIBCXX|CXXABI|GCC)_", versions), [], name)
                    self.assertNotIn("__cxa_thread_atexit_impl", run(["readelf", "--wide", "--dyn-syms", path]).stdout)
        finally:
            shutil.rmtree(tmp)


MODULE_SCRIPT = """
import asyncfix, json, sys, threading
src = sys.stdin.read()
out = {"python": list(sys.version_info[:2]), "version": asyncfix.__version__,
       "check": [(d["code"], d["location"]["row"]) for d in asyncfix.check(src, path="legacy.py")],
       "fix": asyncfix.fix(src), "rules": len(asyncfix.rules())}
try:
    asyncfix.check(src, select=["AF999"])
except asyncfix.Error as error:
    out["error"] = str(error)
linter = asyncfix.Linter(select="AF1")
results = []
threads = [threading.Thread(target=lambda: results.append(linter.fix(src))) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
out["threads"] = results == [out["fix"]] * 4
print(json.dumps(out))
"""


def fixtures(directory):
    """tests/fixtures' inputs and examples/ into directory/fixtures."""
    target = os.path.join(directory, "fixtures")
    os.makedirs(target)
    for path in sorted(glob.glob(os.path.join(SOURCE, "tests", "fixtures", "*.py"))):
        if not path.endswith(".fixed.py"):
            shutil.copy(path, target)
    shutil.copytree(os.path.join(SOURCE, "examples"), os.path.join(target, "examples"))
    return target


def tree(directory):
    found = {}
    for base, _, names in os.walk(directory):
        for name in names:
            with open(os.path.join(base, name), "rb") as f:
                found[os.path.relpath(os.path.join(base, name), directory)] = f.read()
    return found


# The CLI runs, in the directory that holds fixtures/ (paths in the output are relative).
CLI_RUNS = [["check", "fixtures"], ["check", "--diff", "--unsafe-fixes", "fixtures"],
            ["check", "--fix", "--unsafe-fixes", "fixtures"]]


class InRoot:
    """The wheel installed into a venv inside a copy of a Debian root, run under chroot."""

    root_source = None  # set by setUpClass

    @classmethod
    def prepare(cls, cached):
        if os.geteuid() != 0:
            raise unittest.SkipTest("chroot needs root")
        cached = os.path.realpath(cached)
        cls.chroot_command = shutil.which("chroot") or shutil.which("chroot", path="/usr/sbin:/sbin")
        cls.tmp = tempfile.mkdtemp(prefix="asyncfix-manylinux-root-", dir=CACHE)
        cls.root = os.path.join(cls.tmp, "root")
        # The root without what the build put in it (sources, build tree, the host's CMake).
        # (and the link by which the build root reaches itself at its host path).
        os.makedirs(cls.root)
        excludes = ["./src", "./src-*", "./build-*", "./asyncfix-bin", "./usr/share/cmake-*", "." + cached]
        subprocess.run("tar -C %s --anchored %s -cf - . | tar -C %s -xf -"
                       % (shlex.quote(cached), " ".join("--exclude=" + shlex.quote(e) for e in excludes),
                          shlex.quote(cls.root)), shell=True, check=True)
        # Neither the C++ runtime nor a compiler: the wheel must need neither.
        for pattern in ("usr/lib/*-linux-gnu/libstdc++.so*", "usr/bin/g++*", "usr/bin/gcc*", "usr/bin/*-linux-gnu-g*"):
            for path in glob.glob(os.path.join(cls.root, pattern)):
                os.remove(path)
        shutil.copy(cls.wheel, os.path.join(cls.root, "tmp"))
        cls.wheel_in_root = "/tmp/" + os.path.basename(cls.wheel)

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "tmp", None):
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def chroot(self, *command, check=True, **kwargs):
        env = {"PATH": "/opt/asyncfix/bin:/usr/bin:/bin", "HOME": "/root", "LANG": "C.UTF-8"}
        return run([self.chroot_command, self.root] + list(command), check=check, env=env, **kwargs)

    def test_install_and_run(self):
        self.assertEqual(glob.glob(os.path.join(self.root, "usr", "lib", "*", "libstdc++.so*")), [])
        self.chroot("/usr/bin/python3", "-m", "venv", "/opt/asyncfix")
        self.chroot("/opt/asyncfix/bin/pip", "install", "--no-index", "--disable-pip-version-check",
                    self.wheel_in_root)
        self.assertEqual(self.chroot("asyncfix", "--version").stdout.strip(), "asyncfix %s" % VERSION)
        self.assertIn("asyncfix-lsp", self.chroot("asyncfix-lsp", "--help").stdout)
        self.assertEqual(self.chroot("/opt/asyncfix/bin/python", "-m", "asyncfix", "--version").stdout.strip(),
                         "asyncfix %s" % VERSION)

        # The CLI on the fixtures: what this machine's build prints and writes, byte for byte.
        # (outside the clone: its .gitignore would hide build/ from the command)
        host = tempfile.mkdtemp(prefix="asyncfix-manylinux-host-")
        self.addCleanup(shutil.rmtree, host, True)
        fixtures(host)
        fixtures(os.path.join(self.root, "work"))
        for args in CLI_RUNS:
            with self.subTest(args=" ".join(args)):
                expected = run([HOST_BIN] + args, check=False, cwd=host)
                got = self.chroot("sh", "-c", 'cd /work && exec asyncfix "$@"', "sh", *args, check=False)
                self.assertEqual((got.returncode, got.stdout), (expected.returncode, expected.stdout), got.stderr)
                self.assertEqual(tree(os.path.join(self.root, "work", "fixtures")),
                                 tree(os.path.join(host, "fixtures")))
        # `python -m asyncfix` on standard input.
        legacy = "import torch\n\n\ndef load(batch):\n    return batch.cuda(async=True)\n"
        result = self.chroot("/opt/asyncfix/bin/python", "-m", "asyncfix", "check", "--stdin-filename", "legacy.py",
                             "-", check=False, input=legacy)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("legacy.py:5:23: AF101", result.stdout)

        # The module, over the C API with ctypes.
        out = json.loads(self.chroot("/opt/asyncfix/bin/python", "-c", MODULE_SCRIPT, input=legacy).stdout)
        self.assertEqual(out["python"], self.python)
        self.assertEqual(out["version"], VERSION)
        self.assertEqual(out["check"], [["AF101", 5]])
        self.assertEqual(out["fix"], legacy.replace("async=True", "non_blocking=True"))
        self.assertGreaterEqual(out["rules"], 12)
        self.assertEqual(out["error"], "options: unknown rule code `AF999` in `select`")
        self.assertTrue(out["threads"])


class Bullseye(InRoot, unittest.TestCase):
    python = [3, 9]

    @classmethod
    def setUpClass(cls):
        cls.wheel = release_wheel()
        cached = os.path.join(CACHE, BUILD_ROOT_KEY)
        if not os.path.exists(cached + ".done"):
            raise AssertionError("no bullseye root in %s (dist.wheel makes it)" % CACHE)
        cls.prepare(cached)


class Bookworm(InRoot, unittest.TestCase):
    python = [3, 11]

    @classmethod
    def setUpClass(cls):
        cls.wheel = release_wheel()
        if os.geteuid() != 0:
            raise unittest.SkipTest("debootstrap and chroot need root")
        cls.prepare(bookworm_root())


if __name__ == "__main__":
    main()
