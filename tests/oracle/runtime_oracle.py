#!/usr/bin/env python3
"""The runtime oracle: legacy programs run on CPython 3.6 and, fixed by asyncfix, on 3.8–3.13.

The AST oracle (test_oracle.py) proves that asyncfix's edits are where they should be; this one
proves that the fixed programs still *do* the same thing. From a fixed seed it writes legacy
programs that use `async`/`await` as names in every form the rules claim (parameters, keywords
at call sites, `**kwargs` sinks and forwarding, class and instance attributes, `getattr`/
`setattr`/`hasattr` with literal names, globals, closures, comprehensions, decorators, default
values, lambdas, class keywords) and print what they compute, and whole projects (a module or
package named `async`/`await` imported in every absolute and relative form, `__init__`
re-exports of its function — direct, aliased, through another module, star, bound twice — taken
by importers through the package or a top-level module that hands it on again, `__all__` and star
imports, a namespace package, importers whose file names are not identifiers, loaded with
importlib). The first projects of each round take one re-export each, every importer through it.

Each program runs on CPython 3.6, where those names are legal. It is then fixed twice, on
copies: `asyncfix check --fix` (safe fixes) and `asyncfix check --fix --unsafe-fixes`, and each
fixed copy runs on every CPython 3.8–3.13 found. Verdicts, per program and mode:

- same: every version printed exactly what 3.6 printed, and ended the same way;
- refused: the fixed program does not compile (a name was left for the user) and asyncfix said
  so (exit code 1, the findings it did not fix listed; 2 when it refused a module rename and
  said why) — but not a module renamed while a file
  still imports it by its old path (a half-made fix, a failure);
- changed, unsafe: with `--unsafe-fixes` only, the output differs, an unsafe fix was applied,
  and the program holds a form whose rename asyncfix documents as behaviour-changing (a name
  spelt in a string: `getattr(o, 'async')`, `__all__`; a keyword into a `**kwargs` whose keys
  are printed while the file also renames a parameter or attribute of that name, or that a
  `*args` follows);
- anything else is a failure, listed with the program's files kept.

Programs are run by tests/oracle/runtime_runner.py, one interpreter per version, each program
in a forked child with a timeout (stdin a pipe nobody writes: a program that reads it, loops, or
waits on a process it spawned is killed with its process group). Programs that time out or fail
on 3.6 are counted apart and not compared. The generator writes only Python 3.6 grammar; every
program's 3.6 run proves it (a generated program that 3.6 rejects fails the run).

Usage:
  runtime_oracle.py [--programs N] [--projects N] [--seed S] [--hours H] [--keep DIR]
                    [--summary FILE] [--bin PATH] [--pyenv ROOT] [--timeout SECONDS]
`--hours` repeats rounds with successive seeds until the time is up (the long mode).
"""

import argparse
import concurrent.futures
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "runtime_runner.py")
FIXED_VERSIONS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13")
KEYWORDS = ("async", "await")

# ---------------------------------------------------------------------------------------------
# File programs: fragments. Each takes (N, i) — the keyword used as a name, an index that keeps
# the fragment's other names unique — and returns (lines, tags). Tags: `param` (a parameter
# named N), `attr` (an attribute named N), `sink` (a keyword N= whose key the program prints),
# `string` (N spelt in a string that names the attribute or global), `star` (a keyword N= before
# a `*args`), `owner` (binds N at module
# level: one per keyword and program), `bounded` (loops, reads stdin or waits on a child),
# `fails` (raises on purpose).
# ---------------------------------------------------------------------------------------------

FRAGMENTS = []


def fragment(weight=1, *tags):
    def wrap(fn):
        fn.tags = set(tags)
        fn.weight = weight
        FRAGMENTS.append(fn)
        return fn
    return wrap


@fragment(3, "param")
def parameter(N, i):
    return [f"def par{i}(a, {N}=2):", f"    return a * {N}",
            f"print('par{i}', par{i}(3), par{i}(3, {N}=4), par{i}({N}=5, a=1))"]


@fragment(2, "param")
def private_parameter(N, i):
    return [f"def _pp{i}(x, {N}=None):", f"    return x if {N} is None else ({N}, x)",
            f"print('pp{i}', _pp{i}(1), _pp{i}(2, {N}='k'), _pp{i}(3, {i}))"]


@fragment(1, "param")
def keyword_only(N, i):
    return [f"def ko{i}(*, {N}, c=1):", f"    return ({N}, c)",
            f"print('ko{i}', ko{i}({N}=2), ko{i}(c=3, {N}=4))"]


