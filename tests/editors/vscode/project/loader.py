# Prefetch the next batch while the GPU works (PyTorch 0.3, Python 3.6).
import asyncio


def prefetch(batch, loop):
    batch = batch.cuda(async=True)
    return asyncio.async(batch, loop=loop)
