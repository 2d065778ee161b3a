async def f():
    await g()
    async with a as b:
        async for c in d:
            pass
