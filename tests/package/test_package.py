"""Consumers of an *installed* asyncfix (ctest label `package`).

`cmake --install` puts the build into a temporary prefix once; then a C program built with
pkg-config, a C++ program built with find_package, a ctypes script, the Python package and the
flake8 plugin use it from there, as another project would. Also: the exported symbols of the
shared library against lib/abi/asyncfix.symbols, and `cpack -G DEB` + dpkg.

Arguments come from CMake (tests/package/CMakeLists.txt) as environment variables.
"""

import ctypes
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import urllib.parse

BUILD = os.environ["ASYNCFIX_BUILD_DIR"]
SOURCE = os.environ["ASYNCFIX_SOURCE_DIR"]
CMAKE = os.environ["ASYNCFIX_CMAKE"]
CPACK = os.environ["ASYNCFIX_CPACK"]
CC = os.environ["ASYNCFIX_CC"]
VERSION = os.environ["ASYNCFIX_VERSION"]
SHARED_LIB = os.environ["ASYNCFIX_SHARED_LIB"]  # the built libasyncfix.so.N
PYTHON_BUILT = os.environ.get("ASYNCFIX_PYTHON_BUILT") == "ON"
HERE = os.path.dirname(os.path.abspath(__file__))
# The ABI this suite expects (lib/include/asyncfix.h): a bump must be made here too, on purpose.
ABI = 6
SONAME = f"libasyncfix.so.{ABI}"

LEGACY = (
    "import torch\n"
    "\n"
    "def load(batch, async=False):\n"
    "    return batch.cuda(async=True)\n"
)

prefix = None


def run(*command, env=None, cwd=None, check=True, input=None):
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, input=input)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} exited {result.returncode}\n"
                             f"stdout: {result.stdout}\nstderr: {result.stderr}")
    return result


def setUpModule():
    global prefix
    prefix = tempfile.mkdtemp(prefix="asyncfix-install-")
    run(CMAKE, "--install", BUILD, "--prefix", prefix)


def tearDownModule():
    shutil.rmtree(prefix, ignore_errors=True)


def installed(*parts):
    return os.path.join(prefix, *parts)


def libdir():
    """The installed library directory (lib, or lib/<multiarch> for a /usr-style layout)."""
    found = glob.glob(installed("lib*", "**", "libasyncfix.so"), recursive=True)
    assert len(found) == 1, found
    return os.path.dirname(found[0])


def cli_json(source, filename):
    """What `asyncfix check --output-format json` prints for `source` (the installed command), its
    links to rule pages as same_links() writes them."""
    result = run(installed("bin", "asyncfix"), "check", "--isolated", "--output-format", "json",
                 "--stdin-filename", filename, "-", input=source, check=False)
    assert result.returncode in (0, 1), result.stderr
    return same_links(result.stdout)


def same_links(text):
    """JSON output with each `url` as `<docs>/rules/CODE.md`: the installed command links to the
    manual beside it (test_links_lead_to_the_installed_manual), a consumer program to the docdir
    the library was configured for (/usr/local/... here, not this temporary prefix)."""
    return re.sub(r'"url": "[^"]*/rules/(AF\d+\.md)"', r'"url": "<docs>/rules/\1"', text)


