import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
out, target = torch.randn(4, 3), torch.tensor([0, 2, 1, 2])
x, y = torch.randn(4, 3), torch.randn(4, 3)
print(round(nn.CrossEntropyLoss(reduction="sum")(out, target).item(), 4))
print(round(nn.CrossEntropyLoss(reduction="mean")(out, target).item(), 4))
print([round(v, 4) for v in nn.NLLLoss(reduction="none")(F.log_softmax(out, 1), target).tolist()])
print(round(nn.MSELoss(reduction="sum")(x, y).item(), 4))
print(round(nn.MSELoss(reduction="mean")(x, y).item(), 4))
print(round(nn.L1Loss(reduction="mean")(x, y).item(), 4))
print(round(F.mse_loss(x, y, reduction="sum").item(), 4))
print(tuple(F.smooth_l1_loss(x, y, reduction="none").shape))
print(round(F.binary_cross_entropy_with_logits(x, torch.sigmoid(y), reduction="mean").item(), 4))
