# expect-before: RuntimeError: .*This function was deprecated since version 1\.9 and is now removed.*torch\.linalg\.lstsq
# fixes: none
# AF316: torch.lstsq, a RuntimeError since PyTorch 1.13.
import torch

A = torch.eye(2) * 2
B = torch.ones(2, 1)
print(B.sum().item())
X, _ = torch.lstsq(B, A)
print(X.tolist())
