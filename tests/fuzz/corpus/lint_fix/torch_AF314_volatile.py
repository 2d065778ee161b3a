# expect-before: UserWarning: volatile was removed and now has no effect\. Use `with torch\.no_grad\(\):` instead
# fixes: safe
# AF314: Variable(x, volatile=...) in an evaluation loop; the fixed program computes the same
# values (PyTorch ignores the argument), the reference is written with torch.no_grad().
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
model = nn.Linear(3, 2)
batches = [torch.randn(2, 3) for _ in range(3)]


def validate(model, batches):
    total = 0.0
    for batch in batches:
        x = Variable(batch, volatile=True)
        total += model(x).sum().item()
    return total


print(round(validate(model, batches), 4))
print(round(model(Variable(batches[0], requires_grad=False, volatile=False)).mean().item(), 4))
