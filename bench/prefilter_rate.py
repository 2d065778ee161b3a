#!/usr/bin/env python3
"""bench/prefilter_rate.py — the prefilter's speed beyond reading, per core, in CPU time.

    python3 bench/prefilter_rate.py --driver BUILD/bench/parse/asyncfix_bench_parse [--repeat 5] CORPUS...

For each corpus, runs `asyncfix_bench_parse read -j 1`, `list -j 1` (read + prefilter, no parse)
and `prefilter -j 1` (read + prefilter + parse of the kept files) in alternating rounds, and
prints the median CPU time (user + system, of the process: on a shared machine the wall clock
measures the other work) of each, and the prefilter's rate beyond the read: the corpus's bytes
over (list − read) CPU seconds. One thread, so CPU time is the cost per core. Nothing is
asserted: the numbers are a report, as in bench/run.py.
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
    parser.add_argument("corpora", nargs="+")
    args = parser.parse_args()

    print("| corpus | MB | kept files | read CPU s | list CPU s | prefilter CPU s | prefilter beyond the read |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for corpus in args.corpora:
        modes = ("read", "list", "prefilter")
        cpus = {m: [] for m in modes}
        info = {}
        for m in modes:  # warm the page cache
            run([args.driver, m, "-j", "1", corpus])
        for round_ in range(args.repeat):
            for m in modes if round_ % 2 == 0 else reversed(modes):
                cpu, report = run([args.driver, m, "-j", "1", corpus])
                cpus[m].append(cpu)
                info = report or info
        med = {m: statistics.median(cpus[m]) for m in modes}
        beyond = med["list"] - med["read"]
        mb = info.get("bytes", 0) / 1e6
        rate = f"{mb / beyond / 1000:.2f} GB/s" if beyond > 0 else "within the noise"
        print(f"| {corpus} | {mb:.1f} | {info.get('kept', '?')} | {med['read']:.3f} | {med['list']:.3f} | "
              f"{med['prefilter']:.3f} | {rate} |")


if __name__ == "__main__":
    main()
