"""Fine-tune a pretrained ResNet on a folder of images (PyTorch 0.3, Python 3.5, late 2017).

Written the way the tutorials of the time did it: `async=True` everywhere, including where PyTorch
never took it (`model.cuda(async=True)`, `.cpu(async=True)`), a try/except shim for the 0.4
rename, and `.to(device, True)` from a half-done port. `sed 's/async=/non_blocking=/'` would leave
three TypeErrors behind; try:

    asyncfix check examples/finetune_2017.py
    asyncfix check --diff --unsafe-fixes examples/finetune_2017.py
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class Head(nn.Module):
    def __init__(self, features, classes):
        super(Head, self).__init__()
        self.fc = nn.Linear(features, classes)

    def forward(self, x):
        return F.log_softmax(self.fc(x), dim=1)

    def to_gpu(self, device_id):
        # Module.cuda() never took async: a TypeError on every PyTorch.
        return self.cuda(device_id, async=True)


def build(classes, use_gpu):
    backbone = torchvision.models.resnet50(pretrained=True)
    backbone.fc = nn.Sequential()
    head = Head(2048, classes)
    if use_gpu:
        backbone = backbone.cuda(async=True)
        head = head.to_gpu(0)
    return backbone, head


def to_device(batch, target):
    try:
        batch = batch.cuda(non_blocking=True)
        target = target.cuda(non_blocking=True)
    except TypeError:  # PyTorch < 0.4
        batch = batch.cuda(async=True)
        target = target.cuda(async=True)
    return batch, target


def train(root, classes=10, epochs=5):
    device = torch.device("cuda")
    data = datasets.ImageFolder(root, transforms.Compose([
        transforms.RandomResizedCrop(224),
        transforms.ToTensor(),
    ]))
    loader = DataLoader(data, batch_size=64, shuffle=True, num_workers=4)
    backbone, head = build(classes, use_gpu=True)
    params = list(head.parameters())
    optimizer = torch.optim.SGD(params, lr=0.01, momentum=0.9)
    for epoch in range(epochs):
        for step, (images, labels) in enumerate(loader):
            images, labels = to_device(images, labels)
            weights = torch.ones(classes).to(device, True)
            output = head(backbone(images))
            loss = F.nll_loss(output, labels, weight=weights)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 100 == 0:
                value = loss.cpu(async=True).item()
                print("epoch %d step %d loss %.4f" % (epoch, step, value))
        for images, labels in loader:
            images = images.cuda(non_blocking=True)  # the flag does nothing: unpinned batches
            break
    return backbone, head


if __name__ == "__main__":
    train("data/train")