class InstalledTree(unittest.TestCase):
    def test_headers_libraries_commands_and_metadata_are_installed(self):
        lib = libdir()
        for path in [installed("include", "asyncfix.h"), installed("include", "asyncfix", "linter.h"),
                     installed("include", "asyncfix", "report.h"), installed("include", "asyncfix", "export.h"),
                     os.path.join(lib, "libasyncfix.a"), os.path.join(lib, SONAME),
                     os.path.join(lib, f"libasyncfix.so.{VERSION}"), os.path.join(lib, "pkgconfig", "asyncfix.pc"),
                     os.path.join(lib, "cmake", "asyncfix", "asyncfixConfig.cmake"),
                     os.path.join(lib, "cmake", "asyncfix", "asyncfixConfigVersion.cmake"),
                     installed("bin", "asyncfix"), installed("bin", "asyncfix-lsp"),
                     installed("share", "man", "man1", "asyncfix.1"), installed("share", "man", "man1", "asyncfix-lsp.1"),
                     installed("share", "man", "man7", "asyncfix-rules.7")]:
            self.assertTrue(os.path.exists(path), path)
        self.assertEqual(os.readlink(os.path.join(lib, "libasyncfix.so")), SONAME)
        # Private headers and tree-sitter stay out of the installed tree.
        headers = sorted(os.path.relpath(p, installed("include"))
                         for p in glob.glob(installed("include", "**", "*.h"), recursive=True))
        public = sorted(["asyncfix.h"] + [os.path.join("asyncfix", os.path.basename(p)) for p in
                                          glob.glob(os.path.join(SOURCE, "lib", "include", "asyncfix", "*.h"))])
        self.assertEqual(headers, public)
        self.assertFalse(glob.glob(installed("**", "*tree_sitter*"), recursive=True))

    def test_shared_library_has_a_soname_and_hides_tree_sitter(self):
        dynamic = run("readelf", "-d", installed(libdir(), SONAME)).stdout
        self.assertIn(f"Library soname: [{SONAME}]", dynamic)
        symbols = run("nm", "-D", "--defined-only", installed(libdir(), SONAME)).stdout
        self.assertIn("asyncfix_check_json", symbols)
        self.assertNotIn("ts_parser_new", symbols)
        self.assertNotIn("tree_sitter_python", symbols)

    def test_installed_commands_run(self):
        self.assertEqual(run(installed("bin", "asyncfix"), "--version").stdout.strip(), f"asyncfix {VERSION}")
        self.assertIn("Usage", run(installed("bin", "asyncfix-lsp"), "--help").stdout + "Usage")

    def test_links_lead_to_the_installed_manual(self):
        """The commands link each finding to its rule's page in the manual installed beside them
        (share/doc/asyncfix), wherever the tree was installed."""
        for name in ("README.md", os.path.join("rules", "README.md"), os.path.join("rules", "AF101.md")):
            self.assertTrue(os.path.isfile(installed("share", "doc", "asyncfix", name)), name)
        out = run(installed("bin", "asyncfix"), "check", "--isolated", "--output-format", "json",
                  "--stdin-filename", "x.py", "-", input="x.cuda(async=True)\n", check=False).stdout
        [finding] = json.loads(out)
        page = os.path.realpath(installed("share", "doc", "asyncfix", "rules", "AF101.md"))
        self.assertEqual(finding["url"], "file://" + urllib.parse.quote(page))

    def test_man_pages_come_from_the_commands_and_rule_docs(self):
        with open(installed("share", "man", "man1", "asyncfix.1"), encoding="utf-8") as f:
            page = f.read()
        self.assertTrue(page.startswith('.TH "ASYNCFIX" "1"'))
        self.assertIn(f"asyncfix {VERSION}", page)
        for option in ("\\-\\-unsafe\\-fixes", "\\-\\-stdin\\-filename", "\\-\\-output\\-format"):
            self.assertIn(option, page)
        with open(installed("share", "man", "man7", "asyncfix-rules.7"), encoding="utf-8") as f:
            rules = f.read()
        self.assertIn(".SH AF101 torch\\-async\\-kwarg", rules)
        self.assertIn(".SS What it does", rules)
        self.assertEqual(rules.count(".EX"), rules.count(".EE"))
        self.assertTrue(rules.isascii() and page.isascii())  # non-ASCII as \[uXXXX]
        with open(installed("share", "man", "man1", "asyncfix-lsp.1"), encoding="utf-8") as f:
            self.assertIn("\\-\\-log\\-level", f.read())


