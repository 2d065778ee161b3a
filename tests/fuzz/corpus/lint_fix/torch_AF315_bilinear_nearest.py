# expect-before: UserWarning: nn\.functional\.upsample_bilinear is deprecated\. Use nn\.functional\.interpolate instead
# fixes: safe
# AF315: F.upsample_bilinear and F.upsample_nearest.
import torch
import torch.nn.functional as F

x = torch.arange(9.0).reshape(1, 1, 3, 3)
print([round(t, 4) for t in F.upsample_bilinear(x, scale_factor=2)[0, 0, 2].tolist()])
print([round(t, 4) for t in F.upsample_bilinear(x, size=(4, 5)).sum(dim=2)[0, 0].tolist()])
print(F.upsample_nearest(x, scale_factor=2).sum().item(), F.upsample_nearest(x, size=(5, 5)).sum().item())
