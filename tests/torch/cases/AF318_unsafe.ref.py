import numpy as np
import torch

torch.manual_seed(318)
x = torch.randn(2, 3)
shape = (3, 2)
w = torch.empty(*shape).normal_()
buf = x.clone()
lr = torch.tensor(0.5, requires_grad=True)
row = torch.tensor([lr.item(), 0.25, 2.0], dtype=torch.float64)
idx = torch.tensor([x.argmax().item(), 1])
print(tuple(w.shape), torch.equal(buf, x), row.tolist(), row.requires_grad, idx.tolist())
