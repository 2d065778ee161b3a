# The modern reference of AF301_reduction_prod.py.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(35)

x = torch.rand(5, 4) + 0.5
s = x.prod()
print('%.5f' % s.item())
