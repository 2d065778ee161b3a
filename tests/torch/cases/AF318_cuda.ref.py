import torch

print(torch.tensor([1.0, 2.0]).sum().item())
ones = torch.ones(2, 3, device="cuda")
labels = torch.tensor([0, 2, 1], device="cuda")
mask = torch.tensor([1, 0, 1], dtype=torch.uint8, device="cuda")
print(ones.sum().item(), labels.tolist(), mask.tolist(), ones.device.type, labels.dtype, mask.dtype)
