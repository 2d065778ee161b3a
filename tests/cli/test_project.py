"""The project view of `asyncfix check` (issue 15): modules and packages of the project named
`async`/`await` are renamed, file or directory, with every import of them in the run's files;
parameters so named of public functions are renamed with `async=` at their calls in other files;
module-level names and attributes so named with their uses in other files.

    ASYNCFIX_BIN=build/ci/cli/asyncfix python3 -m unittest -v test_project
"""

import json
import os
import shutil
import subprocess
import sys
import unittest

from test_cli import AsNobodyTestCase, CliTestCase, compiles, notebook_text, read, run, write


def tree(root):
    """{relative path: bytes} of every file under root (no .git, no __pycache__)."""
    out = {}
    for base, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", "__pycache__")]
        for name in files:
            path = os.path.join(base, name)
            out[os.path.relpath(path, root)] = read(path)
    return out


def imports(root, module):
    """True when `python3 -c "import MODULE"` succeeds with root as the working directory."""
    proc = subprocess.run([sys.executable, "-c", "import " + module], cwd=root, capture_output=True,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    return proc.returncode == 0


# The issue's example package.
EXAMPLE = {
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
    "train.py": "from pkg.kfac import Kfac\n\nopt = Kfac(0.1, async=True)\n",
}


PACKAGE = {"pkg/__init__.py": "", "pkg/async.py": "x = 1\n", "plain.py": "import pkg.async\n"}


def one_cell_notebook(source):
    return notebook_text({"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                                      "source": source}],
                          "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


class ModuleRenameSafetyTest(CliTestCase):
    """A rename is safe only when no place of the run would go on naming the module: a file the
    fix leaves naming it makes the rename and every fix of its imports unsafe, and the titles say
    where (issue 15, review finding M2). Each case: `--fix` renames nothing and edits nothing;
    `--fix --unsafe-fixes` renames, and the place is left as it was."""

    def make(self, files):
        for path, text in files.items():
            write(self.path(path), text)

    def assert_left_behind(self, files, place, kept):
        self.make(dict(PACKAGE, **files))
        before = {path: read(self.path(path)) for path in files}
        res = self.check("--fix", ".")
        self.assertIn(res.code, (1, 2), res)  # 2: a file is an error (its configuration, its bytes)
        self.assertIn("Rename `pkg/async.py` to `pkg/asynchronous.py` and update its imports (" + place, res.stdout)
        self.assertIn("Replace `pkg.async` with `pkg.asynchronous` (" + place, res.stdout)
        self.assertTrue(os.path.exists(self.path("pkg/async.py")))
        self.assertFalse(os.path.exists(self.path("pkg/asynchronous.py")))
        self.assertEqual(read(self.path("plain.py")), b"import pkg.async\n")
        for path, data in before.items():
            self.assertEqual(read(self.path(path)), data, path)
        res = self.check("--fix", "--unsafe-fixes", ".")
        self.assertTrue(os.path.exists(self.path("pkg/asynchronous.py")), res)
        self.assertEqual(read(self.path("plain.py")), b"import pkg.asynchronous\n")
        self.assertEqual(read(self.path(kept)), before[kept])

    def test_an_import_under_a_noqa_that_names_the_code(self):
        self.assert_left_behind({"a.py": "from pkg.async import x  # noqa: AF201\n"},
                                "`a.py:1` would still import it)", "a.py")

    def test_a_skipped_file(self):
        self.assert_left_behind({"a.py": "# asyncfix: skip-file\nfrom pkg.async import x\n"},
                                "`a.py:2` would still import it)", "a.py")

    def test_a_file_whose_configuration_turns_af201_off(self):
        self.assert_left_behind({"pyproject.toml": "[tool.asyncfix.per-file-ignores]\n\"a.py\" = [\"AF201\"]\n",
                                 "a.py": "import os\nimport pkg.async\n"},
                                "`a.py:2` would still import it)", "a.py")

    def test_a_file_under_a_broken_configuration(self):
        self.assert_left_behind({"sub/asyncfix.toml": "select = [\n", "sub/a.py": "import pkg.async\n"},
                                "the configuration of `sub/a.py` cannot be read)", "sub/a.py")

    def test_a_string_that_names_the_module(self):
        self.assert_left_behind({"a.py": "import importlib\nm = importlib.import_module('pkg.async')\n"},
                                "`a.py:2` names it in a string)", "a.py")

    def test_a_relative_string_that_names_the_module(self):
        self.assert_left_behind({"pkg/load.py": "import importlib\nm = importlib.import_module('.async', 'pkg')\n"},
                                "`pkg/load.py:2` names it in a string)", "pkg/load.py")

    def test_the_package_lists_it_in_all(self):
        # `from pkg import *` would look for `pkg.async`, which is gone.
        self.assert_left_behind({"pkg/__init__.py": "__all__ = ['async', 'sync']\n", "star.py": "from pkg import *\n"},
                                "`pkg/__init__.py:1` names it in a string)", "pkg/__init__.py")

    def test_a_notebook_that_imports_it_under_a_noqa(self):
        self.assert_left_behind({"nb.ipynb": one_cell_notebook("from pkg.async import x  # noqa: AF201\n")},
                                "`nb.ipynb` would still import it)", "nb.ipynb")

    def test_a_file_that_does_not_decode(self):
        self.assert_left_behind({"a.py": b"# -*- coding: ascii -*-\nimport pkg.async  # caf\xe9\n"},
                                "`a.py` cannot be read: not valid in its declared encoding `ascii` (byte 0xE9 at byte offset 47, "
                                "line 2))", "a.py")

    def test_a_child_module_left_behind_keeps_its_parent_package(self):
        # `pkg.async.await` stays (its import is suppressed), so `pkg.async` is still named by
        # that import: renaming the package would break it too.
        self.make({"pkg/__init__.py": "", "pkg/async/__init__.py": "", "pkg/async/await.py": "x = 1\n",
                   "a.py": "import pkg.async.await  # noqa: AF201\n", "b.py": "import pkg.async\n"})
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 1, res)
        self.assertIn("Rename `pkg/async` to `pkg/asynchronous` and update its imports (`a.py:1` would still "
                      "import it)", res.stdout)
        self.assertTrue(os.path.exists(self.path("pkg/async/await.py")))
        self.assertEqual(read(self.path("b.py")), b"import pkg.async\n")

    def test_a_package_left_behind_keeps_the_modules_inside_it(self):
        # `pkg.async` stays (a skipped file imports it), so `pkg.async.await` cannot move to
        # `pkg.asynchronous.awaitable`: `main.py` would import a package that is not there.
        self.make({"pkg/__init__.py": "", "pkg/async/__init__.py": "", "pkg/async/await.py": "def h():\n    return 1\n",
                   "main.py": "from pkg.async import await\n", "k.py": "# asyncfix: skip-file\nimport pkg.async\n"})
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 1, res)
        self.assertIn("Rename `pkg/async/await.py` to `pkg/async/awaitable.py` and update its imports (the package "
                      "`pkg.async` it lies in would keep its name)", res.stdout)
        self.assertTrue(os.path.exists(self.path("pkg/async/await.py")))
        self.assertEqual(read(self.path("main.py")), b"from pkg.async import await\n")
        res = self.check("--fix", "--unsafe-fixes", ".")
        self.assertTrue(os.path.exists(self.path("pkg/asynchronous/awaitable.py")), res)
        self.assertTrue(imports(self.dir, "main"))

    def test_a_package_that_cannot_be_renamed_keeps_the_modules_inside_it(self):
        # The new name is taken by a module file: `pkg/asynchronous/` would hide it.
        self.make({"pkg/__init__.py": "", "pkg/async/__init__.py": "", "pkg/async/await.py": "def h():\n    return 1\n",
                   "pkg/asynchronous.py": "x = 1\n", "main.py": "from pkg.async import await\n"})
        res = self.check("--fix", "--unsafe-fixes", ".")
        self.assertEqual(res.code, 2, res)
        self.assertIn("error: pkg/async: cannot rename `pkg/async` to `pkg/asynchronous`: `pkg/asynchronous.py` "
                      "exists; not renamed", res.stderr)
        self.assertIn("cannot rename `pkg/async/await.py` to `pkg/async/awaitable.py`: the package `pkg.async` it "
                      "lies in cannot be renamed", res.stderr)
        self.assertTrue(os.path.exists(self.path("pkg/async/await.py")))
        self.assertEqual(read(self.path("pkg/asynchronous.py")), b"x = 1\n")
        self.assertEqual(read(self.path("main.py")), b"from pkg.async import await\n")

    def test_a_run_over_some_files_only_may_miss_importers(self):
        # What a pre-commit hook passes: the changed files. `plain.py` is not among them.
        self.make(PACKAGE)
        res = self.check("--fix", "pkg/async.py")
        self.assertEqual(res.code, 1, res)
        self.assertIn("Rename `pkg/async.py` to `pkg/asynchronous.py` and update its imports (the run does not walk "
                      "`.`, whose other files may import it)", res.stdout)
        self.assertTrue(os.path.exists(self.path("pkg/async.py")))
        res = self.check("--fix", "pkg")
        self.assertEqual(res.code, 1, res)
        self.assertTrue(os.path.exists(self.path("pkg/async.py")))
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(read(self.path("plain.py")), b"import pkg.asynchronous\n")

    def test_a_run_inside_the_package_or_over_a_shard_may_miss_importers(self):
        self.make(PACKAGE)
        res = run(["check", "--fix", "."], cwd=self.path("pkg"))
        self.assertEqual(res.code, 1, res)
        self.assertIn("(the run does not walk `..`, whose other files may import it)", res.stdout)
        self.assertTrue(os.path.exists(self.path("pkg/async.py")))
        res = self.check("--fix", "--shard", "1/2", ".")
        res2 = self.check("--fix", "--shard", "2/2", ".")
        self.assertTrue(os.path.exists(self.path("pkg/async.py")), (res, res2))
        self.assertEqual(read(self.path("plain.py")), b"import pkg.async\n")
        self.assertIn("(the run does not walk `.`, whose other files may import it)", res.stdout + res2.stdout)

    def test_a_src_layout_run_must_walk_the_project_root(self):
        # `tests/` lies beside `src`, under the configuration's directory: `check --fix src` misses it.
        self.make({"pyproject.toml": "[tool.asyncfix]\nsrc = [\"src\"]\n", "src/pkg/__init__.py": "",
                   "src/pkg/async.py": "x = 1\n", "tests/test_a.py": "from pkg.async import x\n"})
        res = self.check("--fix", "src")
        self.assertEqual(res.code, 1, res)
        self.assertIn("(the run does not walk `.`, whose other files may import it)", res.stdout)
        self.assertTrue(os.path.exists(self.path("src/pkg/async.py")))
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(read(self.path("tests/test_a.py")), b"from pkg.asynchronous import x\n")

    def test_a_place_is_charged_to_the_module_it_names(self):
        # Line 4 imports another `async` (no fix can tell what to make of it): it keeps `pkg.async`
        # from being safe, not `other.async`, which nothing else names.
        self.make(dict(PACKAGE, **{
            "other/__init__.py": "", "other/async.py": "y = 2\n", "uses_other.py": "import other.async\n",
            "uses_pkg.py": "try:\n    from pkg import async\nexcept ImportError:\n    from vendored import async\n",
        }))
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 1, res)
        self.assertTrue(os.path.exists(self.path("other/asynchronous.py")))
        self.assertEqual(read(self.path("uses_other.py")), b"import other.asynchronous\n")
        self.assertTrue(os.path.exists(self.path("pkg/async.py")))
        self.assertIn("`uses_pkg.py:4` would still import it", res.stdout)

    def test_a_file_that_does_not_decode_and_names_nothing_is_no_place(self):
        self.make(dict(PACKAGE, **{"bad.py": b"x = '\xff\xfe'\n"}))
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 2, res)  # bad.py is an error, as before
        self.assertTrue(os.path.exists(self.path("pkg/asynchronous.py")), res)

    def test_importers_that_are_fixed_keep_it_safe(self):
        # A notebook and a latin-1 file that import it are rewritten: nothing is left behind.
        self.make(dict(PACKAGE, **{
            "nb.ipynb": one_cell_notebook("from pkg.async import x\n"),
            "latin.py": "# -*- coding: latin-1 -*-\nimport pkg.async  # café\n".encode("latin-1"),
            "other.py": "import os  # noqa\nx = 'pkg.asyncio'\n",
        }))
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 0, res)
        self.assertTrue(os.path.exists(self.path("pkg/asynchronous.py")))
        self.assertIn("from pkg.asynchronous import x", read(self.path("nb.ipynb")).decode())
        self.assertEqual(read(self.path("latin.py")),
                         "# -*- coding: latin-1 -*-\nimport pkg.asynchronous  # café\n".encode("latin-1"))