@fragment(1, "param")
def default_value(N, i):
    return [f"def dv{i}(x, {N}=[]):", f"    {N}.append(x)", f"    return len({N})",
            f"print('dv{i}', dv{i}(1), dv{i}(2), dv{i}(3, {N}=[]))"]


@fragment(3, "sink")
def kwargs_sink(N, i):
    return [f"def sink{i}(*args, **kw):", "    return args, sorted(kw.items())",
            f"print('sink{i}', sink{i}(1, {N}=2, b=3))", f"print('sink{i}', sink{i}({N}={i}))"]


@fragment(2, "sink")
def kwargs_get(N, i):
    return [f"def get{i}(**kw):", f"    return kw.get('{N}', 'missing'), len(kw)",
            f"print('get{i}', get{i}({N}=True), get{i}(x=1))"]


@fragment(1, "sink", "star")
def kwargs_then_star(N, i):
    # `f(N=1, *rest)`: a keyword before `*args` (legal, and the only place `**{…}` cannot go).
    return [f"def ks{i}(*args, **kw):", "    return args, sorted(kw)",
            f"rest{i} = [1, 2]", f"print('ks{i}', ks{i}({N}=1, *rest{i}))"]


@fragment(2, "param")
def forwarding(N, i):
    return [f"def inner{i}(x, {N}=False):", f"    return ('inner', x, {N})",
            f"def outer{i}(x, **kw):", f"    return inner{i}(x, **kw)",
            f"print('fwd{i}', outer{i}(1), outer{i}(2, {N}=True))"]


@fragment(2, "sink")
def builtin_callee(N, i):
    return [f"print('dict{i}', sorted(dict({N}=1, x=2).items()))",
            f"print('fmt{i}', '{{{N}}}/{{x}}'.format({N}=7, x={i}))"]


@fragment(1, "sink")
def partial_callee(N, i):
    return ["import functools", f"def pc{i}(a, **kw):", "    return a, sorted(kw.items())",
            f"p{i} = functools.partial(pc{i}, {N}='p')", f"print('pc{i}', p{i}(1), p{i}(2, {N}='q'))"]


@fragment(2, "attr")
def namespace_attribute(N, i):
    return ["import types", f"ns{i} = types.SimpleNamespace({N}={i}, b=1)",
            f"print('ns{i}', ns{i}.{N}, ns{i}.b)", f"ns{i}.{N} += 1", f"print('ns{i}', ns{i}.{N})"]


@fragment(3, "attr")
def class_attribute(N, i):
    return [f"class CA{i}:", f"    {N} = {i}", "    def get(self):", f"        return self.{N}",
            f"o{i} = CA{i}()", f"print('ca{i}', CA{i}.{N}, o{i}.get())", f"o{i}.{N} = 'inst'",
            f"print('ca{i}', o{i}.get(), CA{i}.{N})"]


@fragment(2, "attr")
def subclass_instance(N, i):
    return [f"class Base{i}:", f"    {N} = 'class'", "    def __init__(self, flag):",
            "        if flag:", f"            self.{N} = 'instance'", f"class Sub{i}(Base{i}):", "    pass",
            f"print('sub{i}', Sub{i}(False).{N}, Sub{i}(True).{N}, Base{i}.{N})"]


@fragment(2, "attr", "string")
def reflection(N, i):
    return [f"class R{i}:", "    def __init__(self):", f"        self.{N} = {i}", f"r{i} = R{i}()",
            f"print('refl{i}', hasattr(r{i}, '{N}'), getattr(r{i}, '{N}', None))",
            f"setattr(r{i}, '{N}', 'set')", f"print('refl{i}', r{i}.{N}, sorted(vars(r{i})))"]


@fragment(1)
def reflection_only(N, i):
    # The name only in strings: nothing to flag, nothing to change.
    return [f"class Q{i}:", "    pass", f"q{i} = Q{i}()", f"setattr(q{i}, '{N}', {i})",
            f"print('q{i}', getattr(q{i}, '{N}'), hasattr(q{i}, '{N}'), '{N}' in vars(q{i}))"]


@fragment(2, "owner")
def global_name(N, i):
    return [f"{N} = {i}", f"def gl{i}():", f"    global {N}", f"    {N} += 1", f"    return {N}",
            f"def rd{i}(x={N}):", f"    return x, {N}", f"print('glob{i}', gl{i}(), rd{i}(), {N})"]


