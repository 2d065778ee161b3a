async = 1
print(f'{async} {await!r:>{async}}')
@async
def g(): pass
await(x)
