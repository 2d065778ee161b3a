# expect-before: AttributeError: module 'torch' has no attribute 'trtrs'
# fixes: none
# AF316: torch.trtrs, gone by PyTorch 1.13 (torch.linalg.solve_triangular swaps the arguments).
import torch

A = torch.eye(2) * 2
b = torch.ones(2, 1)
print(b.sum().item())
x, _ = torch.trtrs(b, A)
print(x.tolist())
