# expect-before: UserWarning: volatile was removed and now has no effect
# fixes: safe
# AF314: `requires_grad=False` beside `volatile=True` (and alone, on the targets) in an evaluation
# loop. Only `volatile=` is flagged and removed: `requires_grad=False` is the default and runs
# silently. It never stopped autograd: the output still requires grad (the graph is recorded),
# which is what the message says and the last line prints.
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(314)
model = nn.Linear(3, 1)
batches = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(2)]

total = 0.0
for x, y in batches:
    x = Variable(x, requires_grad=False, volatile=True)
    y = Variable(y, requires_grad=False)
    out = model(x)
    total += ((out - y) ** 2).mean().item()
print(round(total, 4), x.requires_grad, y.requires_grad, out.requires_grad)