@fragment(1, "owner", "string")
def global_reflection(N, i):
    return [f"{N} = 'g{i}'", f"print('gr{i}', globals().get('{N}'), {N})"]


@fragment(2)
def closure(N, i):
    return [f"def mk{i}():", f"    {N} = [{i}]", "    def inner():", f"        nonlocal {N}",
            f"        {N} = {N} + [1]", f"        return len({N})", "    return inner", f"c{i} = mk{i}()",
            f"print('clo{i}', c{i}(), c{i}())"]


@fragment(2)
def comprehension(N, i):
    return [f"print('comp{i}', [{N} * 2 for {N} in range(3)], "
            f"sorted({{{N}: {i} for {N} in 'ab'}}.items()), list(({N} + 1 for {N} in (1, 2))), "
            f"sorted({{{N} % 2 for {N} in range(5)}}))"]


@fragment(2, "owner")
def decorator(N, i):
    return [f"def {N}(fn):", "    def wrapped(*a, **k):", "        return ('dec', fn(*a, **k))",
            "    return wrapped", f"@{N}", f"def decd{i}(x):", f"    return x + {i}", f"print('dec{i}', decd{i}(1))"]


@fragment(1, "owner")
def function_name(N, i):
    return [f"def {N}(x):", "    return x * 2", f"print('fn{i}', {N}({i}), {N}({N}(1)))"]


@fragment(1, "owner")
def class_name(N, i):
    return [f"class {N}(object):", "    def __repr__(self):", f"        return 'obj{i}'",
            f"print('cls{i}', {N}(), isinstance({N}(), {N}))"]


@fragment(2, "param")
def lambda_parameter(N, i):
    return [f"lam{i} = lambda {N}=1, b=2: {N} + b", f"print('lam{i}', lam{i}(), lam{i}({N}=5), lam{i}(7, 1))"]


@fragment(2)
def local_targets(N, i):
    return [f"def loc{i}(items):", "    total = 0", f"    for {N} in items:", f"        total += {N}",
            "    try:", "        raise ValueError(total)", f"    except ValueError as {N}:",
            f"        total = str({N})", f"    with open(__file__) as {N}:", f"        first = {N}.readline()[:1]",
            "    return total, first", f"print('loc{i}', loc{i}([1, 2, {i}]))"]


@fragment(1, "param")
def f_string(N, i):
    return [f"def fs{i}({N}):", "    return f'<{" + N + "}>'", f"print('fs{i}', fs{i}({i}), fs{i}({N}='x'))"]


@fragment(1, "sink")
def class_keyword(N, i):
    return [f"class Meta{i}:", "    seen = None", "    def __init_subclass__(cls, **kw):",
            "        cls.seen = sorted(kw.items())", f"class Kid{i}(Meta{i}, {N}={i}):", "    pass",
            f"print('ck{i}', Kid{i}.seen)"]


@fragment(2, "param")
def method_parameter(N, i):
    return [f"class M{i}:", f"    def run(self, x, {N}=False):", f"        return (x, {N})", f"m{i} = M{i}()",
            f"print('meth{i}', m{i}.run(1), m{i}.run(2, {N}=True), M{i}.run(m{i}, 3, {N}=0))"]


@fragment(1)
def coroutine(N, i):
    return ["import asyncio", f"async def co{i}(x):", "    await asyncio.sleep(0)", "    return x * 2",
            f"loop{i} = asyncio.new_event_loop()", f"print('co{i}', loop{i}.run_until_complete(co{i}({i})))",
            f"loop{i}.close()"]


@fragment(1)
def spawn(N, i):
    return ["import subprocess, sys",
            f"print('sp{i}', subprocess.check_output([sys.executable, '-c', 'print(6 * 7)']).decode().strip())"]


# Bounded and failing programs: a handful per round (see generate_file).
def loops(N, i):
    return [f"{N}_count = 0", "while True:", "    pass"]


def reads_stdin(N, i):
    return ["import sys", "print('read', sys.stdin.readline())"]


def waits_on_child(N, i):
    return ["import subprocess, sys",
            "subprocess.call([sys.executable, '-c', 'import time; time.sleep(3600)'])"]


def fails(N, i):
    return [f"raise RuntimeError('deliberate {i}')"]


SPECIAL = {"loops": loops, "stdin": reads_stdin, "spawn-wait": waits_on_child, "fails": fails}


