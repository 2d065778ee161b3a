import asyncio


def prefetch(tensor, loop):
    copy = tensor.cuda(non_blocking=True)
    return asyncio.ensure_future(copy, loop=loop)
