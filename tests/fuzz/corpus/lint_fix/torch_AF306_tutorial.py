# expect-before: UserWarning: Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`
# fixes: none
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(306)

import torch.optim as optim
from torch.optim import lr_scheduler


def train_model(model, optimizer, scheduler, num_epochs=2):
    for epoch in range(num_epochs):
        for phase in ['train', 'val']:
            if phase == 'train':
                scheduler.step()
                model.train()
            else:
                model.eval()
            for i in range(2):
                optimizer.zero_grad()
                loss = model(torch.randn(4, 3)).sum()
                if phase == 'train':
                    loss.backward()
                    optimizer.step()
        print(optimizer.param_groups[0]['lr'])
    return model


model_ft = nn.Linear(3, 2)
optimizer_ft = optim.SGD(model_ft.parameters(), lr=0.001, momentum=0.9)
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_ft, step_size=1, gamma=0.1)
model_ft = train_model(model_ft, optimizer_ft, exp_lr_scheduler)
