import asyncio


def prefetch(tensor, loop):
    copy = tensor.cuda(async=True)
    return asyncio.async(copy, loop=loop)
