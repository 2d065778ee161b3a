# expect-before: UserWarning: Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`
# fixes: none
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(306)

from torch.optim import lr_scheduler


def main():
    model = nn.Linear(3, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    for epoch in range(2):
        scheduler.step()
        optimizer.zero_grad()
        model(torch.randn(4, 3)).sum().backward()
        optimizer.step()
        print(optimizer.param_groups[0]['lr'])


main()
