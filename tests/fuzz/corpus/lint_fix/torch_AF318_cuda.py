# expect-before: TypeError: type torch\.cuda\.FloatTensor not available\. Torch not compiled with CUDA enabled
# fixes: safe
# without-cuda: AssertionError: Torch not compiled with CUDA enabled
# AF318: torch.cuda.*Tensor(…) hard-codes CUDA: without it (this lane) a TypeError, with it a
# UserWarning since PyTorch 2.1. The fix writes device='cuda', what PyTorch's warning asks for:
# without CUDA the fixed program asks for the device as the reference does (the same failure,
# after the same output), and with CUDA it prints what the reference prints. The CPU cases
# (AF318_sizes, AF318_data) prove the values of the same fixes without the device.
import torch

print(torch.FloatTensor([1, 2]).sum().item())
ones = torch.cuda.FloatTensor(2, 3).fill_(1)
labels = torch.cuda.LongTensor([0, 2, 1])
mask = torch.cuda.ByteTensor([1, 0, 1])
print(ones.sum().item(), labels.tolist(), mask.tolist(), ones.device.type, labels.dtype, mask.dtype)
