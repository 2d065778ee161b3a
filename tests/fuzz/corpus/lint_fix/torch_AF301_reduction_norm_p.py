# expect-before: IndexError: invalid index of a 0-dim tensor
# fixes: safe
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(199)

x = torch.rand(5, 4) + 0.5
s = x.norm(2)
print('%.5f' % s.data[0])
