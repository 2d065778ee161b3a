# expect-before: UserWarning: volatile was removed \(Variable\.volatile is always False\)
# fixes: safe
# AF314: reading `.volatile` of a tensor: always False since PyTorch 0.4, with a UserWarning.
# The fix writes what PyTorch gives (`False`), so the program takes the same branch, without
# the warning; the reference never asks.
import torch

torch.manual_seed(314)
x = torch.randn(3)
if x.volatile:
    print("inference", x.sum().item())
else:
    print("training", x.sum().item())
keep_graph = not x.volatile
print(keep_graph)
