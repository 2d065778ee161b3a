# expect-before: UserWarning: indexing with dtype torch.uint8 is now deprecated
# fixes: none
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(305)

x = torch.randn(4)
m = torch.ByteTensor([1, 0, 1, 0])
y = x[m]
print(y.sum().item())
