# expect-before: IndexError: invalid index of a 0-dim tensor
# fixes: safe
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(397)


def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    correct = pred.t().eq(target.view(1, -1).expand_as(pred.t()))
    return [correct[:k].reshape(-1).float().sum(0) * (100.0 / batch_size) for k in topk]


def evaluate():
    criterion = nn.CrossEntropyLoss()
    if torch.cuda.is_available():
        criterion = criterion.cuda()
    output = torch.randn(7, 6)
    target = torch.randint(0, 6, (7,))
    loss = criterion(output, target)
    prec1, = accuracy(output, target)
    print('%.4f %.4f' % (prec1[0], loss.data[0]))


evaluate()
