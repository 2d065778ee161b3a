"""Runs many small Python programs in one interpreter: the runtime oracle's worker.

Started once per CPython version (`python runtime_runner.py MANIFEST RESULTS`), so that the
interpreter's start-up is paid once per version, not once per program. Each program runs in a
child forked from this process, in its own process group, with its own directory, `sys.path`
and `sys.argv`, stdin a pipe nobody writes to, stdout captured (stderr dropped); a program still running
after its timeout is killed with its whole group (what it spawned too) and reported as such.

MANIFEST is a JSON list of {"id", "cwd", "main" (a file relative to cwd), "timeout"}; RESULTS gets
a JSON object {id: {"status": "ok"|"exception"|"timeout", "exception": type name or null,
"stdout": text, "seconds": float}}. Written in the Python both 3.6 and 3.13 read (no walrus, no
f-string `=`): this file runs on every interpreter the oracle uses.
"""

import json
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BASE_PATH = [p for p in sys.path if os.path.abspath(p or ".") != HERE]


def child(program, out_fd, stdin_fd):
    """In the forked child: become the program. Never returns."""
    os.setpgid(0, 0)
    os.dup2(stdin_fd, 0)
    os.dup2(out_fd, 1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)  # warnings and tracebacks differ between versions: stdout is compared
    status = 0
    exception = ""
    try:
        import runpy
        cwd = program["cwd"]
        os.chdir(cwd)
        main = os.path.join(cwd, program["main"])
        sys.path[:] = [os.path.dirname(main)] + BASE_PATH
        sys.argv[:] = [main]
        sys.stdin = open(0, "r", closefd=False)
        runpy.run_path(main, run_name="__main__")
    except SystemExit as e:
        status = 0 if e.code in (None, 0) else 3
        exception = "SystemExit"
    except BaseException as e:  # what the program raised: its type is part of what it did
        status = 3
        exception = type(e).__name__
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    # The exception's type travels after the output, on a line of its own.
    os.write(1, ("\n\0EXC " + exception + "\n").encode())
    os._exit(status)


def run(program, out_path):
    out_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    stdin_read, stdin_write = os.pipe()  # held open: a read from stdin blocks until the timeout
    sys.stdout.flush()
    sys.stderr.flush()
    started = time.time()
    pid = os.fork()
    if pid == 0:
        os.close(stdin_write)
        child(program, out_fd, stdin_read)
    os.close(out_fd)
    os.close(stdin_read)
    try:
        os.setpgid(pid, pid)  # also here: no race with the child's own call
    except OSError:
        pass
    deadline = started + program["timeout"]
    status = None
    while True:
        done, code = os.waitpid(pid, os.WNOHANG)
        if done:
            status = code
            break
        if time.time() > deadline:
            break
        time.sleep(0.002)
    timed_out = status is None
    try:
        os.killpg(pid, signal.SIGKILL)  # what the program spawned goes with it
    except OSError:
        pass
    if timed_out:
        os.waitpid(pid, 0)
    os.close(stdin_write)
    with open(out_path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8", "replace")
    exception = None
    mark = text.rfind("\n\0EXC ")
    if mark >= 0:
        exception = text[mark + 6:].strip() or None
        text = text[:mark]
    if timed_out:
        verdict = "timeout"
    elif mark < 0:
        verdict = "exception"  # died without reaching the end (os._exit, a signal)
        exception = exception or "killed"
    else:
        verdict = "ok" if exception in (None, "SystemExit") else "exception"
    return {"status": verdict, "exception": exception, "stdout": text,
            "seconds": round(time.time() - started, 3)}


def main():
    manifest, results_path = sys.argv[1], sys.argv[2]
    with open(manifest) as f:
        programs = json.load(f)
    results = {}
    for program in programs:
        results[program["id"]] = run(program, results_path + ".out")
    with open(results_path, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
