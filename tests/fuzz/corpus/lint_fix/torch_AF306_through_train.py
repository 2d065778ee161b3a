# expect-before: UserWarning: Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`
# fixes: none
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(306)

import torch.optim as optim
from torch.optim.lr_scheduler import MultiStepLR


def train(model, optimizer):
    for i in range(2):
        optimizer.zero_grad()
        model(torch.randn(4, 3)).sum().backward()
        optimizer.step()


def main():
    model = nn.Linear(3, 2)
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = MultiStepLR(optimizer, milestones=[1], gamma=0.1)
    for epoch in range(2):
        scheduler.step()
        train(model, optimizer)
        print(optimizer.param_groups[0]['lr'])


main()
