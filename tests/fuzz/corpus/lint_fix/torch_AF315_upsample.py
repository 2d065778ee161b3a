# expect-before: UserWarning: nn\.functional\.upsample is deprecated\. Use nn\.functional\.interpolate instead
# fixes: unsafe
# AF315: F.upsample in a linear mode; the reference computes PyTorch 0.3's numbers
# (align_corners=True), which the unsafe fix restores. Nearest mode and an explicit
# align_corners are plain renames.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.arange(16.0).reshape(1, 1, 4, 4)
v = torch.arange(8.0).reshape(1, 1, 2, 2, 2)
print([round(t, 4) for t in F.upsample(x, scale_factor=2, mode="bilinear")[0, 0, 1].tolist()])
print([round(t, 4) for t in F.upsample(v, None, 2, "trilinear").sum(dim=(0, 1, 2, 3)).tolist()])
print(F.upsample(x, size=(6, 6)).sum().item())
print(round(F.upsample(x, scale_factor=2, mode="bilinear", align_corners=False).mean().item(), 4))
