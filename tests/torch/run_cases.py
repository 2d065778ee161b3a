#!/usr/bin/python3
"""Runs the PyTorch-migration cases against a real PyTorch (Debian's python3-torch 1.13).

usage: /usr/bin/python3 tests/torch/run_cases.py ASYNCFIX_BIN CASES_DIR [-k SUBSTRING]

A case is CASES_DIR/<CODE>_<slug>.py (a legacy program) with its modern reference
<CODE>_<slug>.ref.py; its first lines are comments:

    # expect-before: <Python regex that the original's stderr must match on PyTorch 1.13>
    # fixes: safe|unsafe|none
    # without-cuda: <regex>   (optional: for a program that needs CUDA, see 3.)

For each case the runner checks that
  1. the original, run with every warning shown, prints what the regex says (the rule's premise
     holds on this PyTorch), and `asyncfix check --select CODE` reports it (exit 1). The regex
     `nothing` says instead that the original runs to its end and writes nothing to stderr (no
     error, no warning: the premise of a rule about an idiom this PyTorch accepts silently);
  2. with `fixes: safe` / `unsafe`: `asyncfix check --fix` (with `--unsafe-fixes` for unsafe) on a
     copy leaves no CODE finding, and the fixed program runs with DeprecationWarning,
     UserWarning and FutureWarning as errors and prints exactly what the reference prints (run
     the same way);
  3. with `without-cuda:`, on a PyTorch without CUDA (Debian's), step 2 cannot run the fixed
     program to its end: there it checks that the fixed program and the reference both fail with
     stderr matching that regex (they ask for a CUDA device, as the original did, and fail for
     nothing else first) after printing the same. With CUDA, step 2 runs as usual.
With `fixes: none` step 1 is all (the rule only reports).

Programs run in this process, one after the other (torch is imported once), each as __main__
with fresh globals, its output captured; a case seeds its own random numbers. Every case's
verdict is printed; the exit status is 1 when any case fails.
"""
import argparse
import contextlib
import io
import os
import re
import runpy
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

import torch  # noqa: F401  (imported once, before the cases: each then costs what it runs)

AS_ERRORS = (DeprecationWarning, UserWarning, FutureWarning)


def header(path):
    """The case's `# expect-before:` regex, `# fixes:` value and `# without-cuda:` regex (or None)."""
    expect, fixes, without_cuda = None, None, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#"):
                break
            if line.startswith("# expect-before:"):
                expect = line.split(":", 1)[1].strip()
            elif line.startswith("# fixes:"):
                fixes = line.split(":", 1)[1].strip()
            elif line.startswith("# without-cuda:"):
                without_cuda = line.split(":", 1)[1].strip()
    if expect is None or fixes not in ("safe", "unsafe", "none"):
        raise ValueError(f"{path}: needs `# expect-before: REGEX` and `# fixes: safe|unsafe|none` comments")
    return expect, fixes, without_cuda


def run_program(path, warnings_as_errors):
    """Runs `path` as __main__ here; returns (ok, stdout, stderr). Warnings are all shown, or the
    deprecation-like ones raised."""
    out, err = io.StringIO(), io.StringIO()
    ok = True
    argv, cwd = sys.argv, os.getcwd()
    sys.argv = [path]
    os.chdir(os.path.dirname(path))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
            warnings.resetwarnings()
            warnings.simplefilter("always")
            if warnings_as_errors:
                for category in AS_ERRORS:
                    warnings.simplefilter("error", category)
            try:
                runpy.run_path(path, run_name="__main__")
            except SystemExit as e:
                ok = e.code in (None, 0)
            except BaseException:  # noqa: B902  (the program's failure is the finding)
                traceback.print_exc()
                ok = False
    finally:
        sys.argv = argv
        os.chdir(cwd)
    return ok, out.getvalue(), err.getvalue()


def asyncfix(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True)


