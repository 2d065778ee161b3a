# expect-before: RuntimeError: Legacy autograd function with non-static forward method
# fixes: none
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(303)

from torch.autograd import Function


class Clamp(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return x.clamp(min=0)

    def backward(self, grad):
        x, = self.saved_tensors
        return grad * (x > 0).float()


x = torch.randn(5, requires_grad=True)
print(Clamp()(x).sum().item())
