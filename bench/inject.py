#!/usr/bin/env python3
"""bench/inject.py DIR — append legacy PyTorch / async-as-name code to a few percent of DIR's .py files.

Deterministic: a file is chosen when the CRC32 of its relative path falls under the rate, so every
machine injects the same files. The snippets are the patterns the rules exist for (AF001, AF002,
AF101, AF103) in the variety the design calls for: keyword arguments split over lines, a
positional device before `async=`, an `async` parameter forwarded as a keyword.
"""
import os
import sys
import zlib

RATE = 0.03  # share of files that get a snippet

SNIPPETS = [
    '''

def _bench_legacy_copy(batch, async=True):
    input = batch[0].cuda(async=async)
    target = batch[1].cuda(0, async=True)
    return input, target
''',
    '''

class _BenchLegacyLoader(object):
    def __init__(self, loader, async=False):
        self.async = async
        self.loader = loader

    def __iter__(self):
        for x, y in self.loader:
            yield x.cuda(
                async=self.async), y.to("cuda", async=True)
''',
    '''

def _bench_legacy_await(await, device):
    model = await.cuda(device, async=True)
    return model.to(device, True)
''',
]


def main(root: str) -> int:
    injected = 0
    total = 0
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith('.py'):
                continue
            total += 1
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root).encode()
            h = zlib.crc32(rel)
            if h % 10000 >= RATE * 10000:
                continue
            with open(path, 'rb') as f:
                data = f.read()
            if data and not data.endswith(b'\n'):
                data += b'\n'
            data += SNIPPETS[h % len(SNIPPETS)].encode()
            with open(path, 'wb') as f:
                f.write(data)
            injected += 1
    print(f'inject.py: {injected} of {total} files got legacy code', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
