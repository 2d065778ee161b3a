# The modern reference of AF301_reduction_std.py.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(782)

x = torch.rand(4, 3) + 0.5
s = x.std()
print('%.5f' % s.item())