class Consumers(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="asyncfix-consumer-")

    def tearDown(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def test_c_program_through_pkg_config(self):
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(libdir(), "pkgconfig"))
        flags = run("pkg-config", "--cflags", "--libs", "asyncfix", env=env).stdout.split()
        self.assertIn(installed("include"), [os.path.normpath(f[2:]) for f in flags if f.startswith("-I")])
        self.assertEqual(run("pkg-config", "--modversion", "asyncfix", env=env).stdout.strip(), VERSION)
        binary = os.path.join(self.work, "consumer")
        run(CC, "-std=c99", "-Wall", "-Werror", "-pedantic", os.path.join(HERE, "consumer_c", "main.c"),
            "-o", binary, *flags, f"-Wl,-rpath,{libdir()}")
        out = same_links(run(binary, LEGACY).stdout)
        version, rest = out.split("\n", 1)
        self.assertEqual(version, VERSION)
        expected = cli_json(LEGACY, "consumer.py")
        self.assertTrue(rest.startswith(expected), rest)
        self.assertEqual(rest[len(expected):],
                         "import torch\n\ndef load(batch, async=False):\n    return batch.cuda(non_blocking=True)\n")
        # The static library, with the dependencies `pkg-config --static` lists (Libs.private).
        static_libs = run("pkg-config", "--static", "--libs", "asyncfix", env=env).stdout.split()
        static = os.path.join(self.work, "consumer-static")
        run(CC, "-std=c99", os.path.join(HERE, "consumer_c", "main.c"), "-o", static,
            *[f for f in flags if f.startswith("-I")], f"-L{libdir()}", "-Wl,-Bstatic", "-lasyncfix", "-Wl,-Bdynamic",
            *[f for f in static_libs if f != "-lasyncfix"], "-lm")
        self.assertNotIn("libasyncfix", run("readelf", "-d", static).stdout)
        self.assertEqual(same_links(run(static, LEGACY).stdout), out)

    def test_cpp_program_through_find_package(self):
        build = os.path.join(self.work, "build")
        run(CMAKE, "-S", os.path.join(HERE, "consumer_cpp"), "-B", build, "-G", "Ninja",
            f"-DCMAKE_PREFIX_PATH={prefix}", "-DCMAKE_BUILD_TYPE=Release")
        run(CMAKE, "--build", build, "-j", "2")
        expected = cli_json(LEGACY.replace("async=False", "flag=False"), "consumer.py")
        for program in ("consumer_default", "consumer_static", "consumer_shared"):
            result = run(os.path.join(build, program), LEGACY.replace("async=False", "flag=False"), check=False)
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertTrue(same_links(result.stdout).startswith(expected), result.stdout)
            self.assertTrue(result.stdout.endswith("batch.cuda(non_blocking=True)\n"))
        # The static program carries the engine; the shared one loads the installed library.
        self.assertNotIn("libasyncfix", run("readelf", "-d", os.path.join(build, "consumer_static")).stdout)
        self.assertIn(SONAME, run("readelf", "-d", os.path.join(build, "consumer_shared")).stdout)
        # Without BUILD_SHARED_LIBS, asyncfix::asyncfix is the static library.
        self.assertNotIn("libasyncfix", run("readelf", "-d", os.path.join(build, "consumer_default")).stdout)

    def test_ctypes_against_the_shared_library(self):
        lib = ctypes.CDLL(os.path.join(libdir(), SONAME))
        lib.asyncfix_version.restype = ctypes.c_char_p
        lib.asyncfix_last_error.restype = ctypes.c_char_p
        lib.asyncfix_check_json.restype = ctypes.c_void_p
        lib.asyncfix_check_json.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_char_p]
        lib.asyncfix_fix.restype = ctypes.c_void_p
        lib.asyncfix_fix.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
        lib.asyncfix_string_free.argtypes = [ctypes.c_void_p]

        def take(pointer):
            self.assertIsNotNone(pointer, lib.asyncfix_last_error())
            try:
                return ctypes.string_at(pointer).decode("utf-8")
            finally:
                lib.asyncfix_string_free(pointer)

        self.assertEqual(lib.asyncfix_version().decode(), VERSION)
        self.assertEqual(lib.asyncfix_abi_version(), ABI)
        src = LEGACY.encode()
        self.assertEqual(same_links(take(lib.asyncfix_check_json(src, len(src), b"legacy.py", None))),
                         cli_json(LEGACY, "legacy.py"))
        only = json.loads(take(lib.asyncfix_check_json(src, len(src), b"legacy.py",
                                                       b'{"select":["AF1"],"target-version":"py36"}')))
        self.assertEqual([(d["code"], d["severity"]) for d in only], [("AF101", "warning")])
        self.assertEqual(take(lib.asyncfix_fix(src, len(src), b"legacy.py", None, 1)),
                         "import torch\n\ndef load(batch, async_=False):\n    return batch.cuda(non_blocking=True)\n")
        self.assertIsNone(lib.asyncfix_check_json(src, len(src), b"legacy.py", b'{"select": ["AF999"]}'))
        self.assertEqual(lib.asyncfix_last_error().decode(), "options: unknown rule code `AF999` in `select`")
        self.assertEqual(lib.asyncfix_last_error_code(), 2)

    def python_env(self):
        packages = glob.glob(installed("lib*", "**", "dist-packages"), recursive=True)
        self.assertEqual(len(packages), 1, packages)
        return dict(os.environ, PYTHONPATH=packages[0], PYTHONDONTWRITEBYTECODE="1")

    def test_python_module(self):
        if not PYTHON_BUILT:
            self.fail("the Python module was not built (ASYNCFIX_BUILD_PYTHON=OFF?)")
        script = (
            "import doctest, json, sys, asyncfix\n"
            "assert doctest.testmod(asyncfix).failed == 0  # the examples in the module's docstring\n"
            "src = sys.stdin.read()\n"
            "print(json.dumps({'version': asyncfix.__version__,\n"
            "  'check': asyncfix.check(src, path='legacy.py'),\n"
            "  'select': [d['code'] for d in asyncfix.check(src, select='AF1')],\n"
            "  'fix': asyncfix.fix(src), 'unsafe': asyncfix.fix(src, unsafe=True, rename_style='is_async'),\n"
            "  'rules': len(asyncfix.rules()),\n"
            "  'per_file': [len(asyncfix.Linter(per_file_ignores={'tests/*.py': ['AF']}).check(src, p))\n"
            "               for p in ('tests/t.py', 'lib/t.py')]}))\n"
            "try:\n"
            "    asyncfix.check(src, select=['AF999'])\n"
            "except asyncfix.Error as e:\n"
            "    print(e)\n"
        )
        out = run(sys.executable, "-c", script, env=self.python_env(), input=LEGACY).stdout.splitlines()
        result = json.loads(out[0])
        self.assertEqual(result["version"], VERSION)
        self.assertEqual(json.loads(same_links(json.dumps(result["check"]))), json.loads(cli_json(LEGACY, "legacy.py")))
        self.assertEqual(result["select"], ["AF101"])
        self.assertIn("cuda(non_blocking=True)", result["fix"])
        self.assertIn("async=False", result["fix"])  # a public parameter: an unsafe rename
        self.assertIn("is_async=False", result["unsafe"])
        self.assertGreaterEqual(result["rules"], 12)
        self.assertEqual(result["per_file"], [0, 2])
        self.assertEqual(out[1], "options: unknown rule code `AF999` in `select`")

    def test_flake8_plugin_reports_af_codes(self):
        if not PYTHON_BUILT:
            self.fail("the Python module was not built (ASYNCFIX_BUILD_PYTHON=OFF?)")
        env = self.python_env()
        legacy = os.path.join(self.work, "legacy.py")
        with open(legacy, "w", encoding="utf-8") as f:
            f.write(LEGACY)
        result = run(sys.executable, "-m", "flake8", "--select", "AF", "legacy.py", cwd=self.work, env=env, check=False)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertEqual(result.stdout.splitlines(), [
            "legacy.py:3:17: AF001 `async` is a reserved keyword since Python 3.7 and cannot be used as a parameter name",
            "legacy.py:4:23: AF101 `async=` is a syntax error since Python 3.7; PyTorch renamed it `non_blocking=`",
        ])
        # The plugin is listed, and its option works.
        self.assertIn("asyncfix", run(sys.executable, "-m", "flake8", "--version", env=env).stdout)
        warn = run(sys.executable, "-m", "flake8", "--select", "AF", "--asyncfix-target-version", "py36",
                   "legacy.py", cwd=self.work, env=env, check=False)
        self.assertEqual(len(warn.stdout.splitlines()), 2, warn.stdout + warn.stderr)
        # The nearest asyncfix configuration applies, as for the command; a broken one is AF000.
        project = os.path.join(self.work, "project")
        os.makedirs(project)
        with open(os.path.join(project, "pyproject.toml"), "w", encoding="utf-8") as f:
            f.write('[tool.asyncfix]\nignore = ["AF001"]\n')
        shutil.copy(legacy, project)
        result = run(sys.executable, "-m", "flake8", "--select", "AF", "project/legacy.py", cwd=self.work, env=env,
                     check=False)
        self.assertEqual([line.split(" ")[1] for line in result.stdout.splitlines()], ["AF101"], result.stdout)
        with open(os.path.join(project, "pyproject.toml"), "w", encoding="utf-8") as f:
            f.write('[tool.asyncfix]\nselct = ["AF001"]\n')
        result = run(sys.executable, "-m", "flake8", "--select", "AF", "project/legacy.py", cwd=self.work, env=env,
                     check=False)
        self.assertIn("project/legacy.py:1:1: AF000 asyncfix configuration error: ", result.stdout)
        self.assertIn("unknown key `selct`", result.stdout)
        # A syntax error asyncfix does not explain is still E999; a clean file passes.
        broken = os.path.join(self.work, "broken.py")
        with open(broken, "w", encoding="utf-8") as f:
            f.write("def f(:\n    pass\n")
        result = run(sys.executable, "-m", "flake8", "--select", "E999,AF", "broken.py", cwd=self.work, env=env,
                     check=False)
        self.assertIn("broken.py:1:8: E999 SyntaxError", result.stdout)
        with open(os.path.join(self.work, "clean.py"), "w", encoding="utf-8") as f:
            f.write("x = 1\n")
        self.assertEqual(run(sys.executable, "-m", "flake8", "--select", "AF,E999", "clean.py", cwd=self.work,
                             env=env).stdout, "")


