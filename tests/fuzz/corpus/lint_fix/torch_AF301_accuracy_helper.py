# expect-before: IndexError: invalid index of a 0-dim tensor
# fixes: safe
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(168)


class AverageMeter(object):
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n


def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))
    res = []
    for k in topk:
        correct_k = correct[:k].reshape(-1).float().sum(0)
        res.append(correct_k.mul_(100.0 / batch_size))
    return res


def validate():
    top1, top5 = AverageMeter(), AverageMeter()
    for i in range(3):
        output = torch.randn(7, 6)
        target = torch.randint(0, 6, (7,))
        prec1, prec5 = accuracy(output, target, topk=(1, 2))
        top1.update(prec1[0], 7)
        top5.update(prec5[0], 7)
    print('%.4f %.4f' % (top1.sum / top1.count, top5.sum / top5.count))


validate()
