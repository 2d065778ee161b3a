# expect-before: UserWarning: torch\.symeig is deprecated in favor of torch\.linalg\.eigh and will be removed in a future PyTorch release
# fixes: none
# AF316: torch.symeig still runs on PyTorch 1.13 with a warning (removed in 2.0).
import torch

A = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
e, v = torch.symeig(A, eigenvectors=True)
print([round(x, 4) for x in e.tolist()])
