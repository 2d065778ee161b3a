"""The Python package over the C API (python/asyncfix/_capi.py, ctypes) as the build assembled
it in <build>/python: the API's answers and errors, threads sharing one linter, the flake8
plugin's project linters, check_paths against the command (ASYNCFIX_BIN) on the same project, and what `import asyncfix` says when its library is missing, corrupt
or not the one it was built with. (ctest label `package`; every Python the machine has: dist.pythons)

Each case runs in a child interpreter (the one CMake chose), with nothing but the package on
PYTHONPATH; the broken-library cases work on a copy of the package.
"""

import glob
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import unittest

LIBRARY = os.environ.get("ASYNCFIX_PYTHON_MODULE", "")  # <build>/python/asyncfix/libasyncfix.so.<ABI>
PACKAGE = os.path.dirname(LIBRARY)
VERSION = os.environ.get("ASYNCFIX_VERSION", "")
LEGACY = "import torch\n\ndef load(batch, async=False):\n    return batch.cuda(async=True)\n"
COMMAND = os.environ.get("ASYNCFIX_BIN", "")  # the `asyncfix` command of the same build


def python(code, path, check=True, cwd=None):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1",
           "LANG": "C.UTF-8"}
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                            env=env, cwd=cwd or tempfile.gettempdir(), timeout=120)
    if check and result.returncode != 0:
        raise AssertionError("exit %d\n%s%s" % (result.returncode, result.stdout, result.stderr))
    return result


