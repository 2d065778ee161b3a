async = 1
await = async + 1
def f(async, *, await=2):
    return async, await
class async: pass
