"""The CPython oracle: asyncfix against CPython's own parser.

Generates many legacy programs (a deterministic seed) from templates of every position where
`async` or `await` can be a name before Python 3.7 — variable, parameter, keyword argument,
attribute, function and class name, import alias, global/nonlocal, for target, with-as,
except-as, lambda parameter, comprehension variable, decorator, f-string, annotation, star
parameters… — combined at random with comments, strings, docstrings, non-ASCII text, CRLF line
endings and a BOM. For each program:

1. CPython parses it with `ast.parse(src, feature_version=(3, 6))`, where `async`/`await` are
   still names. Every identifier use CPython sees (ast.Name, arg, keyword, Attribute, alias,
   FunctionDef/ClassDef names, Global/Nonlocal names, except-as names, ImportFrom modules)
   spelt `async` or `await` must be reported by `asyncfix check --output-format json` at its
   exact line and column, and nothing else may be reported.
2. After `asyncfix check --fix --unsafe-fixes`, the file parses with Python 3.11's own grammar,
   and its AST equals the original's once the promised renames are applied to the original:
   `async=` on `.cuda`/`.to`/`.type`/`.copy_` becomes `non_blocking=`, every other `async` and
   `await` name becomes `async_`/`await_` (a keyword argument may instead keep its key as
   `**{"async": v}`, which the runtime oracle, runtime_oracle.py, proves right).

Programs that use a position no rule promises to fix (`from m import async`, a module path
`import pkg.async`) are checked for 1 only. The number of cases checked is printed.

Environment: ASYNCFIX_BIN (the built binary), ASYNCFIX_ORACLE_PROGRAMS (default 2000),
ASYNCFIX_ORACLE_SEED (default 20261129).
"""

import ast
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import tokenize
import unittest

BIN = os.environ.get("ASYNCFIX_BIN", "asyncfix")
PROGRAMS = int(os.environ.get("ASYNCFIX_ORACLE_PROGRAMS", "2000"))
SEED = int(os.environ.get("ASYNCFIX_ORACLE_SEED", "20261129"))
KEYWORDS = ("async", "await")
TORCH_METHODS = {"cuda", "to", "type", "copy_", "_cuda", "_type"}
IDENTIFIER_CODES = {"AF001", "AF002", "AF101"}

# ---- templates: (name, fixable, function(N, i) -> source lines at module level) ----
# `N` is `async` or `await`; `i` makes the template's other names unique in the program.

def _t(fixable=True, only=None):
    def wrap(fn):
        fn.fixable = fixable
        fn.only = only
        TEMPLATES.append(fn)
        return fn
    return wrap


TEMPLATES = []


@_t()
def variable(N, i):
    return [f"{N} = {i}", f"print({N} + 1, {N})"]


@_t()
def augmented(N, i):
    return [f"{N} = 0", f"{N} += {i}", f"{N}, b{i} = b{i}, {N}"]


@_t()
def parameter(N, i):
    return [f"def f{i}({N}, b=2):", f"    return {N} + b"]


@_t()
def keyword_parameter(N, i):
    return [f"def k{i}(a, {N}=False):", f"    return a if {N} else None", f"k{i}(1, {N}=True)"]


@_t()
def keyword_only(N, i):
    return [f"def ko{i}(*, {N}, c=1):", f"    return {N}", f"ko{i}({N}=2)"]


@_t()
def star_parameters(N, i):
    return [f"def s{i}(*{N}, **kw):", f"    return {N}, kw", f"def t{i}(**{N}):", f"    return {N}"]


@_t()
def keyword_argument(N, i):
    return [f"d{i} = dict({N}=1, other=2)", f"e{i} = helper{i}(x, {N}='é')"]


@_t(only="async")
def torch_call(N, i):
    return [f"y{i} = x.cuda({N}=True)", f"z{i} = x.to(device, {N}=True)", f"w{i} = x.cuda(0,", f"    {N}=False)"]


@_t()
def attribute(N, i):
    return [f"obj{i}.{N} = 1", f"print(obj{i}.{N}, a.b.{N}.c)"]


@_t()
def function_name(N, i):
    return [f"def {N}():", "    pass", f"{N}()"]


@_t()
def class_name(N, i):
    return [f"class {N}:", "    pass", f"o{i} = {N}()"]


@_t()
def class_member(N, i):
    return [f"class C{i}:", f"    {N} = 1", "    def m(self):", f"        return self.{N}"]


@_t()
def import_alias(N, i):
    return [f"import os as {N}", f"print({N}.path)"]


@_t()
def from_import_alias(N, i):
    return [f"from os import path as {N}", f"print({N})"]


@_t()
def global_name(N, i):
    return [f"def g{i}():", f"    global {N}", f"    {N} = 3"]


@_t()
def nonlocal_name(N, i):
    return [f"def n{i}():", f"    {N} = 1", "    def inner():", f"        nonlocal {N}", f"        {N} = 2",
            "    return inner"]


