def f(:
    x.cuda(async=True
    async = (
