# expect-before: ValueError: Variable can't be volatile and require_grad at the same time!
# fixes: unsafe
# AF314: `volatile=True` with `requires_grad=True` is no ignored argument: a ValueError on
# PyTorch 1.13. Removing `volatile=` (unsafe) makes the call return a tensor that requires
# grad, as the reference writes it.
import torch
from torch.autograd import Variable

x = torch.tensor([1.0, 2.0, 3.0])
w = Variable(x, volatile=True, requires_grad=True)
(w ** 2).sum().backward()
print(w.grad.tolist(), x.requires_grad)