@_t()
def for_target(N, i):
    return [f"for {N} in range(3):", f"    print({N})"]


@_t()
def with_as(N, i):
    return [f"with open('f{i}') as {N}:", f"    data = {N}.read()"]


@_t()
def except_as(N, i):
    return ["try:", "    pass", f"except Exception as {N}:", f"    print({N})"]


@_t()
def lambda_parameter(N, i):
    return [f"h{i} = lambda {N}, b=1: {N} * b"]


@_t()
def comprehension(N, i):
    return [f"l{i} = [{N} for {N} in range(3)]", f"m{i} = {{{N}: 1 for {N} in 'ab'}}",
            f"g{i} = list({N} * 2 for {N} in (1, 2))"]


@_t()
def decorator(N, i):
    return [f"def {N}(fn):", "    return fn", f"@{N}", f"def dec{i}():", "    pass"]


@_t()
def f_string(N, i):
    return [f"{N} = 'x'", f"v{i} = f'{{{N}}} and {{{N}!r:>{{width}}}} async'"]


@_t()
def annotation(N, i):
    return [f"{N}: int = 1", f"def an{i}(x: {N}) -> {N}:", "    return x"]


@_t()
def subscripts(N, i):
    return [f"{N} = [1, 2]", f"q{i} = {N}[0] + r[{N}[1]:]", f"del {N}"]


@_t(only="await")
def await_call(N, i):
    return [f"await({i})", f"r{i} = await(x)[0]"]


@_t()
def class_keyword(N, i):
    return [f"class K{i}(Base, {N}=1):", "    pass"]


@_t()
def conditional(N, i):
    return [f"{N} = True", f"c{i} = {N} if {N} else not {N}", f"assert {N}, {N}"]


@_t(fixable=False)
def from_import(N, i):
    return [f"from pkg{i} import {N}", f"print({N})"]


@_t(fixable=False)
def module_path(N, i):
    return [f"import pkg{i}.{N}", f"import pkg{i}.{N}.sub as m{i}"]


NOISE = [
    "# async and await in a comment: é 中 😀",
    "s{i} = 'async = 1; x.cuda(async=True)'",
    "t{i} = \"await(x) — é\"",
    "b{i} = b'async'",
    "u{i} = '''",
    "async = 'in a string'",
    "'''",
    "def doc{i}():",
    "    \"\"\"Docstring that mentions async and await.\"\"\"",
    "    return None",
    "é{i} = 'ünïcödé 😀'; zz{i} = 1",
    "pass  # noqa-free comment",
]


def noise(rng, i):
    k = rng.randrange(len(NOISE))
    if NOISE[k] == "u{i} = '''":
        return [line.format(i=i) for line in NOISE[k:k + 3]]
    if NOISE[k].startswith("def doc"):
        return [line.format(i=i) for line in NOISE[k:k + 3]]
    if NOISE[k] in ("async = 'in a string'", "'''") or NOISE[k].startswith("    "):
        return [NOISE[0]]
    return [NOISE[k].format(i=i)]


def generate(rng, index):
    """One program: (bytes, fixable, template names)."""
    lines, used, fixable = [], [], True
    for j in range(rng.randint(1, 6)):
        i = index * 10 + j
        if rng.random() < 0.4:
            lines += noise(rng, i)
        t = rng.choice(TEMPLATES)
        N = t.only or rng.choice(KEYWORDS)
        body = t(N, i)
        # Sometimes the same line also holds non-ASCII text before the name (columns count
        # code points in asyncfix's output, bytes in CPython's AST).
        if rng.random() < 0.3 and not body[0].startswith((" ", "@", "def", "class", "try", "for", "with")):
            body[0] = f"pre{i} = 'é😀中'; " + body[0]
        lines += body
        used.append(f"{t.__name__}({N})")
        fixable = fixable and t.fixable
    eol = "\r\n" if rng.random() < 0.25 else "\n"
    text = eol.join(lines) + (eol if rng.random() < 0.9 else "")
    data = text.encode("utf-8")
    if rng.random() < 0.15:
        data = b"\xef\xbb\xbf" + data
    return data, fixable, used


# ---- what CPython sees ----

