#!/usr/bin/env python3
"""bench/seed_regex.py [--fix] PATHS... — the regular-expression approach asyncfix replaces.

The usual advice for PyTorch code broken by Python 3.7 is a sed one-liner or a few regular
expressions over every file. This is that approach, written here with the three expressions such
advice amounts to, applied to every .py file under PATHS (the same directories asyncfix skips are
skipped). Without --fix it reports the files and matches; with --fix it rewrites the files.

What it gets wrong is the point of asyncfix (DESIGN.md §1): it rewrites strings and comments,
misses `async` used as a variable or parameter name, and turns `model.cuda(async=True)` on an
nn.Module into a call that does not exist. It is benchmarked for speed only.
"""
import os
import re
import sys

SKIP = {'__pycache__', '.git', 'node_modules', '.venv', 'venv', 'env', '.eggs', 'build', 'dist'}

EXPRESSIONS = [
    (re.compile(rb'\.cuda\(\s*async\s*=\s*True\s*\)'), rb'.cuda(non_blocking=True)'),
    (re.compile(rb'\basync\s*=\s*(True|False)\b'), rb'non_blocking=\1'),
    (re.compile(rb'\basync\s*=(?!=)\s*'), rb'non_blocking='),
]


def files(paths):
    for path in paths:
        if os.path.isfile(path):
            yield path
            continue
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = [d for d in dirnames if d not in SKIP and not d.startswith('.')]
            for name in filenames:
                if name.endswith('.py'):
                    yield os.path.join(dirpath, name)


def main(argv):
    fix = '--fix' in argv
    paths = [a for a in argv if a != '--fix'] or ['.']
    matched_files = matches = 0
    for path in files(paths):
        with open(path, 'rb') as f:
            data = f.read()
        new = data
        count = 0
        for expression, replacement in EXPRESSIONS:
            new, n = expression.subn(replacement, new)
            count += n
        if count:
            matched_files += 1
            matches += count
            if fix:
                with open(path, 'wb') as f:
                    f.write(new)
            else:
                print(f'{path}: {count} match(es)')
    print(f'seed_regex: {matches} matches in {matched_files} files', file=sys.stderr)
    return 1 if matches and not fix else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
