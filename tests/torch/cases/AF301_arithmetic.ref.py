# The modern reference of AF301_arithmetic.py.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(359)

a, b = torch.randn(7, 6), torch.randn(7, 6)
criterion = nn.MSELoss()
l1 = criterion(a, b)
loss = l1 + 0.5 * F.l1_loss(a, b)
print('%.5f' % loss.item())