class UnreadableImporterTest(AsNobodyTestCase):
    def test_a_file_that_cannot_be_read_may_import_it(self):
        for path, text in dict(PACKAGE, **{"secret.py": "import pkg.async\n"}).items():
            write(self.path(path), text)
        os.chmod(self.path("secret.py"), 0)
        res = self.run_fix()
        self.assertEqual(res.code, 2, res)
        self.assertIn("Rename `pkg/async.py` to `pkg/asynchronous.py` and update its imports (`secret.py` cannot "
                      "be read: permission denied)", res.stdout)
        self.assertTrue(os.path.exists(self.path("pkg/async.py")))
        self.assertEqual(read(self.path("plain.py")), b"import pkg.async\n")



class ProjectTest(CliTestCase):
    def make(self, files):
        for path, text in files.items():
            write(self.path(path), text)

    def test_issue_example_fixed_end_to_end(self):
        self.make(EXAMPLE)
        res = self.check("--output-format", "concise", ".")
        self.assertEqual(res.code, 1, res)
        self.assertIn("pkg/async.py:1:1: AF201 [*] The project's module `pkg.async` cannot be imported", res.stdout)
        self.assertIn("pkg/kfac.py:1:7: AF201 [*] `pkg.async` is a syntax error since Python 3.7; "
                      "rename the project's module to `pkg.asynchronous`", res.stdout)
        res = self.check("--fix", "--unsafe-fixes", ".")
        self.assertEqual(res.code, 0, res)
        self.assertFalse(os.path.exists(self.path("pkg/async.py")))
        self.assertEqual(read(self.path("pkg/asynchronous.py")), b"def helper():\n    return 1\n")
        kfac = read(self.path("pkg/kfac.py")).decode()
        self.assertIn("from .asynchronous import helper\nimport pkg.asynchronous\n", kfac)
        self.assertIn("return pkg.asynchronous.helper() + helper()", kfac)
        for path in tree(self.dir):
            self.assertTrue(compiles(self.path(path)), path)
        self.assertTrue(imports(self.dir, "pkg.kfac"))
        self.assertTrue(imports(self.dir, "train"))
        before = tree(self.dir)
        res = self.check("--fix", "--unsafe-fixes", ".")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(tree(self.dir), before)

    def test_a_module_af201_is_off_for_is_neither_reported_nor_renamed(self):
        # Before: `--ignore AF201` still reported the module, and `--fix --unsafe-fixes` renamed
        # it while its imports, not rewritten with the rule off, went on naming `pkg.async`.
        for how, args in (("--ignore", ("--ignore", "AF201")),
                          ("per-file-ignores", ()),
                          ("per-file-ignores of a package's __init__.py", ())):
            with self.subTest(how):
                shutil.rmtree(self.dir)
                os.makedirs(self.dir)
                files = dict(PACKAGE)
                if how == "per-file-ignores":
                    files["pyproject.toml"] = '[tool.asyncfix.per-file-ignores]\n"pkg/async.py" = ["AF201"]\n'
                elif how != "--ignore":
                    files = {"pkg/__init__.py": "", "pkg/async/__init__.py": "x = 1\n", "pkg/async/m.py": "",
                             "plain.py": "import pkg.async\n",
                             "pyproject.toml":
                                 '[tool.asyncfix.per-file-ignores]\n"pkg/async/__init__.py" = ["AF201"]\n'}
                self.make(files)
                before = tree(self.dir)
                res = self.check("--output-format", "concise", *args, ".")
                self.assertEqual(res.code, 1, res)  # plain.py's import is still reported
                self.assertNotIn("cannot be imported", res.stdout)
                self.assertNotIn("pkg/async", res.stdout + res.stderr)
                res = self.check("--fix", "--unsafe-fixes", *args, ".")
                self.assertEqual(res.code, 1, res)
                self.assertEqual(res.stderr.count("error"), 0, res)
                self.assertEqual(tree(self.dir), before)

    def test_a_module_whose_header_opts_out_is_neither_reported_nor_renamed(self):
        # Before: a module under `# asyncfix: skip-file` (or a file-level noqa of AF201) was
        # reported at its first line and renamed. Skip-file is an exclusion, as `exclude` is.
        for header, kept in (("# asyncfix: skip-file\n", True),
                             ("#!/usr/bin/env python\n\n# asyncfix: noqa\n", True),
                             ("# -*- coding: utf-8 -*-\r\n# asyncfix: noqa: AF201, AF001\r\n", True),
                             ("# asyncfix: noqa: AF001\n", False),
                             ("x = 1\n# asyncfix: skip-file\n", False)):
            with self.subTest(header):
                shutil.rmtree(self.dir)
                os.makedirs(self.dir)
                self.make(dict(PACKAGE, **{"pkg/async.py": header + "y = 2\n"}))
                before = tree(self.dir)
                res = self.check("--output-format", "concise", ".")
                self.assertEqual(res.code, 1, res)
                self.assertEqual("pkg/async.py:1:1: AF201" in res.stdout, not kept, res)
                res = self.check("--fix", "--unsafe-fixes", ".")
                self.assertEqual(res.code, 1 if kept else 0, res)
                self.assertNotIn("error", res.stderr)
                if kept:
                    self.assertEqual(tree(self.dir), before)
                else:
                    self.assertEqual(read(self.path("plain.py")), b"import pkg.asynchronous\n")

    def test_a_module_left_alone_stays_so_when_its_name_is_taken(self):
        # Before: a refused module was reported (and `--fix` failed) though AF201 was off for it.
        self.make(dict(PACKAGE, **{"pkg/asynchronous.py": "y = 1\n"}))
        before = tree(self.dir)
        res = self.check("--output-format", "concise", "--ignore", "AF201", ".")
        self.assertEqual(res.code, 1, res)
        self.assertNotIn("pkg/async", res.stdout + res.stderr)
        res = self.check("--fix", "--unsafe-fixes", "--ignore", "AF201", ".")
        self.assertEqual((res.code, res.stderr.count("error")), (1, 0), res)
        self.assertEqual(tree(self.dir), before)

    def test_the_twin_of_a_module_left_alone_is_refused_saying_why(self):
        # Opted out in one file and not in the other: neither is renamed, and the one whose AF201
        # is on says why. Before: the reason named a file that did not exist; and for a while the
        # opt-out of one file silenced the other (whichever came first).
        skip = "# asyncfix: skip-file\nx = 1\n"
        cases = {
            "a .pyi beside a skipped .py": (
                {"pkg/async.py": skip, "pkg/async.pyi": "x: int\n"}, "pkg/async.pyi",
                "the same module `pkg.async` at `pkg/async.py` cannot be renamed (`pkg/async.py` opts out of AF201 "
                "in its header)"),
            "a .py beside an opted-out .pyi": (
                {"pkg/async.pyi": "# asyncfix: noqa: AF201\nx: int\n"}, "pkg/async.py",
                "the same module `pkg.async` at `pkg/async.pyi` cannot be renamed (`pkg/async.pyi` opts out of AF201 "
                "in its header)"),
            "a module inside a skipped package": (
                {"pkg/async.py": None, "pkg/async/__init__.py": skip, "pkg/async/await.py": "y = 1\n"},
                "pkg/async/await.py",
                "the package `pkg.async` it lies in cannot be renamed (`pkg/async/__init__.py` opts out of AF201 in "
                "its header)"),
        }
        for case, (files, reported, why) in cases.items():
            with self.subTest(case):
                shutil.rmtree(self.dir)
                os.makedirs(self.dir)
                self.make({k: v for k, v in dict(PACKAGE, **files).items() if v is not None})
                before = tree(self.dir)
                res = self.check("--output-format", "concise", ".")
                self.assertEqual(res.code, 1, res)
                self.assertIn(reported + ":1:1: AF201 ", res.stdout)
                self.assertIn(why, res.stdout)
                self.assertEqual(res.stdout.count(":1:1: AF201"), 1, res)
                res = self.check("--fix", "--unsafe-fixes", ".")
                self.assertEqual(res.code, 2, res)
                self.assertIn("error: " + reported + ": ", res.stderr)
                self.assertEqual(tree(self.dir), before)

    def test_the_module_takes_the_severity_configured_for_af201(self):
        self.make(dict(PACKAGE, **{"pyproject.toml": '[tool.asyncfix.severity]\nAF201 = "warning"\n'}))
        res = self.check("--output-format", "json", ".")
        found = {(d["filename"], d["code"]): d["severity"] for d in json.loads(res.stdout)}
        self.assertEqual(found[("pkg/async.py", "AF201")], "warning")
        self.assertEqual(found[("plain.py", "AF201")], "warning")

    def test_every_import_form_is_rewritten(self):
        self.make({
            "pkg/__init__.py": "",
            "pkg/async.py": "x = 1\n\n\ndef f():\n    return 2\n",
            "pkg/plain.py": "import pkg.async\n\nvalue = pkg.async.x + pkg.async.f()\n",
            "pkg/aliased.py": "import pkg.async as a\n\nvalue = a.x\n",
            "pkg/from_module.py": "from pkg.async import x, f\n",
            "pkg/from_package.py": "from pkg import async\n\nvalue = async.x + async.f()\n",
            "pkg/relative_name.py": "from . import async\n\nvalue = async.x\n",
            "pkg/relative_module.py": "from .async import x as y\n",
            "main.py": "import pkg\nimport pkg.async\n\nprint(pkg.async.f())\n",
        })
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 0, res)
        expected = {
            "pkg/plain.py": "import pkg.asynchronous\n\nvalue = pkg.asynchronous.x + pkg.asynchronous.f()\n",
            "pkg/aliased.py": "import pkg.asynchronous as a\n\nvalue = a.x\n",
            "pkg/from_module.py": "from pkg.asynchronous import x, f\n",
            "pkg/from_package.py": "from pkg import asynchronous\n\nvalue = asynchronous.x + asynchronous.f()\n",
            "pkg/relative_name.py": "from . import asynchronous\n\nvalue = asynchronous.x\n",
            "pkg/relative_module.py": "from .asynchronous import x as y\n",
            "main.py": "import pkg\nimport pkg.asynchronous\n\nprint(pkg.asynchronous.f())\n",
        }
        for path, text in expected.items():
            self.assertEqual(read(self.path(path)).decode(), text, path)
        self.assertTrue(os.path.exists(self.path("pkg/asynchronous.py")))
        for module in ("pkg.plain", "pkg.aliased", "pkg.from_module", "pkg.from_package", "pkg.relative_name",
                       "pkg.relative_module", "main"):
            self.assertTrue(imports(self.dir, module), module)

    def test_package_directory_and_nested_module(self):
        self.make({
            "pkg/__init__.py": "",
            "pkg/async/__init__.py": "from .await import g\n",
            "pkg/async/await.py": "def g():\n    return 3\n",
            "pkg/async/data.txt": "kept\n",
            "use.py": "from pkg.async.await import g\nimport pkg.async.await as w\n\nprint(g(), w.g())\n",
        })
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 0, res)
        self.assertFalse(os.path.exists(self.path("pkg/async")))
        self.assertEqual(read(self.path("pkg/asynchronous/__init__.py")), b"from .awaitable import g\n")
        self.assertTrue(os.path.exists(self.path("pkg/asynchronous/awaitable.py")))
        self.assertEqual(read(self.path("pkg/asynchronous/data.txt")), b"kept\n")
        self.assertEqual(read(self.path("use.py")).decode(),
                         "from pkg.asynchronous.awaitable import g\nimport pkg.asynchronous.awaitable as w\n\n"
                         "print(g(), w.g())\n")
        self.assertTrue(imports(self.dir, "use"))

    def test_top_level_module_and_the_name_its_import_binds(self):
        self.make({
            "async.py": "def f():\n    return 1\n",
            "main.py": "import async\nfrom async import f\n\nprint(async.f(), f())\n",
        })
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(read(self.path("main.py")).decode(),
                         "import asynchronous\nfrom asynchronous import f\n\nprint(asynchronous.f(), f())\n")
        self.assertTrue(imports(self.dir, "main"))

    def test_strings_are_reported_not_edited(self):
        self.make({
            "pkg/__init__.py": "",
            "pkg/async.py": "x = 1\n",
            "test_x.py": "import pkg.async\n\nTARGET = 'pkg.async.x'  # pkg.async in a comment\n",
            "test_y.py": ("import importlib\nfrom unittest import mock\n\n"
                          "m = importlib.import_module(\"pkg.async\")\n"
                          "p = mock.patch('pkg.async.x', 2)\n"
                          "q = 'mypkg.async.x', 'pkg.asyncio', 'pkg.async_'\n"),
        })
        res = self.check("--output-format", "concise", "--select", "AF201", "test_x.py", "test_y.py", "pkg")
        self.assertEqual(res.code, 1, res)
        strings = [
            "test_x.py:3:11: AF201 This string names the project's module `pkg.async`, which the fix renames "
            "`pkg.asynchronous`; update it by hand",
            "test_y.py:4:30: AF201 This string names the project's module `pkg.async`, which the fix renames "
            "`pkg.asynchronous`; update it by hand",
            "test_y.py:5:17: AF201 This string names the project's module `pkg.async`, which the fix renames "
            "`pkg.asynchronous`; update it by hand",
        ]
        self.assertEqual([line for line in res.stdout.splitlines() if "string" in line], strings)
        # A string would go on naming the module: renaming it is unsafe, and says where.
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 1, res)
        self.assertIn("Rename `pkg/async.py` to `pkg/asynchronous.py` and update its imports (`test_x.py:3` names "
                      "it in a string, `test_y.py:4` names it in a string, `test_y.py:5` names it in a string) "
                      "(unsafe fix", res.stdout)
        self.assertTrue(os.path.exists(self.path("pkg/async.py")))
        self.assertEqual(read(self.path("test_x.py")).decode(),
                         "import pkg.async\n\nTARGET = 'pkg.async.x'  # pkg.async in a comment\n")
        # The run that renames the module reports them (the next one no longer knows the old name).
        res = self.check("--fix", "--unsafe-fixes", "--output-format", "concise", ".")
        self.assertEqual(res.code, 1, res)
        self.assertEqual([line for line in res.stdout.splitlines() if "string" in line], strings)
        self.assertEqual(read(self.path("test_x.py")).decode(),
                         "import pkg.asynchronous\n\nTARGET = 'pkg.async.x'  # pkg.async in a comment\n")

    def test_refuses_when_the_target_exists(self):
        self.make({
            "pkg/__init__.py": "",
            "pkg/async.py": "x = 1\n",
            "pkg/asynchronous.py": "y = 2\n",
            "use.py": "import pkg.async\n",
        })
        res = self.check("--fix", "--unsafe-fixes", ".")
        self.assertEqual(res.code, 2, res)
        self.assertIn("error: pkg/async.py: cannot rename `pkg/async.py` to `pkg/asynchronous.py`: "
                      "`pkg/asynchronous.py` exists; not renamed", res.stderr)
        self.assertEqual(read(self.path("use.py")), b"import pkg.async\n")
        self.assertEqual(read(self.path("pkg/async.py")), b"x = 1\n")
        self.assertEqual(read(self.path("pkg/asynchronous.py")), b"y = 2\n")
        res = self.check("--output-format", "concise", ".")
        self.assertEqual(res.code, 1, res)
        self.assertIn("use.py:1:12: AF001 `async` is a reserved keyword", res.stdout)
        self.assertIn("warning: pkg/async.py: cannot rename", res.stderr)

    def test_refuses_when_an_extension_module_takes_the_name(self):
        # Before: renamed, and `import pkg.asynchronous` then loaded the extension module (Python's
        # finder tries extension suffixes before `.py`).
        for extension in ("asynchronous.cpython-311-x86_64-linux-gnu.so", "asynchronous.abi3.so", "asynchronous.so"):
            with self.subTest(extension):
                shutil.rmtree(self.dir)
                os.makedirs(self.dir)
                self.make({"pkg/__init__.py": "", "pkg/async.py": "x = 1\n", "pkg/" + extension: "",
                           "use.py": "import pkg.async\n"})
                res = self.check("--fix", "--unsafe-fixes", ".")
                self.assertEqual(res.code, 2, res)
                self.assertIn("error: pkg/async.py: cannot rename `pkg/async.py` to `pkg/asynchronous.py`: the "
                              "extension module `pkg/" + extension + "` would be imported in its place; not renamed",
                              res.stderr)
                self.assertEqual(read(self.path("use.py")), b"import pkg.async\n")
                self.assertTrue(os.path.exists(self.path("pkg/async.py")))

    def test_refused_in_one_root_is_refused_in_every_root(self):
        # `pkg.async` in two roots, its new name taken in one: an import cannot tell them apart, so
        # neither is renamed (renaming a's would rewrite b's imports to b's other module).
        self.make({
            "a/pkg/__init__.py": "",
            "a/pkg/async.py": "x = 1\n",
            "a/use.py": "import pkg.async\n",
            "b/pkg/__init__.py": "",
            "b/pkg/async.py": "x = 1\n",
            "b/pkg/asynchronous.py": "y = 2\n",
            "b/use.py": "import pkg.async\n",
        })
        res = self.check("--fix", "--unsafe-fixes", "a", "b")
        self.assertEqual(res.code, 2, res)
        self.assertIn("cannot rename `a/pkg/async.py` to `a/pkg/asynchronous.py`: the same module `pkg.async` at "
                      "`b/pkg/async.py` cannot be renamed (`b/pkg/asynchronous.py` exists)", res.stderr)
        for root in ("a", "b"):
            self.assertEqual(read(self.path(root + "/use.py")), b"import pkg.async\n")
            self.assertEqual(read(self.path(root + "/pkg/async.py")), b"x = 1\n")

    def test_refused_when_an_importer_cannot_be_rewritten(self):
        # Issue 30. Before: renamed, and `rpc@v2.py` (no module: its name is no identifier, so it
        # has no package for its relative import) went on importing `.async`, which was gone
        # ("Fixed 1 error (1 remaining)"). A module is renamed only with every importer of the run.
        self.make({
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "",
            "pkg/sub/async.py": "X = 1\n",
            "pkg/sub/rpc@v2.py": "from .async import X\n",
            "pkg/sub/user.py": "from .async import X\n",
        })
        before = tree(self.dir)
        refusal = ("cannot rename `pkg/sub/async.py` to `pkg/sub/asynchronous.py`: `pkg/sub/rpc@v2.py:1` imports it "
                   "relatively but is no module (`rpc@v2` is no identifier), so that import cannot be rewritten")
        res = self.check("--fix", "--unsafe-fixes", "pkg")
        self.assertEqual(res.code, 2, res)
        self.assertIn("error: pkg/sub/async.py: " + refusal + "; not renamed", res.stderr)
        self.assertEqual(tree(self.dir), before)
        res = self.check("--output-format", "concise", "pkg")
        self.assertEqual(res.code, 1, res)
        self.assertIn("warning: pkg/sub/async.py: " + refusal + "; the module is not renamed", res.stderr)
        self.assertNotIn("[*]", res.stdout)
        # The same run without the file that cannot be rewritten renames the module.
        os.remove(self.path("pkg/sub/rpc@v2.py"))
        res = self.check("--fix", "--unsafe-fixes", "pkg")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(read(self.path("pkg/sub/user.py")), b"from .asynchronous import X\n")

    def test_rename_style_template_and_src_setting(self):
        self.make({
            "pyproject.toml": "[tool.asyncfix]\nmodule-rename-style = \"_{name}\"\nsrc = [\"lib\"]\n",
            "lib/pkg/__init__.py": "",
            "lib/pkg/async.py": "x = 1\n",
            "lib/pkg/use.py": "from pkg.async import x\n",
        })
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 0, res)
        self.assertTrue(os.path.exists(self.path("lib/pkg/_async.py")))
        self.assertEqual(read(self.path("lib/pkg/use.py")), b"from pkg._async import x\n")
        res = self.check("--show-settings", "lib/pkg/use.py")
        self.assertIn('module-rename-style = "_{name}"', res.stdout)

    def test_invalid_module_rename_style_is_a_config_error(self):
        self.make({"pyproject.toml": "[tool.asyncfix]\nmodule-rename-style = \"{name}-x\"\n", "a.py": "x = 1\n"})
        res = self.check(".")
        self.assertEqual(res.code, 2, res)
        self.assertIn("`module-rename-style` must be `asynchronous` or a template", res.stderr)

    def test_namespace_package_rename_is_unsafe(self):
        self.make({
            "src/ns/async.py": "x = 1\n",
            "src/ns/use.py": "from ns.async import x\n",
        })
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 1, res)
        self.assertTrue(os.path.exists(self.path("src/ns/async.py")))
        self.assertEqual(read(self.path("src/ns/use.py")), b"from ns.async import x\n")
        res = self.check("--fix", "--unsafe-fixes", ".")
        self.assertEqual(res.code, 0, res)
        self.assertTrue(os.path.exists(self.path("src/ns/asynchronous.py")))
        self.assertEqual(read(self.path("src/ns/use.py")), b"from ns.asynchronous import x\n")

    def test_json_fix_carries_the_rename(self):
        self.make(EXAMPLE)
        out = self.json_check(".")
        module = [d for d in out if d["filename"] == "pkg/async.py"]
        self.assertEqual(len(module), 1)
        self.assertEqual(module[0]["fix"]["renames"], [{"from": "pkg/async.py", "to": "pkg/asynchronous.py"}])
        self.assertEqual(module[0]["fix"]["edits"], [])
        imports_ = [d for d in out if d["filename"] == "pkg/kfac.py" and d["code"] == "AF201"]
        self.assertEqual(len(imports_), 3)
        for d in imports_:
            self.assertEqual(d["fix"]["renames"], [{"from": "pkg/async.py", "to": "pkg/asynchronous.py"}])
            self.assertEqual(len(d["fix"]["edits"]), 1)
            self.assertEqual(d["fix"]["edits"][0]["filename"], "pkg/kfac.py")
        # Fixes of one file carry no "renames" key (the output is as before).
        others = [d for d in out if d["code"] == "AF001"]
        self.assertTrue(others)
        for d in others:
            self.assertNotIn("renames", d["fix"] or {})
            for edit in (d["fix"] or {}).get("edits", []):
                self.assertNotIn("filename", edit)

    def test_git_apply_of_diff_gives_the_fixed_tree(self):
        if shutil.which("git") is None:
            self.skipTest("git is not installed")
        files = dict(EXAMPLE)
        files["pkg/sub/__init__.py"] = ""
        files["pkg/sub/async/__init__.py"] = "from ... import kfac\n"
        files["pkg/sub/async/x.py"] = "import pkg.sub.async\n"
        files["pkg/sub/async/README"] = "data\n"
        files["other.py"] = "from pkg.sub.async import x\n"
        self.make(files)
        fixed = self.path("fixed")
        patched = self.path("patched")
        for copy in (fixed, patched):
            os.makedirs(copy)
            for path, text in files.items():
                write(os.path.join(copy, path), text)
        res = run_in(patched, ["check", "--diff", "--unsafe-fixes", "."])
        self.assertEqual(res.code, 1, res)
        self.assertIn("diff --git a/pkg/async.py b/pkg/asynchronous.py\nsimilarity index 100%\n"
                      "rename from pkg/async.py\nrename to pkg/asynchronous.py\n", res.stdout)
        self.assertIn("diff --git a/pkg/sub/async/x.py b/pkg/sub/asynchronous/x.py\nrename from pkg/sub/async/x.py\n"
                      "rename to pkg/sub/asynchronous/x.py\n--- a/pkg/sub/async/x.py\n+++ b/pkg/sub/asynchronous/x.py\n",
                      res.stdout)
        patch = os.path.join(self.dir, "fix.patch")
        write(patch, res.stdout_bytes)
        proc = subprocess.run(["git", "apply", patch], cwd=patched, capture_output=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        res = run_in(fixed, ["check", "--fix", "--unsafe-fixes", "."])
        self.assertEqual(res.code, 0, res)
        self.assertEqual(tree(patched), tree(fixed))
        self.assertTrue(imports(fixed, "other"))
        # GNU patch (2.7 and newer) reads git's renames too.
        if shutil.which("patch") is not None:
            patched_by_patch = self.path("patch-p1")
            os.makedirs(patched_by_patch)
            for path, text in files.items():
                write(os.path.join(patched_by_patch, path), text)
            with open(patch, "rb") as stdin:
                proc = subprocess.run(["patch", "-p1", "--batch"], cwd=patched_by_patch, stdin=stdin,
                                      capture_output=True)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            self.assertEqual(tree(patched_by_patch), tree(fixed))


# Issue 15 item 3: a public parameter named `async`, called by keyword from other files.
KFAC = {
    "pkg/__init__.py": "",
    "pkg/kfac.py": ("class Kfac(object):\n"
                    "    def __init__(self, lr, async=False):\n"
                    "        self.lr = lr\n"
                    "        self.sync = not async\n"
                    "\n"
                    "    def step(self, async=None):\n"
                    "        return async\n"
                    "\n"
                    "\n"
                    "def fetch(url, async=False):\n"
                    "    return url, async\n"),
    "train.py": ("from pkg.kfac import Kfac\n"
                 "\n"
                 "opt = Kfac(0.1, async=True)\n"
                 "opt.step(async=False)\n"),
    "pkg/tools.py": ("from . import kfac\n"
                     "from .kfac import fetch\n"
                     "import pkg.kfac as k\n"
                     "\n"
                     "a = kfac.Kfac(1, async=True)\n"
                     "b = k.Kfac(2, async=False)\n"
                     "c = fetch('u', async=True)\n"),
}

KFAC_FIXED = {
    "pkg/kfac.py": ("class Kfac(object):\n"
                    "    def __init__(self, lr, async_=False):\n"
                    "        self.lr = lr\n"
                    "        self.sync = not async_\n"
                    "\n"
                    "    def step(self, async_=None):\n"
                    "        return async_\n"
                    "\n"
                    "\n"
                    "def fetch(url, async_=False):\n"
                    "    return url, async_\n"),
    "train.py": ("from pkg.kfac import Kfac\n"
                 "\n"
                 "opt = Kfac(0.1, async_=True)\n"
                 "opt.step(async_=False)\n"),
    "pkg/tools.py": ("from . import kfac\n"
                     "from .kfac import fetch\n"
                     "import pkg.kfac as k\n"
                     "\n"
                     "a = kfac.Kfac(1, async_=True)\n"
                     "b = k.Kfac(2, async_=False)\n"
                     "c = fetch('u', async_=True)\n"),
}


class PublicNamesTest(CliTestCase):
    def make(self, files):
        for path, text in files.items():
            write(self.path(path), text)

    def assert_compiles_and_imports(self, modules):
        for path in tree(self.dir):
            if path.endswith(".py"):
                self.assertTrue(compiles(self.path(path)), path)
        for module in modules:
            self.assertTrue(imports(self.dir, module), module)

    def test_parameter_and_calls_in_other_files_are_one_safe_fix(self):
        self.make(KFAC)
        res = self.check("--output-format", "concise", ".")
        self.assertEqual(res.code, 1, res)
        lines = res.stdout.splitlines()
        self.assertIn("pkg/kfac.py:2:28: AF001 [*] `async` is a reserved keyword since Python 3.7 and cannot be "
                      "used as a parameter name", lines)
        self.assertIn("train.py:3:17: AF203 [*] `async=` is a syntax error since Python 3.7; the project's "
                      "`pkg.kfac.Kfac` takes it as `async_=` once its parameter in `pkg/kfac.py` is renamed", lines)
        self.assertIn("train.py:4:10: AF203 [*] `async=` is a syntax error since Python 3.7; the project's "
                      "`pkg.kfac.Kfac.step` takes it as `async_=` once its parameter in `pkg/kfac.py` is renamed",
                      lines)
        # Relative imports and module aliases resolve too.
        self.assertIn("pkg/tools.py:5:18: AF203 [*] `async=` is a syntax error since Python 3.7; the project's "
                      "`pkg.kfac.Kfac` takes it as `async_=` once its parameter in `pkg/kfac.py` is renamed", lines)
        # The fix of the definition says which files it touches.
        out = self.json_check(".")
        titles = {(d["filename"], d["location"]["row"]): d["fix"]["message"] for d in out if d["fix"]}
        self.assertEqual(titles[("pkg/kfac.py", 2)],
                         "Rename `async` to `async_` with `async=` at its calls in `pkg/tools.py` and `train.py`")
        self.assertEqual(titles[("pkg/kfac.py", 6)],
                         "Rename `async` to `async_` with `async=` at its calls in `train.py`")
        self.assertEqual(titles[("pkg/kfac.py", 10)],
                         "Rename `async` to `async_` with `async=` at its calls in `pkg/tools.py`")
        self.assertEqual(titles[("train.py", 3)],
                         "Replace `async=` with `async_=` (with the parameter of `pkg.kfac.Kfac` in `pkg/kfac.py`)")
        for d in out:
            self.assertEqual(d["fix"]["applicability"], "safe", d)
        # Safe fixes alone leave the project importable; a second run changes nothing.
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 0, res)
        for path, text in KFAC_FIXED.items():
            self.assertEqual(read(self.path(path)).decode(), text, path)
        self.assert_compiles_and_imports(["pkg.kfac", "pkg.tools", "train"])
        before = tree(self.dir)
        res = self.check("--fix", "--unsafe-fixes", ".")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(tree(self.dir), before)

    def test_rename_style_of_the_defining_file_is_used_everywhere(self):
        files = dict(KFAC)
        files["pkg/pyproject.toml"] = "[tool.asyncfix]\nrename-style = \"is_async\"\n"
        self.make(files)
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 0, res)
        self.assertIn("def __init__(self, lr, is_async=False):", read(self.path("pkg/kfac.py")).decode())
        self.assertIn("opt = Kfac(0.1, is_async=True)\nopt.step(is_async=False)\n", read(self.path("train.py")).decode())
        self.assertIn("a = kfac.Kfac(1, is_async=True)", read(self.path("pkg/tools.py")).decode())
        self.assert_compiles_and_imports(["pkg.tools", "train"])

    def test_an_unresolved_call_makes_it_unsafe(self):
        files = dict(KFAC)
        files["factory.py"] = "def build(mod):\n    return mod.Kfac(0.1, async=True)\n"
        self.make(files)
        out = self.json_check(".")
        by_place = {(d["filename"], d["location"]["row"]): d for d in out}
        init = by_place[("pkg/kfac.py", 2)]
        self.assertEqual(init["fix"]["applicability"], "unsafe")
        self.assertIn("may pass it without resolving", init["fix"]["message"])
        self.assertEqual(by_place[("train.py", 3)]["fix"]["applicability"], "unsafe")
        self.assertEqual(by_place[("factory.py", 2)]["code"], "AF001")
        # `step` and `fetch` are not called so: still safe.
        self.assertEqual(by_place[("pkg/kfac.py", 6)]["fix"]["applicability"], "safe")
        self.assertEqual(by_place[("train.py", 4)]["fix"]["applicability"], "safe")
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 1, res)
        self.assertIn("def __init__(self, lr, async=False):", read(self.path("pkg/kfac.py")).decode())
        self.assertIn("opt = Kfac(0.1, async=True)\nopt.step(async_=False)\n", read(self.path("train.py")).decode())
        res = self.check("--fix", "--unsafe-fixes", ".")
        self.assertEqual(res.code, 0, res)
        for path, text in KFAC_FIXED.items():
            self.assertEqual(read(self.path(path)).decode(), text, path)
        self.assertEqual(read(self.path("factory.py")).decode(),
                         "def build(mod):\n    return mod.Kfac(0.1, async_=True)\n")
        self.assert_compiles_and_imports(["pkg.tools", "train", "factory"])
        before = tree(self.dir)
        res = self.check("--fix", "--unsafe-fixes", ".")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(tree(self.dir), before)

    def test_a_kwargs_forward_makes_it_unsafe(self):
        files = dict(KFAC)
        files["factory.py"] = ("from pkg.kfac import Kfac\n\n\n"
                               "def make(lr, **options):\n    return Kfac(lr, **options)\n\n\n"
                               "def run(async=False):\n    return make(0.1, async=async)\n")
        self.make(files)
        out = self.json_check(".")
        by_place = {(d["filename"], d["location"]["row"]): d for d in out}
        self.assertEqual(by_place[("pkg/kfac.py", 2)]["fix"]["applicability"], "unsafe")
        self.assertEqual(by_place[("train.py", 3)]["fix"]["applicability"], "unsafe")
        res = self.check("--fix", "--unsafe-fixes", ".")
        self.assertEqual(res.code, 0, res)
        self.assert_compiles_and_imports(["pkg.tools", "train", "factory"])

    def test_a_new_name_taken_where_the_parameter_is_makes_the_calls_unsafe(self):
        files = {"pkg/__init__.py": "", "pkg/k.py": "def f(x, async=1, async_=2):\n    return async\n",
                 "user.py": "from pkg.k import f\n\nf(1, async=3)\n"}
        self.make(files)
        out = self.json_check(".")
        by_place = {(d["filename"], d["location"]["row"], d["location"]["column"]): d["fix"] for d in out}
        for place in (("pkg/k.py", 1, 10), ("user.py", 3, 6)):
            self.assertEqual(by_place[place]["applicability"], "unsafe", by_place[place])
            self.assertIn("(the name `async_` is already used in `pkg/k.py`)", by_place[place]["message"])
        self.check("--fix", ".")
        self.assertEqual(tree(self.dir), {path: text.encode() for path, text in files.items()})
        self.check("--fix", "--unsafe-fixes", ".")
        self.assertEqual(read(self.path("pkg/k.py")).decode(), "def f(x, async_=1, async_=2):\n    return async_\n")
        self.assertEqual(read(self.path("user.py")).decode(), "from pkg.k import f\n\nf(1, async_=3)\n")

    def test_diff_shows_every_file_the_rename_touches(self):
        self.make(KFAC)
        res = self.check("--diff", ".")
        self.assertEqual(res.code, 1, res)
        for path in ("pkg/kfac.py", "pkg/tools.py", "train.py"):
            self.assertIn("diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n" % (path, path, path, path), res.stdout)
        self.assertIn("-    def __init__(self, lr, async=False):\n+    def __init__(self, lr, async_=False):\n",
                      res.stdout)
        self.assertIn("-opt = Kfac(0.1, async=True)\n-opt.step(async=False)\n+opt = Kfac(0.1, async_=True)\n", res.stdout)
        self.assertEqual(tree(self.dir), {path: text.encode() for path, text in KFAC.items()})
        if shutil.which("git") is not None:
            patch = os.path.join(self.dir, "..", "names.patch")
            write(patch, res.stdout_bytes)
            proc = subprocess.run(["git", "apply", os.path.abspath(patch)], cwd=self.dir, capture_output=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            for path, text in KFAC_FIXED.items():
                self.assertEqual(read(self.path(path)).decode(), text, path)

    def test_the_parameter_of_a_module_being_renamed(self):
        # The issue's example as a whole: the module `pkg/async.py` and the parameter at once.
        self.make(EXAMPLE)
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 0, res)
        self.assertIn("def __init__(self, lr, async_=False):", read(self.path("pkg/kfac.py")).decode())
        self.assertEqual(read(self.path("train.py")).decode(), "from pkg.kfac import Kfac\n\nopt = Kfac(0.1, async_=True)\n")
        self.assert_compiles_and_imports(["pkg.kfac", "train"])

    def test_files_without_a_parameter_are_linted_as_before(self):
        self.make({"a.py": "x.cuda(async=True)\n", "b.py": "def f(async=1):\n    return async\n"})
        res = self.check("--output-format", "concise", ".")
        self.assertEqual(res.code, 1, res)
        self.assertIn("a.py:1:8: AF101", res.stdout)
        # A public parameter that no other file passes by keyword: unsafe, as before (callers
        # outside the run may pass it).
        out = self.json_check(".")
        fix = [d for d in out if d["filename"] == "b.py"][0]["fix"]
        self.assertEqual(fix["applicability"], "unsafe")
        self.assertEqual(fix["message"], "Rename `async` to `async_`")


