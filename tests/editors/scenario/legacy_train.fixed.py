"""A PyTorch 0.3 training loop (2017): `async=` was renamed `non_blocking=` in PyTorch 0.4."""
import torch


def train(model, loader, optimizer):
    model.train()
    for inputs, target in loader:
        inputs = inputs.cuda(non_blocking=True)
        note = "température → 😀"; target = target.cuda(non_blocking=True)
        loss = torch.nn.functional.cross_entropy(model(inputs), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def evaluate(model, batch):
    async_ = False
    return model(batch.to("cuda", non_blocking=async_))
