# PyTorch 0.3 (2018): copy a batch to the GPU without waiting for it.
import torch


def to_gpu(batch):
    images, labels = batch
    return images.cuda(async=True), labels