def hazards(tags):
    """The forms whose behaviour an unsafe fix may change, as asyncfix documents them."""
    found = set()
    if "string" in tags:
        found.add("string")
    if "sink" in tags and ("param" in tags or "attr" in tags):
        found.add("sink-with-rename")
    if "star" in tags:
        found.add("keyword-before-star")  # `f(N=1, *rest)`: `**{…}` cannot go before `*rest`
    return found


# What nothing outside the file can see: a program of these alone is fixed by safe fixes.
LOCAL = {private_parameter, closure, comprehension, local_targets, reflection_only, coroutine, spawn,
         kwargs_sink, kwargs_get, builtin_callee, partial_callee, class_keyword}


def generate_file(rng, special=None, local_only=False):
    """One file program: (files {path: text}, main, tags)."""
    pool = [f for f in FRAGMENTS if f in LOCAL] if local_only else FRAGMENTS
    weights = [f.weight for f in pool]
    lines, tags, owners = [], set(), set()
    for i in range(rng.randint(2, 6)):
        f = rng.choices(pool, weights)[0]
        N = rng.choice(KEYWORDS)
        if "owner" in f.tags:
            if N in owners:
                continue
            owners.add(N)
        lines += f(N, i)
        tags |= {f"{t}:{N}" for t in f.tags} | f.tags
    if special:
        lines += SPECIAL[special](rng.choice(KEYWORDS), 99)
        tags.add("bounded" if special != "fails" else "fails")
    # Hazards hold per keyword: a sink of `async` and a parameter `await` do not meet.
    per_keyword = set()
    for N in KEYWORDS:
        per_keyword |= hazards({t.split(":")[0] for t in tags if t.endswith(":" + N)})
    text = "\n".join(lines) + "\n"
    return {"main.py": text}, "main.py", sorted((tags & {"bounded", "fails"}) | per_keyword)


# ---------------------------------------------------------------------------------------------
# Projects: a package `pkg` holding a module or package named K (async/await) and its importers.
# ---------------------------------------------------------------------------------------------

REEXPORTS = ("direct", "alias", "chain", "try", "star", "star-chain")


