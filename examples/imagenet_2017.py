"""Train an ImageNet classifier the way PyTorch's ImageNet example did in 2017 (PyTorch 0.2/0.3).

Kept as such scripts were written: `.cuda(async=True)`, `Variable(..., volatile=True)`,
`loss.data[0]`, the `accuracy()` helper, `transforms.Scale`/`RandomSizedCrop`, `clip_grad_norm`.
On Python 3.7+ it does not compile; with the `async` fixed it crashes on today's PyTorch. Try:

    asyncfix check --diff --unsafe-fixes examples/imagenet_2017.py
    asyncfix check --fix --unsafe-fixes examples/imagenet_2017.py
    python3 examples/imagenet_2017.py --fake-data --steps 2 --image-size 64 -b 8 -j 0

It uses a GPU when there is one and the CPU otherwise; `--fake-data` trains on torchvision's
synthetic images instead of an ImageFolder tree.
"""
import argparse
import os
import time

import torch
import torch.nn as nn
import torch.nn.parallel
import torch.optim
import torch.utils.data
import torchvision.datasets as datasets
import torchvision.models as models
import torchvision.transforms as transforms
from torch.autograd import Variable

parser = argparse.ArgumentParser(description='PyTorch ImageNet Training')
parser.add_argument('data', metavar='DIR', nargs='?', help='path to dataset (train/ and val/ folders)')
parser.add_argument('--fake-data', action='store_true', help='train on synthetic images')
parser.add_argument('--arch', '-a', default='resnet18', choices=sorted(
    name for name in models.__dict__ if name.islower() and not name.startswith('__')
    and callable(models.__dict__[name])))
parser.add_argument('--classes', default=10, type=int, help='number of classes of --fake-data')
parser.add_argument('--epochs', default=90, type=int)
parser.add_argument('--steps', default=0, type=int, help='batches per epoch (0: all)')
parser.add_argument('-b', '--batch-size', default=256, type=int)
parser.add_argument('--image-size', default=224, type=int)
parser.add_argument('--lr', '--learning-rate', default=0.1, type=float)
parser.add_argument('--momentum', default=0.9, type=float)
parser.add_argument('--weight-decay', '--wd', default=1e-4, type=float)
parser.add_argument('--clip', default=5.0, type=float, help='gradient norm clipping')
parser.add_argument('-j', '--workers', default=4, type=int)
parser.add_argument('--print-freq', '-p', default=10, type=int)

use_cuda = torch.cuda.is_available()


def main():
    args = parser.parse_args()
    torch.manual_seed(0)

    model = models.__dict__[args.arch](num_classes=args.classes)
    criterion = nn.CrossEntropyLoss()
    if use_cuda:
        model = torch.nn.DataParallel(model).cuda()
        criterion = criterion.cuda()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=args.momentum,
                                weight_decay=args.weight_decay)

    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    crop = args.image_size
    train_transform = transforms.Compose([
        transforms.RandomSizedCrop(crop),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        normalize,
    ])
    val_transform = transforms.Compose([
        transforms.Scale(crop * 256 // 224),
        transforms.CenterCrop(crop),
        transforms.ToTensor(),
        normalize,
    ])
    if args.fake_data:
        size = max(args.steps, 1) * args.batch_size
        shape = (3, crop * 256 // 224, crop * 256 // 224)
        train_dataset = datasets.FakeData(size, shape, args.classes, train_transform)
        val_dataset = datasets.FakeData(size, shape, args.classes, val_transform)
    else:
        train_dataset = datasets.ImageFolder(os.path.join(args.data, 'train'), train_transform)
        val_dataset = datasets.ImageFolder(os.path.join(args.data, 'val'), val_transform)
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=args.batch_size, shuffle=True,
                                               num_workers=args.workers, pin_memory=use_cuda)
    val_loader = torch.utils.data.DataLoader(val_dataset, batch_size=args.batch_size, shuffle=False,
                                             num_workers=args.workers, pin_memory=use_cuda)

    best_prec1 = 0
    for epoch in range(args.epochs):
        adjust_learning_rate(optimizer, epoch, args)
        train(train_loader, model, criterion, optimizer, epoch, args)
        prec1 = validate(val_loader, model, criterion, args)
        best_prec1 = max(prec1, best_prec1)
    print('Best Prec@1 {:.3f} after {} epochs'.format(best_prec1, args.epochs))


def train(train_loader, model, criterion, optimizer, epoch, args):
    batch_time = AverageMeter()
    losses = AverageMeter()
    top1 = AverageMeter()
    top5 = AverageMeter()

    model.train()
    end = time.time()
    for i, (input, target) in enumerate(train_loader):
        if use_cuda:
            input = input.cuda(async=True)
            target = target.cuda(async=True)
        input_var = Variable(input)
        target_var = Variable(target)

        output = model(input_var)
        loss = criterion(output, target_var)

        prec1, prec5 = accuracy(output.data, target, topk=(1, 5))
        losses.update(loss.data[0], input.size(0))
        top1.update(prec1[0], input.size(0))
        top5.update(prec5[0], input.size(0))

        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm(model.parameters(), args.clip)
        optimizer.step()

        batch_time.update(time.time() - end)
        end = time.time()
        if i % args.print_freq == 0:
            print('Epoch: [{0}][{1}/{2}]\t'
                  'Time {batch_time.val:.3f} ({batch_time.avg:.3f})\t'
                  'Loss {loss.val:.4f} ({loss.avg:.4f})\t'
                  'Prec@1 {top1.val:.3f} ({top1.avg:.3f})\t'
                  'Prec@5 {top5.val:.3f} ({top5.avg:.3f})'.format(
                      epoch, i, len(train_loader), batch_time=batch_time,
                      loss=losses, top1=top1, top5=top5))
        if args.steps and i + 1 >= args.steps:
            break


def validate(val_loader, model, criterion, args):
    losses = AverageMeter()
    top1 = AverageMeter()
    top5 = AverageMeter()

    model.eval()
    for i, (input, target) in enumerate(val_loader):
        if use_cuda:
            input = input.cuda(async=True)
            target = target.cuda(async=True)
        input_var = Variable(input, volatile=True)
        target_var = Variable(target, volatile=True)

        output = model(input_var)
        loss = criterion(output, target_var)

        prec1, prec5 = accuracy(output.data, target, topk=(1, 5))
        losses.update(loss.data[0], input.size(0))
        top1.update(prec1[0], input.size(0))
        top5.update(prec5[0], input.size(0))
        if args.steps and i + 1 >= args.steps:
            break

    print(' * Prec@1 {top1.avg:.3f} Prec@5 {top5.avg:.3f} Loss {loss.avg:.4f}'.format(
        top1=top1, top5=top5, loss=losses))
    return top1.avg


class AverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def adjust_learning_rate(optimizer, epoch, args):
    """Sets the learning rate to the initial LR decayed by 10 every 30 epochs"""
    lr = args.lr * (0.1 ** (epoch // 30))
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr


def accuracy(output, target, topk=(1,)):
    """Computes the precision@k for the specified values of k"""
    maxk = max(topk)
    batch_size = target.size(0)

    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))

    res = []
    for k in topk:
        correct_k = correct[:k].view(-1).float().sum(0)
        res.append(correct_k.mul_(100.0 / batch_size))
    return res


if __name__ == '__main__':
    main()
