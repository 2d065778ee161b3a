# expect-before: RuntimeError: view size is not compatible with input tensor's size and stride
# fixes: safe
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(566)

x = torch.randn(10, 10)
a = x.t()[:3].view(-1)
b = x.transpose(0, 1).float()[1:4].view(-1)
c = x.permute(1, 0)[:2].view(-1)
d = torch.t(x)[:2].view(-1)
t = x.T
e = t.eq(t.max(0, keepdim=True)[0])[:2].view(-1)
print(a.sum().item(), b.sum().item(), c.sum().item(), d.sum().item(), e.sum().item())
print(a[:3].tolist())
