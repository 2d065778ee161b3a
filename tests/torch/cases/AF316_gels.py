# expect-before: AttributeError: module 'torch' has no attribute 'gels'
# fixes: none
# AF316: torch.gels, gone by PyTorch 1.13 (torch.linalg.lstsq swaps the arguments).
import torch

A = torch.eye(2) * 2
B = torch.ones(2, 1)
print(B.sum().item())
X, _ = torch.gels(B, A)
print(X.tolist())