def generate_project(rng, nonidentifier_relative=True, forced=None):
    """One project: (files, main, tags). `forced`: how `pkg/__init__.py` re-exports `helper`
    (one of REEXPORTS), every importer taking it through that re-export."""
    K = rng.choice(KEYWORDS)
    P = rng.choice([k for k in KEYWORDS])  # the parameter's name in the module: async or await
    as_package = rng.random() < 0.4
    has_all = rng.random() < 0.35
    global_k = rng.random() < 0.5  # a module-level name K inside module K
    param_named = rng.random() < 0.7  # helper's parameter is P (else `flag`)
    sink = rng.random() < 0.4
    # How `pkg/__init__.py` hands `helper` on (issue 32): importers that take it from `pkg` must
    # be renamed with its parameter. A star re-export would also bind the module-level name K,
    # hiding the submodule K from `from pkg import K` even on 3.6: not with `global_k`.
    reexport = rng.choice(["none"] * 4 + [r for r in REEXPORTS if not (global_k and r.startswith("star"))])
    if forced:
        reexport = forced
        global_k = global_k and not forced.startswith("star")
    files, tags = {}, set()
    param = P if param_named else "flag"
    mod = [f"VALUE = 'v-{K}'", f"def helper(x, {param}=1):", f"    return ('helper', x, {param})",
           "class Thing:", "    size = 2", "    def __init__(self):", "        self.kind = 'thing'"]
    if param_named and P == K:
        tags.add("param")  # a keyword `K=` to the sink may be renamed with the parameter
    if global_k:
        mod += [f"{K} = 'module-{K}'"]
    if sink:
        mod += ["def sink(**kw):", "    return sorted(kw)"]
        tags.add("sink")
    exported = ["VALUE", "helper", "Thing"] + (["sink"] if sink else []) + ([K] if global_k else [])
    if has_all:
        mod += [f"__all__ = {exported!r}"]
        if global_k:
            tags.add("string")  # `__all__` spells the name: a star import follows the string
    modpath = f"pkg/{K}/__init__.py" if as_package else f"pkg/{K}.py"
    files[modpath] = "\n".join(mod) + "\n"
    if as_package:
        files[f"pkg/{K}/sub.py"] = "def deep():\n    return 'deep'\n"
    init = ["NAME = 'pkg'"]
    handed = "helper"  # the name `pkg` hands it on as
    if reexport == "direct":
        init += [f"from .{K} import helper", f"from . import {K}"]
    elif reexport == "alias":
        init += [f"from pkg.{K} import helper as h", f"from . import {K}"]
        handed = "h"
    elif reexport == "chain":
        files["pkg/api.py"] = f"from .{K} import helper\n"
        init += ["from .api import helper as run"]
        handed = "run"
    elif reexport == "try":  # bound twice: the view cannot tie its importers to `helper`
        init += ["try:", f"    from .{K} import helper", "except ImportError:", "    helper = None"]
    elif reexport == "star":
        init += [f"from .{K} import *"]
    elif reexport == "star-chain":
        files["pkg/api.py"] = f"from .{K} import *\n"
        init += ["from .api import *"]
    if reexport != "none":
        tags.add("reexport-" + reexport)
        files["tools.py"] = f"from pkg import {handed} as run\n"  # a top-level module hands it on again
    files["pkg/__init__.py"] = "\n".join(init) + "\n"

    def call_lines(acc, modacc):
        """What an importer computes with helper `acc` and module `modacc` (None: not bound)."""
        out = [f"    out.append({acc}(1))"]
        out.append(f"    out.append({acc}(2, {param}=3))" if param_named else f"    out.append({acc}(2, flag=3))")
        if modacc:
            out.append(f"    out.append({modacc}.VALUE)")
            out.append(f"    out.append({modacc}.Thing().kind)")
            if global_k:
                out.append(f"    out.append({modacc}.{K})")
            if sink:
                out.append(f"    out.append({modacc}.sink({K}=1, other=2))")
        return out

    absolute = [
        (f"import pkg.{K}", f"pkg.{K}.helper", f"pkg.{K}"),
        (f"import pkg.{K} as m", "m.helper", "m"),
        (f"from pkg import {K}", f"{K}.helper", K),
        (f"from pkg import {K} as m", "m.helper", "m"),
        (f"from pkg.{K} import helper", "helper", None),
        (f"from pkg.{K} import helper as h", "h", None),
        (f"from pkg.{K} import *", "helper", None),
    ]
    if global_k:
        absolute.append((f"from pkg.{K} import helper, {K}", "helper", None))
    relative = [
        (f"from . import {K}", f"{K}.helper", K),
        (f"from .{K} import helper", "helper", None),
        (f"from .{K} import helper as h", "h", None),
        (f"from .{K} import *", "helper", None),
        (f"from . import {K} as m", "m.helper", "m"),
    ]
    upward = [
        (f"from .. import {K}", f"{K}.helper", K),
        (f"from ..{K} import helper", "helper", None),
        (f"from ..{K} import *", "helper", None),
    ]
    if as_package:
        absolute.append((f"import pkg.{K}.sub\nfrom pkg.{K} import helper", "helper", f"pkg.{K}"))
        relative.append((f"from .{K}.sub import deep\nfrom .{K} import helper", "helper", None))

    if reexport != "none":
        through = [(f"from pkg import {handed}", handed, None), ("import pkg", f"pkg.{handed}", None),
                   (f"from pkg import {handed} as hh", "hh", None), ("from tools import run", "run", None)]
        if rng.random() < 0.4 or forced:  # every importer takes it through the re-export
            absolute[:], relative[:], upward[:] = through, [(f"from . import {handed}", handed, None)], \
                [(f"from .. import {handed}", handed, None)]
        else:
            absolute += through
            relative.append((f"from . import {handed}", handed, None))
            upward.append((f"from .. import {handed}", handed, None))

    users = []  # (module name to import, file path)
    for u in range(rng.randint(2, 4)):
        kind = rng.choice(["abs", "rel", "up", "ns"])
        if kind == "abs":
            imp, acc, modacc = rng.choice(absolute)
            path, name = f"pkg/user{u}.py", f"pkg.user{u}"
        elif kind == "rel":
            imp, acc, modacc = rng.choice(relative)
            path, name = f"pkg/rel{u}.py", f"pkg.rel{u}"
        elif kind == "up":
            imp, acc, modacc = rng.choice(upward)
            files.setdefault("pkg/sub/__init__.py", "")
            path, name = f"pkg/sub/up{u}.py", f"pkg.sub.up{u}"
        else:
            imp, acc, modacc = rng.choice(absolute)
            path, name = f"nsp/tool{u}.py", f"nsp.tool{u}"  # nsp has no __init__.py
        if "import *" in imp and has_all and global_k:
            tags.add("string")
        body = imp.split("\n") + ["def report():", "    out = []"] + call_lines(acc, modacc) + ["    return out"]
        files[path] = "\n".join(body) + "\n"
        users.append(name)
    # An importer whose file name is no identifier, loaded with importlib (issue 30's case).
    odd = rng.random() < 0.5
    if odd:
        if nonidentifier_relative and rng.random() < 0.5:
            imp, acc, modacc = rng.choice(relative)
        else:
            imp, acc, modacc = rng.choice(absolute)
        body = imp.split("\n") + ["def report():", "    out = []"] + call_lines(acc, modacc) + ["    return out"]
        files["pkg/rpc@v2.py"] = "\n".join(body) + "\n"
        users.append("pkg.rpc@v2")
        tags.add("nonidentifier-importer" + ("-relative" if imp.startswith("from .") else ""))
    # A namespace package holding its own module K.
    if rng.random() < 0.3:
        files[f"nsp/{K}.py"] = f"def where():\n    return 'nsp-{K}'\n"
        files["nsp/ns_user.py"] = (f"from nsp.{K} import where\nimport nsp.{K}\n"
                                   f"def report():\n    return [where(), nsp.{K}.where()]\n")
        users.append("nsp.ns_user")
    main_name = rng.choice(["main.py", "run-me.py", "train@v2.py"])
    main = ["import importlib", "import pkg"]
    for u in users:
        main += [f"print({u!r}, importlib.import_module({u!r}).report())"]
    main += ["print('pkg', pkg.NAME)"]
    files[main_name] = "\n".join(main) + "\n"
    found = hazards(tags)
    return files, main_name, sorted(found | {t for t in tags if t.startswith(("nonidentifier", "reexport"))})


