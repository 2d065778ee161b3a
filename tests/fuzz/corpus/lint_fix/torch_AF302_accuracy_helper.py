# expect-before: RuntimeError: view size is not compatible with input tensor's size and stride
# fixes: safe
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(889)


def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))
    res = []
    for k in topk:
        correct_k = correct[:k].view(-1).float().sum(0, keepdim=True)
        res.append(correct_k.mul_(100.0 / batch_size))
    return res


output = torch.randn(10, 10)
target = torch.randint(0, 10, (10,))
top1, top5 = accuracy(output, target, topk=(1, 5))
print('%.4f %.4f' % (top1.item(), top5.item()))
