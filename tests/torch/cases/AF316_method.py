# expect-before: AttributeError: 'Tensor' object has no attribute 'potrf'
# fixes: none
# AF316: the removed linear algebra as tensor methods (A.potrf(), b.gesv(A)).
import torch

A = torch.eye(3) * 4
print(A.trace().item())
U = A.potrf()
print(U.tolist())
