# expect-before: RuntimeError: .*This function was deprecated since version 1\.9 and is now removed.*torch\.linalg\.matrix_rank
# fixes: none
# AF316: torch.matrix_rank, a RuntimeError since PyTorch 1.13.
import torch

A = torch.eye(3)
print(A.trace().item())
print(torch.matrix_rank(A).item())
