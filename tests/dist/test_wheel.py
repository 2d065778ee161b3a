"""The wheel (issue 14), label `dist`:

- WheelBuild: the release wheel, the fixture the other dist tests install: the manylinux2014
  x86_64 wheel of scripts/build-manylinux.sh (bullseye's g++-10 in a debootstrapped root; the
  backend runs CMake). Where that script cannot run (not root, no Debian mirror: its exit 77), the
  wheel of this machine (`python3 -m build --wheel --no-isolation` at the repository root), said
  in the output — unless ASYNCFIX_REQUIRE_MANYLINUX=1 (scripts/run.sh dist), which fails instead.
- WheelContents: the files it holds, RECORD's hashes, WHEEL's tag = the file name's, and the
  platform tag checked against readelf: every ELF file needs only glibc, and no newer glibc
  than the manylinux tag says.
- Venv: a fresh virtual environment on this machine, `pip install --no-index`: the commands on
  the environment's PATH, check and fix, `python -m asyncfix`, `import asyncfix`, the flake8
  plugin, the man pages; and what an installation that cannot run here says.
- EveryPython: the same wheel in a fresh venv of every CPython 3.8–3.13 the machine has (its pyenv
  versions), with that venv's own pip and --no-index: the commands, `python -m asyncfix`, the
  module and the flake8 plugin.
- Debootstrap: a minimal Debian bookworm root (debootstrap --variant=minbase + python3-venv; no
  compiler, no libgit2, no toml++, and here even without libstdc++), the wheel installed into a
  venv inside it, check, fix and the module run there under chroot. The root is cached in
  <build>/dist-cache; each run works on a copy.

Run: python3 test_wheel.py -v WheelBuild WheelContents (environment: see tests/dist/CMakeLists.txt).
"""

import base64
import csv
import glob
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

import unittest

from dist_util import CACHE, FINDING, FIXED, LEGACY, MANYLINUX_TAG, SOURCE, VERSION, WHEEL_BUILD_DIR, WHEELHOUSE, \
    bookworm_root, main, run, the_wheel

DOCS = os.path.join(SOURCE, "docs")  # installed as <env>/share/doc/asyncfix
with open(os.path.join(SOURCE, "lib", "include", "asyncfix.h"), encoding="utf-8") as _header:
    # The Python package's library, named by the C API's ABI version.
    LIBRARY = "libasyncfix.so.%s" % re.search(r"^#define ASYNCFIX_ABI_VERSION (\d+)$", _header.read(),
                                               re.M).group(1)
# How readelf -h names the machines the wheels are built for.
READELF_MACHINES = {"x86_64": "Advanced Micro Devices X86-64", "aarch64": "AArch64"}
GLIBC_LIBS = re.compile(r"^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|"
                        r"ld-linux[-a-z0-9_.]*\.so\.[0-9]+)$")


class WheelBuild(unittest.TestCase):
    def test_build_the_release_wheel(self):
        os.makedirs(WHEELHOUSE, exist_ok=True)
        for old in glob.glob(os.path.join(WHEELHOUSE, "*.whl")):
            os.remove(old)
        started = time.monotonic()
        result = subprocess.run([os.path.join(SOURCE, "scripts", "build-manylinux.sh"), WHEELHOUSE],
                                env=dict(os.environ, ASYNCFIX_DIST_CACHE=CACHE), timeout=3500)
        if result.returncode == 77:
            self.assertNotEqual(os.environ.get("ASYNCFIX_REQUIRE_MANYLINUX"), "1",
                                "scripts/build-manylinux.sh cannot run here (its message above), and "
                                "ASYNCFIX_REQUIRE_MANYLINUX=1 asks for the manylinux wheel")
            print("scripts/build-manylinux.sh cannot run here (its message above): the wheel of this machine "
                  "instead; the manylinux tests skip")
            self.build_here()
        else:
            self.assertEqual(result.returncode, 0)
            self.assertEqual(os.path.basename(the_wheel()), "asyncfix-%s-%s.whl" % (VERSION, MANYLINUX_TAG))
        print("wheel built in %.0f s" % (time.monotonic() - started))

    def build_here(self):
        env = dict(os.environ, ASYNCFIX_WHEEL_BUILD_DIR=WHEEL_BUILD_DIR)
        env.pop("PYTHONPATH", None)
        result = run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", WHEELHOUSE, SOURCE],
                     env=env, cwd=tempfile.gettempdir(), timeout=3500)
        self.assertRegex(result.stdout, r"Successfully built asyncfix-.*\.whl")
        the_wheel()


