#!/usr/bin/env python3
"""bench/instructions.py — `asyncfix check` against a bare tree-sitter parse, in instructions.

    bench/instructions.py [--build build/release] [FILE...]

Wall-clock ratios on a shared 2-core machine move by tens of percent with other work; the number
of instructions a run executes does not. For each FILE (default: the dense 20 000-line training
file that bench/corpus.sh generates) this runs, under valgrind's callgrind, the bare parse
(`asyncfix_bench_parse parse FILE`: read, parse, free) and `asyncfix check FILE`, both whole
processes, and prints the instruction counts and their ratio as a Markdown table. It says nothing
about memory stalls or page faults, which only wall and CPU time show: report it next to them,
never instead of them. Needs valgrind (Debian's `valgrind`).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def instructions(argv):
    """Instructions executed by the process `argv` (callgrind's Ir total)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'callgrind.out')
        run = subprocess.run(['valgrind', '--tool=callgrind', f'--callgrind-out-file={out}'] + argv,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        m = re.search(r'Collected : (\d+)', run.stderr) or re.search(r'I\s+refs:\s+([\d,]+)', run.stderr)
        if not m:
            sys.exit(f'instructions.py: no count from callgrind for {argv}:\n{run.stderr[-2000:]}')
        return int(m.group(1).replace(',', ''))


def main():
    cache = os.environ.get('ASYNCFIX_BENCH_CACHE', os.path.expanduser('~/.cache/asyncfix-bench'))
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--build', default=os.path.join(ROOT, 'build', 'release'))
    ap.add_argument('files', nargs='*', default=[os.path.join(cache, 'dense-file', 'train_20000.py')])
    args = ap.parse_args()
    if not shutil.which('valgrind'):
        sys.exit('instructions.py: valgrind is missing (apt-get install valgrind)')
    floor = os.path.join(args.build, 'bench', 'parse', 'asyncfix_bench_parse')
    cli = os.path.join(args.build, 'cli', 'asyncfix')
    for tool in (floor, cli):
        if not os.access(tool, os.X_OK):
            sys.exit(f'instructions.py: {tool} is missing: cmake --build --preset release '
                     '--target asyncfix_cli asyncfix_bench_parse')
    print('| file | bytes | bare parse (Ir) | `asyncfix check` (Ir) | check / parse |')
    print('|---|---:|---:|---:|---:|')
    for path in args.files:
        parse = instructions([floor, 'parse', '-j', '1', path])
        check = instructions([cli, 'check', path])
        name = path.replace(os.path.expanduser('~'), '~')
        print(f'| `{name}` | {os.path.getsize(path):,} | {parse:,} | {check:,} | {check / parse:.2f}× |')


if __name__ == '__main__':
    main()
