#!/usr/bin/env python3
"""bench/run.py — asyncfix against its peers and the physical limits, side by side, in one run.

    bench/run.sh                      # builds what it needs, then runs this
    python3 bench/run.py --build build/release [--cache DIR] [--repeat N] [--quick] [--out bench/RESULTS.md]

Every job runs on the same files, several times; the report gives medians, files/s, MB/s, peak
RSS (from wait4's rusage) and ratios measured in this run, then checks the targets of the
performance issue as ratios. Nothing here is a timed assertion: the numbers are a report.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class Job:
    """One command, run `repeat` times; keeps the wall times and the largest peak RSS."""

    def __init__(self, key, label, argv, files=None, nbytes=None, threads=None, setup=None, env=None):
        self.key, self.label, self.argv = key, label, argv
        self.files, self.nbytes, self.threads = files, nbytes, threads
        self.setup, self.env = setup, env
        self.times, self.rss_kb, self.stdout, self.codes = [], 0, '', []

    @property
    def median(self):
        return statistics.median(self.times) if self.times else float('nan')


def measure(argv, env=None):
    """Runs argv; returns (seconds, exit code, stdout, stderr, peak RSS in KiB).

    The output goes to temporary files (no pipe can fill up and stall the tool) and the child is
    reaped with wait4, whose rusage holds the peak RSS of that one process.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return (elapsed, proc.returncode, out.read().decode(errors='replace'), err.read().decode(errors='replace'),
                usage.ru_maxrss)


def run_job(job, repeat, slow_after):
    for i in range(repeat):
        if job.setup:
            job.setup()
        seconds, code, out, err, rss = measure(job.argv, job.env)
        job.times.append(seconds)
        job.codes.append(code)
        job.rss_kb = max(job.rss_kb, rss)
        job.stdout = out
        job.stderr = err
        print(f'  {job.label}: {seconds:.3f} s (exit {code}, {rss / 1024:.1f} MiB)', file=sys.stderr)
        if seconds > slow_after and i + 1 >= 2:
            break  # slow peers: two runs are enough for a median of two
    return job


def corpus_stats(root):
    files = nbytes = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith('.')]
        for name in filenames:
            if name.endswith('.py'):
                files += 1
                nbytes += os.path.getsize(os.path.join(dirpath, name))
    return files, nbytes


def version(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        return 'unknown'


def machine():
    cpu = 'unknown'
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    cpu = line.split(':', 1)[1].strip()
                    break
    except OSError:
        pass
    mem = 'unknown'
    try:
        with open('/proc/meminfo') as f:
            mem = f'{int(f.readline().split()[1]) / 1024 / 1024:.0f} GiB'
    except (OSError, ValueError):
        pass
    return cpu, os.cpu_count(), mem, platform.release(), os.getloadavg()


def copy_tree(src, dst):
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst, symlinks=True)


