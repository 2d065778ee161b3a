#!/usr/bin/env python3
"""bench/run.py — asyncfix against its peers and the physical limits, side by side, in one run.

    bench/run.sh                      # builds what it needs, then runs this
    python3 bench/run.py --build build/release [--cache DIR] [--repeat N] [--quick]
                         [--corpus debian,torch,dense] [--no-lsp] [--out bench/RESULTS.md]

Three corpora (bench/corpus.sh makes them): general Python from Debian's packages, Debian's
PyTorch packages, and generated dense training code (bench/gen_torch.py). On each, every job runs
on the same files, in alternating rounds; the report gives per corpus the files, MB, what the
prefilter keeps and its share of `check`'s time, medians, files/s, MB/s, peak RSS (from wait4's
rusage) and ratios measured in this run, then checks the targets of the performance issues as
ratios. Nothing here is a timed assertion: the numbers are a report.
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


SHORT, SHORT_RUNS = 0.25, 7  # a job faster than SHORT seconds runs SHORT_RUNS times per round


class Job:
    """One command, run `repeat` times; keeps the wall times and the largest peak RSS."""

    def __init__(self, key, label, argv, files=None, nbytes=None, threads=None, setup=None, env=None, after=None):
        self.key, self.label, self.argv = key, label, argv
        self.files, self.nbytes, self.threads = files, nbytes, threads
        self.setup, self.env, self.after = setup, env, after
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
        if job.after:
            job.after()
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


CORPORA = {
    # name: (directory under the cache, what it is)
    'debian': ('corpus', 'general Python from 18 Debian packages (`bench/corpus.sh`)'),
    'torch': ('torch', "every PyTorch package of Debian bookworm: torch, torchvision, torchaudio, torchtext, "
                       "skorch (`bench/corpus.sh`)"),
    'dense': ('dense', 'generated dense training code: `non_blocking` copies in every function, a quarter '
                       'asyncio code, ~5 % of the files with legacy `async=` code (`bench/gen_torch.py`, seeded)'),
}
FINDING = re.compile(r'^.+:\d+:\d+: [A-Z]+\d+ ', re.M)


def findings(text):
    return len(FINDING.findall(text))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build', default=os.path.join(ROOT, 'build', 'release'))
    ap.add_argument('--cache', default=os.environ.get('ASYNCFIX_BENCH_CACHE',
                                                      os.path.expanduser('~/.cache/asyncfix-bench')))
    ap.add_argument('--repeat', type=int, default=3, help='alternating runs per job (slow jobs stop after 2)')
    ap.add_argument('--quick', action='store_true', help='one run per job, skip the single-thread peers')
    ap.add_argument('--corpus', default='debian,torch,dense',
                    help='comma-separated corpora to measure: ' + ', '.join(CORPORA) + ' (default: all)')
    ap.add_argument('--no-lsp', action='store_true', help='skip the language server traces')
    ap.add_argument('--out', default=os.path.join(HERE, 'RESULTS.md'))
    ap.add_argument('--lsp-edits', type=int, default=300)
    args = ap.parse_args()
    repeat = 1 if args.quick else args.repeat
    slow_after = 20.0
    selected = [c for c in args.corpus.split(',') if c]
    for c in selected:
        if c not in CORPORA:
            sys.exit(f'run.py: unknown corpus {c!r} (known: {", ".join(CORPORA)})')

    asyncfix = os.path.join(args.build, 'cli', 'asyncfix')
    floor = os.path.join(args.build, 'bench', 'parse', 'asyncfix_bench_parse')
    lsp_bench = os.path.join(args.build, 'bench', 'lsp', 'asyncfix_lsp_bench')
    lsp_server = os.path.join(args.build, 'lsp', 'asyncfix-lsp')
    sg = os.path.join(HERE, 'ast-grep', 'node_modules', '@ast-grep', 'cli-linux-x64-gnu', 'ast-grep')
    sgconfig = os.path.join(HERE, 'ast-grep', 'sgconfig.yml')
    paths = {c: os.path.join(args.cache, CORPORA[c][0]) for c in selected}
    injected = os.path.join(args.cache, 'injected')
    dense_file = os.path.join(args.cache, 'dense-file', 'train_20000.py')
    needed = [(asyncfix, 'asyncfix'), (floor, 'asyncfix_bench_parse'), (sg, 'ast-grep (npm ci in bench/ast-grep)')]
    if not args.no_lsp:
        needed.append((lsp_bench, 'asyncfix_lsp_bench'))
    needed += [(paths[c], f'the {c} corpus (bench/corpus.sh)') for c in selected]
    for path, what in needed:
        if not os.path.exists(path):
            sys.exit(f'run.py: {what} not found at {path}; bench/run.sh prepares everything')

    cores = os.cpu_count() or 1
    stats = {c: corpus_stats(paths[c]) for c in selected}
    for c in selected:
        print(f'{c}: {stats[c][0]} files, {stats[c][1] / 1e6:.0f} MB', file=sys.stderr)
    load_before = os.getloadavg()

    jobs = []

    def add(corpus, key, label, argv, threads, n_files=None, n_bytes=None, **kw):
        job = Job(key, label, argv, files=stats[corpus][0] if n_files is None else n_files,
                  nbytes=stats[corpus][1] if n_bytes is None else n_bytes, threads=threads, **kw)
        job.corpus = corpus
        jobs.append(job)

    check = [asyncfix, 'check', '--exit-zero', '--output-format', 'concise']
    thread_counts = [1, cores] if cores > 1 else [1]
    extra = {}
    for c in selected:
        path = paths[c]
        # The floors: reading, the prefilter alone (`list`: read + scan, no parse), the prefilter
        # with a bare parse of the files it keeps (what `check` cannot go below today), parsing all.
        for t in (thread_counts if c == 'debian' else [cores]):
            add(c, f'read{t}', 'read every file (I/O floor)', [floor, 'read', '-j', str(t), path], t)
        add(c, f'scan{cores}', 'prefilter alone (read + scan, no parse)', [floor, 'list', '-j', str(cores), path], cores)
        add(c, f'prefilter{cores}', 'prefilter + bare parse of the kept files',
            [floor, 'prefilter', '-j', str(cores), path], cores)
        add(c, f'parse{cores}', 'tree-sitter parse of every file, no rules', [floor, 'parse', '-j', str(cores), path],
            cores)
        # asyncfix.
        for t in thread_counts:
            add(c, f'asyncfix{t}', '`asyncfix check`', check + ['-j', str(t), path], t)
        # The peers.
        for t in ([cores] if args.quick or c != 'debian' else thread_counts):
            add(c, f'sg{t}', '`ast-grep scan` (2 rules)', [sg, 'scan', '-c', sgconfig, '-j', str(t), path], t)
        if c == 'debian':
            add(c, 'regex', 'seed-style regex script (python3)', [sys.executable, os.path.join(HERE, 'seed_regex.py'), path], 1)
            add(c, 'grep', '`grep -rlE` for `async\\s*=`', ['grep', '-rlE', '--include=*.py', r'\basync\s*=', path], 1)

    # Files that need parsing (prefilter keeps them): asyncfix on exactly those vs their bare parse.
    fixes = []  # (corpus, tree with legacy code, the files to compile afterwards or None for all, what)
    if 'debian' in selected:
        kept_list = os.path.join(tempfile.gettempdir(), 'asyncfix-bench-kept.txt')
        listed = subprocess.run([floor, 'list', '-j', str(cores), injected], capture_output=True, text=True, check=True)
        with open(kept_list, 'w') as f:
            f.write(listed.stdout)
        kept = [line for line in listed.stdout.splitlines() if line]
        kept_bytes = sum(os.path.getsize(p) for p in kept)
        add('debian', 'keptparse', 'bare parse of the files that need parsing (injected corpus)',
            [floor, 'parse', '-j', '1', '--files-from', kept_list], 1, n_files=len(kept), n_bytes=kept_bytes)
        add('debian', 'keptcheck', '`asyncfix check` on the same files', check + ['-j', '1'] + kept, 1,
            n_files=len(kept), n_bytes=kept_bytes)
        fixes.append(('debian', injected, kept, 'injected corpus'))
    if 'dense' in selected:
        fixes.append(('dense', paths['dense'], None, 'dense corpus'))  # its legacy code is generated in
    # Quality of the fixes: files that still fail to compile on this Python because of
    # async/await, after each tool's fix (ast-grep's counted after each of its runs: with
    # alternating rounds, its copy may not be the last one written).
    def still_broken(tree, base, files):
        if files is None:
            files = [os.path.join(d, n) for d, _, names in os.walk(base) for n in names if n.endswith('.py')]
        broken = 0
        for path in files:
            target = os.path.join(tree, os.path.relpath(path, base))
            try:
                with open(target, 'rb') as f:
                    compile(f.read(), target, 'exec', dont_inherit=True)
            except SyntaxError as e:
                if 'async' in str(e.text or '') or 'await' in str(e.text or ''):
                    broken += 1
            except (ValueError, OSError):
                pass
        return broken

    sg_broken = {}
    # Fixing: a fresh copy of the tree for every run.
    for fc, tree, files, what in fixes:
        work = os.path.join(args.cache, f'work-{fc}')
        n_files, n_bytes = corpus_stats(tree)
        add(fc, f'fix{cores}', f'`asyncfix check --fix --unsafe-fixes` ({what})',
            [asyncfix, 'check', '--fix', '--unsafe-fixes', '--exit-zero', '--output-format', 'concise', '-j', str(cores), work],
            cores, n_files=n_files, n_bytes=n_bytes, setup=lambda tree=tree, work=work: copy_tree(tree, work))
        add(fc, f'sgfix{cores}', f'`ast-grep scan --update-all` ({what})',
            [sg, 'scan', '-c', sgconfig, '--update-all', '-j', str(cores), work],
            cores, n_files=n_files, n_bytes=n_bytes, setup=lambda tree=tree, work=work: copy_tree(tree, work),
            after=lambda fc=fc, tree=tree, files=files, work=work:
                sg_broken.__setitem__(fc, still_broken(work, tree, files)))
    if 'dense' in selected and os.path.exists(dense_file):
        size = os.path.getsize(dense_file)
        add('dense', 'fileparse', 'bare parse of one dense 20 000-line file', [floor, 'parse', '-j', '1', dense_file], 1,
            n_files=1, n_bytes=size)
        add('dense', 'filecheck', '`asyncfix check` on the same file', check + [dense_file], 1, n_files=1, n_bytes=size)

    # Start-up on one small file.
    small = os.path.join(ROOT, 'examples', 'utils', 'data.py')
    add(selected[0], 'startup', '`asyncfix check` on one small file', check + [small], 1, n_files=1,
        n_bytes=os.path.getsize(small))

    # Warm the page cache, then run the jobs in alternating rounds: drift in the machine's load
    # or in the cache then touches every job of a round alike, and the ratios stay fair.
    for c in selected:
        measure([floor, 'read', '-j', str(cores), paths[c]])
    for job in jobs:
        print(f'{job.corpus}:{job.key}: {" ".join(job.argv[:6])}{" …" if len(job.argv) > 6 else ""}', file=sys.stderr)
    for rnd in range(repeat):
        for job in jobs:
            if rnd > 0 and (job.key == 'startup' or (len(job.times) >= 2 and min(job.times) > slow_after)):
                continue  # start-up runs its 20 at once; slow peers: a median of two is enough
            print(f'[{rnd + 1}/{repeat}] {job.corpus}', file=sys.stderr, end='')
            run_job(job, 20 if job.key == 'startup' else 1, 1e9)
            if job.key != 'startup' and job.times[-1] < SHORT:
                # A run of a few tens of milliseconds moves by half with the scheduler's whims:
                # more runs per round, so that the median of a short job means something.
                run_job(job, SHORT_RUNS - 1, 1e9)
    by = {(j.corpus, j.key): j for j in jobs}

    # Per corpus: what the prefilter keeps, findings, and the differential (`verify`: every file
    # the prefilter skips is linted with every rule; every kept file with and without pruning).
    for c in selected:
        scan = by[(c, f'scan{cores}')]
        try:
            info = json.loads(scan.stderr.strip().splitlines()[-1])
        except (ValueError, IndexError):
            info = {}
        _, code, out, err, _ = measure([floor, 'verify', '-j', str(cores), paths[c]])
        extra[c] = {'kept': info.get('kept'), 'kept_bytes': info.get('kept_bytes'),
                    'findings': {t: findings(by[(c, f'asyncfix{t}')].stdout) for t in thread_counts},
                    'verify': 'clean' if code == 0 else f'{err.count(chr(10))} differences (exit {code})'}

    quality = {}
    for fc, tree, files, what in fixes:
        work = os.path.join(args.cache, f'work-{fc}')
        quality[fc] = {'what': what, 'before': still_broken(tree, tree, files), 'sg': sg_broken.get(fc)}
        copy_tree(tree, work)
        measure(by[(fc, f'fix{cores}')].argv)
        quality[fc]['asyncfix'] = still_broken(work, tree, files)
        shutil.rmtree(work, ignore_errors=True)

    # The language server.
    lsp = None
    if not args.no_lsp:
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
        # A typist who pauses past the quiet period with a bracket open: the background settle
        # must give way to the next keystroke.
        seconds, code, out, err, _ = measure(
            [lsp_bench, '--server', lsp_server, '--typing', '--lines', '20000', '--pause', '450'])
        lsp['paused'] = out.strip() if code == 0 else f'typing trace with pauses failed: {err.strip()}'

    write_report(args, by, jobs, cores, selected, stats, extra, quality, lsp, load_before, sg, repeat)


def parse_lsp(text):
    m = re.search(r'valid edits .*?median ([\d.]+) ms, p99 ([\d.]+) ms.*?server CPU ([\d.]+)', text)
    b = re.search(r'broken edits .*?median ([\d.]+) ms, p99 ([\d.]+) ms.*?server CPU ([\d.]+)', text)
    r = re.search(r'peak RSS \(VmHWM\): ([\d.]+) MiB', text)
    return m, b, r


def short(path):
    """A path as the report shows it: the repository's own relative, the home directory as ~."""
    path = path.replace(ROOT + os.sep, '')
    return path.replace(os.path.expanduser('~'), '~')


