import torch
import torch.nn as nn
from torch.autograd import Variable
from torch.cuda import LongTensor as LT
FloatTensor = torch.cuda.FloatTensor if torch.cuda.is_available() else torch.FloatTensor
dtype = torch.cuda.DoubleTensor
x = FloatTensor(2, 3)
v = Variable(torch.zeros(2), volatile=True)
if v.volatile:
    v.volatile = False
loss = nn.CrossEntropyLoss()(x, LT([0, 1]))
print(loss.data[0], torch.FloatTensor([1, 2]))