def output(root, code):
    """What `python3 -c CODE` prints with root as the working directory (None when it fails)."""
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    return proc.stdout if proc.returncode == 0 else None


# Issue 32: a public function whose parameter `async` is renamed, called by keyword from a module
# that imports it through a re-export (`pkg/__init__.py`: `from .impl import helper`).
REEXPORT = {
    "pkg/__init__.py": "from .impl import helper, Kfac\n",
    "pkg/impl.py": ("def helper(x, async=1):\n"
                    "    return (x, async)\n"
                    "\n"
                    "\n"
                    "class Kfac(object):\n"
                    "    def __init__(self, async=False):\n"
                    "        self.sync = not async\n"
                    "\n"
                    "    def step(self, async=None):\n"
                    "        return async\n"),
    "pkg/user.py": ("from pkg import helper\n"
                    "import pkg\n"
                    "from . import helper as h\n"
                    "\n"
                    "\n"
                    "def report():\n"
                    "    k = pkg.Kfac(async=True)\n"
                    "    return [helper(2, async=3), pkg.helper(4, async=5), h(6, async=7), k.sync, k.step(async=8)]\n"),
}

REEXPORT_FIXED = {
    "pkg/impl.py": ("def helper(x, async_=1):\n"
                    "    return (x, async_)\n"
                    "\n"
                    "\n"
                    "class Kfac(object):\n"
                    "    def __init__(self, async_=False):\n"
                    "        self.sync = not async_\n"
                    "\n"
                    "    def step(self, async_=None):\n"
                    "        return async_\n"),
    "pkg/user.py": ("from pkg import helper\n"
                    "import pkg\n"
                    "from . import helper as h\n"
                    "\n"
                    "\n"
                    "def report():\n"
                    "    k = pkg.Kfac(async_=True)\n"
                    "    return [helper(2, async_=3), pkg.helper(4, async_=5), h(6, async_=7), k.sync, "
                    "k.step(async_=8)]\n"),
}

