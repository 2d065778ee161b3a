# expect-before: IndexError: invalid index of a 0-dim tensor
# fixes: safe
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(994)

x = torch.rand(4, 2) + 0.5
s = x.sum()
print('%.5f' % s.data[0])