def write_report(args, by, jobs, cores, selected, stats, extra, quality, lsp, load_before, sg, repeat):
    cpu, ncpu, mem, kernel, load_after = machine()
    lines = []
    w = lines.append
    w('# Benchmark results')
    w('')
    w(f'Generated by `bench/run.sh` on {datetime.date.today().isoformat()}. Reproduce: `bench/run.sh` '
      '(fetches the corpora with `bench/corpus.sh`, builds the Release tree, runs `bench/run.py`; '
      '`--corpus debian,torch,dense`, `--quick` and `--no-lsp` shorten it).')
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
    w(f'- {repeat} alternating round(s) of every job after a warm-up read of each corpus (page cache warm); '
      f'medians; jobs faster than {SHORT} s run {SHORT_RUNS} times per round, jobs slower than 20 s stop '
      'after two runs')
    w('')
    w('## Corpora')
    w('')
    w('| corpus | what | files | MB | prefilter keeps | kept MB | findings (`check -j 1` / `-j 2`) | `verify` differential |')
    w('|---|---|---:|---:|---:|---:|---:|---|')
    for c in selected:
        e = extra[c]
        kb = e['kept_bytes']
        fs = ' / '.join(str(e['findings'][t]) for t in sorted(e['findings']))
        w(f'| {c} | {CORPORA[c][1]} | {stats[c][0]} | {stats[c][1] / 1e6:.1f} | {e["kept"]} | '
          f'{"—" if kb is None else f"{kb / 1e6:.1f}"} | {fs} | {e["verify"]} |')
    w('')
    w('The Debian corpus is also measured with legacy code appended to ~3 % of its files '
      '(`bench/inject.py`, the "injected corpus" below).')
    w('')
    w('## Issue 16 targets, per corpus')
    w('')
    w('Ratios of medians from this run. Targets: `check -j 2` ≤ 2× reading the files (moonshot 1.5×) on every '
      'corpus; on PyTorch code ≥ 50× faster than ast-grep and `-j 2` ≥ 1.8× `-j 1`; findings unchanged.')
    w('')
    w('| corpus | `check -j 2` / read | `-j 1` / `-j 2` | ast-grep / `check` (2 threads) | prefilter alone / `check` | '
      'prefilter + parse of kept / `check` |')
    w('|---|---|---|---|---|---|')

    def mark(ok):
        return 'met' if ok else '**not met**'

    for c in selected:
        a2, a1 = by[(c, f'asyncfix{cores}')], by.get((c, 'asyncfix1'))
        rd, sgj = by[(c, f'read{cores}')], by.get((c, f'sg{cores}'))
        sc, pf = by[(c, f'scan{cores}')], by[(c, f'prefilter{cores}')]
        r_read = a2.median / rd.median
        read_cell = f'{r_read:.1f}× ({mark(r_read <= 2)}{"; moonshot met" if r_read <= 1.5 else ""})'
        torchy = c != 'debian'
        if a1 and cores > 1:
            sp = a1.median / a2.median
            j_cell = f'{sp:.2f}×' + (f' ({mark(sp >= 1.8)})' if torchy else '')
        else:
            j_cell = '—'
        if sgj:
            r_sg = sgj.median / a2.median
            sg_cell = f'{r_sg:.1f}×' + (f' ({mark(r_sg >= 50)})' if torchy else '')
        else:
            sg_cell = '—'
        w(f'| {c} | {read_cell} | {j_cell} | {sg_cell} | {100 * sc.median / a2.median:.0f} % | '
          f'{100 * pf.median / a2.median:.0f} % |')
    fp, fc = by.get(('dense', 'fileparse')), by.get(('dense', 'filecheck'))
    if fp and fc:
        r = fc.median / fp.median
        w('')
        w(f'Dense 20 000-line file (`{short(fc.argv[-1])}`): `asyncfix check` {fc.median * 1000:.1f} ms, its bare parse '
          f'{fp.median * 1000:.1f} ms (both whole processes): {r:.2f}× (target ≤ 1.2×: {mark(r <= 1.2)}).')
    w('')
    for c in selected:
        w(f'## {c} corpus: every job')
        w('')
        w('| job | threads | median s | runs | files/s | MB/s | peak RSS MiB | vs `check` (same threads) |')
        w('|---|---:|---:|---:|---:|---:|---:|---:|')
        for j in jobs:
            if j.corpus != c or j.key in ('keptparse', 'keptcheck', 'startup', 'fileparse', 'filecheck') \
                    or j.key.startswith('fix') or j.key.startswith('sgfix'):
                continue
            ref = by.get((c, f'asyncfix{j.threads}'))
            ratio = j.median / ref.median if ref and ref.median else None
            w(f'| {j.label} | {j.threads} | {fmt(j.median, 3)} | {len(j.times)} | {j.files / j.median:,.0f} | '
              f'{j.nbytes / 1e6 / j.median:,.0f} | {j.rss_kb / 1024:.1f} | {fmt(ratio)}× |')
        w('')
    w('## Files that need parsing, fixing, start-up')
    w('')
    w('| job | threads | median s | runs | files | MB | peak RSS MiB |')
    w('|---|---:|---:|---:|---:|---:|---:|')
    for key in [('debian', 'keptparse'), ('debian', 'keptcheck'), ('debian', f'fix{cores}'), ('debian', f'sgfix{cores}'),
                ('dense', f'fix{cores}'), ('dense', f'sgfix{cores}'), ('dense', 'fileparse'), ('dense', 'filecheck')] + \
            [(c, 'startup') for c in selected]:
        j = by.get(key)
        if not j:
            continue
        w(f'| {j.label} | {j.threads} | {fmt(j.median, 4)} | {len(j.times)} | {j.files} | {j.nbytes / 1e6:.1f} | '
          f'{j.rss_kb / 1024:.1f} |')
    w('')
    for fc, q in quality.items():
        w(f'Files of the {q["what"]} that do not compile on this Python because of `async`/`await`: '
          f'{q["before"]} before, {q["asyncfix"]} after `asyncfix check --fix --unsafe-fixes`, '
          f'{q["sg"]} after `ast-grep scan --update-all` (its two rules rename no variables and '
          'leave parameters alone).')
        w('')
    if lsp:
        w('## Language server')
        w('')
        w('```')
        w(lsp['latency'])
        w(lsp['docs'])
        for n, text in lsp['typing'].items():
            w(text)
        w(lsp['notebook'])
        w(lsp['paused'])
        w('```')
        w('')

    # Earlier issues' targets, as ratios from this run (the Debian corpus and the server).
    w('## Targets of earlier issues')
    w('')
    w('| target | measured | met |')
    w('|---|---|---|')
    t = []
    if 'debian' in selected:
        for threads in sorted({1, cores}):
            a, s = by.get(('debian', f'asyncfix{threads}')), by.get(('debian', f'sg{threads}'))
            if a and s:
                r = s.median / a.median
                t.append((f'≥ 20× faster than ast-grep, {threads} thread(s)', f'{r:.1f}×', r >= 20))
        a, rx = by[('debian', f'asyncfix{cores}')], by[('debian', 'regex')]
        t.append(('faster than the seed regex script', f'{rx.median / a.median:.1f}× faster', a.median < rx.median))
        rd = by[('debian', f'read{cores}')]
        t.append((f'within 2× of read-only I/O ({cores} threads)', f'{a.median / rd.median:.2f}×',
                  a.median <= 2 * rd.median))
        kp, kc = by[('debian', 'keptparse')], by[('debian', 'keptcheck')]
        t.append(('within 1.2× of bare parse on the files that need parsing', f'{kc.median / kp.median:.2f}×',
                  kc.median <= 1.2 * kp.median))
        if cores > 1:
            a1 = by[('debian', 'asyncfix1')]
            t.append((f'≥ 1.8× on {cores} cores over 1', f'{a1.median / a.median:.2f}×', a1.median / a.median >= 1.8))
    peak = max(j.rss_kb for j in jobs if j.key.startswith('asyncfix')) / 1024
    t.append(('peak RSS under 64 MB on a full corpus (`check`, any corpus)', f'{peak:.1f} MiB', peak < 64))
    st = by[(selected[0], 'startup')]
    t.append(('start-up: one small file under 5 ms', f'{st.median * 1000:.2f} ms', st.median < 0.005))
    if lsp:
        m, b, r = parse_lsp(lsp['latency'])
        if m:
            t.append(('LSP didChange → diagnostics median < 1 ms (20 000 lines)', f'{m.group(1)} ms',
                      float(m.group(1)) < 1))
            t.append(('LSP p99 < 5 ms', f'{m.group(2)} ms', float(m.group(2)) < 5))
        typed = {}
        for n, text in lsp['typing'].items():
            k = re.search(r'keystrokes didChange -> publishDiagnostics: median ([\d.]+) ms, p90 [\d.]+ ms, p99 ([\d.]+) ms',
                          text)
            o = re.search(r'didOpen -> publish [\d.]+ ms \(bare parse [\d.]+ ms, ([\d.]+)x; CPU time: .*?, ([\d.]+)x\)',
                          text)
            h = re.search(r'hover while typing: median [\d.]+ ms, p90 [\d.]+ ms, p99 ([\d.]+) ms', text)
            a = re.search(r'code action while typing: median [\d.]+ ms, p90 [\d.]+ ms, p99 ([\d.]+) ms', text)
            if k:
                typed[n] = (float(k.group(1)), float(k.group(2)), o, h, a)
        if 20000 in typed:
            med, p99, o, h, a = typed[20000]
            t.append(('typing trace, 20 000 lines: median < 2 ms', f'{med} ms', med < 2))
            t.append(('typing trace, 20 000 lines: p99 < 10 ms', f'{p99} ms', p99 < 10))
            if 200 in typed:
                t.append(('p99 at 20 000 lines ≤ 3× p99 at 200 lines', f'{p99 / typed[200][1]:.1f}×',
                          p99 <= 3 * typed[200][1]))
            if h and a:
                worst = max(float(h.group(1)), float(a.group(1)))
                t.append(('hover and code actions while typing: p99 < 5 ms', f'{worst} ms', worst < 5))
            if o:
                t.append(('didOpen ≤ 1.3× its bare parse (20 000 lines)',
                          f'{o.group(1)}× (CPU time {o.group(2)}×)', float(o.group(1)) <= 1.3))
        paused = re.search(r'keystrokes didChange -> publishDiagnostics: median [\d.]+ ms, p90 [\d.]+ ms, '
                           r'p99 ([\d.]+) ms', lsp['paused'])
        if paused:
            t.append(('typing with pauses past the quiet period, 20 000 lines: p99 < 10 ms', f'{paused.group(1)} ms',
                      float(paused.group(1)) < 10))
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
    w(f'python3 bench/run.py {" ".join(short(a) for a in sys.argv[1:])}'.rstrip())
    for j in jobs:
        argv = j.argv if len(j.argv) < 12 else j.argv[:11] + [f'… ({len(j.argv) - 11} more files)']
        w(' '.join(short(a) for a in argv))
    w('```')
    with open(args.out, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print(f'run.py: wrote {args.out}', file=sys.stderr)


if __name__ == '__main__':
    main()
