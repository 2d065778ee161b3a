#!/usr/bin/env python3
"""The WebAssembly build beside the native one (issue 33; figures in bench/RESULTS.md, docs/wasm.md).

    python3 bench/wasm.py [--rounds N] [--corpus DIR]
    python3 bench/wasm.py --typing LINES [--repeat N]

Module sizes (as built, and gzip -9), start-up (`--version`, the language server's
initialize → shutdown → exit), and `asyncfix check` on a corpus (default: the torch corpus of
bench/corpus.sh), native and WebAssembly under Node alternating, medians of N rounds.
With --typing, instead: the typing trace of bench/lsp (`asyncfix_lsp_bench --typing --lines
LINES --repeat N`) against the native server and then the WebAssembly one under Node, in one run,
their report lines one after the other.
Needs build/ci (the native commands) and build/wasm (`cmake --build --preset wasm`).
"""
import argparse
import gzip
import json
import os
import platform
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NATIVE = os.path.join(ROOT, "build", "ci", "cli", "asyncfix")
NATIVE_LSP = os.path.join(ROOT, "build", "ci", "lsp", "asyncfix-lsp")
WASM_DIR = os.environ.get("ASYNCFIX_WASM_DIR", os.path.join(ROOT, "build", "wasm"))
WASM = ["node", os.path.join(ROOT, "wasm", "asyncfix.js")]
WASM_LSP = ["node", os.path.join(ROOT, "wasm", "asyncfix-lsp.js")]


def timed(argv, stdin=None):
    start = time.perf_counter()
    p = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, ASYNCFIX_WASM_DIR=WASM_DIR))
    elapsed = time.perf_counter() - start
    if p.returncode not in (0, 1):
        sys.exit("%s failed (%d): %s" % (" ".join(argv), p.returncode, p.stderr.decode(errors="replace")[-2000:]))
    return elapsed, p.stdout


def frames(*messages):
    out = b""
    for m in messages:
        body = json.dumps(m).encode()
        out += b"Content-Length: %d\r\n\r\n" % len(body) + body
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--corpus", default=os.path.expanduser("~/.cache/asyncfix-bench/torch"))
    ap.add_argument("--typing", type=int, metavar="LINES", help="the typing trace on a file of LINES lines")
    ap.add_argument("--repeat", type=int, default=5, help="--typing: times the line is typed and deleted")
    args = ap.parse_args()
    if args.typing:
        return typing(args.typing, args.repeat)

    print("node %s; %s; load average %s" % (subprocess.run(["node", "--version"], stdout=subprocess.PIPE,
                                                            text=True).stdout.strip(), platform.machine(),
                                              " ".join("%.2f" % x for x in os.getloadavg())))
    print("\nmodule sizes (bytes; gzip -9):")
    for path in (os.path.join(WASM_DIR, "cli", "asyncfix.wasm"), os.path.join(WASM_DIR, "cli", "asyncfix.js"),
                 os.path.join(WASM_DIR, "lsp", "asyncfix-lsp.wasm"), NATIVE, NATIVE_LSP):
        data = open(path, "rb").read()
        print("  %-40s %10d %10d" % (os.path.relpath(path, ROOT), len(data), len(gzip.compress(data, 9))))

    lsp_session = frames({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
                         {"jsonrpc": "2.0", "method": "initialized", "params": {}},
                         {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
                         {"jsonrpc": "2.0", "method": "exit"})
    jobs = [
        ("start-up: asyncfix --version", [NATIVE, "--version"], WASM + ["--version"], None),
        ("start-up: language server initialize..exit", [NATIVE_LSP], WASM_LSP, lsp_session),
        ("check %s (%d .py files)" % (args.corpus.replace(os.path.expanduser("~"), "~"),
                                      sum(f.endswith(".py") for _, _, fs in os.walk(args.corpus) for f in fs)),
         [NATIVE, "check", "--exit-zero", "-q", args.corpus], WASM + ["check", "--exit-zero", "-q", args.corpus], None),
    ]
    print("\n%-58s %10s %10s %8s" % ("job (median of %d, alternating)" % args.rounds, "native s", "wasm s", "ratio"))
    for name, native, wasm, stdin in jobs:
        outputs = {}
        times = {"native": [], "wasm": []}
        for _ in range(args.rounds):
            for side, argv in (("native", native), ("wasm", wasm)):
                t, out = timed(argv, stdin)
                times[side].append(t)
                outputs[side] = out
        same = "" if outputs["native"] == outputs["wasm"] or stdin is not None else "  (outputs differ!)"
        n, w = statistics.median(times["native"]), statistics.median(times["wasm"])
        print("%-58s %10.3f %10.3f %7.1fx%s" % (name, n, w, w / n, same))


def typing(lines, repeat):
    """The typing trace against both servers, one after the other (bench/lsp/lsp_latency.cpp)."""
    bench = os.path.join(ROOT, "build", "ci", "bench", "lsp", "asyncfix_lsp_bench")
    print("node %s; load average %s" % (subprocess.run(["node", "--version"], stdout=subprocess.PIPE, text=True)
                                        .stdout.strip(), " ".join("%.2f" % x for x in os.getloadavg())))
    for side, server in (("native", NATIVE_LSP), ("wasm", os.path.join(ROOT, "wasm", "asyncfix-lsp.js"))):
        p = subprocess.run([bench, "--server", server, "--typing", "--lines", str(lines), "--repeat", str(repeat)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env=dict(os.environ, ASYNCFIX_WASM_DIR=WASM_DIR))
        print("%s: %s" % (side, p.stdout.strip().splitlines()[-1] if p.stdout.strip() else "(no output)"))
        if p.returncode != 0:
            sys.exit("%s failed (%d)" % (side, p.returncode))


if __name__ == "__main__":
    main()
