def f(async):
    return async
