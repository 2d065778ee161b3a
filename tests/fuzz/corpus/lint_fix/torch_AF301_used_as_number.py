# expect-before: IndexError: invalid index of a 0-dim tensor
# fixes: unsafe
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
    meter.update(loss.data[0], 7)
    running += compute(x + 1).data[0]
    print('%.4f' % loss.data[0], '{:.4f}'.format(loss.data[0]))
    print(f'{loss.data[0]:.4f}', round(float(loss.data[0]), 4))
print('%.4f %.4f' % (meter.total, running))
