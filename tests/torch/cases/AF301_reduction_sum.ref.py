# The modern reference of AF301_reduction_sum.py.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(994)

x = torch.rand(4, 2) + 0.5
s = x.sum()
print('%.5f' % s.item())