def identifier_positions(data):
    """(line, column in code points, 1-based both, name) of every async/await identifier."""
    tree = ast.parse(data, feature_version=(3, 6))
    text = data.decode("utf-8-sig")
    lines = text.replace("\r\n", "\n").split("\n")
    tokens = [t for t in tokenize.tokenize(io.BytesIO(data).readline) if t.type == tokenize.NAME]

    def cp(lineno, byte_col):
        return len(lines[lineno - 1].encode("utf-8")[:byte_col].decode("utf-8"))

    def at_or_after(node):
        start = (node.lineno, cp(node.lineno, node.col_offset))
        return [t for t in tokens if t.start >= start]

    def within(node):
        start = (node.lineno, cp(node.lineno, node.col_offset))
        end = (node.end_lineno, cp(node.end_lineno, node.end_col_offset))
        return [t for t in tokens if start <= t.start and t.end <= end]

    found = set()

    def add(line, col, name):
        found.add((line, col + 1, name))

    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in KEYWORDS:
            add(node.lineno, cp(node.lineno, node.col_offset), node.id)
        elif isinstance(node, ast.arg) and node.arg in KEYWORDS:
            add(node.lineno, cp(node.lineno, node.col_offset), node.arg)
        elif isinstance(node, ast.keyword) and node.arg in KEYWORDS:
            add(node.lineno, cp(node.lineno, node.col_offset), node.arg)
        elif isinstance(node, ast.Attribute) and node.attr in KEYWORDS:
            add(node.end_lineno, cp(node.end_lineno, node.end_col_offset) - len(node.attr), node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in KEYWORDS:
            toks = at_or_after(node)
            k = next(k for k, t in enumerate(toks) if t.string in ("def", "class"))
            add(toks[k + 1].start[0], toks[k + 1].start[1], node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for t in within(node)[1:]:
                if t.string in KEYWORDS:
                    add(t.start[0], t.start[1], t.string)
        elif isinstance(node, ast.ExceptHandler) and node.name in KEYWORDS:
            toks = at_or_after(node)
            k = next(k for k, t in enumerate(toks) if t.string == "as")
            add(toks[k + 1].start[0], toks[k + 1].start[1], node.name)
        elif isinstance(node, ast.alias):
            for t in within(node):
                if t.string in KEYWORDS:
                    add(t.start[0], t.start[1], t.string)
        elif isinstance(node, ast.ImportFrom) and node.module and set(node.module.split(".")) & set(KEYWORDS):
            toks = within(node)
            k = next(k for k, t in enumerate(toks) if t.string == "import")
            for t in toks[1:k]:
                if t.string in KEYWORDS:
                    add(t.start[0], t.start[1], t.string)
    return tree, found


class Renamer(ast.NodeTransformer):
    """The original AST with the renames the rules promise applied."""

    @staticmethod
    def new(name):
        return name + "_" if name in KEYWORDS else name

    def visit_Call(self, node):
        self.generic_visit(node)
        torch = isinstance(node.func, ast.Attribute) and node.func.attr in TORCH_METHODS
        if torch:
            for k in node.keywords:
                if k.arg == "async_":
                    k.arg = "non_blocking"
        return node

    def generic_visit(self, node):
        for field in ("id", "arg", "attr", "name", "asname"):
            value = getattr(node, field, None)
            if isinstance(value, str):
                setattr(node, field, ".".join(self.new(p) for p in value.split(".")))
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            node.names = [self.new(n) for n in node.names]
        return super().generic_visit(node)


class KeptKeys(ast.NodeTransformer):
    """A fixed AST with each `**{"async": v}` read as the rename `async_=v`: the fix that keeps a
    keyword's key where no parameter of the file binds it (the runtime oracle checks which of
    the two a fix must pick; this one that the edit is there and nothing else moved)."""

    def visit_keyword(self, node):
        self.generic_visit(node)
        d = node.value
        if node.arg is None and isinstance(d, ast.Dict) and len(d.keys) == 1 and \
                isinstance(d.keys[0], ast.Constant) and d.keys[0].value in KEYWORDS:
            return ast.keyword(arg=d.keys[0].value + "_", value=d.values[0])
        return node


def normalized(tree):
    return ast.dump(Renamer().visit(tree))


class OracleTest(unittest.TestCase):
    def test_against_cpython(self):
        rng = random.Random(SEED)
        work = tempfile.mkdtemp(prefix="asyncfix-oracle-")
        self.addCleanup(shutil.rmtree, work, ignore_errors=True)
        src_dir = os.path.join(work, "src")
        os.mkdir(src_dir)
        programs = {}
        for n in range(PROGRAMS):
            data, fixable, used = generate(rng, n)
            name = f"p{n:04d}.py"
            with open(os.path.join(src_dir, name), "wb") as f:
                f.write(data)
            tree, expected = identifier_positions(data)
            programs[name] = (data, fixable, used, tree, expected)

        run = subprocess.run([BIN, "check", "--isolated", "--output-format", "json", "--exit-zero", src_dir],
                             capture_output=True, timeout=600)
        self.assertEqual(run.returncode, 0, run.stderr.decode())
        reported = {name: set() for name in programs}
        others = []
        for d in json.loads(run.stdout):
            name = os.path.basename(d["filename"])
            if d["code"] not in IDENTIFIER_CODES:
                others.append(f"{name}:{d['location']['row']}:{d['location']['column']}: {d['code']} {d['message']}")
                continue
            reported[name].add((d["location"]["row"], d["location"]["column"]))

        failures, identifiers = [], 0
        for name, (data, fixable, used, tree, expected) in programs.items():
            identifiers += len(expected)
            want = {(line, col) for line, col, _ in expected}
            if reported[name] != want:
                failures.append(f"{name} [{', '.join(used)}]: missing {sorted(want - reported[name])}, "
                                f"extra {sorted(reported[name] - want)}\n{data.decode('utf-8-sig')}")
        self.assertEqual(others, [], "diagnostics CPython does not explain")

        fix_dir = os.path.join(work, "fixed")
        shutil.copytree(src_dir, fix_dir)
        run = subprocess.run([BIN, "check", "--isolated", "--fix", "--unsafe-fixes", "--exit-zero", "--quiet", fix_dir],
                             capture_output=True, timeout=600)
        self.assertEqual(run.returncode, 0, run.stderr.decode())
        fixed_checked = 0
        for name, (data, fixable, used, tree, expected) in programs.items():
            if not fixable:
                continue
            with open(os.path.join(fix_dir, name), "rb") as f:
                fixed = f.read()
            try:
                after = ast.parse(fixed)  # Python 3.11's grammar: async/await are keywords
            except SyntaxError as e:
                failures.append(f"{name} [{', '.join(used)}]: fixed file does not compile: {e}\n"
                                f"{fixed.decode('utf-8-sig')}")
                continue
            if data.startswith(b"\xef\xbb\xbf") != fixed.startswith(b"\xef\xbb\xbf") or \
                    (b"\r\n" in data) != (b"\r\n" in fixed):
                failures.append(f"{name}: BOM or line endings changed")
            if normalized(tree) != ast.dump(KeptKeys().visit(after)):
                failures.append(f"{name} [{', '.join(used)}]: AST differs beyond the promised renames\n"
                                f"{fixed.decode('utf-8-sig')}")
            fixed_checked += 1
        print(f"oracle: {len(programs)} programs, {identifiers} identifier uses checked against CPython, "
              f"{fixed_checked} fixed files compiled and compared (seed {SEED})", file=sys.stderr)
        if failures:
            self.fail(f"{len(failures)} of {len(programs)} programs fail:\n\n" + "\n\n".join(failures[:12]))


# ---- multi-file projects: modules and packages named async/await (issue 15) ----
#
# Each project is a regular package `pkg` holding a module or a package named `async` or `await`
# (sometimes with a submodule named the other keyword), modules that import it in every form —
# absolute and relative, `import … as …`, `from … import …`, attribute paths through the import —
# a subpackage importing it with `..`, and a top-level script. Nothing imports a third-party
# module, so every module can be imported after fixing. `--fix --unsafe-fixes` must rename the
# module (file or directory) to the default style (`asynchronous`/`awaitable`) and rewrite every
# import: each file then compiles, each module imports in a fresh interpreter, each file's AST is
# the original's with those renames, and a second run changes nothing.

PROJECTS = int(os.environ.get("ASYNCFIX_ORACLE_PROJECTS", "40"))
MODULE_RENAMES = {"async": "asynchronous", "await": "awaitable"}


def project_importer(rng, target, inner, relative, k):
    """Lines of a module in `pkg` (relative: may use `.`) that imports pkg.<target> and uses it."""
    forms = [
        ([f"import pkg.{target}"], f"pkg.{target}.f{k}()"),
        ([f"import pkg.{target} as m{k}"], f"m{k}.f{k}()"),
        ([f"from pkg.{target} import f{k}"], f"f{k}()"),
        ([f"from pkg.{target} import f{k} as g{k}, X"], f"g{k}() + X"),
        ([f"from pkg import {target}"], f"{target}.f{k}()"),
        (["import pkg", f"import pkg.{target}"], f"pkg.{target}.X"),
    ]
    if relative:
        forms += [
            ([f"from . import {target}"], f"{target}.f{k}()"),
            ([f"from .{target} import f{k}"], f"f{k}()"),
            ([f"from .{target} import (f{k},", "    X)"], f"f{k}() + X"),
        ]
    if inner:
        forms += [([f"from pkg.{target}.{inner} import h"], "h()"),
                  ([f"import pkg.{target}.{inner}"], f"pkg.{target}.{inner}.h()")]
        if relative:
            forms += [([f"from .{target}.{inner} import h"], "h()"),
                      ([f"from .{target} import {inner}"], f"{inner}.h()")]
    lines, uses = [], []
    for _ in range(rng.randint(1, 3)):
        imported, use = rng.choice(forms)
        lines += imported
        uses.append(use)
    lines += ["", "", "def use():", "    return [" + ", ".join(uses) + "]", "", "", "RESULT = use()"]
    return lines


def generate_project(rng, root):
    """Writes a project under root; returns {relative path: source bytes}."""
    target = rng.choice(KEYWORDS)
    inner = rng.choice([None, "await" if target == "async" else "async", "sub"])
    package = inner is not None or rng.random() < 0.3
    defs = [f"def f{k}():\n    return {k}\n" for k in range(10)]
    body = "X = 1\n\n\n" + "\n\n".join(defs)
    files = {"pkg/__init__.py": ""}
    if package:
        files[f"pkg/{target}/__init__.py"] = body
        if inner:
            files[f"pkg/{target}/{inner}.py"] = "def h():\n    return 7\n"
            files[f"pkg/{target}/user.py"] = f"from . import {inner}\nfrom .{inner} import h\n\nV = {inner}.h() + h()\n"
    else:
        files[f"pkg/{target}.py"] = body
    for k in range(rng.randint(1, 4)):
        files[f"pkg/mod{k}.py"] = "\n".join(project_importer(rng, target, inner, True, k)) + "\n"
    files["pkg/sub/__init__.py"] = ""
    sub = rng.choice([f"from .. import {target}\n\nV = {target}.f0()\n",
                      f"from ..{target} import f1\n\nV = f1()\n",
                      f"import pkg.{target}\n\nV = pkg.{target}.X\n"])
    files["pkg/sub/deep.py"] = sub
    files["main.py"] = "\n".join(project_importer(rng, target, inner, False, 9)) + "\n"
    out = {}
    for path, text in files.items():
        eol = "\r\n" if rng.random() < 0.15 else "\n"
        data = text.replace("\n", eol).encode()
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)
        out[path] = data
    return out


class ModuleRenamer(ast.NodeTransformer):
    """The original AST with the project's module renamed: in generated projects every
    `async`/`await` identifier names the module (or a name bound to it)."""

    def generic_visit(self, node):
        for field in ("id", "arg", "attr", "name", "asname", "module"):
            value = getattr(node, field, None)
            if isinstance(value, str):
                setattr(node, field, ".".join(MODULE_RENAMES.get(p, p) for p in value.split(".")))
        return super().generic_visit(node)


def moved(path):
    parts = path.split("/")
    parts = [MODULE_RENAMES.get(p, p) for p in parts[:-1]] + [
        MODULE_RENAMES.get(parts[-1][:-3], parts[-1][:-3]) + ".py"]
    return "/".join(parts)


def snapshot(root):
    out = {}
    for base, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in names:
            full = os.path.join(base, name)
            with open(full, "rb") as f:
                out[os.path.relpath(full, root)] = f.read()
    return out


class ProjectOracleTest(unittest.TestCase):
    def test_projects_against_cpython(self):
        rng = random.Random(SEED + 15)
        work = tempfile.mkdtemp(prefix="asyncfix-oracle-projects-")
        self.addCleanup(shutil.rmtree, work, ignore_errors=True)
        failures, modules_imported = [], 0
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        for n in range(PROJECTS):
            root = os.path.join(work, f"project{n:03d}")
            original = generate_project(rng, root)
            listing = "\n".join(f"--- {p}\n{d.decode()}" for p, d in sorted(original.items()))
            run = subprocess.run([BIN, "check", "--isolated", "--fix", "--unsafe-fixes", "--exit-zero", "--quiet", "."],
                                 cwd=root, capture_output=True, timeout=120)
            if run.returncode != 0:
                failures.append(f"project{n:03d}: exit {run.returncode}: {run.stderr.decode()}\n{listing}")
                continue
            fixed = snapshot(root)
            expected_paths = sorted(moved(p) for p in original)
            if sorted(fixed) != expected_paths:
                failures.append(f"project{n:03d}: files {sorted(fixed)}, expected {expected_paths}\n{listing}")
                continue
            for path, data in original.items():
                after = fixed[moved(path)]
                try:
                    tree_after = ast.parse(after)  # this Python's grammar: async/await are keywords
                except SyntaxError as e:
                    failures.append(f"project{n:03d}/{path}: does not compile after fixing: {e}\n"
                                    f"{after.decode()}\n{listing}")
                    continue
                want = ast.dump(ModuleRenamer().visit(ast.parse(data, feature_version=(3, 6))))
                if want != ast.dump(tree_after):
                    failures.append(f"project{n:03d}/{path}: AST differs beyond the module rename\n"
                                    f"{after.decode()}\n{listing}")
            for path in fixed:
                if not path.endswith(".py"):
                    continue
                module = path[:-3].replace("/", ".").removesuffix(".__init__")
                proc = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=root, capture_output=True,
                                      env=env, timeout=60)
                modules_imported += 1
                if proc.returncode != 0:
                    failures.append(f"project{n:03d}: `import {module}` fails: {proc.stderr.decode()[-400:]}\n"
                                    f"{listing}")
            again = subprocess.run([BIN, "check", "--isolated", "--fix", "--unsafe-fixes", "--quiet", "."],
                                   cwd=root, capture_output=True, timeout=120)
            if again.returncode != 0 or snapshot(root) != fixed:
                failures.append(f"project{n:03d}: a second run changed something or found something "
                                f"(exit {again.returncode}): {again.stdout.decode()}{again.stderr.decode()}")
        print(f"oracle: {PROJECTS} projects, {modules_imported} modules imported after fixing (seed {SEED + 15})",
              file=sys.stderr)
        if failures:
            self.fail(f"{len(failures)} failures:\n\n" + "\n\n".join(failures[:8]))