# ---------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------

def interpreters(pyenv):
    found = {}
    for v in ("3.6",) + FIXED_VERSIONS:
        root = os.path.join(pyenv, "versions")
        if not os.path.isdir(root):
            break
        for d in sorted(os.listdir(root)):
            exe = os.path.join(root, d, "bin", "python")
            if (d == v or d.startswith(v + ".")) and os.access(exe, os.X_OK):
                found[v] = exe
    return found


def write_program(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)


def run_batch(exe, programs, scratch, tag):
    """Runs `programs` ([{id, cwd, main, timeout}]) in one interpreter; returns {id: result}."""
    manifest = os.path.join(scratch, f"manifest-{tag}.json")
    results = os.path.join(scratch, f"results-{tag}.json")
    with open(manifest, "w") as f:
        json.dump(programs, f)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
    env.pop("PYTHONPATH", None)
    env.pop("PYTHONHOME", None)
    budget = sum(p["timeout"] for p in programs) + 120
    subprocess.run([exe, RUNNER, manifest, results], check=True, env=env, timeout=budget,
                   stdout=subprocess.DEVNULL)
    with open(results) as f:
        return json.load(f)


def refusals_only(stderr):
    """Whether every error asyncfix printed is a module rename it refused (exit code 2: the run
    leaves that module and its importers as they were, and says why)."""
    errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
    return bool(errors) and all(line.endswith("; not renamed") for line in errors)


def asyncfix(binary, root, *args):
    p = subprocess.run([binary, "check", *args, "."], cwd=root, capture_output=True, text=True, timeout=300)
    if p.returncode not in (0, 1) and not (p.returncode == 2 and refusals_only(p.stderr)):
        raise RuntimeError(f"asyncfix {' '.join(args)} in {root}: exit {p.returncode}\n{p.stderr}")
    return p


def fix_program(binary, work, pid):
    """Copies of the program fixed both ways; returns what asyncfix said."""
    src = os.path.join(work, pid, "orig")
    report = json.loads(asyncfix(binary, src, "--unsafe-fixes", "--output-format", "json").stdout or "[]")
    info = {"unsafe_fixes": sum(1 for d in report if d.get("fix") and d["fix"]["applicability"] == "unsafe"),
            "titles": sorted({d["fix"]["message"] for d in report if d.get("fix")})}
    for mode, args in (("safe", ["--fix"]), ("unsafe", ["--fix", "--unsafe-fixes"])):
        dst = os.path.join(work, pid, mode)
        shutil.copytree(src, dst)
        p = asyncfix(binary, dst, *args, "--output-format", "concise")
        info[mode + "_exit"] = p.returncode
        info[mode + "_left"] = p.stdout.strip().splitlines()[:5]
        # A module the fix renamed away, while some file still imports it by its old path.
        gone = [rel for rel in files_of(src) if not os.path.exists(os.path.join(dst, rel))]
        info[mode + "_stale_import"] = stale_import(dst, gone)
    return info


