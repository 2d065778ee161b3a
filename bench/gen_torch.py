#!/usr/bin/env python3
"""bench/gen_torch.py — dense PyTorch training code, generated, for the benchmark (issue 16).

    bench/gen_torch.py DIR [--files N] [--seed S]     a corpus: N files (1500) under DIR/<project>/<package>/
    bench/gen_torch.py FILE --lines N [--seed S]      one dense file of about N lines
    bench/gen_torch.py DIR --clean                    the same corpus with nothing to find (below)

The real PyTorch corpus (Debian's torch, torchvision, …) is library code; the code asyncfix exists
for is training code, where nearly every function copies a batch to the GPU. Every function here
loops over a DataLoader and copies its batches with `non_blocking=True`; `.to(device)` is
everywhere; a quarter of the files are asyncio code (`async def`, `await`, `async for/with`);
strings, comments and docstrings mention `async=True` (never a finding). A small share of the
files (~4 %) also hold legacy code — `.cuda(async=True)`, `async` as a name, `.to(device, True)`,
`asyncio.async(...)`, a `try/except TypeError` shim — so `check` has findings and `--fix` has work.

`--clean` writes the same code as today's projects write it, with nothing any rule can report: no
legacy code, the loaders built in another module (`from .data import BatchLoader`), batches
copied with `.to(device, non_blocking=True)`. The prefilter should keep none of it: the corpus
measures its scan at PyTorch density (issue 29), not the parser.

Deterministic: the output depends only on the seed and the arguments (each file draws from its
own `random.Random(f'{seed}:{index}')`), so every machine benchmarks the same bytes.
"""
import argparse
import os
import random
import sys

LEGACY_RATE = 0.04  # share of the files with legacy code
ASYNC_RATE = 0.25  # share of the files written against asyncio
NO_PIN_RATE = 0.10  # share of the DataLoaders built without pin_memory=True

HEADER = '''"""{title}

Training utilities. Batches are copied with non_blocking=True (older releases of this project
used `.cuda(async=True)`, which no longer compiles on Python 3.7+).
"""
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
'''

ASYNC_IMPORTS = 'import asyncio\n'

MODEL = '''

class {cls}(nn.Module):
    """A small {kind} network; `self.to(device)` moves it, never `.cuda(async=...)`."""

    def __init__(self, in_features={fin}, hidden={hid}, classes={cls_n}):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.drop = nn.Dropout(p={p})
        self.fc2 = nn.Linear(hidden, classes)

    def forward(self, x):
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(self.drop(x))
'''

LOADER = '''

def make_loader_{n}(size={size}, batch_size={bs}, features={fin}):
    data = torch.randn(size, features)
    labels = torch.randint(0, {cls_n}, (size,))
    return DataLoader(TensorDataset(data, labels), batch_size=batch_size, shuffle={shuffle},
                      num_workers={workers}{pin})
'''

TRAIN = '''

def train_epoch_{n}(model, loader, optimizer, device, epoch={epoch}):
    """One epoch; copies each batch with non_blocking=True (was: async=True)."""
    model.train()
    total = 0.0
    for step, ({x}, {y}) in enumerate(loader):
        {x} = {x}.to(device, non_blocking=True)
        {y} = {y}.to(device=device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        output = model({x})
        loss = F.cross_entropy(output, {y})
        loss.backward()
        optimizer.step()
        total += loss.detach()
        if step % {every} == 0:
            print(f"epoch {{epoch}} step {{step}}: loss {{loss.item():.4f}}")
    return (total / max(1, len(loader))).item()
'''

EVAL = '''

@torch.no_grad()
def evaluate_{n}(model, loader, device):
    model.eval()
    correct = 0
    seen = 0
    for batch in loader:
        {x}, {y} = (t.cuda(device, non_blocking=True) for t in batch)
        pred = model({x}).argmax(dim=1)
        correct += (pred == {y}).sum().item()
        seen += {y}.numel()
    return correct / max(1, seen)
'''

PREFETCH = '''

class Prefetcher{n}:
    """Overlaps host-to-device copies with compute on a side stream."""

    def __init__(self, loader, device):
        self.loader = loader
        self.device = device
        self.stream = torch.cuda.Stream() if torch.cuda.is_available() else None

    def __iter__(self):
        for {x}, {y} in self.loader:
            if self.stream is not None:
                with torch.cuda.stream(self.stream):
                    {x} = {x}.cuda(non_blocking=True)
                    {y} = {y}.cuda(
                        non_blocking=True,
                    )
                torch.cuda.current_stream().wait_stream(self.stream)
            else:
                {x}, {y} = {x}.to(self.device), {y}.to(self.device)
            yield {x}, {y}
'''