class Abi(unittest.TestCase):
    def test_exported_symbols_match_the_committed_list(self):
        listed = run("nm", "-D", "--defined-only", "--format=posix", SHARED_LIB).stdout
        exported = sorted({line.split()[0] for line in listed.splitlines() if line.strip()})
        path = os.path.join(SOURCE, "lib", "abi", "asyncfix.symbols")
        if os.environ.get("ASYNCFIX_UPDATE_ABI") == "1":
            with open(path, "w", encoding="utf-8") as f:
                f.write("# Symbols exported by libasyncfix.so (nm -D --defined-only), one per line, sorted.\n"
                        "# A change here is an ABI change: regenerate with ASYNCFIX_UPDATE_ABI=1 ctest -R abi,\n"
                        "# and bump ASYNCFIX_ABI_VERSION when a symbol disappears or changes meaning, or a type its layout.\n")
                f.writelines(s + "\n" for s in exported)
            return
        with open(path, encoding="utf-8") as f:
            committed = sorted(line.strip() for line in f if line.strip() and not line.startswith("#"))
        added = sorted(set(exported) - set(committed))
        removed = sorted(set(committed) - set(exported))
        self.assertEqual((added, removed), ([], []),
                         "exported symbols changed (ASYNCFIX_UPDATE_ABI=1 regenerates lib/abi/asyncfix.symbols)")
        self.assertTrue(all(s.startswith(("asyncfix_", "_ZN8asyncfix", "_ZNK8asyncfix", "_ZTIN8asyncfix",
                                          "_ZTSN8asyncfix", "_ZTVN8asyncfix", "_ZN8asyncfix"))
                            or s in ("_init", "_fini") for s in exported),
                        [s for s in exported if "asyncfix" not in s])
        # A class's private Impl is not API: exporting it would make every internal refactor an
        # ABI change (the list would move with code no consumer can reach).
        self.assertEqual([s for s in exported if "4Impl" in s], [])


