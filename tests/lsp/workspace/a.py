import torch


def load(x):
    return x.cuda(async=True), x.to(0, async=True)
