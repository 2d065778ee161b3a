# expect-before: nothing
# fixes: unsafe
# AF318: the forms whose fix is unsafe (the rule cannot see what the names hold): `*shape`, a
# tensor's `.size()`, a list of names. Here they hold what they usually do, and the unsafe fix
# computes the same values.
import numpy as np
import torch

torch.manual_seed(318)
x = torch.randn(2, 3)
shape = (3, 2)
w = torch.FloatTensor(*shape).normal_()
buf = torch.FloatTensor(x.size()).copy_(x)
lr = torch.tensor(0.5, requires_grad=True)
row = torch.DoubleTensor([lr, np.float32(0.25), 2])
idx = torch.LongTensor([x.argmax(), np.int64(1)])
print(tuple(w.shape), torch.equal(buf, x), row.tolist(), row.requires_grad, idx.tolist())
