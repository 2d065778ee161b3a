#!/usr/bin/env python3
"""bench/prefilter_rate.py — the prefilter's speed beyond reading, per core, in CPU time.

    python3 bench/prefilter_rate.py --driver BUILD/bench/parse/asyncfix_bench_parse [--repeat 5] [--passes 1]
        [--before OTHER/asyncfix_bench_parse] [--no-parse] CORPUS...

For each corpus, runs `asyncfix_bench_parse read -j 1`, `list -j 1` (read + prefilter, no parse)
and `prefilter -j 1` (read + prefilter + parse of the kept files) in alternating rounds, and
prints the median CPU time (user + system, of the process: on a shared machine the wall clock
measures the other work) of each, and the prefilter's rate beyond the read: the corpus's bytes
over (list − read) CPU seconds. One thread, so CPU time is the cost per core. Nothing is
asserted: the numbers are a report, as in bench/run.py.

`--passes N` names each corpus N times on the driver's command line, so that every run reads and
scans it N times (a small corpus scans in tens of milliseconds, near the clock's tick); the
figures are per pass. `--before` runs a second driver in the same rounds (alternating with the
first) and prints its row beside, for a before/after comparison. `--no-parse` leaves out the
`prefilter` mode (which parses every kept file: on the dense corpus, every file).
"""
import argparse
import json
import resource
import statistics
import subprocess
import sys


def run(argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"prefilter_rate.py: {' '.join(argv)} exited {proc.returncode}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    report = json.loads(proc.stderr.strip().splitlines()[-1]) if "{" in proc.stderr else {}
    return cpu, report


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--driver", required=True, help="asyncfix_bench_parse")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--passes", type=int, default=1)
    parser.add_argument("--before", help="a second asyncfix_bench_parse, run in the same rounds")
    parser.add_argument("--no-parse", action="store_true", help="leave out the prefilter mode")
    parser.add_argument("corpora", nargs="+")
    args = parser.parse_args()

    drivers = [("after", args.driver)] + ([("before", args.before)] if args.before else [])
    print("| corpus | driver | MB | kept files | read CPU s | list CPU s | prefilter CPU s | prefilter beyond the read |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for corpus in args.corpora:
        modes = ("read", "list") if args.no_parse else ("read", "list", "prefilter")
        jobs = [(name, m) for name, _ in drivers for m in modes]
        path = dict(drivers)
        cpus = {job: [] for job in jobs}
        info = {}
        for name, m in jobs:  # warm the page cache
            run([path[name], m, "-j", "1", corpus])
        for round_ in range(args.repeat):
            for name, m in jobs if round_ % 2 == 0 else reversed(jobs):
                cpu, report = run([path[name], m, "-j", "1"] + [corpus] * args.passes)
                cpus[(name, m)].append(cpu / args.passes)
                info[name] = report or info.get(name, {})
        for name, _ in drivers:
            med = {m: statistics.median(cpus[(name, m)]) for m in modes}
            beyond = med["list"] - med["read"]
            mb = info[name].get("bytes", 0) / 1e6 / args.passes
            kept = info[name].get("kept", 0) // args.passes if info[name] else "?"
            rate = f"{mb / beyond / 1000:.2f} GB/s" if beyond > 0 else "within the noise"
            parsed = f"{med['prefilter']:.3f}" if "prefilter" in med else "not run"
            print(f"| {corpus} | {name} | {mb:.1f} | {kept} | {med['read']:.3f} | {med['list']:.3f} | "
                  f"{parsed} | {rate} |")


if __name__ == "__main__":
    main()
