# expect-before: UserWarning: where received a uint8 condition tensor
# fixes: none
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(305)

x = torch.randn(4)
y = torch.where((x > 0).byte(), x, -x)
print(y.sum().item())
