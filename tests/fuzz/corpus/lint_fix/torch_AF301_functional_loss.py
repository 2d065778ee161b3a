# expect-before: IndexError: invalid index of a 0-dim tensor
# fixes: safe
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(241)

a, b = torch.randn(7, 6), torch.randn(7, 6)
y = torch.randint(0, 6, (7,))
print('%.5f' % F.mse_loss(a, b).data[0])
print('%.5f' % F.cross_entropy(a, y).data[0])
print('%.5f' % F.nll_loss(F.log_softmax(a, dim=1), y).data[0])
print('%.5f' % F.l1_loss(a, b, reduction='sum').data[0])
