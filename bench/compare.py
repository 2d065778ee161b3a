#!/usr/bin/env python3
"""bench/compare.py — two builds of `asyncfix check` on the same files, side by side.

    python3 bench/compare.py --before BASE/cli/asyncfix --after NEW/cli/asyncfix \\
        [--repeat 7] [--jobs 1,2] [--arg=--fix …] [--after-arg=--ignore --after-arg=AF3] PATH...

For a change whose cost must stay close to today's (issue 15's project view): runs
`asyncfix check --exit-zero --output-format concise -j J PATH...` with each binary in alternating
rounds (so drift in the machine's load hits both alike), checks that both print the same
findings, and prints the medians, the spread and the ratio after/before per thread count.
`--after-arg` goes to the changed binary alone: to leave out rules that the baseline does not have
(and would refuse to name), so that both report the same findings. Nothing is asserted: the numbers are a report, as in bench/run.py.
"""
import argparse
import hashlib
import resource
import statistics
import subprocess
import sys
import time


def run(binary, jobs, paths, extra):
    argv = [binary, "check", "--exit-zero", "--output-format", "concise", "-j", str(jobs), *extra, *paths]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1, 2):  # 2: a file that cannot be read (the corpus has a few)
        sys.exit(f"compare.py: {' '.join(argv)} exited {proc.returncode}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu, hashlib.sha256(proc.stdout).hexdigest(), proc.stdout.count(b"\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="the baseline asyncfix binary")
    parser.add_argument("--after", required=True, help="the changed asyncfix binary")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--jobs", default="1,2", help="comma-separated thread counts (-j)")
    parser.add_argument("--arg", action="append", default=[], help="one more argument for `check`")
    parser.add_argument("--after-arg", action="append", default=[],
                        help="one more argument for the changed binary's `check` only")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()

    print(f"| `-j` | before median s | after median s | after / before | before CPU s | after CPU s | "
          f"findings (lines) |")
    print("|---|---|---|---|---|---|---|")
    for jobs in [int(j) for j in args.jobs.split(",")]:
        times = {"before": [], "after": []}
        cpus = {"before": [], "after": []}
        outputs = {}
        run(args.before, jobs, args.paths, args.arg)  # warm the page cache for both
        for round_ in range(args.repeat):
            order = ("before", "after") if round_ % 2 == 0 else ("after", "before")
            for which in order:
                extra = args.arg + (args.after_arg if which == "after" else [])
                elapsed, cpu, digest, lines = run(getattr(args, which), jobs, args.paths, extra)
                times[which].append(elapsed)
                cpus[which].append(cpu)
                outputs[which] = (digest, lines)
        same = "same" if outputs["before"][0] == outputs["after"][0] else "DIFFERENT"
        b, a = statistics.median(times["before"]), statistics.median(times["after"])
        print(f"| {jobs} | {b:.3f} (±{statistics.pstdev(times['before']):.3f}) | "
              f"{a:.3f} (±{statistics.pstdev(times['after']):.3f}) | {a / b:.3f} | "
              f"{statistics.median(cpus['before']):.3f} | {statistics.median(cpus['after']):.3f} | "
              f"{outputs['after'][1]} ({same}) |")


if __name__ == "__main__":
    main()
