# expect-before: UserWarning: size_average and reduce args will be deprecated, please use reduction='sum' instead
# fixes: safe
# AF313: every combination of literal size_average= / reduce= on criteria and F.*_loss.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
out, target = torch.randn(4, 3), torch.tensor([0, 2, 1, 2])
x, y = torch.randn(4, 3), torch.randn(4, 3)
print(round(nn.CrossEntropyLoss(size_average=False)(out, target).item(), 4))
print(round(nn.CrossEntropyLoss(size_average=True)(out, target).item(), 4))
print([round(v, 4) for v in nn.NLLLoss(reduce=False)(F.log_softmax(out, 1), target).tolist()])
print(round(nn.MSELoss(size_average=False, reduce=True)(x, y).item(), 4))
print(round(nn.MSELoss(reduction="none", size_average=True, reduce=True)(x, y).item(), 4))
print(round(nn.L1Loss(size_average=None)(x, y).item(), 4))
print(round(F.mse_loss(x, y, size_average=False).item(), 4))
print(tuple(F.smooth_l1_loss(x, y, size_average=True, reduce=False).shape))
print(round(F.binary_cross_entropy_with_logits(x, torch.sigmoid(y), reduce=True).item(), 4))