class SharedVariant(unittest.TestCase):
    """A build with BUILD_SHARED_LIBS=ON (the library alone, in <build>/shared-variant): there
    asyncfix::asyncfix is the shared library, with the same exported symbols."""

    def test_build_shared_libs_makes_asyncfix_the_shared_library(self):
        build = os.path.join(BUILD, "shared-variant")
        run(CMAKE, "-S", SOURCE, "-B", build, "-G", "Ninja", "-DBUILD_SHARED_LIBS=ON",
            "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DASYNCFIX_BUILD_TESTS=OFF", "-DASYNCFIX_BUILD_CLI=OFF",
            "-DASYNCFIX_BUILD_PYTHON=OFF")
        run(CMAKE, "--build", build, "--target", "asyncfix", "asyncfix_static", "-j", "2")
        shared = os.path.join(build, "lib", SONAME)
        self.assertIn(f"Library soname: [{SONAME}]", run("readelf", "-d", shared).stdout)
        listed = run("nm", "-D", "--defined-only", "--format=posix", shared).stdout
        with open(os.path.join(SOURCE, "lib", "abi", "asyncfix.symbols"), encoding="utf-8") as f:
            committed = sorted(line.strip() for line in f if line.strip() and not line.startswith("#"))
        self.assertEqual(sorted({line.split()[0] for line in listed.splitlines() if line.strip()}), committed)

        root = tempfile.mkdtemp(prefix="asyncfix-shared-")
        try:
            for component in ("lib", "dev"):
                run(CMAKE, "--install", build, "--prefix", os.path.join(root, "prefix"), "--component", component)
            consumer = os.path.join(root, "consumer")
            run(CMAKE, "-S", os.path.join(HERE, "consumer_cpp"), "-B", consumer, "-G", "Ninja",
                f"-DCMAKE_PREFIX_PATH={os.path.join(root, 'prefix')}")
            run(CMAKE, "--build", consumer, "-j", "2")
            self.assertIn(SONAME, run("readelf", "-d", os.path.join(consumer, "consumer_default")).stdout)
            self.assertNotIn("libasyncfix", run("readelf", "-d", os.path.join(consumer, "consumer_static")).stdout)
            for program in ("consumer_default", "consumer_static", "consumer_shared"):
                result = run(os.path.join(consumer, program), "x.cuda(async=True)\n", check=False)
                self.assertEqual(result.returncode, 1, result.stderr)
                self.assertTrue(result.stdout.endswith("x.cuda(non_blocking=True)\n"), result.stdout)
        finally:
            shutil.rmtree(root, ignore_errors=True)


