# The modern reference of AF301_reduction_mean.py.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(97)

x = torch.rand(3, 3) + 0.5
s = x.mean()
print('%.5f' % s.item())
