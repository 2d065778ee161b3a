# expect-before: UserWarning: Implicit dimension choice for (log_)?soft(max|min) has been deprecated
# fixes: none
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(304)

x = torch.randn(3, 4)
print(F.softmin(x).sum().item())
