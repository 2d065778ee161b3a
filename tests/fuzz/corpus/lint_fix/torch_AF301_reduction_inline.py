# expect-before: IndexError: invalid index of a 0-dim tensor
# fixes: safe
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(73)

x = torch.rand(7, 6)
print('%.5f' % torch.sum(x).data[0])
print('%.5f' % (x - 1).abs().mean().data[0])
