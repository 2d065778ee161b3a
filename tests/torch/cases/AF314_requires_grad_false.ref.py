import torch
import torch.nn as nn

torch.manual_seed(314)
model = nn.Linear(3, 1)
batches = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(2)]

total = 0.0
for x, y in batches:
    out = model(x)
    total += ((out - y) ** 2).mean().item()
print(round(total, 4), x.requires_grad, y.requires_grad, out.requires_grad)
