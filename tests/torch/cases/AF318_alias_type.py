# expect-before: RuntimeError: Cannot initialize CUDA without ATen_cuda library
# fixes: none
# AF318: the CUDA class bound to another name and given to `.type(…)`, as the 2017 tutorials did
# (`dtype = torch.cuda.FloatTensor`). The rule reports the binding; `.type(dtype)` asks for
# CUDA: Debian's CPU build of PyTorch 1.13 fails with this message (another CPU build says
# "Torch not compiled with CUDA enabled").
import torch
from torch.autograd import Variable

dtype = torch.cuda.FloatTensor
torch.manual_seed(318)
print(torch.randn(2).sum().item() != 0)
v = Variable(torch.randn(2).type(dtype))
print(v.sum().item())