REPORTED = "[(2, 3), (4, 5), (6, 7), False, 8]\n"


class ReexportTest(CliTestCase):
    """Calls that reach a renamed parameter through re-exports are renamed with it (issue 32):
    the fixed project compiles, imports and computes what it computed on Python 3.6."""

    make = PublicNamesTest.make
    assert_compiles_and_imports = PublicNamesTest.assert_compiles_and_imports

    def fixes(self):
        out = self.json_check(".")
        return {(d["filename"], d["location"]["row"], d["location"]["column"]): d["fix"] for d in out}

    def assert_runs(self, module="pkg.user", expected=REPORTED):
        self.assertEqual(output(self.dir, "import %s as m; print(m.report())" % module), expected)

    def assert_idempotent(self):
        before = tree(self.dir)
        res = self.check("--fix", "--unsafe-fixes", ".")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(tree(self.dir), before)

    def test_a_package_reexport_is_followed_safely(self):
        self.make(REEXPORT)
        fixes = self.fixes()
        self.assertEqual(fixes[("pkg/impl.py", 1, 15)]["message"],
                         "Rename `async` to `async_` with `async=` at its calls in `pkg/user.py`")
        self.assertEqual(fixes[("pkg/user.py", 8, 23)]["message"],
                         "Replace `async=` with `async_=` (with the parameter of `pkg.helper` in `pkg/impl.py`)")
        for place, fix in fixes.items():
            self.assertEqual(fix["applicability"], "safe", place)
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 0, res)
        for path, text in REEXPORT_FIXED.items():
            self.assertEqual(read(self.path(path)).decode(), text, path)
        self.assert_compiles_and_imports(["pkg.user"])
        self.assert_runs()
        self.assert_idempotent()

    def test_aliases_and_chains_of_reexports(self):
        files = dict(REEXPORT)
        # pkg → pkg.api (aliased) → pkg.impl; and a top-level module that re-exports from pkg.
        files["pkg/__init__.py"] = "from .api import h as helper, Kfac\n"
        files["pkg/api.py"] = "from pkg.impl import helper as h\nfrom pkg.impl import *\n"
        files["tools.py"] = "from pkg import helper as run\n"
        files["main.py"] = "import tools\n\n\ndef report():\n    return tools.run(0, async=9)\n"
        self.make(files)
        for place, fix in self.fixes().items():
            self.assertEqual(fix["applicability"], "safe", place)
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(read(self.path("pkg/user.py")).decode(), REEXPORT_FIXED["pkg/user.py"])
        self.assertIn("tools.run(0, async_=9)", read(self.path("main.py")).decode())
        self.assert_compiles_and_imports(["pkg.user", "main"])
        self.assert_runs()
        self.assert_runs("main", "(0, 9)\n")
        self.assert_idempotent()

    def test_a_star_reexport_that_all_names(self):
        files = dict(REEXPORT)
        files["pkg/__init__.py"] = "from .impl import *\n"
        files["pkg/impl.py"] = REEXPORT["pkg/impl.py"] + "\n\n__all__ = ['helper', 'Kfac']\n"
        self.make(files)
        for place, fix in self.fixes().items():
            self.assertEqual(fix["applicability"], "safe", place)
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(read(self.path("pkg/user.py")).decode(), REEXPORT_FIXED["pkg/user.py"])
        self.assert_runs()

    def assert_unsafe_then_runs(self, init, why, impl=""):
        files = dict(REEXPORT)
        files["pkg/__init__.py"] = init
        files["pkg/impl.py"] += impl
        self.make(files)
        fixes = self.fixes()
        self.assertEqual(fixes[("pkg/impl.py", 1, 15)]["applicability"], "unsafe")
        self.assertIn(why, fixes[("pkg/impl.py", 1, 15)]["message"])
        # The caller's keyword is renamed with the parameter, unsafely; never `**{"async": …}`,
        # which a renamed parameter no longer takes.
        call = fixes[("pkg/user.py", 8, 23)]
        self.assertEqual(call["applicability"], "unsafe", call)
        self.assertNotIn("**{", call["message"])
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 1, res)
        self.assertEqual(read(self.path("pkg/user.py")).decode(), REEXPORT["pkg/user.py"])
        self.assertIn("def helper(x, async=1):", read(self.path("pkg/impl.py")).decode())
        res = self.check("--fix", "--unsafe-fixes", ".")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(read(self.path("pkg/user.py")).decode(), REEXPORT_FIXED["pkg/user.py"])
        self.assert_runs()
        self.assert_idempotent()

    def test_a_name_the_package_binds_twice_is_unsafe(self):
        self.assert_unsafe_then_runs("try:\n    from .impl import helper, Kfac\nexcept ImportError:\n    helper = None\n",
                                     "`pkg/__init__.py` binds `helper` more than once")

    def test_a_star_reexport_whose_all_is_computed_is_unsafe(self):
        self.assert_unsafe_then_runs("from .impl import *\n", "`pkg/impl.py` computes its `__all__`",
                                     "\n\n__all__ = [n for n in dir() if not n.startswith('_')]\n")

    def test_a_star_import_from_outside_the_run_is_unsafe(self):
        self.assert_unsafe_then_runs("from .impl import *\nfrom json import *\n",
                                     "`pkg/__init__.py` star-imports `json`, which the run does not hold")


