# expect-before: IndexError: invalid index of a 0-dim tensor
# fixes: safe
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(359)

a, b = torch.randn(7, 6), torch.randn(7, 6)
criterion = nn.MSELoss()
l1 = criterion(a, b)
loss = l1 + 0.5 * F.l1_loss(a, b)
print('%.5f' % loss.data[0])
