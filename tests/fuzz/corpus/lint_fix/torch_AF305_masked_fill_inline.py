# expect-before: UserWarning: masked_fill_ received a mask with dtype torch.uint8
# fixes: none
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(305)

x = torch.randn(4)
y = x.clone()
y.masked_fill_((x > 0).byte(), 0)
print(y.sum().item())