# Issue 15 item 3: module-level names and attributes named `async`/`await` used by other modules.
NAMES = {
    "pkg/__init__.py": "",
    "pkg/m.py": ("async = 1\n"
                 "\n"
                 "\n"
                 "def await(x):\n"
                 "    return x + async\n"),
    "pkg/user.py": ("from pkg.m import async, await\n"
                    "from pkg.m import async as a\n"
                    "import pkg.m\n"
                    "from pkg import m\n"
                    "from . import m as mm\n"
                    "from .m import await as w\n"
                    "\n"
                    "X = async + a + pkg.m.async + m.async + mm.async + await(1) + w(2)\n"),
    "main.py": "import pkg.m as pm\n\nY = pm.async\n",
}

NAMES_FIXED = {
    "pkg/m.py": ("async_ = 1\n"
                 "\n"
                 "\n"
                 "def await_(x):\n"
                 "    return x + async_\n"),
    "pkg/user.py": ("from pkg.m import async_, await_\n"
                    "from pkg.m import async_ as a\n"
                    "import pkg.m\n"
                    "from pkg import m\n"
                    "from . import m as mm\n"
                    "from .m import await_ as w\n"
                    "\n"
                    "X = async_ + a + pkg.m.async_ + m.async_ + mm.async_ + await_(1) + w(2)\n"),
    "main.py": "import pkg.m as pm\n\nY = pm.async_\n",
}

