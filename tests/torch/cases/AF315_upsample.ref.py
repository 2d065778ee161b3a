import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.arange(16.0).reshape(1, 1, 4, 4)
v = torch.arange(8.0).reshape(1, 1, 2, 2, 2)
print([round(t, 4) for t in F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)[0, 0, 1].tolist()])
print([round(t, 4) for t in F.interpolate(v, None, 2, "trilinear", align_corners=True).sum(dim=(0, 1, 2, 3)).tolist()])
print(F.interpolate(x, size=(6, 6)).sum().item())
print(round(F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False).mean().item(), 4))
