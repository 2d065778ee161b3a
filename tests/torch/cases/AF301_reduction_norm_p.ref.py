# The modern reference of AF301_reduction_norm_p.py.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(199)

x = torch.rand(5, 4) + 0.5
s = x.norm(2)
print('%.5f' % s.item())
