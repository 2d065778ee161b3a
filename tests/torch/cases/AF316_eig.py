# expect-before: RuntimeError: This function was deprecated since version 1\.9 and is now removed\. Please use the `torch\.linalg\.eig` function instead
# fixes: none
# AF316: torch.eig, a RuntimeError since PyTorch 1.13 (torch.linalg.eig gives complex eigenvalues).
import torch

A = torch.eye(2) * 3
print(A.trace().item())
e, v = torch.eig(A, eigenvectors=True)
print(e.tolist())