def run_case(binary, case, work):
    """Returns None when the case holds, else what failed."""
    name = os.path.basename(case)[:-3]
    code = name.split("_", 1)[0]
    expect, fixes, without_cuda = header(case)
    original = os.path.join(work, name + ".py")
    shutil.copyfile(case, original)

    ok, _, stderr = run_program(original, warnings_as_errors=False)
    if expect == "nothing":
        if not ok or stderr:
            return f"the original was to run silently, but it writes to stderr:\n{stderr[-2000:]}"
    elif not re.search(expect, stderr):
        return f"the original's stderr does not match /{expect}/:\n{stderr[-2000:]}"
    found = asyncfix(binary, "check", "--isolated", "--select", code, "--output-format", "concise", original)
    if found.returncode != 1:
        return f"`asyncfix check --select {code}` does not report the original (exit {found.returncode}):\n" + \
            found.stdout + found.stderr
    if fixes == "none":
        return None

    fix = ["check", "--isolated", "--fix", "--output-format", "concise"]
    if fixes == "unsafe":
        fix.append("--unsafe-fixes")
    fixed = asyncfix(binary, *fix, original)
    if fixed.returncode not in (0, 1):
        return f"`asyncfix {' '.join(fix)}` failed (exit {fixed.returncode}):\n" + fixed.stdout + fixed.stderr
    left = asyncfix(binary, "check", "--isolated", "--select", code, "--output-format", "concise", original)
    if left.returncode != 0:
        return f"{code} still reports after the fix:\n" + left.stdout + left.stderr
    reference = case[:-3] + ".ref.py"
    if not os.path.exists(reference):
        return f"missing its reference {reference}"
    ref_copy = os.path.join(work, name + ".ref.py")
    shutil.copyfile(reference, ref_copy)
    ok, stdout, stderr = run_program(original, warnings_as_errors=True)
    if without_cuda is not None and not torch.cuda.is_available():
        ref_ok, ref_stdout, ref_stderr = run_program(ref_copy, warnings_as_errors=True)
        for who, done, err in (("fixed program", ok, stderr), ("reference", ref_ok, ref_stderr)):
            if done or not re.search(without_cuda, err):
                return f"without CUDA, the {who} was to fail with /{without_cuda}/:\n{err[-2000:]}"
        if stdout != ref_stdout:
            return f"before failing, the fixed program prints\n{stdout}\nwhere the reference prints\n{ref_stdout}"
        return None
    if not ok:
        with open(original, encoding="utf-8") as f:
            return f"the fixed program fails:\n{stderr[-2000:]}\n--- fixed program ---\n{f.read()}"
    ref_ok, ref_stdout, ref_stderr = run_program(ref_copy, warnings_as_errors=True)
    if not ref_ok:
        return f"the reference fails:\n{ref_stderr[-2000:]}"
    if stdout != ref_stdout:
        return f"the fixed program prints\n{stdout}\nwhere the reference prints\n{ref_stdout}"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("asyncfix")
    parser.add_argument("cases")
    parser.add_argument("-k", default="", help="only the cases whose name holds this")
    args = parser.parse_args()
    binary = os.path.abspath(args.asyncfix)
    cases = sorted(
        os.path.join(os.path.abspath(args.cases), f)
        for f in os.listdir(args.cases)
        if f.endswith(".py") and not f.endswith(".ref.py") and args.k in f
    )
    if not cases:
        print(f"no cases in {args.cases}", file=sys.stderr)
        return 1
    failures = 0
    start = time.monotonic()
    for case in cases:
        began = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="asyncfix-torch-") as work:
            try:
                problem = run_case(binary, case, work)
            except ValueError as e:
                problem = str(e)
        name = os.path.basename(case)
        if problem is None:
            print(f"ok   {name} ({time.monotonic() - began:.1f} s)")
        else:
            failures += 1
            print(f"FAIL {name}: {problem}")
        sys.stdout.flush()
    print(f"{len(cases) - failures} of {len(cases)} cases hold ({time.monotonic() - start:.1f} s, "
          f"torch {torch.__version__})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