class WheelContents(unittest.TestCase):
    wheelhouse = None  # dist.wheel's; test_aarch64's subclass names its own
    machine = os.uname().machine

    @classmethod
    def setUpClass(cls):
        cls.path = the_wheel(cls.wheelhouse)
        cls.zip = zipfile.ZipFile(cls.path)
        cls.name = os.path.basename(cls.path)
        cls.data = "asyncfix-%s.data" % VERSION
        cls.dist_info = "asyncfix-%s.dist-info" % VERSION

    @classmethod
    def tearDownClass(cls):
        cls.zip.close()

    def tag(self):
        # py3-none: the package loads its library with ctypes, so the wheel is for every Python 3.
        match = re.match(r"^asyncfix-%s-(py3)-(none)-(.+)\.whl$" % re.escape(VERSION), self.name)
        self.assertTrue(match, self.name)
        return match.group(1), match.group(2), match.group(3)

    def test_file_name_and_wheel_metadata(self):
        python, abi, platform = self.tag()
        wheel = self.zip.read(self.dist_info + "/WHEEL").decode()
        self.assertIn("Wheel-Version: 1.0\n", wheel)
        self.assertIn("Root-Is-Purelib: false\n", wheel)
        self.assertIn("Tag: %s-%s-%s\n" % (python, abi, platform), wheel)
        meta = self.zip.read(self.dist_info + "/METADATA").decode()
        self.assertTrue(meta.startswith("Metadata-Version: 2.1\nName: asyncfix\nVersion: %s\n" % VERSION), meta[:200])
        self.assertEqual(self.zip.read(self.dist_info + "/entry_points.txt").decode(),
                         "[flake8.extension]\nAF = asyncfix.flake8_plugin:Plugin\n")
        info = self.zip.read("asyncfix/_wheel_info.py").decode()
        self.assertIn("TAG = '%s-%s-%s'" % (python, abi, platform), info)

    def test_exactly_the_expected_files(self):
        expected = {
            "asyncfix/__init__.py", "asyncfix/__main__.py", "asyncfix/_launcher.py", "asyncfix/flake8_plugin.py",
            "asyncfix/_wheel_info.py", "asyncfix/_capi.py", "asyncfix/" + LIBRARY,
            self.data + "/scripts/asyncfix", self.data + "/scripts/asyncfix-lsp",
            self.data + "/data/share/man/man1/asyncfix.1", self.data + "/data/share/man/man1/asyncfix-lsp.1",
            self.data + "/data/share/man/man7/asyncfix-rules.7",
        } | {
            # The manual (docs/), where the links the commands print lead (<env>/share/doc/asyncfix).
            self.data + "/data/share/doc/asyncfix/" + os.path.relpath(os.path.join(d, n), DOCS).replace(os.sep, "/")
            for d, _, names in os.walk(DOCS) for n in names
        } | {
            self.dist_info + "/METADATA", self.dist_info + "/WHEEL", self.dist_info + "/entry_points.txt",
            self.dist_info + "/RECORD",
        }
        self.assertEqual(set(self.zip.namelist()), expected)
        self.assertEqual(self.zip.namelist()[-1], self.dist_info + "/RECORD")
        for script in ("asyncfix", "asyncfix-lsp"):
            self.assertEqual(self.zip.getinfo(self.data + "/scripts/" + script).external_attr >> 16, 0o100755)

    def test_record_hashes_every_file(self):
        rows = list(csv.reader(io.StringIO(self.zip.read(self.dist_info + "/RECORD").decode())))
        self.assertEqual(sorted(r[0] for r in rows), sorted(self.zip.namelist()))
        for path, digest, size in rows:
            if path == self.dist_info + "/RECORD":
                self.assertEqual((digest, size), ("", ""))
                continue
            data = self.zip.read(path)
            self.assertEqual(digest, "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest())
                             .rstrip(b"=").decode(), path)
            self.assertEqual(int(size), len(data), path)

    def test_platform_tag_is_what_readelf_shows(self):
        _, _, platform = self.tag()
        match = re.match(r"^manylinux_(\d+)_(\d+)_(\w+)(\.manylinux2014_\w+)?$", platform)
        # The commands and the library link the C++ runtime statically: only glibc is left.
        self.assertTrue(match, "expected a manylinux tag, got %s" % platform)
        tagged = (int(match.group(1)), int(match.group(2)))
        self.assertEqual(match.group(3), self.machine)
        # (the legacy alias exactly at glibc 2.17, PEP 599)
        self.assertEqual(match.group(4), ".manylinux2014_%s" % self.machine if tagged == (2, 17) else None)
        tmp = tempfile.mkdtemp(prefix="asyncfix-wheel-elf-")
        try:
            newest = (0, 0)
            elves = 0
            for name in self.zip.namelist():
                data = self.zip.read(name)
                if not data.startswith(b"\x7fELF"):
                    continue
                elves += 1
                path = os.path.join(tmp, os.path.basename(name))
                with open(path, "wb") as f:
                    f.write(data)
                header = run(["readelf", "--wide", "-h", path]).stdout
                self.assertRegex(header, r"Machine:\s+%s\n" % READELF_MACHINES[self.machine], name)
                dynamic = run(["readelf", "--wide", "-d", path]).stdout
                needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
                self.assertTrue(needed, name)
                self.assertEqual([n for n in needed if not GLIBC_LIBS.match(n)], [], name)
                versions = re.findall(r"Name: GLIBC_(\d+)\.(\d+)", run(["readelf", "--wide", "-V", path]).stdout)
                newest = max([newest] + [(int(a), int(b)) for a, b in versions])
                self.assertNotIn(".symtab", run(["readelf", "--wide", "-S", path]).stdout, name + " is not stripped")
            self.assertEqual(elves, 3)  # asyncfix, asyncfix-lsp, the package's library
            # What the files need, but never below the floor the project builds for (2.17; the
            # bullseye build needs 2.14 on x86_64, 2.17 on aarch64, glibc's first release there).
            self.assertEqual(max(newest, (2, 17)), tagged)
        finally:
            shutil.rmtree(tmp)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class Venv(unittest.TestCase):
    """A fresh virtual environment on this machine."""

    @classmethod
    def setUpClass(cls):
        cls.wheel = the_wheel()
        cls.dir = tempfile.mkdtemp(prefix="asyncfix-venv-")
        cls.venv = os.path.join(cls.dir, "venv")
        run([sys.executable, "-m", "venv", cls.venv])
        cls.python = os.path.join(cls.venv, "bin", "python")
        run([cls.python, "-m", "pip", "install", "--no-index", "--disable-pip-version-check", cls.wheel],
            env=dict(os.environ, PIP_NO_INDEX="1"))
        # Only the environment and the system's own directories: nothing from the build tree.
        cls.env = {"PATH": os.path.join(cls.venv, "bin") + ":/usr/bin:/bin", "HOME": cls.dir, "LANG": "C.UTF-8"}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def sh(self, *command, check=True, cwd=None, env=None):
        return run(list(command), check=check, cwd=cwd or self.dir, env=env or self.env)

    def test_commands_are_on_the_environments_path(self):
        for name in ("asyncfix", "asyncfix-lsp"):
            self.assertEqual(shutil.which(name, path=self.env["PATH"]), os.path.join(self.venv, "bin", name))
        self.assertEqual(self.sh("asyncfix", "--version").stdout.strip(), "asyncfix %s" % VERSION)
        self.assertIn("asyncfix-lsp", self.sh("asyncfix-lsp", "--help").stdout)
        self.assertTrue(os.path.exists(os.path.join(self.venv, "share", "man", "man1", "asyncfix.1")))

    def test_check_and_fix(self):
        work = tempfile.mkdtemp(dir=self.dir)
        write(os.path.join(work, "legacy.py"), LEGACY)
        result = self.sh("asyncfix", "check", "legacy.py", check=False, cwd=work)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(FINDING, result.stdout)
        self.sh("asyncfix", "check", "--fix", "legacy.py", cwd=work)
        self.assertEqual(read(os.path.join(work, "legacy.py")), FIXED)

    def test_python_module_and_python_m(self):
        self.assertEqual(self.sh(self.python, "-m", "asyncfix", "--version").stdout.strip(), "asyncfix %s" % VERSION)
        # The command is found beside the interpreter, not on PATH.
        result = run([self.python, "-m", "asyncfix", "check", "--stdin-filename", "legacy.py", "-"], check=False,
                     input=LEGACY, cwd=self.dir, env=dict(self.env, PATH="/usr/bin:/bin"))
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(FINDING, result.stdout)
        out = self.sh(self.python, "-c", "import asyncfix; print(asyncfix.__version__); "
                      "print(asyncfix.fix('x.cuda(async=True)\\n'), end='')").stdout
        self.assertEqual(out, "%s\nx.cuda(non_blocking=True)\n" % VERSION)

    def test_neovim_starts_the_environments_server(self):
        # The Neovim plugin with its default `cmd`: `asyncfix-lsp` from the activated environment.
        nvim = shutil.which("nvim")
        if not nvim:
            self.fail("nvim is missing: scripts/install-deps.sh test installs neovim")
        work = tempfile.mkdtemp(dir=self.dir)
        write(os.path.join(work, "legacy.py"), LEGACY)
        here = os.path.dirname(os.path.abspath(__file__))
        env = dict(self.env, ASYNCFIX_PLUGIN_DIR=os.path.join(SOURCE, "editors", "nvim"),
                   XDG_CONFIG_HOME=work, XDG_DATA_HOME=work, XDG_STATE_HOME=work, XDG_CACHE_HOME=work)
        result = run([nvim, "--headless", "--clean", "-c", "luafile " + os.path.join(here, "nvim_wheel.lua"),
                      os.path.join(work, "legacy.py")], check=False, cwd=work, env=env, timeout=120)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("health: %s: asyncfix-lsp %s" % (os.path.join(self.venv, "bin", "asyncfix-lsp"), VERSION),
                      result.stdout)
        self.assertRegex(result.stdout, r"diagnostics: .*AF101")

    def test_flake8_plugin_entry_point(self):
        # flake8 from Debian, seen through a second environment that also sees the system's packages.
        try:
            import flake8  # noqa: F401
        except ImportError:
            self.skipTest("python3-flake8 is not installed")
        venv = os.path.join(self.dir, "venv-flake8")
        run([sys.executable, "-m", "venv", "--system-site-packages", venv])
        run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "--no-index", "--disable-pip-version-check",
             self.wheel])
        work = tempfile.mkdtemp(dir=self.dir)
        write(os.path.join(work, "legacy.py"), LEGACY)
        result = self.sh(os.path.join(venv, "bin", "python"), "-m", "flake8", "--select", "AF", "legacy.py",
                         check=False, cwd=work)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(FINDING, result.stdout)

    def test_an_installation_that_cannot_run_here_says_so(self):
        venv = os.path.join(self.dir, "venv-broken")
        run([sys.executable, "-m", "venv", venv])
        python = os.path.join(venv, "bin", "python")
        run([python, "-m", "pip", "install", "--no-index", "--disable-pip-version-check", self.wheel])
        package = run([python, "-c", "import asyncfix, os; print(os.path.dirname(asyncfix.__file__))"]).stdout.strip()
        # A program for another machine in place of the command: an ELF header whose machine number
        # (0xbeef) belongs to no processor, so that no emulator the machine may have registered
        # with binfmt_misc (qemu-user-static) takes it.
        command = os.path.join(venv, "bin", "asyncfix")
        with open(command, "wb") as f:
            f.write(b"\x7fELF\x02\x01\x01" + b"\0" * 9 + b"\x02\x00\xef\xbe" + b"\0" * 200)
        result = run([python, "-m", "asyncfix", "--version"], check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn("is not a program this machine can run (the wheel is py3-none-", result.stderr)
        self.assertNotIn("Traceback", result.stderr)
        # A wheel for a newer glibc than this machine's: refused before anything runs.
        info = os.path.join(package, "_wheel_info.py")
        text = read(info)
        write(info, re.sub(r"GLIBC = .*", "GLIBC = (2, 999)", text))
        result = run([python, "-m", "asyncfix", "--version"], check=False)
        self.assertEqual(result.returncode, 2)
        self.assertRegex(result.stderr, r"^asyncfix: this asyncfix wheel \(.*\) is for Linux \w+ with glibc 2\.999 "
                                        r"or newer; this machine is Linux \w+ with glibc \d+\.\d+\.")
        write(info, text)
        # A library that is gone (a damaged installation): named, with what to do.
        library = os.path.join(package, LIBRARY)
        os.rename(library, library + ".away")
        result = run([python, "-c", "import asyncfix"], check=False)
        self.assertEqual(result.returncode, 1)
        self.assertIn("ImportError: asyncfix cannot be loaded: asyncfix's library %s is missing; reinstall asyncfix"
                      % library, result.stderr)
        # …while `python -m asyncfix` still runs the command (it does not need the library).
        shutil.copy(os.path.join(self.venv, "bin", "asyncfix"), command)
        self.assertEqual(run([python, "-m", "asyncfix", "--version"]).stdout.strip(), "asyncfix %s" % VERSION)

    def test_commands_need_only_glibc(self):
        for name in ("asyncfix", "asyncfix-lsp"):
            out = run(["ldd", os.path.join(self.venv, "bin", name)]).stdout
            libs = [os.path.basename(line.split()[0]) for line in out.splitlines() if line.strip()]
            self.assertEqual([l for l in libs if not (GLIBC_LIBS.match(l) or l.startswith("linux-vdso"))], [], out)


# The CPython versions the wheel is for (pyproject.toml's requires-python and up).
PYTHONS = [(3, minor) for minor in range(8, 14)]


def cpythons():
    """{(major, minor): interpreter} for every CPython of PYTHONS this machine has: the machine
    image's pyenv versions ($PYENV_ROOT or ~/.pyenv; the newest patch release of each) and the
    interpreter running the tests."""
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    candidates = sorted(glob.glob(os.path.join(root, "versions", "3.*", "bin", "python")), reverse=True)
    found = {}
    for path in candidates + [sys.executable]:
        result = run([path, "-c", "import sys; print(sys.implementation.name, *sys.version_info[:3])"], check=False)
        fields = result.stdout.split()
        if result.returncode != 0 or len(fields) != 4 or fields[0] != "cpython":
            continue
        version = (int(fields[1]), int(fields[2]))
        if version in PYTHONS:
            found.setdefault(version, path)
    return found


def flake8_site(directory):
    """A directory with Debian's flake8 and the plugins it brings (python3-flake8: pure Python, with
    their egg-info for the entry points), for a .pth file to put on another interpreter's path:
    the venvs install with --no-index, so flake8 cannot come from a package index."""
    import importlib.util
    os.makedirs(directory, exist_ok=True)
    for name in ("flake8", "pyflakes", "pycodestyle", "mccabe"):
        spec = importlib.util.find_spec(name)
        if spec is None:
            raise AssertionError("%s is not installed for %s (scripts/install-deps.sh test installs python3-flake8)"
                                 % (name, sys.executable))
        source = os.path.dirname(spec.origin) if spec.submodule_search_locations else spec.origin
        parent = os.path.dirname(source)
        for path in [source] + glob.glob(os.path.join(parent, name + "-*.egg-info")) + \
                glob.glob(os.path.join(parent, name + "-*.dist-info")):
            os.symlink(path, os.path.join(directory, os.path.basename(path)))
    return directory


MODULE_SCRIPT = """
import asyncfix, json, sys, threading
src = sys.stdin.read()
linter = asyncfix.Linter(select="AF1")
out = {"python": list(sys.version_info[:2]), "file": asyncfix.__file__, "version": asyncfix.__version__,
       "check": [(d["code"], d["location"]["row"]) for d in asyncfix.check(src, path="legacy.py")],
       "fix": asyncfix.fix(src), "rules": len(asyncfix.rules()), "linter": len(linter.check(src))}
try:
    asyncfix.check(src, select=["AF999"])
except asyncfix.Error as error:
    out["error"] = str(error)
results = []
threads = [threading.Thread(target=lambda: results.append(linter.fix(src))) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
out["threads"] = results == [out["fix"]] * 4
print(json.dumps(out))
"""


class EveryPython(unittest.TestCase):
    """The one wheel in a fresh venv of every CPython 3.8–3.13 the machine has, installed by that
    venv's own pip with --no-index: its commands, `python -m asyncfix`, the module and the flake8
    plugin."""

    @classmethod
    def setUpClass(cls):
        cls.wheel = the_wheel()
        cls.dir = tempfile.mkdtemp(prefix="asyncfix-pythons-")
        cls.flake8 = flake8_site(os.path.join(cls.dir, "flake8-site"))
        cls.pythons = cpythons()
        print("CPythons: %s" % ", ".join("%d.%d (%s)" % (v + (p,)) for v, p in sorted(cls.pythons.items())))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_the_wheel_serves_every_cpython(self):
        # Those this machine lacks are named; the test needs at least the one that runs it.
        missing = [v for v in PYTHONS if v not in self.pythons]
        if missing:
            print("not on this machine: %s" % ", ".join("%d.%d" % v for v in missing))
        self.assertTrue(self.pythons)
        for version, interpreter in sorted(self.pythons.items()):
            with self.subTest(python="%d.%d" % version):
                started = time.monotonic()
                self.check_python(version, interpreter)
                print("CPython %d.%d: %.1f s" % (version + (time.monotonic() - started,)))

    def check_python(self, version, interpreter):
        venv = os.path.join(self.dir, "venv-%d.%d" % version)
        run([interpreter, "-m", "venv", venv])
        python = os.path.join(venv, "bin", "python")
        run([python, "-m", "pip", "install", "--no-index", "--disable-pip-version-check", "--no-cache-dir",
             self.wheel], env=dict(os.environ, PIP_NO_INDEX="1"))
        env = {"PATH": os.path.join(venv, "bin") + ":/usr/bin:/bin", "HOME": self.dir, "LANG": "C.UTF-8"}
        work = tempfile.mkdtemp(dir=self.dir)
        write(os.path.join(work, "legacy.py"), LEGACY)

        def sh(*command, check=True, **kwargs):
            return run(list(command), check=check, cwd=work, env=env, **kwargs)

        # The commands and `python -m asyncfix`.
        self.assertEqual(sh("asyncfix", "--version").stdout.strip(), "asyncfix %s" % VERSION)
        self.assertEqual(sh(python, "-m", "asyncfix", "--version").stdout.strip(), "asyncfix %s" % VERSION)
        result = sh(python, "-m", "asyncfix", "check", "legacy.py", check=False)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(FINDING, result.stdout)
        # The module, from this venv's site-packages.
        out = json.loads(sh(python, "-c", MODULE_SCRIPT, input=LEGACY).stdout)
        self.assertEqual(out["python"], list(version))
        self.assertTrue(out["file"].startswith(venv + "/"), out["file"])
        self.assertEqual(out["version"], VERSION)
        self.assertEqual(out["check"], [["AF101", 5]])
        self.assertEqual(out["fix"], FIXED)
        self.assertGreaterEqual(out["rules"], 12)
        self.assertEqual(out["linter"], 1)
        self.assertEqual(out["error"], "options: unknown rule code `AF999` in `select`")
        self.assertTrue(out["threads"])
        # The flake8 plugin (Debian's flake8 on this interpreter's path), with a configuration error.
        site = sh(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))").stdout.strip()
        write(os.path.join(site, "debian-flake8.pth"), self.flake8 + "\n")
        result = sh(python, "-m", "flake8", "--select", "AF", "legacy.py", check=False)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertEqual(result.stdout.splitlines(), [FINDING + " `async=` is a syntax error since Python 3.7; "
                                                                "PyTorch renamed it `non_blocking=`"])
        write(os.path.join(work, "asyncfix.toml"), 'selct = ["AF1"]\n')
        result = sh(python, "-m", "flake8", "--select", "AF", "legacy.py", check=False)
        self.assertIn("legacy.py:1:1: AF000 asyncfix configuration error: ", result.stdout)
        # And the fix, by the command.
        os.remove(os.path.join(work, "asyncfix.toml"))
        sh("asyncfix", "check", "--fix", "legacy.py")
        self.assertEqual(read(os.path.join(work, "legacy.py")), FIXED)


