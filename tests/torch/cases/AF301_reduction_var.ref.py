# The modern reference of AF301_reduction_var.py.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(38)

x = torch.rand(2, 4) + 0.5
s = x.var()
print('%.5f' % s.item())