# ---- multi-file projects: public parameters named async/await (issue 15) ----
#
# Each project is a regular package `pkg` with a module `api` (in `pkg` or in `pkg/sub`) whose
# public function, class (`__init__`) and method take a parameter named `async` or `await`, and
# modules that call them by keyword through every import form — absolute, relative, aliased, a
# method of an instance the module made. The calls run at import time, so a keyword that does not
# match its parameter after fixing fails the import. Every call resolves, so `--fix` with safe
# fixes alone must rename each parameter together with its keyword arguments; then every file
# compiles, every module imports in a fresh interpreter, each AST is the original's with
# `async`/`await` renamed `async_`/`await_`, and a second run changes nothing. In some projects a
# module also calls the function through an object it does not know (`mod.f(…, async=…)`): the
# safe run must then leave that function's parameter and calls alone, and the unsafe run fixes all.

PARAM_RENAMES = {"async": "async_", "await": "await_"}


def names_caller(rng, api, kws, relative, k):
    """Lines of a module that calls the functions of `api` (a dotted module) by keyword."""
    f, c, m = kws
    parent, leaf = api.rsplit(".", 1)
    forms = [
        ([f"from {api} import f"], f"f({k}, {f}=True)"),
        ([f"import {api}"], f"{api}.f({k}, {f}=False)"),
        ([f"import {api} as a{k}"], f"a{k}.C({k}, {c}=2).v"),
        ([f"from {parent} import {leaf}"], f"{leaf}.C({k}, {c}=3).m({m}=4)"),
        ([f"from {api} import C as K{k}"], f"K{k}(1, {c}=5).m({m}=6)"),
    ]
    if relative:
        forms += [
            ([f"from . import {leaf}"], f"{leaf}.f({k}, {f}=7)"),
            ([f"from .{leaf} import f as g{k}"], f"g{k}({k}, {f}=8)"),
            ([f"from .{leaf} import C"], f"C({k}, {c}=9).m({m}=10)"),
        ]
    lines, uses = [], []
    for _ in range(rng.randint(1, 3)):
        imported, use = rng.choice(forms)
        lines += imported
        uses.append(use)
    lines += ["", "", "RESULT = [" + ", ".join(uses) + "]"]
    return lines


