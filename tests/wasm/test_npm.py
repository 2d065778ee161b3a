"""The npm package `asyncfix` (issue 33, item 2; CTest label `wasm`, docs/wasm.md).

The tarball that wasm/pack.sh makes is installed with `npm install --offline` into a temporary
project, as a user installs it, and then:

- NpmCliTest: its `asyncfix` command (node_modules/.bin/asyncfix, what `npx asyncfix` runs)
  prints byte for byte what the native command of the ci build prints, with the same exit code,
  on tests/fixtures, examples/ and generated oracle programs (tests/oracle/test_oracle.py's
  generator), and `check --fix --unsafe-fixes` leaves the same bytes; `npx asyncfix` itself runs
  from the project; a Node.js that is too old, or has no WebAssembly exception handling, is
  told so.
- ApiTest: the JavaScript API (lint, fix, rules, checkPaths) answers as the Python module
  (python/asyncfix over build/ci's library) does on the same inputs: the same diagnostics, the
  same fixed text, the same errors.
- TypesTest: `tsc --strict` accepts tests/wasm/typed_usage.ts against the package's index.d.ts
  and rejects its `@ts-expect-error` lines (tsc from tests/wasm/package-lock.json).

Environment: ASYNCFIX_NPM_TARBALL (the package), ASYNCFIX_NATIVE_BIN (the native command),
ASYNCFIX_PYTHON_DIR (build/ci/python: the Python module with its library), ASYNCFIX_TSC_DIR (where
tests/wasm's package-lock.json is installed), ASYNCFIX_ORACLE_PROGRAMS (default 300), NODE.
"""
import base64
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NODE = os.environ.get("NODE", "node")
TARBALL = os.environ.get("ASYNCFIX_NPM_TARBALL", "")
NATIVE = os.environ.get("ASYNCFIX_NATIVE_BIN", os.path.join(ROOT, "build", "ci", "cli", "asyncfix"))
PYTHON_DIR = os.environ.get("ASYNCFIX_PYTHON_DIR", os.path.join(ROOT, "build", "ci", "python"))
TSC_DIR = os.environ.get("ASYNCFIX_TSC_DIR", "")
PROGRAMS = int(os.environ.get("ASYNCFIX_ORACLE_PROGRAMS", "300"))
SEED = 20261206
TIMEOUT = 600
# The native command links rule pages to the manual beside it (found through /proc/self/exe,
# which WebAssembly has not): both sides are given the same address.
DOCS = "https://asyncfix.invalid/docs"

sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))
import test_oracle  # noqa: E402  (the oracle's program generator)

sys.path.insert(0, PYTHON_DIR)
try:
    import asyncfix as python_asyncfix  # noqa: E402
except ImportError as error:  # said by the test that needs it
    python_asyncfix = error

install_dir = None


def setUpModule():
    global install_dir
    if not os.path.isfile(TARBALL):
        raise AssertionError("ASYNCFIX_NPM_TARBALL (%r) is no file: run wasm/pack.sh "
                             "(cmake --build --preset wasm --target npm_package)" % TARBALL)
    if not os.path.isfile(NATIVE):
        raise AssertionError("%s is missing: build the ci preset's commands first "
                             "(cmake --build --preset ci --target asyncfix_cli asyncfix_python)" % NATIVE)
    install_dir = tempfile.mkdtemp(prefix="asyncfix-npm-")
    with open(os.path.join(install_dir, "package.json"), "w") as f:
        json.dump({"name": "asyncfix-npm-test", "version": "1.0.0", "private": True}, f)
    p = subprocess.run(["npm", "install", "--offline", "--no-audit", "--no-fund", "--loglevel=error", TARBALL],
                       cwd=install_dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT)
    if p.returncode != 0:
        raise AssertionError("npm install --offline %s failed:\n%s" % (TARBALL, p.stdout.decode(errors="replace")))


def tearDownModule():
    if install_dir:
        shutil.rmtree(install_dir, ignore_errors=True)


