try:
    y = x.cuda(non_blocking=True)
except TypeError:
    y = x.cuda(async=True)
