def outer():
    async = 1
    def inner():
        nonlocal async
        async += 1
    global await
    await = inner
    import foo as async
    with open(p) as await:
        pass
    try:
        pass
    except E as async:
        pass
