x.cuda(async=True)