def generate_names_project(rng, root):
    """Writes a project under root; returns ({relative path: source bytes}, the keyword of the
    function `f` when a module calls it through an unknown object, else None)."""
    kws = [rng.choice(KEYWORDS) for _ in range(3)]
    deep = rng.random() < 0.4
    api = "pkg.sub.api" if deep else "pkg.api"
    f, c, m = kws
    files = {
        "pkg/__init__.py": "",
        api.replace(".", "/") + ".py": (f"def f(x, {f}=False):\n    return (x, {f})\n\n\n"
                                        f"class C(object):\n    def __init__(self, x, {c}=None):\n"
                                        f"        self.v = (x, {c})\n\n"
                                        f"    def m(self, {m}=0):\n        return {m}\n"),
    }
    if deep:
        files["pkg/sub/__init__.py"] = ""
        files["pkg/sub/near.py"] = "\n".join(names_caller(rng, api, kws, True, 5)) + "\n"
    for k in range(rng.randint(1, 3)):
        files[f"pkg/mod{k}.py"] = "\n".join(names_caller(rng, api, kws, not deep, k)) + "\n"
    # Every callable has a caller in another file (one no other file calls is renamed unsafely).
    files["main.py"] = "\n".join([f"from {api} import f as f_, C as C_"] + names_caller(rng, api, kws, False, 9) +
                                 [f"ALL = [f_(0, {f}=1), C_(0, {c}=2).m({m}=3)]"]) + "\n"
    unresolved = None
    if rng.random() < 0.3:
        unresolved = f
        files["pkg/dyn.py"] = f"def call(mod):\n    return mod.f(1, {f}=True)\n"
    out = {}
    for path, text in files.items():
        eol = "\r\n" if rng.random() < 0.15 else "\n"
        data = text.replace("\n", eol).encode()
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as fh:
            fh.write(data)
        out[path] = data
    return out, unresolved


