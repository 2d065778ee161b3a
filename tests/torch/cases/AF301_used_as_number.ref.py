# The modern reference of AF301_used_as_number.py.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(35)


class Meter(object):
    def __init__(self):
        self.total = 0.0

    def update(self, val, n=1):
        self.total += val * n


def compute(x):
    return (x ** 2).mean()


meter = Meter()
running = 0.0
for i in range(3):
    x = torch.randn(7, 6)
    loss = compute(x)
    meter.update(loss.item(), 7)
    running += compute(x + 1).item()
    print('%.4f' % loss.item(), '{:.4f}'.format(loss.item()))
    print(f'{loss.item():.4f}', round(float(loss.item()), 4))
print('%.4f %.4f' % (meter.total, running))
