import asyncio


def schedule(coro, batch):
    asyncio.async(coro)
    return batch.cuda(async=True)