class ParameterRenamer(ast.NodeTransformer):
    """The original AST with the promised renames: in these projects every `async`/`await`
    identifier is a parameter, a use of one, or a keyword argument."""

    def generic_visit(self, node):
        for field in ("id", "arg"):
            value = getattr(node, field, None)
            if isinstance(value, str) and value in PARAM_RENAMES:
                setattr(node, field, PARAM_RENAMES[value])
        return super().generic_visit(node)


def fix_projects_against_cpython(label, rng, generate, renamer, kept):
    """Generates PROJECTS projects with `generate(rng, root)` (its files, and a name some use
    reaches unresolved or None), fixes each with `check --fix` (and `--unsafe-fixes` where a use is
    unresolved, after checking that the safe run kept `kept(unresolved)` in the api module), and
    checks that every file compiles on this Python, its AST is the original's with `renamer`'s
    renames, every module imports, and a second run changes nothing. Returns the failures, the
    modules imported and the projects with an unresolved use."""
    work = tempfile.mkdtemp(prefix=f"asyncfix-oracle-{label}-")
    failures, modules_imported, unresolved_projects = [], 0, 0
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    try:
        for n in range(PROJECTS):
            name = f"{label}{n:03d}"
            root = os.path.join(work, name)
            original, unresolved = generate(rng, root)
            listing = "\n".join(f"--- {p}\n{d.decode()}" for p, d in sorted(original.items()))
            run = subprocess.run([BIN, "check", "--isolated", "--fix", "--quiet", "."],
                                 cwd=root, capture_output=True, timeout=120)
            if unresolved is not None:
                unresolved_projects += 1
                # The safe run leaves the name alone: a use may reach it unresolved.
                api = [p for p in original if p.endswith("api.py")][0]
                with open(os.path.join(root, api), "rb") as fh:
                    after = fh.read()
                if kept(unresolved).encode() not in after:
                    failures.append(f"{name}: the safe run renamed `{unresolved}` although pkg/dyn.py uses it "
                                    f"unresolved\n{after.decode()}\n{listing}")
                    continue
                run = subprocess.run([BIN, "check", "--isolated", "--fix", "--unsafe-fixes", "--quiet", "."],
                                     cwd=root, capture_output=True, timeout=120)
            if run.returncode != 0:
                failures.append(f"{name}: exit {run.returncode}: {run.stdout.decode()}{run.stderr.decode()}\n"
                                f"{listing}")
                continue
            fixed = snapshot(root)
            if sorted(fixed) != sorted(original):
                failures.append(f"{name}: files {sorted(fixed)}, expected {sorted(original)}")
                continue
            for path, data in original.items():
                after = fixed[path]
                try:
                    tree_after = ast.parse(after)  # this Python's grammar: async/await are keywords
                except SyntaxError as e:
                    failures.append(f"{name}/{path}: does not compile after fixing: {e}\n"
                                    f"{after.decode()}\n{listing}")
                    continue
                want = ast.dump(renamer().visit(ast.parse(data, feature_version=(3, 6))))
                if want != ast.dump(tree_after):
                    failures.append(f"{name}/{path}: AST differs beyond the renames\n{after.decode()}\n{listing}")
            for path in fixed:
                module = path[:-3].replace("/", ".").removesuffix(".__init__")
                proc = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=root, capture_output=True,
                                      env=env, timeout=60)
                modules_imported += 1
                if proc.returncode != 0:
                    failures.append(f"{name}: `import {module}` fails: {proc.stderr.decode()[-400:]}\n{listing}")
            again = subprocess.run([BIN, "check", "--isolated", "--fix", "--unsafe-fixes", "--quiet", "."],
                                   cwd=root, capture_output=True, timeout=120)
            if again.returncode != 0 or snapshot(root) != fixed:
                failures.append(f"{name}: a second run changed something or found something "
                                f"(exit {again.returncode}): {again.stdout.decode()}{again.stderr.decode()}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return failures, modules_imported, unresolved_projects


class PublicNamesOracleTest(unittest.TestCase):
    def test_public_parameters_against_cpython(self):
        failures, modules_imported, unresolved_projects = fix_projects_against_cpython(
            "names", random.Random(SEED + 153), generate_names_project, ParameterRenamer,
            lambda name: f"def f(x, {name}=False)")
        print(f"oracle: {PROJECTS} projects with public parameters ({unresolved_projects} with an unresolved "
              f"call), {modules_imported} modules imported after fixing (seed {SEED + 153})", file=sys.stderr)
        if failures:
            self.fail(f"{len(failures)} failures:\n\n" + "\n\n".join(failures[:8]))


# ---- multi-file projects: module-level names and attributes named async/await (issue 15) ----
#
# Each project is a regular package `pkg` with a module `api` (in `pkg` or in `pkg/sub`) that binds
# a module-level variable and a function named `async`/`await` (one each), and a class `C` with a
# class-level attribute and an attribute set on `self`, so named too. Other modules use them
# through every import form — `from api import NAME`, `… as alias`, `import api`, `api.NAME`,
# `from parent import api`, relative imports — and use the attributes on instances of `C`, on `C`
# itself and on `self` in subclasses. Everything runs at import time, so a use that no longer
# matches its definition fails the import. Every use resolves, so `--fix` with safe fixes alone
# must rename them all: then every file compiles, every module imports in a fresh interpreter,
# each AST is the original's with `async`/`await` renamed `async_`/`await_` wherever they occur,
# and a second run changes nothing. In some projects a module also reads the attribute set on
# `self` through an object it does not know (`o.NAME`): the safe run must then leave that
# attribute alone (it is unsafe), and the unsafe run fixes all.


def shared_user(rng, api, names, relative, k):
    """Lines of a module that uses the module-level names and attributes of `api`."""
    g, h, a, b = names
    parent, leaf = api.rsplit(".", 1)
    forms = [
        ([f"from {api} import {g}"], f"{g}"),
        ([f"from {api} import {g} as v{k}"], f"v{k}"),
        ([f"import {api}"], f"{api}.{g} + {api}.{h}(1)"),
        ([f"from {parent} import {leaf}"], f"{leaf}.{h}({leaf}.{g})"),
        ([f"import {api} as a{k}"], f"a{k}.{h}(2) + a{k}.C.{a}"),
        ([f"from {api} import C as K{k}"], f"K{k}().{b} + K{k}.{a}"),
        ([f"from {api} import {h}, C"], f"{h}(C().{b})"),
        ([f"from {api} import C", "", "", f"class S{k}(C):", "    def f(self):",
          f"        return self.{a} + self.{b}", ""], f"S{k}().f()"),
        ([f"from {api} import C", f"obj{k} = C()"], f"obj{k}.{b} + obj{k}.{a}"),
    ]
    if relative:
        forms += [
            ([f"from . import {leaf}"], f"{leaf}.{g} + {leaf}.C().{b}"),
            ([f"from .{leaf} import {h} as r{k}"], f"r{k}(3)"),
            ([f"from .{leaf} import {g}, C as Q{k}"], f"{g} + Q{k}.{a}"),
        ]
    lines, uses = [], []
    for _ in range(rng.randint(1, 3)):
        imported, use = rng.choice(forms)
        lines += imported
        uses.append(use)
    lines += ["", "", "RESULT = [" + ", ".join(uses) + "]"]
    return lines


def generate_shared_project(rng, root):
    """Writes a project under root; returns ({relative path: source bytes}, the attribute set on
    `self` when a module reads it through an unknown object, else None)."""
    g, h = rng.sample(KEYWORDS, 2)
    a, b = rng.sample(KEYWORDS, 2)
    names = (g, h, a, b)
    deep = rng.random() < 0.4
    api = "pkg.sub.api" if deep else "pkg.api"
    files = {
        "pkg/__init__.py": "",
        api.replace(".", "/") + ".py": (f"{g} = 10\n\n\ndef {h}(x):\n    return x + {g}\n\n\n"
                                        f"class C(object):\n    {a} = 1\n\n    def __init__(self):\n"
                                        f"        self.{b} = 2\n\n    def total(self):\n"
                                        f"        return self.{a} + self.{b}\n\n\n"
                                        f"CHECK = C().total() + {h}({g})\n"),
    }
    if deep:
        files["pkg/sub/__init__.py"] = ""
        files["pkg/sub/near.py"] = "\n".join(shared_user(rng, api, names, True, 5)) + "\n"
    for k in range(rng.randint(1, 3)):
        files[f"pkg/mod{k}.py"] = "\n".join(shared_user(rng, api, names, not deep, k)) + "\n"
    # Every name is used in another module at least once (a name no other file uses keeps its
    # unsafe file-by-file fix: callers outside the run may use it).
    files["main.py"] = "\n".join([f"from {api} import {g} as G9, {h} as H9, C as C9"] +
                                 shared_user(rng, api, names, False, 9) +
                                 [f"ALL = H9(G9) + C9.{a} + C9().{b}"]) + "\n"
    unresolved = None
    if rng.random() < 0.3:
        unresolved = b
        files["pkg/dyn.py"] = f"def read(o):\n    return o.{b}\n"
    out = {}
    for path, text in files.items():
        eol = "\r\n" if rng.random() < 0.15 else "\n"
        data = text.replace("\n", eol).encode()
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as fh:
            fh.write(data)
        out[path] = data
    return out, unresolved


class NameRenamer(ast.NodeTransformer):
    """The original AST with the promised renames: in these projects every `async`/`await`
    identifier — a name, an attribute, a `def`, an imported name — is one of the renamed ones."""

    def generic_visit(self, node):
        for field in ("id", "arg", "attr", "name", "asname"):
            value = getattr(node, field, None)
            if isinstance(value, str) and value in PARAM_RENAMES:
                setattr(node, field, PARAM_RENAMES[value])
        return super().generic_visit(node)


class SharedNamesOracleTest(unittest.TestCase):
    def test_module_level_names_and_attributes_against_cpython(self):
        failures, modules_imported, unresolved_projects = fix_projects_against_cpython(
            "shared", random.Random(SEED + 157), generate_shared_project, NameRenamer,
            lambda name: f"self.{name} = 2")
        print(f"oracle: {PROJECTS} projects with module-level names and attributes ({unresolved_projects} with an "
              f"unresolved use), {modules_imported} modules imported after fixing (seed {SEED + 157})",
              file=sys.stderr)
        if failures:
            self.fail(f"{len(failures)} failures:\n\n" + "\n\n".join(failures[:8]))


if __name__ == "__main__":
    unittest.main()