def package_dir():
    return os.path.join(install_dir, "node_modules", "asyncfix")


def npm_bin():
    return os.path.join(install_dir, "node_modules", ".bin", "asyncfix")


def run(argv, cwd, stdin=None):
    p = subprocess.run(argv, cwd=cwd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    return p.returncode, p.stdout, p.stderr


def tree_bytes(root):
    out = {}
    for directory, _, files in os.walk(root):
        for name in files:
            path = os.path.join(directory, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = f.read()
    return out


def oracle_programs(directory):
    """PROGRAMS generated legacy programs written to `directory`; their file names."""
    rng = random.Random(SEED)
    names = []
    for n in range(PROGRAMS):
        data, _, _ = test_oracle.generate(rng, n)
        name = "p%04d.py" % n
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)
        names.append(name)
    return names


class NpmCliTest(unittest.TestCase):
    """The installed package's command against the native one."""

    def same(self, cwd, *args):
        argv = ["check", *args, "--docs-url", DOCS]
        native = run([NATIVE, *argv], cwd)
        wasm = run([npm_bin(), *argv], cwd)
        self.assertEqual(wasm[2].decode(errors="replace"), native[2].decode(errors="replace"), "stderr of %s" % argv)
        self.assertEqual(wasm[1], native[1], "stdout of %s" % argv)
        self.assertEqual(wasm[0], native[0], "exit code of %s" % argv)
        self.assertGreater(len(native[1]), 0, "nothing to compare: %s printed nothing" % argv)

    def test_fixtures_and_examples(self):
        for target in ("tests/fixtures", "examples"):
            for flags in ((), ("--output-format", "json"), ("--diff", "--unsafe-fixes"), ("--statistics",)):
                with self.subTest(target=target, flags=flags):
                    self.same(ROOT, *flags, target)

    def test_oracle_programs(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(len(oracle_programs(tmp)), PROGRAMS)
            for flags in ((), ("--output-format", "json"), ("--diff", "--unsafe-fixes")):
                with self.subTest(flags=flags):
                    self.same(tmp, *flags, ".")

    def test_fix_leaves_the_same_bytes(self):
        with tempfile.TemporaryDirectory() as tmp:
            original = os.path.join(tmp, "original")
            os.mkdir(original)
            oracle_programs(original)
            shutil.copytree(os.path.join(ROOT, "tests", "fixtures"), os.path.join(original, "fixtures"))
            shutil.copytree(os.path.join(ROOT, "examples"), os.path.join(original, "examples"))
            results = []
            for side, argv0 in (("native", [NATIVE]), ("wasm", [npm_bin()])):
                copy = os.path.join(tmp, side)
                shutil.copytree(original, copy)
                code, out, err = run([*argv0, "check", "--fix", "--unsafe-fixes", "--docs-url", DOCS, "."], copy)
                results.append((code, out, err, tree_bytes(copy)))
            (n_code, n_out, n_err, n_tree), (w_code, w_out, w_err, w_tree) = results
            self.assertEqual((w_code, w_out, w_err), (n_code, n_out, n_err))
            self.assertEqual(sorted(w_tree), sorted(n_tree))
            before = tree_bytes(original)
            self.assertGreater(sum(n_tree[name] != before[name] for name in n_tree), PROGRAMS // 2,
                               "the native fix changed few files: nothing much compared")
            for name in n_tree:
                self.assertEqual(w_tree[name], n_tree[name], name)

    def test_npx_in_the_project(self):
        # As a user types it: npx finds the command of the project's node_modules.
        project = os.path.join(install_dir, "code")
        shutil.copytree(os.path.join(ROOT, "examples"), project)
        try:
            code, out, err = run(["npx", "--no-install", "asyncfix", "check", "--output-format", "concise", "."], project)
            self.assertEqual(code, 1, err)
            self.assertIn(b"AF101", out)
            code, out, err = run(["npx", "--no-install", "asyncfix", "check", "--fix", "--unsafe-fixes", "."], project)
            code, out, err = run(["npx", "--no-install", "asyncfix", "check", "--select", "AF101", "."], project)
            self.assertEqual((code, out), (0, b"All checks passed!\n"), err)
        finally:
            shutil.rmtree(project)

    def test_version(self):
        with open(os.path.join(package_dir(), "package.json")) as f:
            version = json.load(f)["version"]
        self.assertEqual(run([npm_bin(), "--version"], install_dir)[1], run([NATIVE, "--version"], install_dir)[1])
        self.assertIn(version.encode(), run([npm_bin(), "--version"], install_dir)[1])

    def test_language_server_answers(self):
        # The package's language server, warm-up and all (wasm/warm_up.js, which package.json's
        # `files` must list): initialize answered, then shutdown and exit with code 0.
        def frame(message):
            body = json.dumps(dict(message, jsonrpc="2.0")).encode()
            return b"Content-Length: %d\r\n\r\n" % len(body) + body
        session = (frame({"id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {}}})
                   + frame({"method": "initialized", "params": {}})
                   + frame({"id": 2, "method": "shutdown"}) + frame({"method": "exit"}))
        with tempfile.TemporaryDirectory() as tmp:
            code, out, err = run([NODE, os.path.join(package_dir(), "asyncfix-lsp.js")], tmp, stdin=session)
        self.assertEqual(code, 0, err)
        self.assertIn(b'"serverInfo":{"name":"asyncfix"', out)
        self.assertIn(b'{"id":2,"jsonrpc":"2.0","result":null}', out)

    def test_old_node_is_told(self):
        with tempfile.TemporaryDirectory() as tmp:
            old = os.path.join(tmp, "old.js")
            with open(old, "w") as f:
                f.write("Object.defineProperty(process.versions, 'node', { value: '16.20.2' });\n")
            no_tag = os.path.join(tmp, "no_tag.js")
            with open(no_tag, "w") as f:
                f.write("delete WebAssembly.Tag;\n")
            for preload, said in ((old, b"Node.js 16.20.2 is too old"), (no_tag, b"no WebAssembly exception handling")):
                for command in ("asyncfix.js", "asyncfix-lsp.js"):
                    with self.subTest(preload=os.path.basename(preload), command=command):
                        code, out, err = run([NODE, "-r", preload, os.path.join(package_dir(), command), "--version"], tmp)
                        self.assertEqual(code, 2)
                        self.assertIn(said, err)
                        self.assertEqual(out, b"")
                with self.subTest(preload=os.path.basename(preload), api=True):
                    code, out, err = run([NODE, "-r", preload, "-e",
                                          "try { require(%s).lint('x = 1\\n') } catch (e) { console.log(e.code, e.message) }"
                                          % json.dumps(package_dir())], tmp)
                    self.assertEqual(code, 0, err)
                    self.assertTrue(out.startswith(b"host "), out)
                    self.assertIn(said, out)


def package_pages():
    return "file://%s/share/doc/asyncfix/rules/" % os.path.realpath(package_dir())


def python_pages():
    url = python_asyncfix.rules()[0]["url"]
    return url[:url.rindex("/rules/") + len("/rules/")]


def to_camel(key):
    head, *rest = key.split("-")
    return head + "".join(part.capitalize() for part in rest)


# Option sets, in the configuration file's spelling; each is given to both APIs.
OPTION_SETS = [
    {},
    {"unsafe-fixes": True},
    {"select": ["AF1"]},
    {"ignore": ["AF001", "AF3"]},
    {"target-version": "py36"},
    {"rename-style": "is_async", "unsafe-fixes": True},
    {"severity": {"AF101": "hint"}, "per-file-ignores": {"*.py": ["AF002"]}},
    {"select": ["AF999"]},  # invalid: both must refuse it with the same message
    {"target-version": "py27"},  # invalid
]


class ApiTest(unittest.TestCase):
    """The JavaScript API against the Python module on the same inputs."""

    @classmethod
    def setUpClass(cls):
        if isinstance(python_asyncfix, Exception):
            raise AssertionError("the Python module does not import from %s (%s): build it with "
                                 "cmake --build --preset ci --target asyncfix_python" % (PYTHON_DIR, python_asyncfix))

    def javascript(self, cases):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(cases, f)
        try:
            p = subprocess.run([NODE, os.path.join(HERE, "api_driver.js"), package_dir(), f.name],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
        finally:
            os.unlink(f.name)
        self.assertEqual(p.returncode, 0, p.stderr.decode(errors="replace"))
        return json.loads(p.stdout)

    @staticmethod
    def python(data, path, options):
        kwargs = {key.replace("-", "_"): value for key, value in options.items()}

        def answer(body):
            try:
                return body()
            except ValueError as error:
                return {"error": str(error)}

        return {"lint": answer(lambda: python_asyncfix.check(data, path, **kwargs)),
                "fix": answer(lambda: python_asyncfix.fix(data, path, **kwargs))}

    def pages(self, diagnostics, base):
        """`diagnostics` with each rule page's address cut to its name under rules/, after
        checking that it starts with `base` (each side links to the manual beside it: the
        package's share/doc/asyncfix, the Python module's installed copy)."""
        out = []
        for d in diagnostics:
            d = dict(d)
            if d.get("url") is not None:
                self.assertTrue(d["url"].startswith(base), "%s is not under %s" % (d["url"], base))
                d["url"] = d["url"][len(base):]
            out.append(d)
        return out

    def compare(self, inputs):
        """inputs: (name, bytes, path, options) — both APIs answer each the same."""
        cases = [{"text": base64.b64encode(data).decode(), "path": path,
                  "options": {to_camel(k): v for k, v in options.items()}} for _, data, path, options in inputs]
        answers = self.javascript(cases)
        self.assertEqual(len(answers), len(inputs))
        compared = {"diagnostics": 0, "fixed": 0, "errors": 0}
        for (name, data, path, options), js in zip(inputs, answers):
            py = self.python(data, path, options)
            for part in ("lint", "fix"):
                with self.subTest(input=name, options=options, part=part):
                    if isinstance(py[part], dict):  # an error: the same message
                        self.assertIsInstance(js[part], dict, "JavaScript did not fail")
                        self.assertEqual(js[part]["error"][1], py[part]["error"])
                        self.assertIn(js[part]["error"][0], ("options", "input"))
                        compared["errors"] += 1
                    elif part == "lint":
                        self.assertEqual(self.pages(js[part], package_pages()), self.pages(py[part], python_pages()))
                    else:
                        self.assertEqual(js[part], py[part])
                    if not isinstance(py[part], dict):
                        if part == "lint":
                            compared["diagnostics"] += len(py[part])
                        elif py[part] != data.decode("utf-8", "replace"):
                            compared["fixed"] += 1
        return compared

    def test_fixtures_examples_and_oracle_programs(self):
        inputs = []
        for directory in (os.path.join(ROOT, "tests", "fixtures"), os.path.join(ROOT, "examples")):
            for base, _, files in os.walk(directory):
                for name in sorted(files):
                    if name.endswith((".py", ".ipynb")):
                        path = os.path.join(base, name)
                        with open(path, "rb") as f:
                            data = f.read()
                        rel = os.path.relpath(path, ROOT)
                        for options in OPTION_SETS:
                            inputs.append((rel, data, rel, options))
        with tempfile.TemporaryDirectory() as tmp:
            for name in oracle_programs(tmp):
                with open(os.path.join(tmp, name), "rb") as f:
                    inputs.append((name, f.read(), name, {}))
        compared = self.compare(inputs)
        self.assertGreater(compared["diagnostics"], 1000, compared)
        self.assertGreater(compared["fixed"], 200, compared)
        self.assertGreater(compared["errors"], 10, compared)

    def test_bad_input(self):
        inputs = [("not UTF-8", b"x = '\xff'\n", "a.py", {}), ("NUL", b"x = 1\0\n", "a.py", {}),
                  ("broken notebook", b"{\"cells\": [", "a.ipynb", {}), ("empty", b"", "-", {}),
                  ("BOM and CRLF", b"\xef\xbb\xbfx.cuda(async=True)\r\n", "a.py", {})]
        compared = self.compare(inputs)
        self.assertEqual(compared["errors"], 6, compared)  # lint and fix of the first three

    def test_rules(self):
        [js] = self.javascript([{"rules": True}])
        self.assertEqual(self.pages(js["rules"], package_pages()), self.pages(python_asyncfix.rules(), python_pages()))
        self.assertEqual(len(js["rules"]), len(python_asyncfix.rules()))
        for rule in js["rules"]:  # the package carries the pages it links to
            self.assertTrue(os.path.isfile(rule["url"][len("file://"):]), rule["url"])

    def test_check_paths(self):
        # checkPaths is the command's run, as check_paths is: the same findings on a tree, and
        # with fix: true the same files afterwards.
        script = ("const a = require(%s); const [dir, fix] = process.argv.slice(1);"
                  "process.stdout.write(JSON.stringify(a.checkPaths(['.'], { fix: fix === 'fix', unsafeFixes: true,"
                  " docsUrl: %s })));") % (json.dumps(package_dir()), json.dumps(DOCS))
        with tempfile.TemporaryDirectory() as tmp:
            for side in ("js", "python"):
                shutil.copytree(os.path.join(ROOT, "examples"), os.path.join(tmp, side))
            for mode in ("check", "fix"):
                with self.subTest(mode=mode):
                    p = subprocess.run([NODE, "-e", script, os.path.join(tmp, "js"), mode], cwd=os.path.join(tmp, "js"),
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
                    self.assertEqual(p.returncode, 0, p.stderr.decode(errors="replace"))
                    cwd = os.getcwd()
                    os.chdir(os.path.join(tmp, "python"))
                    try:
                        py = python_asyncfix.check_paths(["."], fix=mode == "fix", unsafe_fixes=True, docs_url=DOCS)
                    finally:
                        os.chdir(cwd)
                    self.assertEqual(json.loads(p.stdout), py)
            self.assertEqual(tree_bytes(os.path.join(tmp, "js")), tree_bytes(os.path.join(tmp, "python")))
            self.assertNotEqual(tree_bytes(os.path.join(tmp, "js")), tree_bytes(os.path.join(ROOT, "examples")))


class TypesTest(unittest.TestCase):
    def test_tsc_strict(self):
        tsc = os.path.join(TSC_DIR, "node_modules", "typescript", "bin", "tsc")
        self.assertTrue(os.path.isfile(tsc), "no tsc at %s: npm ci in tests/wasm's lockfile first" % tsc)
        with tempfile.TemporaryDirectory(dir=install_dir) as tmp:
            shutil.copy(os.path.join(HERE, "typed_usage.ts"), tmp)
            # No @types at all: the package's own declarations are all the file may lean on.
            with open(os.path.join(tmp, "tsconfig.json"), "w") as f:
                json.dump({"compilerOptions": {"strict": True, "noEmit": True, "module": "commonjs",
                                               "moduleResolution": "node10", "target": "es2022",
                                               "lib": ["es2022", "dom"], "types": []},
                           "files": ["typed_usage.ts"]}, f)
            argv = [NODE, tsc, "-p", tmp]
            p = subprocess.run(argv, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT)
            self.assertEqual(p.returncode, 0, p.stdout.decode(errors="replace"))
            # The same file with one mistake no longer marked as expected: tsc must reject it.
            with open(os.path.join(tmp, "typed_usage.ts")) as f:
                text = f.read()
            marker = "// @ts-expect-error: fix() returns the text, not diagnostics\n"
            self.assertIn(marker, text)
            with open(os.path.join(tmp, "typed_usage.ts"), "w") as f:
                f.write(text.replace(marker, ""))
            p = subprocess.run(argv, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn(b"error TS2322", p.stdout)


if __name__ == "__main__":
    unittest.main()
