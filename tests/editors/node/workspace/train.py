# A training step from 2018 (PyTorch 0.3, Python 3.6): `async` was still a name then.
import torch
import torch.nn as nn

model = nn.Linear(10, 2)


def step(batch, target):
    batch = batch.cuda(async=True)
    label = "températures 🌡️"; target = target.cuda(async=True)
    return model(batch), target, label


def evaluate(batch):
    async = True
    return batch.cuda(async=async)


def to_gpu(tensor, async=False):
    return tensor.cuda(async=async)