STEP = '''

def step_{n}(model, batch, device, scale={scale}):
    {x}, {y} = batch
    {x} = {x}.to(device, non_blocking=True).float()
    {y} = {y}.to(device, non_blocking=True)
    value_{n} = model({x}).sum() * scale
    return value_{n}, {y}
'''

MIXED = '''

def mixed_precision_{n}(model, loader, optimizer, device):
    scaler = torch.cuda.amp.GradScaler(enabled=torch.cuda.is_available())
    model.to(device)
    for {x}, {y} in loader:
        {x}, {y} = {x}.to(device, non_blocking=True), {y}.to(device, non_blocking=True)
        with torch.autocast(device_type="cuda", enabled=torch.cuda.is_available()):
            loss = F.cross_entropy(model({x}), {y})
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
    # A note for readers: `x.cuda(async=True)` here was the PyTorch 0.3 spelling.
    return "non_blocking=True replaced async=True"
'''

ASYNC_FEED = '''

async def feed_{n}(loader, queue, device):
    """Producer: copies batches and hands them over (asyncio)."""
    async with asyncio.timeout({timeout}):
        for {x}, {y} in loader:
            await queue.put(({x}.to(device, non_blocking=True), {y}.to(device, non_blocking=True)))
            await asyncio.sleep(0)
    await queue.put(None)


async def consume_{n}(model, queue):
    results = []
    while (item := await queue.get()) is not None:
        {x}, {y} = item
        results.append(model({x}).argmax(1).eq({y}).float().mean().item())
    return results


async def stream_{n}(source, device):
    async for {x} in source:
        yield {x}.to(device, non_blocking=True)
'''

MAIN = '''

def main(device=None):
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    model = {cls}().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr={lr})
    loader = make_loader_{loader}()
    for epoch in range({epochs}):
        train_epoch_{train}(model, loader, optimizer, device, epoch)
    return evaluate_{eval}(model, loader, device)


if __name__ == "__main__":
    main()
'''

ASYNC_MAIN = '''

async def serve(device="cuda"):
    model = {cls}().to(device)
    queue = asyncio.Queue(maxsize=8)
    loader = make_loader_{loader}()
    producer = asyncio.create_task(feed_{feed}(loader, queue, device))
    scores = await consume_{feed}(model, queue)
    await producer
    return sum(scores) / max(1, len(scores))


if __name__ == "__main__":
    asyncio.run(serve())
'''

# Legacy code: what the rules exist for (AF001/AF002, AF101, AF102, AF103, AF105, AF202).
LEGACY = [
    '''

def legacy_copy_{n}(batch, async=True):
    {x} = batch[0].cuda(async=async)
    {y} = batch[1].cuda(0, async=True)
    return {x}, {y}
''',
    '''

def legacy_train_{n}(model, loader, device):
    model.cuda(async=True)
    for {x}, {y} in loader:
        {x} = {x}.cuda(
            device,
            async=True)
        {y} = {y}.to(device, True)
        model({x}).sum().backward()
''',
    '''

def legacy_shim_{n}(tensor):
    try:
        return tensor.cuda(non_blocking=True)
    except TypeError:
        return tensor.cuda(async=True)
''',
    '''

def legacy_schedule_{n}(coro):
    return asyncio.async(coro)
''',
    '''

class LegacyLoader{n}(object):
    def __init__(self, loader, async=False):
        self.async = async
        self.loader = loader

    def __iter__(self):
        for {x}, {y} in self.loader:
            yield {x}.cuda(async=self.async), {y}.type(torch.cuda.FloatTensor, async=True)
''',
]

NAMES = [('images', 'target'), ('inputs', 'labels'), ('x', 'y'), ('data', 'targets'), ('src', 'tgt'),
         ('features', 'classes'), ('audio', 'label'), ('tokens', 'mask')]
KINDS = ['classifier', 'regression', 'audio', 'vision', 'text', 'graph']


def values(rng, n):
    x, y = rng.choice(NAMES)
    return dict(n=n, x=x, y=y, fin=rng.choice([16, 32, 64, 128, 784]), hid=rng.choice([64, 128, 256, 512]),
                cls_n=rng.choice([2, 10, 100]), p=rng.choice([0.1, 0.2, 0.5]), size=rng.randrange(64, 4096),
                bs=rng.choice([16, 32, 64, 128]), shuffle=rng.choice(['True', 'False']), workers=rng.randrange(0, 9),
                pin='' if rng.random() < NO_PIN_RATE else ', pin_memory=True', epoch=rng.randrange(0, 90),
                every=rng.choice([10, 50, 100]), scale=rng.randrange(1, 1000), timeout=rng.randrange(5, 600),
                lr=rng.choice(['0.1', '0.01', '1e-3']))


