# The modern reference of AF301_reduction_median.py.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(788)

x = torch.rand(5, 2) + 0.5
s = x.median()
print('%.5f' % s.item())
