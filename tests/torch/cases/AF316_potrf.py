# expect-before: AttributeError: module 'torch' has no attribute 'potrf'
# fixes: none
# AF316: torch.potrf, gone by PyTorch 1.13 (torch.linalg.cholesky gives the lower factor).
import torch

A = torch.eye(3) * 4
print(A.trace().item())
U = torch.potrf(A)
print(U.tolist())