def fmt(x, digits=2):
    return '—' if x is None or x != x else f'{x:.{digits}f}'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build', default=os.path.join(ROOT, 'build', 'release'))
    ap.add_argument('--cache', default=os.environ.get('ASYNCFIX_BENCH_CACHE',
                                                      os.path.expanduser('~/.cache/asyncfix-bench')))
    ap.add_argument('--repeat', type=int, default=3, help='runs per job (slow jobs stop after 2)')
    ap.add_argument('--quick', action='store_true', help='one run per job, skip the single-thread peers')
    ap.add_argument('--out', default=os.path.join(HERE, 'RESULTS.md'))
    ap.add_argument('--lsp-edits', type=int, default=300)
    args = ap.parse_args()
    repeat = 1 if args.quick else args.repeat
    slow_after = 20.0

    asyncfix = os.path.join(args.build, 'cli', 'asyncfix')
    floor = os.path.join(args.build, 'bench', 'parse', 'asyncfix_bench_parse')
    lsp_bench = os.path.join(args.build, 'bench', 'lsp', 'asyncfix_lsp_bench')
    lsp_server = os.path.join(args.build, 'lsp', 'asyncfix-lsp')
    sg = os.path.join(HERE, 'ast-grep', 'node_modules', '@ast-grep', 'cli-linux-x64-gnu', 'ast-grep')
    sgconfig = os.path.join(HERE, 'ast-grep', 'sgconfig.yml')
    corpus = os.path.join(args.cache, 'corpus')
    injected = os.path.join(args.cache, 'injected')
    for path, what in [(asyncfix, 'asyncfix'), (floor, 'asyncfix_bench_parse'), (lsp_bench, 'asyncfix_lsp_bench'),
                       (sg, 'ast-grep (npm ci in bench/ast-grep)'), (corpus, 'the corpus (bench/corpus.sh)')]:
        if not os.path.exists(path):
            sys.exit(f'run.py: {what} not found at {path}; bench/run.sh prepares everything')

    cores = os.cpu_count() or 1
    files, nbytes = corpus_stats(corpus)
    inj_files, inj_bytes = corpus_stats(injected)
    print(f'corpus: {files} files, {nbytes / 1e6:.0f} MB; injected: {inj_files} files', file=sys.stderr)
    load_before = os.getloadavg()

    jobs = []

    def add(key, label, argv, threads, n_files=files, n_bytes=nbytes, **kw):
        jobs.append(Job(key, label, argv, files=n_files, nbytes=n_bytes, threads=threads, **kw))

    check = [asyncfix, 'check', '--exit-zero', '--output-format', 'concise']
    thread_counts = [1, cores] if cores > 1 else [1]
    # The floors.
    for t in thread_counts:
        add(f'read{t}', f'read every file (I/O floor)', [floor, 'read', '-j', str(t), corpus], t)
    add(f'parse{cores}', 'tree-sitter parse of every file, no rules', [floor, 'parse', '-j', str(cores), corpus], cores)
    # asyncfix.
    for t in thread_counts:
        add(f'asyncfix{t}', '`asyncfix check`', check + ['-j', str(t), corpus], t)
    # The peers.
    for t in ([cores] if args.quick else thread_counts):
        add(f'sg{t}', '`ast-grep scan` (2 rules)', [sg, 'scan', '-c', sgconfig, '-j', str(t), corpus], t)
    add('regex', 'seed-style regex script (python3)', [sys.executable, os.path.join(HERE, 'seed_regex.py'), corpus], 1)
    add('grep', '`grep -rlE` for `async\\s*=`', ['grep', '-rlE', '--include=*.py', r'\basync\s*=', corpus], 1)

    # Files that need parsing (prefilter keeps them): asyncfix on exactly those vs their bare parse.
    kept_list = os.path.join(tempfile.gettempdir(), 'asyncfix-bench-kept.txt')
    listed = subprocess.run([floor, 'list', '-j', str(cores), injected], capture_output=True, text=True, check=True)
    with open(kept_list, 'w') as f:
        f.write(listed.stdout)
    kept = [line for line in listed.stdout.splitlines() if line]
    kept_bytes = sum(os.path.getsize(p) for p in kept)
    add('keptparse', 'bare parse of the files that need parsing (injected corpus)',
        [floor, 'parse', '-j', '1', '--files-from', kept_list], 1, n_files=len(kept), n_bytes=kept_bytes)
    add('keptcheck', '`asyncfix check` on the same files', check + ['-j', '1'] + kept, 1,
        n_files=len(kept), n_bytes=kept_bytes)

    # Fixing: a fresh copy of the injected corpus for every run.
    work = os.path.join(args.cache, 'work')
    add(f'fix{cores}', '`asyncfix check --fix --unsafe-fixes` (injected corpus)',
        [asyncfix, 'check', '--fix', '--unsafe-fixes', '--exit-zero', '--output-format', 'concise', '-j', str(cores), work],
        cores, n_files=inj_files, n_bytes=inj_bytes, setup=lambda: copy_tree(injected, work))
    add(f'sgfix{cores}', '`ast-grep scan --update-all` (injected corpus)',
        [sg, 'scan', '-c', sgconfig, '--update-all', '-j', str(cores), work],
        cores, n_files=inj_files, n_bytes=inj_bytes, setup=lambda: copy_tree(injected, work))

    # Start-up on one small file.
    small = os.path.join(ROOT, 'examples', 'utils', 'data.py')
    add('startup', '`asyncfix check` on one small file', check + [small], 1, n_files=1, n_bytes=os.path.getsize(small))

    for job in jobs:
        print(f'{job.key}: {" ".join(job.argv[:6])}{" …" if len(job.argv) > 6 else ""}', file=sys.stderr)
        reps = 20 if job.key == 'startup' else repeat
        run_job(job, reps, slow_after if job.key != 'startup' else 1e9)
    by = {j.key: j for j in jobs}

    # Quality of the fixes: files of the injected corpus that still fail to compile on this
    # Python because of async/await, after each tool's fix (the last run's copy is for sg).
    def still_broken(tree):
        broken = 0
        for path in kept:
            target = os.path.join(tree, os.path.relpath(path, injected))
            try:
                with open(target, 'rb') as f:
                    compile(f.read(), target, 'exec', dont_inherit=True)
            except SyntaxError as e:
                if 'async' in str(e.text or '') or 'await' in str(e.text or ''):
                    broken += 1
            except (ValueError, OSError):
                pass
        return broken

    quality = {'before': still_broken(injected), 'sg': still_broken(work)}
    copy_tree(injected, work)
    measure(by[f'fix{cores}'].argv)
    quality['asyncfix'] = still_broken(work)
    shutil.rmtree(work, ignore_errors=True)

    # The language server.
    lsp = {}
    seconds, code, out, err, _ = measure([lsp_bench, '--server', lsp_server, '--edits', str(args.lsp_edits)])
    lsp['latency'] = out.strip()
    seconds, code, out, err, _ = measure([lsp_bench, '--server', lsp_server, '--open', '100', '--lines', '2000'])
    lsp['docs'] = out.strip()
    # Typing real code (issue 13): the trace at three sizes, and in a notebook of 200 cells.
    lsp['typing'] = {}
    for n in (200, 2000, 20000):
        seconds, code, out, err, _ = measure([lsp_bench, '--server', lsp_server, '--typing', '--lines', str(n)])
        lsp['typing'][n] = out.strip() if code == 0 else f'typing trace at {n} lines failed: {err.strip()}'
    seconds, code, out, err, _ = measure([lsp_bench, '--server', lsp_server, '--notebook', '200'])
    lsp['notebook'] = out.strip() if code == 0 else f'notebook trace failed: {err.strip()}'

    write_report(args, by, jobs, cores, files, nbytes, inj_files, len(kept), kept_bytes, quality, lsp,
                 load_before, sg)


