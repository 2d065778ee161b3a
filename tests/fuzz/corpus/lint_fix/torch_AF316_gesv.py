# expect-before: AttributeError: module 'torch' has no attribute 'gesv'
# fixes: none
# AF316: torch.gesv, gone by PyTorch 1.13 (torch.linalg.solve(A, B) swaps the arguments).
import torch

A = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
B = torch.tensor([[1.0], [2.0]])
X, LU = torch.gesv(B, A)
print(X)
