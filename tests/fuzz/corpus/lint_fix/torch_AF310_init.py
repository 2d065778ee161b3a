# expect-before: UserWarning: nn\.init\.xavier_uniform is now deprecated in favor of nn\.init\.xavier_uniform_
# fixes: safe
# AF310: the eleven nn.init initialisers without `_`, clip_grad_norm, F.sigmoid and F.tanh.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import init
from torch.nn.init import kaiming_normal

torch.manual_seed(0)
w = torch.empty(4, 4)
init.uniform(w, -1, 1); print(round(w.sum().item(), 4))
init.normal(w, 0, 2); print(round(w.sum().item(), 4))
init.constant(w, 0.5); print(round(w.sum().item(), 4))
init.eye(w); print(round(w.sum().item(), 4))
c = torch.empty(2, 2, 3, 3)
nn.init.dirac(c); print(round(c.sum().item(), 4))
nn.init.xavier_uniform(w); print(round(w.sum().item(), 4))
nn.init.xavier_normal(w, gain=2.0); print(round(w.sum().item(), 4))
torch.nn.init.kaiming_uniform(w); print(round(w.sum().item(), 4))
kaiming_normal(w, mode="fan_out"); print(round(w.sum().item(), 4))
nn.init.orthogonal(w); print(round((w @ w.t()).trace().item(), 4))
nn.init.sparse(w, 0.5); print(round(w.abs().sum().item(), 4))

model = nn.Linear(4, 2)
model(torch.ones(3, 4)).sum().backward()
print(round(float(nn.utils.clip_grad_norm(model.parameters(), 0.5)), 4))
x = torch.linspace(-2, 2, 5)
print([round(v, 4) for v in (F.sigmoid(x) + F.tanh(x)).tolist()])
