# expect-before: UserWarning: masked_select received a mask with dtype torch.uint8
# fixes: none
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(305)

x = torch.randn(4)
y = x.masked_select(x.gt(0).type(torch.ByteTensor))
print(y.sum().item())