def stale_import(root, gone):
    """The first file under `root` that still names a module whose file `gone` lists (moved away
    by the fix): by its dotted path anywhere, or relatively from inside its parent package."""
    for rel in gone:
        if not rel.endswith(".py"):
            continue
        parts = rel[:-3].split("/")
        if parts[-1] == "__init__":
            parts.pop()
        dotted, stem, parent = ".".join(parts), parts[-1], "/".join(parts[:-1])
        absolute = re.compile(r"(?<![\w.])" + re.escape(dotted) + r"(?!\w)")
        relative = re.compile(r"from \.+" + re.escape(stem) + r"\b|from \.+ import [^\n]*\b" + re.escape(stem) + r"\b")
        for name in files_of(root):
            if not name.endswith(".py"):
                continue
            with open(os.path.join(root, name), encoding="utf-8") as f:
                text = f.read()
            if absolute.search(text) or (name.startswith(parent + "/") and relative.search(text)):
                return f"{name} still imports {dotted}"
    return None


def files_of(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)


def same(a, b):
    return a["status"] == b["status"] and a["stdout"] == b["stdout"] and \
        (a["status"] != "exception" or a["exception"] == b["exception"])


def verdict(mode, base, fixed, info, tags):
    """One of same / refused / changed-unsafe / fail:<why>."""
    if all(same(base, r) for r in fixed.values()):
        return "same"
    syntax = [v for v, r in fixed.items() if r["exception"] == "SyntaxError"]
    if info[mode + "_stale_import"]:
        return f"fail: a module was renamed while a file still imports its old name ({info[mode + '_stale_import']})"
    if syntax and info[mode + "_exit"] in (1, 2):
        return "refused"
    hz = [t for t in tags if t in ("string", "sink-with-rename", "keyword-before-star")]
    if mode == "unsafe" and hz and info["unsafe_fixes"]:
        return "changed-unsafe"
    v, r = next((v, r) for v, r in fixed.items() if not same(base, r))
    return f"fail: on {v} {r['status']} {r['exception'] or ''}, asyncfix exit {info[mode + '_exit']}"