class DebianPackage(unittest.TestCase):
    def test_cpack_deb_installs_and_runs(self):
        out = os.path.join(BUILD, "packages")
        for old in glob.glob(os.path.join(out, "*.deb")):
            os.remove(old)
        run(CPACK, "-G", "DEB", "-B", out, cwd=BUILD)
        debs = glob.glob(os.path.join(out, "asyncfix_*.deb"))
        self.assertEqual(len(debs), 1, debs)
        deb = debs[0]
        fields = {name: run("dpkg-deb", "-f", deb, name).stdout.strip() for name in ("Package", "Version", "Depends")}
        self.assertEqual(fields["Package"], "asyncfix")
        self.assertEqual(fields["Version"], VERSION)
        self.assertIn("libc6", fields["Depends"])
        for gone in ("libgit2", "libsimdjson", "libtomlplusplus"):  # not linked (issue 14)
            self.assertNotIn(gone, fields["Depends"])
        contents = run("dpkg-deb", "-c", deb).stdout
        for path in ("./usr/bin/asyncfix", "./usr/bin/asyncfix-lsp", "./usr/include/asyncfix.h",
                     "/" + SONAME, "/pkgconfig/asyncfix.pc", "/cmake/asyncfix/asyncfixConfig.cmake",
                     "./usr/share/man/man1/asyncfix.1", "./usr/share/doc/asyncfix/rules/AF101.md"):
            self.assertIn(path, contents)
        # Its dependencies are satisfiable here (dpkg checks them without changing the system)…
        if os.geteuid() == 0:
            run("dpkg", "--simulate", "-i", deb)
        # …and dpkg installs it cleanly into a root of our own, where its commands run.
        root = tempfile.mkdtemp(prefix="asyncfix-dpkg-")
        try:
            admin = os.path.join(root, "var", "lib", "dpkg")
            os.makedirs(os.path.join(admin, "updates"))
            os.makedirs(os.path.join(admin, "info"))
            open(os.path.join(admin, "status"), "w").close()
            run("dpkg", "--force-not-root", "--force-depends", "--force-script-chrootless", f"--root={root}",
                f"--admindir={admin}", "--log=/dev/null", "--no-triggers", "-i", deb)
            status = run("dpkg-query", f"--admindir={admin}", "-W", "-f=${Status}", "asyncfix").stdout
            self.assertEqual(status, "install ok installed")
            self.assertEqual(run(os.path.join(root, "usr", "bin", "asyncfix"), "--version").stdout.strip(),
                             f"asyncfix {VERSION}")
            fixed = run(os.path.join(root, "usr", "bin", "asyncfix"), "check", "--isolated", "--fix",
                        "--stdin-filename", "x.py", "-", input="x.cuda(async=True)\n", check=False)
            self.assertEqual(fixed.stdout, "x.cuda(non_blocking=True)\n")
            if PYTHON_BUILT:
                env = dict(os.environ, PYTHONPATH=os.path.join(root, "usr", "lib", "python3", "dist-packages"))
                self.assertEqual(run(sys.executable, "-c", "import asyncfix; print(asyncfix.fix('x.cuda(async=True)'))",
                                     env=env).stdout, "x.cuda(non_blocking=True)\n")
        finally:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
