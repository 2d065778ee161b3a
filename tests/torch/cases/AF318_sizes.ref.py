import numpy as np
import torch

torch.manual_seed(318)
batch, n = 2, np.int64(3)
a = torch.full((batch, n), 0.5, dtype=torch.float32)
b = torch.zeros(4, dtype=torch.int64)
c = torch.empty(0, dtype=torch.float64)
d = torch.empty(batch, 2, dtype=torch.float16).uniform_()
e = torch.empty(0, 3, dtype=torch.uint8)
f = torch.ones(2, 1, dtype=torch.bool)
for t in (a, b, c, d, e, f):
    print(tuple(t.shape), t.dtype, t.device, t.requires_grad, t.is_contiguous())
print(a.sum().item(), b.tolist(), f.tolist(), d.float().sum().item())
