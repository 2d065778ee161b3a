import torch

x = torch.tensor([1.0, 2.0, 3.0])
w = x.detach().requires_grad_(True)
(w ** 2).sum().backward()
print(w.grad.tolist(), x.requires_grad)