def generate(rng, blocks, is_async, legacy, title):
    """One module: a model, loaders, `blocks` training functions, and a main."""
    out = [HEADER.format(title=title)]
    if is_async or legacy:
        out.append(ASYNC_IMPORTS)
    cls = f'{rng.choice(["Tiny", "Small", "Deep", "Wide"])}{rng.choice(["Net", "Model", "Encoder"])}'
    out.append(MODEL.format(cls=cls, kind=rng.choice(KINDS), **{k: v for k, v in values(rng, 0).items()
                                                                 if k in ('fin', 'hid', 'cls_n', 'p')}))
    loaders, trains, evals, feeds = [], [], [], []
    kinds = [(LOADER, loaders), (TRAIN, trains), (EVAL, evals), (PREFETCH, None), (STEP, None), (MIXED, None)]
    if is_async:
        kinds.append((ASYNC_FEED, feeds))
    for n in range(blocks):
        template, names = kinds[n % len(kinds)] if n < len(kinds) else rng.choice(kinds)
        out.append(template.format(**values(rng, n)))
        if names is not None:
            names.append(n)
    if legacy:
        for _ in range(rng.randrange(1, 3)):
            out.append(rng.choice(LEGACY).format(**values(rng, blocks + len(out))))
    if is_async and feeds:
        out.append(ASYNC_MAIN.format(cls=cls, loader=rng.choice(loaders), feed=rng.choice(feeds)))
    else:
        out.append(MAIN.format(cls=cls, loader=rng.choice(loaders), train=rng.choice(trains),
                               eval=rng.choice(evals), **{k: v for k, v in values(rng, 0).items() if k == 'lr'},
                               epochs=rng.randrange(1, 100)))
    return ''.join(out)


def cleaned(text):
    """The modern spelling of a generated file, with nothing to report (see --clean)."""
    text = text.replace('from torch.utils.data import', 'from .data import').replace('DataLoader', 'BatchLoader')
    text = text.replace('.cuda(non_blocking=True)', '.to(self.device, non_blocking=True)')
    text = text.replace('t.cuda(device, non_blocking=True)', 't.to(device, non_blocking=True)')
    return text.replace('.cuda(\n                        non_blocking=True,', '.to(\n                        self.device, non_blocking=True,')


def corpus(root, files, seed, clean=False):
    legacy_files = 0
    nbytes = 0
    for i in range(files):
        rng = random.Random(f'{seed}:{i}')
        project, package = f'project_{i % 40:02d}', rng.choice(['train', 'models', 'engine', 'data', 'utils'])
        path = os.path.join(root, project, package, f'module_{i:05d}.py')
        legacy = rng.random() < LEGACY_RATE and not clean
        legacy_files += legacy
        # Most files are a few hundred lines; a few are large trainers.
        blocks = rng.randrange(4, 40) if rng.random() < 0.9 else rng.randrange(60, 200)
        text = generate(rng, blocks, rng.random() < ASYNC_RATE, legacy, f'{project}.{package}.module_{i:05d}')
        if clean:
            text = cleaned(text)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)
        nbytes += len(text)
    print(f'gen_torch.py: {files} files, {nbytes / 1e6:.1f} MB, {legacy_files} with legacy code under {root}',
          file=sys.stderr)


def single(path, lines, seed):
    """One dense file: training functions until `lines`, no legacy code (the parse-floor case)."""
    blocks = 6
    while True:
        text = generate(random.Random(f'{seed}:single'), blocks, False, False, 'one dense training module')
        if text.count('\n') >= lines:
            break
        blocks = max(blocks + 1, int(blocks * lines / max(1, text.count('\n'))))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)
    print(f'gen_torch.py: {path}: {text.count(chr(10))} lines, {len(text)} bytes', file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('dest')
    ap.add_argument('--files', type=int, default=1500)
    ap.add_argument('--lines', type=int, help='write one file of about this many lines to DEST instead')
    ap.add_argument('--seed', default='16')
    ap.add_argument('--clean', action='store_true', help='no legacy code and nothing to report (a corpus only)')
    args = ap.parse_args()
    if args.lines:
        single(args.dest, args.lines, args.seed)
    else:
        corpus(args.dest, args.files, args.seed, args.clean)
    return 0


if __name__ == '__main__':
    sys.exit(main())
