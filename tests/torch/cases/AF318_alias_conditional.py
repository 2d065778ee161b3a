# expect-before: TypeError: type torch\.cuda\.FloatTensor not available\. Torch not compiled with CUDA enabled
# fixes: none
# AF318: the 2017 way of choosing the device once, a name bound to the CUDA or the CPU class by a
# condition. The rule reports each call of it without a fix (the device is the program's
# choice); with the condition true, as a script written on a GPU machine has it, the call is the
# legacy CUDA constructor: a TypeError without CUDA (this lane), a UserWarning with it on 2.1+.
import torch

use_cuda = True
FloatTensor = torch.cuda.FloatTensor if use_cuda else torch.FloatTensor
print(torch.zeros(2).sum().item())
x = FloatTensor(3).fill_(1)
print(x.sum().item())
