# expect-before: IndexError: invalid index of a 0-dim tensor
# fixes: safe
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(470)

criterion = nn.CrossEntropyLoss().to(torch.device('cpu'))
out = torch.randn(7, 6)
y = torch.randint(0, 6, (7,))
loss = criterion(out, y)
print('%.5f' % loss.data[0])
