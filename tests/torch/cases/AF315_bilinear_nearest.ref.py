import torch
import torch.nn.functional as F

x = torch.arange(9.0).reshape(1, 1, 3, 3)
print([round(t, 4) for t in F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)[0, 0, 2].tolist()])
print([round(t, 4) for t in F.interpolate(x, size=(4, 5), mode="bilinear", align_corners=True).sum(dim=2)[0, 0].tolist()])
print(F.interpolate(x, scale_factor=2, mode="nearest").sum().item(), F.interpolate(x, size=(5, 5), mode="nearest").sum().item())
