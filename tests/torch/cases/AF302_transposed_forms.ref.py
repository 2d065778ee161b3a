# The modern reference of AF302_transposed_forms.py.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(566)

x = torch.randn(10, 10)
a = x.t()[:3].reshape(-1)
b = x.transpose(0, 1).float()[1:4].reshape(-1)
c = x.permute(1, 0)[:2].reshape(-1)
d = torch.t(x)[:2].reshape(-1)
t = x.T
e = t.eq(t.max(0, keepdim=True)[0])[:2].reshape(-1)
print(a.sum().item(), b.sum().item(), c.sum().item(), d.sum().item(), e.sum().item())
print(a[:3].tolist())