def run_round(args, seed, exes, counts, failures):
    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix="asyncfix-runtime-")
    try:
        programs = []  # (id, files, main, tags)
        # One program of each special kind per round, spread over the round.
        specials = list(SPECIAL) if args.specials else []
        step = max(1, args.programs // max(1, len(specials)))
        for n in range(args.programs):
            special = specials[n // step] if n % step == 0 and n // step < len(specials) else None
            files, main, tags = generate_file(rng, special, local_only=rng.random() < 0.3)
            programs.append((f"f{seed}-{n}", files, main, tags))
        for n in range(args.projects):
            # The first projects of a round: one of each re-export, every importer through it.
            forced = REEXPORTS[n] if n < len(REEXPORTS) else None
            files, main, tags = generate_project(rng, args.nonidentifier_relative, forced)
            programs.append((f"p{seed}-{n}", files, main, tags))
        for pid, files, main, tags in programs:
            write_program(os.path.join(work, pid, "orig"), files)
        base = run_batch(exes["3.6"], [{"id": pid, "cwd": os.path.join(work, pid, "orig"), "main": main,
                                         "timeout": args.timeout} for pid, _, main, _ in programs], work, "3.6")
        kept = []
        for pid, files, main, tags in programs:
            r = base[pid]
            counts["programs"] += 1
            counts["projects" if pid.startswith("p") else "files"] += 1
            if r["status"] == "timeout":
                counts["timeout on 3.6 (not compared)"] += 1
                if "bounded" not in tags:
                    failures.append((pid, files, "timed out on 3.6 without looping, reading or waiting"))
                continue
            if r["status"] != "ok":
                counts["failed on 3.6 (not compared)"] += 1
                if "fails" not in tags:  # a generator bug: code 3.6 rejects, or a mistake in a template
                    failures.append((pid, files, f"3.6 run failed: {r['exception']}\n{r['stdout']}"))
                continue
            if "bounded" in tags:
                counts["bounded program that ended on 3.6"] += 1
            kept.append((pid, files, main, tags))
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            infos = dict(zip([k[0] for k in kept], pool.map(lambda k: fix_program(args.bin, work, k[0]), kept)))
        batches = {}
        for v in FIXED_VERSIONS:
            if v not in exes:
                continue
            batch = [{"id": f"{pid}/{mode}", "cwd": os.path.join(work, pid, mode), "main": main,
                      "timeout": args.timeout} for pid, _, main, _ in kept for mode in ("safe", "unsafe")]
            batches[v] = batch
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {v: pool.submit(run_batch, exes[v], b, work, v) for v, b in batches.items()}
            results = {v: f.result() for v, f in futures.items()}
        for pid, files, main, tags in kept:
            for mode in ("safe", "unsafe"):
                fixed = {v: results[v][f"{pid}/{mode}"] for v in results}
                what = verdict(mode, base[pid], fixed, infos[pid], tags)
                counts[f"{mode}: {what.split(':')[0]}"] += 1
                if what.startswith("fail"):
                    fixed_files = {}
                    for rel in sorted(files):
                        p = os.path.join(work, pid, mode, rel)
                        if os.path.exists(p):
                            with open(p, encoding="utf-8") as f:
                                fixed_files[rel] = f.read()
                    detail = (f"--{mode}: {what}\ntags: {tags}\nasyncfix: {infos[pid]}\n"
                              f"3.6 printed:\n{base[pid]['stdout']}\nfixed printed:\n"
                              f"{next(r for r in fixed.values() if not same(base[pid], r))['stdout']}")
                    failures.append((pid, files, detail, fixed_files))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def keep_failures(directory, failures):
    os.makedirs(directory, exist_ok=True)
    for n, failure in enumerate(failures):
        pid, files, detail = failure[:3]
        root = os.path.join(directory, f"{n:03d}-{pid}")
        write_program(os.path.join(root, "orig"), files)
        if len(failure) > 3:
            write_program(os.path.join(root, "fixed"), failure[3])
        with open(os.path.join(root, "WHY.txt"), "w") as f:
            f.write(detail + "\n")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--programs", type=int, default=int(os.environ.get("ASYNCFIX_RUNTIME_PROGRAMS", "200")))
    p.add_argument("--projects", type=int, default=int(os.environ.get("ASYNCFIX_RUNTIME_PROJECTS", "40")))
    p.add_argument("--seed", type=int, default=int(os.environ.get("ASYNCFIX_RUNTIME_SEED", "20261206")))
    p.add_argument("--hours", type=float, default=0.0, help="repeat rounds with successive seeds this long")
    p.add_argument("--timeout", type=float, default=float(os.environ.get("ASYNCFIX_RUNTIME_TIMEOUT", "10")))
    p.add_argument("--bin", default=os.environ.get("ASYNCFIX_BIN", "asyncfix"))
    p.add_argument("--pyenv", default=os.environ.get("ASYNCFIX_PYENV_ROOT", os.path.expanduser("~/.pyenv")))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--keep", help="write each failing program here (original, fixed, why)")
    p.add_argument("--summary", help="write the counts as JSON here")
    p.add_argument("--no-specials", dest="specials", action="store_false",
                   help="no looping, stdin-reading, process-waiting or failing programs")
    p.add_argument("--no-nonidentifier-relative", dest="nonidentifier_relative", action="store_false",
                   help="no importer with a non-identifier file name importing the module relatively")
    return p.parse_args(argv)


def run(args, out=sys.stdout):
    """Runs the oracle; returns (counts, failures)."""
    if os.sep in args.bin:
        args.bin = os.path.abspath(args.bin)
    exes = interpreters(args.pyenv)
    if "3.6" not in exes or not any(v in exes for v in FIXED_VERSIONS):
        raise FileNotFoundError(f"no CPython 3.6 and 3.8+ under {args.pyenv}/versions")
    import collections
    counts, failures = collections.Counter(), []
    started = time.time()
    seed, rounds = args.seed, 0
    while True:
        run_round(args, seed, exes, counts, failures)
        rounds += 1
        seed += 1
        if time.time() - started >= args.hours * 3600:
            break
        print(f"round {rounds} (seed {seed - 1}): {dict(counts)}; {len(failures)} failures", file=out, flush=True)
    counts["rounds"] = rounds
    counts["seconds"] = int(time.time() - started)
    counts["versions"] = len(exes)
    if args.summary:
        with open(args.summary, "w") as f:
            json.dump({"counts": dict(counts), "seed": args.seed, "failures": len(failures),
                       "interpreters": exes}, f, indent=1, sort_keys=True)
    if args.keep and failures:
        keep_failures(args.keep, failures)
    return counts, failures


def main():
    args = parse_args()
    counts, failures = run(args)
    for k in sorted(counts):
        print(f"{k}: {counts[k]}")
    for failure in failures[:20]:
        print(f"\n== {failure[0]}\n{failure[2]}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
