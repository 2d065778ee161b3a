import torch
x = torch.zeros(3)
y = x.cuda(async=True)
z = x.to(0, True)
w = x.cpu(non_blocking=True)
m = torch.nn.Linear(2, 2).cuda(async=True)