ATTRIBUTES = {
    "pkg/__init__.py": "",
    "pkg/base.py": ("class Base(object):\n"
                    "    async = False\n"
                    "\n"
                    "    def __init__(self):\n"
                    "        self.await = 2\n"
                    "\n"
                    "    def run(self):\n"
                    "        return self.async, self.await\n"),
    "pkg/sub.py": ("from .base import Base\n"
                   "\n"
                   "\n"
                   "class Sub(Base):\n"
                   "    def go(self):\n"
                   "        self.async = True\n"
                   "        return self.run()\n"),
    "main.py": ("from pkg.base import Base\n"
                "from pkg.sub import Sub\n"
                "\n"
                "b = Base()\n"
                "RESULT = (b.async, b.await, Base.async, Sub().go())\n"),
}

ATTRIBUTES_FIXED = {
    "pkg/base.py": ("class Base(object):\n"
                    "    async_ = False\n"
                    "\n"
                    "    def __init__(self):\n"
                    "        self.await_ = 2\n"
                    "\n"
                    "    def run(self):\n"
                    "        return self.async_, self.await_\n"),
    "pkg/sub.py": ("from .base import Base\n"
                   "\n"
                   "\n"
                   "class Sub(Base):\n"
                   "    def go(self):\n"
                   "        self.async_ = True\n"
                   "        return self.run()\n"),
    "main.py": ("from pkg.base import Base\n"
                "from pkg.sub import Sub\n"
                "\n"
                "b = Base()\n"
                "RESULT = (b.async_, b.await_, Base.async_, Sub().go())\n"),
}


