# expect-before: TypeError: Tensor\.backward\(\) got an unexpected keyword argument 'retain_variables'
# fixes: safe
# AF312: backward(retain_variables=...) and .cuda(device_id=...) on a tensor and a module. This
# PyTorch has no GPU: the renamed .cuda() calls get past argument parsing and stop at CUDA.
import torch
import torch.nn as nn

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
loss = (w * w).sum()
loss.backward(retain_variables=True)
loss.backward(retain_variables=False)
print([round(v, 4) for v in w.grad.tolist()])
y = (w * 3).sum()
torch.autograd.backward([y], retain_variables=True)
print([round(v, 4) for v in w.grad.tolist()])
for target in (torch.zeros(2), nn.Linear(2, 2)):
    try:
        target.cuda(device_id=0)
    except (AssertionError, RuntimeError) as e:
        print(type(target).__name__, "needs CUDA:", "CUDA" in str(e))
