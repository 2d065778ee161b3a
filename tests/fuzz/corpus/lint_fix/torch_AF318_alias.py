# expect-before: TypeError: expected TensorOptions\(dtype=float
# fixes: none
# AF318: one argument of a kind the rule cannot see is reported without a fix, because the
# legacy class does three things with it: a tensor of its own dtype is aliased (no copy: the
# write below changes `x`), one of another dtype is a TypeError, an int is a size.
import torch

x = torch.zeros(3)
alias = torch.FloatTensor(x)
alias[0] = 1.0
print(x.tolist())
labels = torch.arange(3)
floats = torch.FloatTensor(labels)
