# A training step from 2018 (PyTorch 0.3, Python 3.6): `async` was still a name then.
import torch
import torch.nn as nn

model = nn.Linear(10, 2)


def step(batch, target):
    batch = batch.cuda(non_blocking=True)
    label = "températures 🌡️"; target = target.cuda(non_blocking=True)
    return model(batch), target, label


def evaluate(batch):
    async_ = True
    return batch.cuda(non_blocking=async_)


def to_gpu(tensor, async_=False):
    return tensor.cuda(non_blocking=async_)
