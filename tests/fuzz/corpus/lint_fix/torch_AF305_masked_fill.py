# expect-before: UserWarning: masked_fill_ received a mask with dtype torch.uint8
# fixes: none
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(305)

x = torch.randn(4)
mask = (x > 0).byte()
y = x.masked_fill(mask, 0)
print(y.sum().item())