class SharedNamesTest(CliTestCase):
    """Module-level names and attributes renamed with their uses in other files."""

    make = PublicNamesTest.make
    assert_compiles_and_imports = PublicNamesTest.assert_compiles_and_imports

    def fixes(self):
        out = self.json_check(".")
        return {(d["filename"], d["location"]["row"], d["location"]["column"]): d for d in out}

    def assert_idempotent(self):
        before = tree(self.dir)
        res = self.check("--fix", "--unsafe-fixes", ".")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(tree(self.dir), before)

    def test_module_level_names_with_every_import_form(self):
        self.make(NAMES)
        res = self.check("--output-format", "concise", ".")
        self.assertEqual(res.code, 1, res)
        lines = res.stdout.splitlines()
        self.assertIn("pkg/user.py:1:19: AF202 [*] `pkg.m.async` is a syntax error since Python 3.7; the project's "
                      "`pkg/m.py` defines it as `async_` once renamed", lines)
        self.assertIn("main.py:3:5: AF202 [*] `pkg.m.async` is a syntax error since Python 3.7; the project's "
                      "`pkg/m.py` defines it as `async_` once renamed", lines)
        by_place = self.fixes()
        self.assertEqual(by_place[("pkg/m.py", 1, 1)]["fix"]["message"],
                         "Rename `async` to `async_` with its uses in `main.py` and `pkg/user.py`")
        self.assertEqual(by_place[("pkg/m.py", 4, 5)]["fix"]["message"],
                         "Rename `await` to `await_` with its uses in `pkg/user.py`")
        self.assertEqual(by_place[("pkg/user.py", 2, 19)]["fix"]["message"],
                         "Import `pkg.m.async_` instead (with its definition in `pkg/m.py`)")
        for d in by_place.values():
            self.assertEqual(d["fix"]["applicability"], "safe", d)
        # Safe fixes alone leave the project importable; a second run changes nothing.
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 0, res)
        for path, text in NAMES_FIXED.items():
            self.assertEqual(read(self.path(path)).decode(), text, path)
        self.assert_compiles_and_imports(["pkg.user", "main"])
        self.assert_idempotent()

    def test_an_unresolved_use_makes_a_name_unsafe_and_is_listed(self):
        files = dict(NAMES)
        files["other.py"] = "def get(mod):\n    return mod.async\n"
        self.make(files)
        by_place = self.fixes()
        fix = by_place[("pkg/m.py", 1, 1)]["fix"]
        self.assertEqual(fix["applicability"], "unsafe")
        self.assertEqual(fix["message"], "Rename `async` to `async_` with its uses in `main.py` and `pkg/user.py` "
                                         "(`mod.async` in `other.py:2` does not resolve)")
        self.assertEqual(by_place[("main.py", 3, 5)]["fix"]["applicability"], "unsafe")
        # `await` is not used so: still safe.
        self.assertEqual(by_place[("pkg/m.py", 4, 5)]["fix"]["applicability"], "safe")
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 1, res)
        self.assertTrue(read(self.path("pkg/m.py")).decode().startswith("async = 1\n\n\ndef await_(x):\n"))
        self.assertEqual(read(self.path("main.py")).decode(), NAMES["main.py"])
        res = self.check("--fix", "--unsafe-fixes", ".")
        self.assertEqual(res.code, 0, res)
        for path, text in NAMES_FIXED.items():
            self.assertEqual(read(self.path(path)).decode(), text, path)
        self.assertEqual(read(self.path("other.py")).decode(), "def get(mod):\n    return mod.async_\n")
        self.assert_compiles_and_imports(["pkg.user", "main", "other"])
        self.assert_idempotent()

    def test_a_name_no_other_file_uses_stays_unsafe(self):
        self.make({"pkg/__init__.py": "", "pkg/m.py": "async = 1\nprint(async)\n", "pkg/n.py": "import os\n"})
        fix = self.fixes()[("pkg/m.py", 1, 1)]["fix"]
        self.assertEqual(fix["applicability"], "unsafe")
        self.assertEqual(fix["message"], "Rename `async` to `async_`")

    def test_attributes_with_their_uses_on_known_objects(self):
        self.make(ATTRIBUTES)
        by_place = self.fixes()
        self.assertEqual(by_place[("pkg/base.py", 2, 5)]["fix"]["message"],
                         "Rename `async` to `async_` in `pkg/base.py`, `pkg/sub.py` and `main.py`")
        for d in by_place.values():
            self.assertEqual(d["fix"]["applicability"], "safe", d)
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 0, res)
        for path, text in ATTRIBUTES_FIXED.items():
            self.assertEqual(read(self.path(path)).decode(), text, path)
        self.assert_compiles_and_imports(["pkg.sub", "main"])
        proc = subprocess.run([sys.executable, "-c", "import main; print(main.RESULT)"], cwd=self.dir,
                              capture_output=True, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
        self.assertEqual(proc.stdout, b"(False, 2, False, (True, 2))\n", proc.stderr)
        self.assert_idempotent()

    def test_an_attribute_on_an_unknown_object_makes_it_unsafe_and_is_listed(self):
        files = dict(ATTRIBUTES)
        files["util.py"] = "import threading\n\n\ndef flag(job):\n    return job.async\n"
        self.make(files)
        by_place = self.fixes()
        fix = by_place[("pkg/base.py", 2, 5)]["fix"]
        self.assertEqual(fix["applicability"], "unsafe")
        self.assertIn("(`job.async` in `util.py:5` does not resolve)", fix["message"])
        self.assertEqual(by_place[("main.py", 5, 13)]["fix"]["applicability"], "unsafe")
        # `await` is not used so: still safe.
        self.assertEqual(by_place[("pkg/base.py", 5, 14)]["fix"]["applicability"], "safe")
        res = self.check("--fix", "--unsafe-fixes", ".")
        self.assertEqual(res.code, 0, res)
        for path, text in ATTRIBUTES_FIXED.items():
            self.assertEqual(read(self.path(path)).decode(), text, path)
        self.assert_compiles_and_imports(["pkg.sub", "main", "util"])
        self.assert_idempotent()

    def assert_taken_makes_every_part_unsafe(self, files, defined, used, after):
        """A new name already used in one file the rename touches: every part of it is unsafe,
        --fix changes nothing, --fix --unsafe-fixes applies every part."""
        self.make(files)
        by_place = self.fixes()
        for place in (defined, used):
            fix = by_place[place]["fix"]
            self.assertEqual(fix["applicability"], "unsafe", fix)
        self.assertIn("the name `async_` is already used in", by_place[defined]["fix"]["message"])
        res = self.check("--fix", ".")
        self.assertEqual(tree(self.dir), {path: text.encode() for path, text in files.items()})
        res = self.check("--fix", "--unsafe-fixes", ".")
        for path, text in after.items():
            self.assertEqual(read(self.path(path)).decode(), text, path)

    def test_a_new_name_taken_where_it_is_defined_makes_every_use_unsafe(self):
        self.assert_taken_makes_every_part_unsafe(
            {"pkg/__init__.py": "", "pkg/m.py": "async = 1\nasync_ = 2\n",
             "user.py": "from pkg.m import async\nprint(async)\n"},
            ("pkg/m.py", 1, 1), ("user.py", 1, 19),
            {"pkg/m.py": "async_ = 1\nasync_ = 2\n", "user.py": "from pkg.m import async_\nprint(async_)\n"})

    def test_a_new_name_taken_where_it_is_used_makes_the_definition_unsafe(self):
        self.assert_taken_makes_every_part_unsafe(
            {"pkg/__init__.py": "", "pkg/m.py": "async = 1\n",
             "user.py": "from pkg.m import async\nasync_ = 2\nprint(async, async_)\n"},
            ("pkg/m.py", 1, 1), ("user.py", 1, 19),
            {"pkg/m.py": "async_ = 1\n", "user.py": "from pkg.m import async_\nasync_ = 2\nprint(async_, async_)\n"})

    def test_a_new_attribute_name_taken_makes_every_use_unsafe(self):
        self.assert_taken_makes_every_part_unsafe(
            {"pkg/__init__.py": "",
             "pkg/c.py": "class C(object):\n    def __init__(self):\n        self.async = 1\n        self.async_ = 2\n",
             "pkg/d.py": "from pkg.c import C\n\n\ndef f():\n    return C().async\n"},
            ("pkg/c.py", 3, 14), ("pkg/d.py", 5, 16),
            {"pkg/c.py": "class C(object):\n    def __init__(self):\n        self.async_ = 1\n        self.async_ = 2\n",
             "pkg/d.py": "from pkg.c import C\n\n\ndef f():\n    return C().async_\n"})

    def test_a_name_in_all_or_in_a_string_is_unsafe(self):
        files = {"pkg/__init__.py": "",
                 "pkg/m.py": "__all__ = ['async', 'helper']\n\nasync = 1\n\n\ndef helper():\n    return async\n",
                 "pkg/star.py": "from pkg.m import *\n\n\ndef h():\n    return helper()\n",
                 "pkg/user.py": "from pkg.m import async\n\n\ndef g():\n    return async\n"}
        self.make(files)
        by_place = self.fixes()
        for place in (("pkg/m.py", 3, 1), ("pkg/user.py", 1, 19)):
            fix = by_place[place]["fix"]
            self.assertEqual(fix["applicability"], "unsafe", fix)
        self.assertIn("(`pkg/m.py` has an `__all__`, which star imports follow, `pkg/m.py` spells `async` in a "
                      "string, which the rename leaves as is)", by_place[("pkg/m.py", 3, 1)]["fix"]["message"])
        self.check("--fix", ".")
        self.assertEqual(tree(self.dir), {path: text.encode() for path, text in files.items()})
        # An `__all__` without the name, or a string alone, is enough.
        for text in ("__all__ = ['helper']\nasync = 1\n", "async = 1\nNAME = 'async'\n"):
            write(self.path("pkg/m.py"), text)
            self.assertEqual(self.fixes()[("pkg/m.py", text.count("\n", 0, text.index("async =")) + 1, 1)]
                             ["fix"]["applicability"], "unsafe", text)
        # An attribute a string of its module spells.
        shutil.rmtree(self.dir)
        self.make({"pkg/__init__.py": "",
                   "pkg/c.py": ("class C(object):\n    def __init__(self):\n        self.async = 1\n\n"
                                "    def get(self):\n        return getattr(self, 'async')\n"),
                   "pkg/d.py": "from pkg.c import C\n\n\ndef f():\n    return C().async\n"})
        by_place = self.fixes()
        self.assertEqual(by_place[("pkg/d.py", 5, 16)]["fix"]["applicability"], "unsafe")
        self.assertIn("`pkg/c.py` spells `async` in a string", by_place[("pkg/d.py", 5, 16)]["fix"]["message"])

    def test_an_attribute_of_what_a_function_returns_is_unresolved(self):
        files = {"pkg/__init__.py": "",
                 "pkg/c.py": "class C(object):\n    def __init__(self):\n        self.async = 1\n",
                 "pkg/b.py": ("from pkg.c import C\nimport somelib\n\n\ndef make():\n    return somelib.thing()\n"
                              "\n\ndef f(x):\n    c = C()\n    o = make()\n    return c.async, o.async\n")}
        self.make(files)
        by_place = self.fixes()
        fix = by_place[("pkg/c.py", 3, 14)]["fix"]
        self.assertEqual(fix["applicability"], "unsafe", fix)
        self.assertIn("`o.async` in `pkg/b.py:12` does not resolve", fix["message"])
        self.check("--fix", ".")
        self.assertEqual(tree(self.dir), {path: text.encode() for path, text in files.items()})

    def test_names_of_a_module_being_renamed(self):
        self.make({"pkg/__init__.py": "", "pkg/async.py": "await = 1\n\n\ndef async(x):\n    return x + await\n",
                   "user.py": "from pkg.async import await, async\n\nprint(async(await))\n"})
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(tree(self.dir), {
            "pkg/__init__.py": b"",
            "pkg/asynchronous.py": b"await_ = 1\n\n\ndef async_(x):\n    return x + await_\n",
            "user.py": b"from pkg.asynchronous import await_, async_\n\nprint(async_(await_))\n"})
        self.assert_compiles_and_imports(["user"])
        self.assert_idempotent()

    def test_a_module_renamed_safely_keeps_a_name_left_unsafe_in_reach(self):
        # `pkg.async.async`: the module's safe rename respells the second component even where the
        # name's rename (unsafe: `__all__` spells it) is left; no file goes on naming `pkg.async`.
        # Found by the runtime oracle's long run (seed 32000).
        self.make({"pkg/__init__.py": "", "pkg/async.py": "async = 1\nVALUE = 2\n__all__ = ['async', 'VALUE']\n",
                   "user.py": "import pkg.async\n\nprint(pkg.async.VALUE, pkg.async.async)\n"})
        res = self.check("--fix", ".")
        self.assertEqual(res.code, 1, res)
        self.assertEqual(read(self.path("user.py")).decode(),
                         "import pkg.asynchronous\n\nprint(pkg.asynchronous.VALUE, pkg.asynchronous.async)\n")
        self.assertTrue(os.path.exists(self.path("pkg/asynchronous.py")))
        res = self.check("--fix", "--unsafe-fixes", ".")
        self.assertEqual(res.code, 0, res)
        self.assertEqual(read(self.path("user.py")).decode(),
                         "import pkg.asynchronous\n\nprint(pkg.asynchronous.VALUE, pkg.asynchronous.async_)\n")
        self.assertEqual(output(self.dir, "import user"), "2 1\n")

    def test_diff_shows_every_file_and_git_applies_it(self):
        files = dict(NAMES)
        files.update({"pkg/base.py": ATTRIBUTES["pkg/base.py"], "pkg/sub.py": ATTRIBUTES["pkg/sub.py"]})
        self.make(files)
        # `await` of pkg/base.py is used in that file only: its rename is unsafe, as before.
        res = self.check("--diff", "--unsafe-fixes", ".")
        self.assertEqual(res.code, 1, res)
        for path in ("main.py", "pkg/base.py", "pkg/m.py", "pkg/sub.py", "pkg/user.py"):
            self.assertIn("diff --git a/%s b/%s\n" % (path, path), res.stdout)
        self.assertEqual(tree(self.dir), {path: text.encode() for path, text in files.items()})
        if shutil.which("git") is not None:
            patch = os.path.join(self.dir, "..", "shared-names.patch")
            write(patch, res.stdout_bytes)
            proc = subprocess.run(["git", "apply", os.path.abspath(patch)], cwd=self.dir, capture_output=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            for path, text in NAMES_FIXED.items():
                self.assertEqual(read(self.path(path)).decode(), text, path)
            self.assertEqual(read(self.path("pkg/sub.py")).decode(), ATTRIBUTES_FIXED["pkg/sub.py"])
            self.assert_compiles_and_imports(["pkg.user", "main", "pkg.sub"])


def run_in(cwd, args):
    from test_cli import run
    return run(args, cwd=cwd)


if __name__ == "__main__":
    unittest.main()