@unittest.skipUnless(LIBRARY, "ASYNCFIX_PYTHON_MODULE is not set (the package is not built)")
class Api(unittest.TestCase):
    def run_json(self, code):
        return json.loads(python(code, os.path.dirname(PACKAGE)).stdout)

    def test_check_fix_rules_and_version(self):
        out = self.run_json("""
            import asyncfix, doctest, json, sys
            src = %r
            print(json.dumps({
                "doctest": doctest.testmod(asyncfix).failed,
                "version": asyncfix.__version__,
                "check": [(d["code"], d["filename"], d["location"]) for d in asyncfix.check(src, path="legacy.py")],
                "bytes": len(asyncfix.check(src.encode(), path=b"legacy.py")),
                "select": [d["code"] for d in asyncfix.check(src, select="AF1")],
                "warning": [d["severity"] for d in asyncfix.check(src, target_version="py36")],
                "fix": asyncfix.fix(src),
                "unsafe": asyncfix.fix(src, unsafe=True, rename_style="is_async"),
                "unsafe_option": asyncfix.Linter(unsafe_fixes=True).fix(src),
                "per_file": [len(asyncfix.Linter(per_file_ignores={"tests/*.py": ["AF"]}).check(src, p))
                             for p in ("tests/t.py", "lib/t.py")],
                "unicode": asyncfix.fix("s = 'é'; x.cuda(async=True)\\n"),
                "rules": [sorted(r) for r in asyncfix.rules()][:1] + [r["code"] for r in asyncfix.rules()],
            }))
        """ % LEGACY)
        self.assertEqual(out["doctest"], 0)
        self.assertEqual(out["version"], VERSION)
        self.assertEqual(out["check"], [["AF001", "legacy.py", {"row": 3, "column": 17}],
                                        ["AF101", "legacy.py", {"row": 4, "column": 23}]])
        self.assertEqual(out["bytes"], 2)
        self.assertEqual(out["select"], ["AF101"])
        self.assertEqual(out["warning"], ["warning", "warning"])
        fixed = LEGACY.replace("async=True", "non_blocking=True")
        self.assertEqual(out["fix"], fixed)
        self.assertEqual(out["unsafe"], fixed.replace("async=", "is_async="))
        self.assertIn("async_=False", out["unsafe_option"])
        self.assertEqual(out["per_file"], [0, 2])
        self.assertEqual(out["unicode"], "s = 'é'; x.cuda(non_blocking=True)\n")
        self.assertEqual(out["rules"][0], ["code", "doc", "name", "summary", "url"])
        self.assertEqual(out["rules"][1:], sorted(out["rules"][1:]))
        self.assertIn("AF101", out["rules"])

    def test_errors_are_value_errors_with_the_engines_message(self):
        out = self.run_json("""
            import asyncfix, json
            found = {}
            for name, call in [("option", lambda: asyncfix.check("x", select=["AF999"])),
                               ("key", lambda: asyncfix.check("x", selct=["AF1"])),
                               ("utf8", lambda: asyncfix.check(b"\\xff\\n", path="x.py")),
                               ("nul", lambda: asyncfix.fix("a\\0b", path="x.py")),
                               ("notebook", lambda: asyncfix.check("{", path="n.ipynb")),
                               ("type", lambda: asyncfix.check(5))]:
                try:
                    call()
                    found[name] = None
                except Exception as e:
                    found[name] = [type(e).__name__, isinstance(e, asyncfix.Error), str(e)]
            print(json.dumps(found))
        """)
        self.assertEqual(out["option"], ["ValueError", True, "options: unknown rule code `AF999` in `select`"])
        self.assertEqual(out["key"], ["ValueError", True, "options: unknown key `selct`"])
        self.assertEqual(out["utf8"], ["ValueError", True,
                                       "x.py: not valid UTF-8 (byte 0xFF at byte offset 0, line 1), skipped"])
        self.assertEqual(out["nul"][:2], ["ValueError", True])
        self.assertTrue(out["nul"][2].startswith("x.py: binary file"), out["nul"])
        self.assertTrue(out["notebook"][2].startswith("n.ipynb: invalid notebook JSON"), out["notebook"])
        self.assertEqual(out["type"], ["TypeError", False, "src must be str or bytes, not int"])

    def test_threads_share_one_linter(self):
        # ctypes lets go of the GIL during each call; every thread must get its own answers and,
        # on failure, its own error message (the library keeps one per thread).
        out = self.run_json("""
            import asyncfix, json, threading
            linter = asyncfix.Linter()
            results = {}
            def work(i):
                src = "x%d.cuda(async=True)\\n" % i
                mine = []
                for _ in range(50):
                    mine.append(linter.fix(src) == "x%d.cuda(non_blocking=True)\\n" % i)
                    try:
                        linter.check(b"\\xff" * (i + 1), path="t%d.py" % i)
                    except ValueError as e:
                        mine.append(str(e).startswith("t%d.py: " % i))
                results[i] = all(mine)
            threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
            for t in threads: t.start()
            for t in threads: t.join()
            print(json.dumps(results))
        """)
        self.assertEqual(out, {str(i): True for i in range(8)})

    def test_project_linters_follow_configuration_files(self):
        work = tempfile.mkdtemp(prefix="asyncfix-module-")
        try:
            os.makedirs(os.path.join(work, "broken"))
            with open(os.path.join(work, "asyncfix.toml"), "w") as f:
                f.write('ignore = ["AF001"]\n')
            with open(os.path.join(work, "broken", "pyproject.toml"), "w") as f:
                f.write('[tool.asyncfix]\nselct = ["AF1"]\n')
            out = self.run_json("""
                import json
                from asyncfix import _capi
                project = _capi.ProjectLinters("py36")
                found = {"top": [(d["code"], d["severity"]) for d in json.loads(project.check_json(%r, %r))]}
                try:
                    project.check_json("x = 1\\n", %r)
                except _capi.ConfigError as e:
                    found["broken"] = [isinstance(e, ValueError), str(e)]
                for args in (("py99",), (None, "1bad")):
                    try:
                        _capi.ProjectLinters(*args)
                    except ValueError as e:
                        found.setdefault("overrides", []).append(str(e))
                print(json.dumps(found))
            """ % (LEGACY, os.path.join(work, "a.py"), os.path.join(work, "broken", "a.py")))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        self.assertEqual(out["top"], [["AF101", "warning"]])
        self.assertEqual(out["broken"], [True, os.path.join(work, "broken", "pyproject.toml") +
                                         ":2:1: unknown key `selct`"])
        self.assertEqual(out["overrides"], [
            "target version must be one of py35 … py314, not `py99`",
            "rename style must be `async_`, `is_async` or a template such as `{name}_flag`, not `1bad`"])


def notebook(source):
    return json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                                  "source": source}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


# A project with what makes a run more than its files one by one: a parameter named `async`
# renamed across files, a module named `async` with importers (relative, absolute, attribute use),
# a configuration file per directory, an excluded directory, a notebook, a file of another kind.
PROJECT = {
    "asyncfix.toml": 'extend-exclude = ["build"]\n',
    "pkg/__init__.py": "",
    "pkg/async.py": "def helper():\n    return 1\n",
    "pkg/kfac.py": ("from .async import helper\n"
                    "import pkg.async\n"
                    "\n"
                    "\n"
                    "class Kfac(object):\n"
                    "    def __init__(self, lr, async=False):\n"
                    "        self.lr = lr\n"
                    "        self.sync = not async\n"
                    "\n"
                    "    def step(self):\n"
                    "        return pkg.async.helper() + helper()\n"),
    "train.py": "from pkg.kfac import Kfac\n\nopt = Kfac(0.1, async=True)\nbatch.cuda(async=True)\n",
    "legacy/asyncfix.toml": 'ignore = ["AF001"]\n',
    "legacy/old.py": LEGACY,
    "build/generated.py": LEGACY,
    "explore.ipynb": notebook("import torch\nx = torch.zeros(3).cuda(async=True)\n"),
    "notes.txt": LEGACY,
}


