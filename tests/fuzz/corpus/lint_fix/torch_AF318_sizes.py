# expect-before: nothing
# fixes: safe
# AF318: the typed classes called with sizes (uninitialised memory, which the program fills):
# PyTorch 1.13 runs them silently (the premise is the ambiguity the rule's doc explains, not a
# warning); the fixed program, with torch.empty(…, dtype=…), computes the same as the reference.
import numpy as np
import torch

torch.manual_seed(318)
batch, n = 2, np.int64(3)
a = torch.FloatTensor(batch, n).fill_(0.5)
b = torch.LongTensor(4).zero_()
c = torch.DoubleTensor()
d = torch.HalfTensor(batch, torch.tensor(2)).uniform_()
e = torch.ByteTensor(0, 3)
f = torch.BoolTensor(2, True).fill_(True)
for t in (a, b, c, d, e, f):
    print(tuple(t.shape), t.dtype, t.device, t.requires_grad, t.is_contiguous())
print(a.sum().item(), b.tolist(), f.tolist(), d.float().sum().item())