def parse_lsp(text):
    m = re.search(r'valid edits .*?median ([\d.]+) ms, p99 ([\d.]+) ms.*?server CPU ([\d.]+)', text)
    b = re.search(r'broken edits .*?median ([\d.]+) ms, p99 ([\d.]+) ms.*?server CPU ([\d.]+)', text)
    r = re.search(r'peak RSS \(VmHWM\): ([\d.]+) MiB', text)
    return m, b, r


def write_report(args, by, jobs, cores, files, nbytes, inj_files, kept_files, kept_bytes, quality, lsp, load_before, sg):
    cpu, ncpu, mem, kernel, load_after = machine()
    lines = []
    w = lines.append
    w('# Benchmark results')
    w('')
    w(f'Generated by `bench/run.sh` on {datetime.date.today().isoformat()}. Reproduce: `bench/run.sh` '
      '(fetches the corpus with `bench/corpus.sh`, builds the Release tree, runs `bench/run.py`).')
    w('')
    w('## Machine and versions')
    w('')
    w(f'- CPU: {cpu}, {ncpu} logical cores; memory {mem}; Linux {kernel}')
    w(f'- load average before / after the run: {load_before[0]:.2f} / {load_after[0]:.2f} '
      '(other work on the machine slows every job alike; the ratios are what the targets are about)')
    w(f'- {version([os.path.join(args.build, "cli", "asyncfix"), "--version"])}; '
      f'{version([sg, "--version"])}; {version([sys.executable, "--version"])}; {version(["grep", "--version"])}')
    lock = os.path.join(ROOT, 'grammar', 'package-lock.json')
    try:
        with open(lock) as f:
            pk = json.load(f)['packages']
        w(f'- tree-sitter {pk["node_modules/tree-sitter"]["version"]} (runtime), '
          f'tree-sitter-python {pk["node_modules/tree-sitter-python"]["version"]}, both for asyncfix and the parse floor')
    except (OSError, KeyError, ValueError):
        pass
    w(f'- corpus: {files} `.py` files, {nbytes / 1e6:.0f} MB from Debian packages (`bench/corpus.sh`); '
      f'injected variant: the same with legacy code appended to ~3 % of the files (`bench/inject.py`)')
    w('')
    w('## Whole corpus')
    w('')
    w('| job | threads | median s | runs | files/s | MB/s | peak RSS MiB | vs asyncfix (same threads) |')
    w('|---|---:|---:|---:|---:|---:|---:|---:|')
    for j in jobs:
        if j.key in ('keptparse', 'keptcheck', 'startup') or j.key.startswith('fix') or j.key.startswith('sgfix'):
            continue
        ref = by.get(f'asyncfix{j.threads}')
        ratio = j.median / ref.median if ref and ref.median else None
        w(f'| {j.label} | {j.threads} | {fmt(j.median, 3)} | {len(j.times)} | {j.files / j.median:,.0f} | '
          f'{j.nbytes / 1e6 / j.median:,.0f} | {j.rss_kb / 1024:.1f} | {fmt(ratio)}× |')
    w('')
    w('## Files that need parsing, fixing, start-up')
    w('')
    w('| job | threads | median s | runs | files | MB | peak RSS MiB |')
    w('|---|---:|---:|---:|---:|---:|---:|')
    for key in ['keptparse', 'keptcheck', f'fix{cores}', f'sgfix{cores}', 'startup']:
        j = by[key]
        w(f'| {j.label} | {j.threads} | {fmt(j.median, 4)} | {len(j.times)} | {j.files} | {j.nbytes / 1e6:.1f} | '
          f'{j.rss_kb / 1024:.1f} |')
    w('')
    w(f'Files of the injected corpus that do not compile on this Python because of `async`/`await`: '
      f'{quality["before"]} before, {quality["asyncfix"]} after `asyncfix check --fix --unsafe-fixes`, '
      f'{quality["sg"]} after `ast-grep scan --update-all` (its two rules rename no variables and '
      'leave parameters alone).')
    w('')
    w('## Language server')
    w('')
    w('```')
    w(lsp['latency'])
    w(lsp['docs'])
    for n, text in lsp['typing'].items():
        w(text)
    w(lsp['notebook'])
    w('```')
    w('')

    # Targets, as ratios from this run.
    w('## Targets')
    w('')
    w('| target | measured | met |')
    w('|---|---|---|')
    t = []
    for threads in sorted({1, cores}):
        a, s = by.get(f'asyncfix{threads}'), by.get(f'sg{threads}')
        if a and s:
            r = s.median / a.median
            t.append((f'≥ 20× faster than ast-grep, {threads} thread(s)', f'{r:.1f}×', r >= 20))
    a, rx = by[f'asyncfix{cores}'], by['regex']
    t.append(('faster than the seed regex script', f'{rx.median / a.median:.1f}× faster', a.median < rx.median))
    rd = by[f'read{cores}']
    t.append((f'within 2× of read-only I/O ({cores} threads)', f'{a.median / rd.median:.2f}×', a.median <= 2 * rd.median))
    kp, kc = by['keptparse'], by['keptcheck']
    t.append(('within 1.2× of bare parse on the files that need parsing', f'{kc.median / kp.median:.2f}×',
              kc.median <= 1.2 * kp.median))
    if cores > 1:
        a1 = by['asyncfix1']
        t.append((f'≥ 1.8× on {cores} cores over 1', f'{a1.median / a.median:.2f}×', a1.median / a.median >= 1.8))
    peak = max(by['asyncfix1'].rss_kb, a.rss_kb) / 1024
    t.append(('peak RSS under 64 MB on the full corpus', f'{peak:.1f} MiB', peak < 64))
    st = by['startup']
    t.append(('start-up: one small file under 5 ms', f'{st.median * 1000:.2f} ms', st.median < 0.005))
    m, b, r = parse_lsp(lsp['latency'])
    if m:
        t.append(('LSP didChange → diagnostics median < 1 ms (20 000 lines)', f'{m.group(1)} ms', float(m.group(1)) < 1))
        t.append(('LSP p99 < 5 ms', f'{m.group(2)} ms', float(m.group(2)) < 5))
    typed = {}
    for n, text in lsp['typing'].items():
        k = re.search(r'keystrokes didChange -> publishDiagnostics: median ([\d.]+) ms, p90 [\d.]+ ms, p99 ([\d.]+) ms', text)
        o = re.search(r'didOpen -> publish [\d.]+ ms \(bare parse [\d.]+ ms, ([\d.]+)x\)', text)
        h = re.search(r'hover while typing: median [\d.]+ ms, p90 [\d.]+ ms, p99 ([\d.]+) ms', text)
        a = re.search(r'code action while typing: median [\d.]+ ms, p90 [\d.]+ ms, p99 ([\d.]+) ms', text)
        if k:
            typed[n] = (float(k.group(1)), float(k.group(2)), o, h, a)
    if 20000 in typed:
        med, p99, o, h, a = typed[20000]
        t.append(('typing trace, 20 000 lines: median < 2 ms', f'{med} ms', med < 2))
        t.append(('typing trace, 20 000 lines: p99 < 10 ms', f'{p99} ms', p99 < 10))
        if 200 in typed:
            t.append(('p99 at 20 000 lines ≤ 3× p99 at 200 lines', f'{p99 / typed[200][1]:.1f}×', p99 <= 3 * typed[200][1]))
        if h and a:
            worst = max(float(h.group(1)), float(a.group(1)))
            t.append(('hover and code actions while typing: p99 < 5 ms', f'{worst} ms', worst < 5))
        if o:
            t.append(('didOpen ≤ 1.3× its bare parse (20 000 lines)', f'{o.group(1)}×', float(o.group(1)) <= 1.3))
    nb = re.search(r'its publishDiagnostics: median ([\d.]+) ms, p90 [\d.]+ ms, p99 ([\d.]+) ms', lsp['notebook'])
    if nb:
        t.append(('notebook, 200 cells: keystroke p99 < 10 ms', f'{nb.group(2)} ms', float(nb.group(2)) < 10))
    d = re.search(r'open documents: (\d+) bytes; RSS ([\d.]+) MiB', lsp['docs'])
    if d:
        docs_mb = int(d.group(1)) / 1024 / 1024
        limit = 4 * docs_mb + 20
        t.append(('LSP RSS with 100 open documents < 4× their size + 20 MB',
                  f'{float(d.group(2)):.1f} MiB (limit {limit:.1f})', float(d.group(2)) < limit))
    for name, measured, ok in t:
        w(f'| {name} | {measured} | {"yes" if ok else "**no**"} |')
    w('')
    w('## Commands')
    w('')
    w('```')
    for j in jobs:
        argv = j.argv if len(j.argv) < 12 else j.argv[:11] + [f'… ({len(j.argv) - 11} more files)']
        w(' '.join(argv))
    w('```')
    with open(args.out, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print(f'run.py: wrote {args.out}', file=sys.stderr)


if __name__ == '__main__':
    main()
