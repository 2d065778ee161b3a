"""Train an ImageNet classifier (PyTorch 0.3/0.4, Python 3.6).

Legacy research code, kept as it was written in early 2018: it uses `async` and `await` as names,
which Python 3.7 reserved, so this file no longer even compiles. Try:

    asyncfix check examples/
    asyncfix check --fix --unsafe-fixes --diff examples/
"""
import argparse
import os
import shutil
import time

import torch
import torch.nn as nn
import torch.optim
import torch.utils.data
import torchvision.datasets as datasets
import torchvision.models as models
import torchvision.transforms as transforms
from torch.autograd import Variable

from utils.data import DataPrefetcher

parser = argparse.ArgumentParser(description='PyTorch ImageNet Training')
parser.add_argument('data', metavar='DIR', help='path to dataset')
parser.add_argument('--arch', default='resnet18', choices=sorted(models.__dict__))
parser.add_argument('--epochs', default=90, type=int)
parser.add_argument('--batch-size', default=256, type=int)
parser.add_argument('--lr', default=0.1, type=float)
parser.add_argument('--workers', default=4, type=int)
parser.add_argument('--print-freq', default=10, type=int)
parser.add_argument('--no-async', dest='copy_async', action='store_false',
                    help='do not overlap host-to-device copies with compute (async=True)')


class AverageMeter(object):
    """Computes and stores the average and current value."""

    def __init__(self, async=False):
        self.async = async  # values may still be GPU tensors: read them lazily
        self.reset()

    def reset(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        if self.async and torch.is_tensor(val):
            val = val.cpu()[0]
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def to_device(batch, async=False):
    """Move a (input, target) batch to the GPU; `async` needs pinned memory."""
    input, target = batch
    return input.cuda(async=async), target.cuda(async=async)


def _pin(tensor, async):
    if async and not tensor.is_pinned():
        tensor = tensor.pin_memory()
    return tensor


def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    correct = pred.t().eq(target.view(1, -1).expand_as(pred.t()))
    return [correct[:k].view(-1).float().sum(0) * (100.0 / batch_size) for k in topk]


def train(train_loader, model, criterion, optimizer, epoch, args):
    batch_time, losses, top1 = AverageMeter(), AverageMeter(async=True), AverageMeter()
    model.train()
    end = time.time()
    prefetcher = DataPrefetcher(train_loader, async=args.copy_async)
    for i, (input, target) in enumerate(prefetcher):
        # no-ops when the prefetcher already queued the copies on its side stream
        input = input.cuda(async=True)
        target = target.cuda(async=True)
        input_var = Variable(input)
        target_var = Variable(target)
        output = model(input_var)
        loss = criterion(output, target_var)
        prec1, = accuracy(output.data, target, topk=(1,))
        losses.update(loss.data[0], input.size(0))
        top1.update(prec1[0], input.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        batch_time.update(time.time() - end)
        end = time.time()
        if i % args.print_freq == 0:
            print('Epoch: [{0}][{1}/{2}]\t'
                  'Loss {loss.val:.4f} ({loss.avg:.4f})\t'
                  'Prec@1 {top1.val:.3f} ({top1.avg:.3f})'.format(
                      epoch, i, len(train_loader), loss=losses, top1=top1))


def validate(val_loader, model, criterion, device):
    top1 = AverageMeter()
    model.eval()
    async = torch.cuda.is_available()  # pinned memory only pays off with a GPU
    move = lambda t, async=async: t.to(device, async=async)
    for i, (input, target) in enumerate(val_loader):
        input = move(_pin(input, async))
        target = target.to(device, async=True)
        input_var = Variable(input, volatile=True)
        target_var = Variable(target, volatile=True)
        output = model(input_var)
        loss = criterion(output, target_var)
        prec1, = accuracy(output.data, target)
        top1.update(prec1[0], input.size(0))
    print(' * Prec@1 {top1.avg:.3f} (loss {loss:.4f})'.format(top1=top1, loss=loss.data[0]))
    return top1.avg


def evaluate_tta(model, images, labels, crops=10):
    """Ten-crop test-time augmentation: average the softmax over the crops."""
    await = []  # outputs of the crops still to be averaged
    images, labels = to_device((images, labels), async=True)
    for crop in images.chunk(crops, dim=1):
        crop = crop.squeeze(1).cuda(
            0,  # the first GPU, like the rest of the script
            # the crops are pinned by the loader, so the copy can overlap
            async=True,
        )
        await.append(nn.functional.softmax(model(Variable(crop, volatile=True)), dim=1))
    probs = torch.stack(await).mean(0)
    return (probs.max(1)[1].data == labels).float().mean()


def save_checkpoint(state, is_best, filename='checkpoint.pth.tar'):
    torch.save(state, filename)
    if is_best:
        shutil.copyfile(filename, 'model_best.pth.tar')


def main():
    args = parser.parse_args()
    model = models.__dict__[args.arch]()
    model = torch.nn.DataParallel(model).cuda()
    class_weights = torch.ones(1000).cuda(0, async=True)  # re-weighted later from the class counts
    criterion = nn.CrossEntropyLoss(weight=class_weights).cuda()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9, weight_decay=1e-4)
    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    train_dataset = datasets.ImageFolder(os.path.join(args.data, 'train'), transforms.Compose([
        transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
        transforms.ToTensor(), normalize]))
    train_loader = torch.utils.data.DataLoader(
        train_dataset, batch_size=args.batch_size, shuffle=True,
        num_workers=args.workers, pin_memory=True)
    val_loader = torch.utils.data.DataLoader(
        datasets.ImageFolder(os.path.join(args.data, 'val'), transforms.Compose([
            transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), normalize])),
        batch_size=args.batch_size, num_workers=args.workers, pin_memory=True)
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    best_prec1 = 0
    for epoch in range(args.epochs):
        lr = args.lr * (0.1 ** (epoch // 30))
        for group in optimizer.param_groups:
            group['lr'] = lr
        train(train_loader, model, criterion, optimizer, epoch, args)
        prec1 = validate(val_loader, model, criterion, device)
        is_best = prec1 > best_prec1
        best_prec1 = max(prec1, best_prec1)
        save_checkpoint({'epoch': epoch + 1, 'arch': args.arch, 'state_dict': model.state_dict(),
                         'best_prec1': best_prec1, 'optimizer': optimizer.state_dict()}, is_best)


if __name__ == '__main__':
    main()