def tree(root):
    """{relative path: bytes} of every file under root."""
    out = {}
    for base, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(base, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = f.read()
    return out


@unittest.skipUnless(LIBRARY and COMMAND, "ASYNCFIX_PYTHON_MODULE or ASYNCFIX_BIN is not set")
class CheckPaths(unittest.TestCase):
    """asyncfix.check_paths is the command's run: on the same project it reports what
    `asyncfix check --output-format json` prints and, with fix=True, leaves the tree byte for byte
    as `asyncfix check --fix` does."""

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="asyncfix-paths-")

    def tearDown(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def project(self, name):
        root = os.path.join(self.work, name)
        for path, text in PROJECT.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        return root

    # Both sides link the rule pages under one address: the command's default is the manual beside
    # it (the build tree's docs/), the Python library's is the installed one.
    DOCS = "https://docs.example.org/asyncfix/"

    def command(self, root, *args):
        result = subprocess.run([COMMAND, "check", "--output-format", "json", "--docs-url", self.DOCS, *args], cwd=root,
                                capture_output=True, text=True, timeout=120)
        self.assertNotIn("error:", result.stderr)
        return json.loads(result.stdout)

    def api(self, root, arguments):
        """check_paths(`arguments`, docs_url=DOCS) run in a child with `root` as its directory."""
        code = "import asyncfix, json; print(json.dumps(asyncfix.check_paths(%s, docs_url=%r)))" % (arguments, self.DOCS)
        return json.loads(python(code, os.path.dirname(PACKAGE), cwd=root).stdout)

    def test_check_reports_what_the_command_prints(self):
        root = self.project("check")
        before = tree(root)
        for args, arguments in (((), '"."'),
                                ((), "[]"),
                                (("pkg", "train.py"), '["pkg", "train.py"]'),
                                (("--select", "AF2", "."), '".", select="AF2"'),
                                (("--ignore", "AF001,AF203", "--target-version", "py36", "."),
                                 '".", ignore=["AF001", "AF203"], target_version="py36"'),
                                (("--isolated", "--unsafe-fixes", "."), '".", isolated=True, unsafe_fixes=True, jobs=1'),
                                (("--config", "legacy/asyncfix.toml", "."), '".", config="legacy/asyncfix.toml"')):
            with self.subTest(args=args):
                expected = self.command(root, *args)
                self.assertEqual(self.api(root, arguments), expected)
        everything = self.command(root)
        files = sorted({d["filename"] for d in everything})
        self.assertEqual(files, ["explore.ipynb", "legacy/old.py", "pkg/async.py", "pkg/kfac.py", "train.py"])
        self.assertEqual({d["code"] for d in everything if d["filename"] == "legacy/old.py"}, {"AF101"})
        self.assertIn("AF203", {d["code"] for d in everything if d["filename"] == "train.py"})  # across files
        self.assertEqual(tree(root), before)  # a check writes nothing

    def test_fix_leaves_the_tree_as_the_command_does(self):
        for flags, options in (((), ""), (("--unsafe-fixes",), ", unsafe_fixes=True")):
            with self.subTest(flags=flags):
                by_command, by_api = self.project("command%d" % len(flags)), self.project("api%d" % len(flags))
                expected = self.command(by_command, "--fix", *flags)
                self.assertEqual(self.api(by_api, '".", fix=True' + options), expected)
                self.assertEqual(tree(by_api), tree(by_command))
                self.assertNotEqual(tree(by_api), tree(self.project("untouched")))
        # The unsafe fixes renamed the module with its importers and the parameter at its call.
        fixed = tree(by_api)
        self.assertNotIn("pkg/async.py", fixed)
        self.assertIn(b"from .asynchronous import helper", fixed["pkg/kfac.py"])
        self.assertIn(b"Kfac(0.1, async_=True)", fixed["train.py"])
        self.assertEqual(fixed["build/generated.py"], LEGACY.encode())  # excluded

    def test_problems_raise_after_the_run(self):
        root = self.project("problems")
        with open(os.path.join(root, "bad.py"), "wb") as f:
            f.write(b'x = "\xff"\n')
        out = json.loads(python("""
            import asyncfix, json, pathlib
            found = {"pathlike": asyncfix.check_paths(pathlib.Path("train.py")) == asyncfix.check_paths(["train.py"])}
            for fix in (False, True):
                try:
                    asyncfix.check_paths(["missing.py", "bad.py", "train.py"], fix=fix)
                except asyncfix.RunError as e:
                    found["fix" if fix else "run"] = [isinstance(e, asyncfix.Error), str(e), e.messages,
                                                      sorted({d["code"] for d in e.diagnostics})]
            for options in ({"selct": "AF1"}, {"select": "AF999"}, {"jobs": -1}, {"severity": {}}):
                try:
                    asyncfix.check_paths(".", **options)
                except ValueError as e:
                    found.setdefault("options", []).append(str(e))
            print(json.dumps(found))
        """, os.path.dirname(PACKAGE), cwd=root).stdout)
        self.assertEqual(out["pathlike"], True)
        self.assertEqual(out["run"][0], True)
        self.assertTrue(out["run"][1].startswith("missing.py: ") and out["run"][1].endswith(" (and 1 more)"),
                        out["run"][1])
        self.assertTrue(out["run"][2][1].startswith("bad.py: not valid UTF-8"), out["run"][2])
        self.assertEqual(out["run"][3], ["AF001", "AF101"])  # the run went on without them
        self.assertEqual(out["fix"][:3], out["run"][:3])
        self.assertEqual(out["fix"][3], [])  # train.py was fixed
        with open(os.path.join(root, "train.py"), encoding="utf-8") as f:
            self.assertIn("non_blocking=True", f.read())
        self.assertEqual(out["options"], [
            "options: unknown key `selct`",
            "options: unknown rule selector `AF999` in `select` (use a code such as AF101, a prefix such as AF1, or ALL)",
            "options: `jobs` must be 0 … 1024",
            "options: unknown key `severity`"])


@unittest.skipUnless(LIBRARY, "ASYNCFIX_PYTHON_MODULE is not set (the package is not built)")
class BrokenLibrary(unittest.TestCase):
    """A copy of the package whose library is damaged: `import asyncfix` names the file."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="asyncfix-broken-")
        self.package = os.path.join(self.dir, "asyncfix")
        shutil.copytree(PACKAGE, self.package, ignore=shutil.ignore_patterns("__pycache__"))
        self.library = os.path.join(self.package, os.path.basename(LIBRARY))

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def import_error(self):
        result = python("import asyncfix", self.dir, check=False)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        last = result.stderr.strip().splitlines()[-1]
        self.assertTrue(last.startswith("ImportError: asyncfix cannot be loaded: asyncfix's library %s "
                                        % self.library), result.stderr)
        return last

    def test_the_copy_works_before_it_is_damaged(self):
        self.assertEqual(python("import asyncfix; print(asyncfix.__version__)", self.dir).stdout, VERSION + "\n")

    def test_missing(self):
        os.remove(self.library)
        self.assertIn("is missing; reinstall asyncfix (pip install --force-reinstall", self.import_error())

    def test_not_a_library(self):
        with open(self.library, "wb") as f:
            f.write(b"not an ELF file at all\n")
        self.assertIn("cannot be loaded (", self.import_error())

    def test_cut_off(self):
        # dlopen maps segments past the end of a cut-off file, and the process dies of SIGBUS on
        # touching them: the package must see it first.
        for keep in (1 << 20, 4096):  # its code alone is larger than 1 MiB
            with open(self.library, "r+b") as f:
                f.truncate(keep)
            self.assertRegex(self.import_error(), r"is cut off \(%d of the \d+ bytes its segments need\)" % keep)
        with open(self.library, "r+b") as f:
            f.truncate(20)  # not even a whole ELF header: dlopen refuses it by itself
        self.assertIn("cannot be loaded (", self.import_error())

    def test_another_library_in_its_place(self):
        # A real shared library, but not asyncfix's: one of the interpreter's own extension modules.
        dynload = os.path.join(sysconfig.get_path("platstdlib"), "lib-dynload")
        modules = sorted(glob.glob(os.path.join(dynload, "*.so")))
        self.assertTrue(modules, dynload)
        shutil.copy(modules[0], self.library)
        self.assertIn("has no function asyncfix_version: it is not the library this package was built with",
                      self.import_error())

    def test_another_abi(self):
        capi = os.path.join(self.package, "_capi.py")
        with open(capi, encoding="utf-8") as f:
            text = f.read()
        abi = int(text.split("\nABI = ", 1)[1].split("\n", 1)[0])
        with open(capi, "w", encoding="utf-8") as f:
            f.write(text.replace("\nABI = %d\n" % abi, "\nABI = %d\n" % (abi + 1)))
        with open(os.path.join(self.package, os.path.basename(LIBRARY)[:-len(str(abi))] + str(abi + 1)), "wb") as f:
            with open(self.library, "rb") as original:
                f.write(original.read())
        self.library = self.library[:-len(str(abi))] + str(abi + 1)
        self.assertIn("has ABI version %d, this package expects %d" % (abi, abi + 1), self.import_error())


if __name__ == "__main__":
    unittest.main()