class Debootstrap(unittest.TestCase):
    """The wheel in a minimal Debian bookworm root: no compiler, no libgit2, no toml++."""

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("debootstrap and chroot need root")
        if not shutil.which("debootstrap"):
            raise unittest.SkipTest("debootstrap is not installed (scripts/install-deps.sh installs it)")
        cls.chroot_command = shutil.which("chroot") or shutil.which("chroot", path="/usr/sbin:/sbin")
        if not cls.chroot_command:
            raise unittest.SkipTest("chroot is not installed")
        cls.wheel = the_wheel()
        cached = bookworm_root()
        cls.tmp = tempfile.mkdtemp(prefix="asyncfix-chroot-", dir=CACHE)
        cls.root = os.path.join(cls.tmp, "root")
        run(["cp", "-a", cached, cls.root])
        # Beyond minbase: the C++ runtime goes too (apt needs it, the wheel must not).
        for lib in glob.glob(os.path.join(cls.root, "usr", "lib", "*-linux-gnu", "libstdc++.so*")):
            os.remove(lib)
        shutil.copy(cls.wheel, os.path.join(cls.root, "tmp"))
        cls.wheel_in_root = "/tmp/" + os.path.basename(cls.wheel)

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "tmp", None):
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def chroot(self, *command, check=True):
        env = {"PATH": "/opt/asyncfix/bin:/usr/bin:/bin", "HOME": "/root", "LANG": "C.UTF-8"}
        return run([self.chroot_command, self.root] + list(command), check=check, env=env)

    def test_the_root_is_minimal(self):
        self.assertTrue(os.path.exists(os.path.join(self.root, "usr", "bin", "python3")))
        for absent in ("usr/bin/cc", "usr/bin/gcc", "usr/bin/g++", "usr/bin/cmake", "usr/include/toml++",
                       "usr/include/CLI"):
            self.assertFalse(os.path.exists(os.path.join(self.root, absent)), absent)
        for pattern in ("libgit2*", "libtomlplusplus*", "libstdc++.so*"):
            self.assertEqual(glob.glob(os.path.join(self.root, "usr", "lib", "*", pattern)), [], pattern)

    def test_install_check_fix_and_module(self):
        self.chroot("/usr/bin/python3", "-m", "venv", "/opt/asyncfix")
        self.chroot("/opt/asyncfix/bin/pip", "install", "--no-index", "--disable-pip-version-check", self.wheel_in_root)
        os.makedirs(os.path.join(self.root, "work"))
        write(os.path.join(self.root, "work", "legacy.py"), LEGACY)
        result = self.chroot("sh", "-c", "cd /work && asyncfix check legacy.py", check=False)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn(FINDING, result.stdout)
        self.chroot("sh", "-c", "cd /work && asyncfix check --fix legacy.py")
        self.assertEqual(read(os.path.join(self.root, "work", "legacy.py")), FIXED)
        self.assertEqual(self.chroot("sh", "-c", "cd /work && asyncfix check legacy.py").returncode, 0)
        self.assertEqual(self.chroot("/opt/asyncfix/bin/python", "-m", "asyncfix", "--version").stdout.strip(),
                         "asyncfix %s" % VERSION)
        out = self.chroot("/opt/asyncfix/bin/python", "-c",
                          "import asyncfix; print(asyncfix.fix('x.cuda(async=True)\\n'), end='')").stdout
        self.assertEqual(out, "x.cuda(non_blocking=True)\n")
        self.assertIn("asyncfix-lsp", self.chroot("asyncfix-lsp", "--help").stdout)


if __name__ == "__main__":
    main()
