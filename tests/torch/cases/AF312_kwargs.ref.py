import torch
import torch.nn as nn

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
loss = (w * w).sum()
loss.backward(retain_graph=True)
loss.backward(retain_graph=False)
print([round(v, 4) for v in w.grad.tolist()])
y = (w * 3).sum()
torch.autograd.backward([y], retain_graph=True)
print([round(v, 4) for v in w.grad.tolist()])
for target in (torch.zeros(2), nn.Linear(2, 2)):
    try:
        target.cuda(device=0)
    except (AssertionError, RuntimeError) as e:
        print(type(target).__name__, "needs CUDA:", "CUDA" in str(e))
