# expect-before: RuntimeError: This function was deprecated since version 1\.9 and is now removed\. Please use the `torch\.linalg\.solve` function instead
# fixes: none
# AF316: torch.solve, a RuntimeError since PyTorch 1.13.
import torch

A = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
B = torch.tensor([[1.0], [2.0]])
X, LU = torch.solve(B, A)
print(X)
