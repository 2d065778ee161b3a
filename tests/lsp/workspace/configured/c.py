async = x.cuda(async=True)
