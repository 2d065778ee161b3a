#!/usr/bin/env python3
"""Writes the AF301-AF306 cases of tests/torch/cases/ (see run_cases.py for the convention).

Deterministic: shapes and values come from random.Random(30x) and each program seeds torch, so
rerunning this script rewrites the same files. Run it after changing a template and commit
what it writes:  python3 tests/torch/gen_af30x.py
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")

ZERO_DIM = r"IndexError: invalid index of a 0-dim tensor"


def write(name, expect, fixes, legacy, modern=None):
    body = f"# expect-before: {expect}\n# fixes: {fixes}\n" + legacy.lstrip("\n")
    with open(os.path.join(CASES, name + ".py"), "w", encoding="utf-8") as f:
        f.write(body)
    if modern is not None:
        with open(os.path.join(CASES, name + ".ref.py"), "w", encoding="utf-8") as f:
            f.write("# The modern reference of " + name + ".py.\n" + modern.lstrip("\n"))


def both(template, **values):
    """The legacy and modern programs of a template whose `{old:new}` holes differ."""
    import re

    legacy = re.sub(r"\{\{([^|{}]*)\|([^{}]*)\}\}", lambda m: m.group(1), template.format(**values))
    modern = re.sub(r"\{\{([^|{}]*)\|([^{}]*)\}\}", lambda m: m.group(2), template.format(**values))
    return legacy, modern


HEAD = """
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed({seed})
"""


def af301(rng):
    # A criterion, called (moved to a device or not), and F.*_loss functions: safe.
    n, c = rng.randint(4, 9), rng.randint(3, 6)
    for slug, make in [
        ("criterion", "nn.CrossEntropyLoss()"),
        ("criterion_moved", "nn.CrossEntropyLoss().to(torch.device('cpu'))"),
        ("criterion_kwargs", "nn.NLLLoss(weight=None, ignore_index=-100)"),
    ]:
        target = "F.log_softmax(out, dim=1)" if "NLL" in make else "out"
        template = HEAD + """
criterion = {make}
out = torch.randn({n}, {c})
y = torch.randint(0, {c}, ({n},))
loss = criterion({target}, y)
print('%.5f' % {{{{loss.data[0]|loss.item()}}}})
"""
        legacy, modern = both(template, seed=rng.randint(0, 999), make=make, n=n, c=c, target=target)
        write(f"AF301_{slug}", ZERO_DIM, "safe", legacy, modern)

    template = HEAD + """
a, b = torch.randn({n}, {c}), torch.randn({n}, {c})
y = torch.randint(0, {c}, ({n},))
print('%.5f' % {{{{F.mse_loss(a, b).data[0]|F.mse_loss(a, b).item()}}}})
print('%.5f' % {{{{F.cross_entropy(a, y).data[0]|F.cross_entropy(a, y).item()}}}})
print('%.5f' % {{{{F.nll_loss(F.log_softmax(a, dim=1), y).data[0]|F.nll_loss(F.log_softmax(a, dim=1), y).item()}}}})
print('%.5f' % {{{{F.l1_loss(a, b, reduction='sum').data[0]|F.l1_loss(a, b, reduction='sum').item()}}}})
"""
    legacy, modern = both(template, seed=rng.randint(0, 999), n=n, c=c)
    write("AF301_functional_loss", ZERO_DIM, "safe", legacy, modern)

    # Reductions without dim: one case per reduction.
    for reduction in ["sum()", "mean()", "prod()", "max()", "min()", "median()", "norm()", "norm(2)", "std()",
                      "var()"]:
        shape = (rng.randint(2, 5), rng.randint(2, 5))
        template = HEAD + """
x = torch.rand{shape} + 0.5
s = x.{reduction}
print('%.5f' % {{{{s.data[0]|s.item()}}}})
"""
        legacy, modern = both(template, seed=rng.randint(0, 999), shape=shape, reduction=reduction)
        slug = reduction.replace("()", "").replace("(2)", "_p")
        write(f"AF301_reduction_{slug}", ZERO_DIM, "safe", legacy, modern)

    template = HEAD + """
x = torch.rand({n}, {c})
print('%.5f' % {{{{torch.sum(x).data[0]|torch.sum(x).item()}}}})
print('%.5f' % {{{{(x - 1).abs().mean().data[0]|(x - 1).abs().mean().item()}}}})
"""
    legacy, modern = both(template, seed=rng.randint(0, 999), n=n, c=c)
    write("AF301_reduction_inline", ZERO_DIM, "safe", legacy, modern)

    # Arithmetic of losses and numbers.
    template = HEAD + """
a, b = torch.randn({n}, {c}), torch.randn({n}, {c})
criterion = nn.MSELoss()
l1 = criterion(a, b)
loss = l1 + 0.5 * F.l1_loss(a, b)
print('%.5f' % {{{{loss.data[0]|loss.item()}}}})
"""
    legacy, modern = both(template, seed=rng.randint(0, 999), n=n, c=c)
    write("AF301_arithmetic", ZERO_DIM, "safe", legacy, modern)

    # The ImageNet accuracy() helper (its view(-1) already reshape(-1): AF302 has its own case).
    template = HEAD + """

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
        output = torch.randn({n}, {c})
        target = torch.randint(0, {c}, ({n},))
        prec1, prec5 = accuracy(output, target, topk=(1, 2))
        top1.update({{{{prec1[0]|prec1.item()}}}}, {n})
        top5.update({{{{prec5[0]|prec5.item()}}}}, {n})
    print('%.4f %.4f' % (top1.sum / top1.count, top5.sum / top5.count))


validate()
"""
    legacy, modern = both(template, seed=rng.randint(0, 999), n=n, c=c)
    write("AF301_accuracy_helper", ZERO_DIM, "safe", legacy, modern)

    # The helper's other shape (a comprehension, as examples/train_legacy.py has it), and a criterion
    # moved by a second assignment where there is a GPU.
    template = HEAD + """

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
    output = torch.randn({n}, {c})
    target = torch.randint(0, {c}, ({n},))
    loss = criterion(output, target)
    prec1, = accuracy(output, target)
    print('%.4f %.4f' % ({{{{prec1[0]|prec1.item()}}}}, {{{{loss.data[0]|loss.item()}}}}))


evaluate()
"""
    legacy, modern = both(template, seed=rng.randint(0, 999), n=n, c=c)
    write("AF301_accuracy_comprehension", ZERO_DIM, "safe", legacy, modern)

    # The ImageNet example's shape: the criterion built in main() and passed to train().
    template = HEAD + """

def train(batches, model, criterion, optimizer):
    for input, target in batches:
        loss = criterion(model(input), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print('%.5f' % {{{{loss.data[0]|loss.item()}}}})


def main():
    model = nn.Linear({c}, {c})
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = [(torch.randn({n}, {c}), torch.randint(0, {c}, ({n},))) for i in range(2)]
    train(batches, model, criterion, optimizer)


main()
"""
    legacy, modern = both(template, seed=rng.randint(0, 999), n=n, c=c)
    write("AF301_criterion_parameter", ZERO_DIM, "safe", legacy, modern)

    # Used as a number only: unsafe.
    template = HEAD + """

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
    x = torch.randn({n}, {c})
    loss = compute(x)
    meter.update({{{{loss.data[0]|loss.item()}}}}, {n})
    running += {{{{compute(x + 1).data[0]|compute(x + 1).item()}}}}
    print('%.4f' % {{{{loss.data[0]|loss.item()}}}}, '{{:.4f}}'.format({{{{loss.data[0]|loss.item()}}}}))
    print(f'{{{{{{loss.data[0]|loss.item()}}}}:.4f}}', round(float({{{{loss.data[0]|loss.item()}}}}), 4))
print('%.4f %.4f' % (meter.total, running))
"""
    legacy, modern = both(template, seed=rng.randint(0, 999), n=n, c=c)
    write("AF301_used_as_number", ZERO_DIM, "unsafe", legacy, modern)


def af302(rng):
    n, c = rng.randint(6, 10), rng.randint(6, 10)
    template = HEAD + """

def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))
    res = []
    for k in topk:
        correct_k = correct[:k].{{{{view|reshape}}}}(-1).float().sum(0, keepdim=True)
        res.append(correct_k.mul_(100.0 / batch_size))
    return res


output = torch.randn({n}, {c})
target = torch.randint(0, {c}, ({n},))
top1, top5 = accuracy(output, target, topk=(1, 5))
print('%.4f %.4f' % (top1.item(), top5.item()))
"""
    legacy, modern = both(template, seed=rng.randint(0, 999), n=n, c=c)
    view = r"RuntimeError: view size is not compatible with input tensor's size and stride"
    write("AF302_accuracy_helper", view, "safe", legacy, modern)

    template = HEAD + """
x = torch.randn({n}, {c})
a = x.t()[:3].{{{{view|reshape}}}}(-1)
b = x.transpose(0, 1).float()[1:4].{{{{view|reshape}}}}(-1)
c = x.permute(1, 0)[:2].{{{{view|reshape}}}}(-1)
d = torch.t(x)[:2].{{{{view|reshape}}}}(-1)
t = x.T
e = t.eq(t.max(0, keepdim=True)[0])[:2].{{{{view|reshape}}}}(-1)
print(a.sum().item(), b.sum().item(), c.sum().item(), d.sum().item(), e.sum().item())
print(a[:3].tolist())
"""
    legacy, modern = both(template, seed=rng.randint(0, 999), n=n, c=c)
    write("AF302_transposed_forms", view, "safe", legacy, modern)


def af303():
    legacy = HEAD.format(seed=303) + """
from torch.autograd import Function


class Clamp(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return x.clamp(min=0)

    def backward(self, grad):
        x, = self.saved_tensors
        return grad * (x > 0).float()


x = torch.randn(5, requires_grad=True)
print(Clamp()(x).sum().item())
"""
    write("AF303_legacy_function", r"RuntimeError: Legacy autograd function with non-static forward method",
          "none", legacy)


def af304():
    softmax = r"UserWarning: Implicit dimension choice for (log_)?softmax has been deprecated"
    for slug, call in [("functional", "F.softmax(x)"), ("log_softmax", "F.log_softmax(x)"),
                       ("module", "nn.Softmax()(x)"), ("log_module", "nn.LogSoftmax()(x)"),
                       ("softmin", "F.softmin(x)")]:
        legacy = HEAD.format(seed=304) + f"""
x = torch.randn(3, 4)
print({call}.sum().item())
"""
        write(f"AF304_{slug}", softmax.replace("(log_)?softmax", "(log_)?soft(max|min)"), "none", legacy)


def af305():
    for slug, code, expect in [
        ("masked_fill", "mask = (x > 0).byte()\ny = x.masked_fill(mask, 0)",
         r"UserWarning: masked_fill_ received a mask with dtype torch.uint8"),
        ("masked_fill_inline", "y = x.clone()\ny.masked_fill_((x > 0).byte(), 0)",
         r"UserWarning: masked_fill_ received a mask with dtype torch.uint8"),
        ("masked_select", "y = x.masked_select(x.gt(0).type(torch.ByteTensor))",
         r"UserWarning: masked_select received a mask with dtype torch.uint8"),
        ("index", "m = torch.ByteTensor([1, 0, 1, 0])\ny = x[m]",
         r"UserWarning: indexing with dtype torch.uint8 is now deprecated"),
        ("where", "y = torch.where((x > 0).byte(), x, -x)",
         r"UserWarning: where received a uint8 condition tensor"),
    ]:
        legacy = HEAD.format(seed=305) + f"""
x = torch.randn(4)
{code}
print(y.sum().item())
"""
        write(f"AF305_{slug}", expect, "none", legacy)


def af306():
    expect = r"UserWarning: Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"
    legacy = HEAD.format(seed=306) + """
from torch.optim import lr_scheduler


def main():
    model = nn.Linear(3, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    for epoch in range(2):
        scheduler.step()
        optimizer.zero_grad()
        model(torch.randn(4, 3)).sum().backward()
        optimizer.step()
        print(optimizer.param_groups[0]['lr'])


main()
"""
    write("AF306_same_loop", expect, "none", legacy)
    legacy = HEAD.format(seed=306) + """
import torch.optim as optim
from torch.optim.lr_scheduler import MultiStepLR


def train(model, optimizer):
    for i in range(2):
        optimizer.zero_grad()
        model(torch.randn(4, 3)).sum().backward()
        optimizer.step()


def main():
    model = nn.Linear(3, 2)
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = MultiStepLR(optimizer, milestones=[1], gamma=0.1)
    for epoch in range(2):
        scheduler.step()
        train(model, optimizer)
        print(optimizer.param_groups[0]['lr'])


main()
"""
    write("AF306_through_train", expect, "none", legacy)
    legacy = HEAD.format(seed=306) + """
import torch.optim as optim
from torch.optim import lr_scheduler


def train_model(model, optimizer, scheduler, num_epochs=2):
    for epoch in range(num_epochs):
        for phase in ['train', 'val']:
            if phase == 'train':
                scheduler.step()
                model.train()
            else:
                model.eval()
            for i in range(2):
                optimizer.zero_grad()
                loss = model(torch.randn(4, 3)).sum()
                if phase == 'train':
                    loss.backward()
                    optimizer.step()
        print(optimizer.param_groups[0]['lr'])
    return model


model_ft = nn.Linear(3, 2)
optimizer_ft = optim.SGD(model_ft.parameters(), lr=0.001, momentum=0.9)
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_ft, step_size=1, gamma=0.1)
model_ft = train_model(model_ft, optimizer_ft, exp_lr_scheduler)
"""
    write("AF306_tutorial", expect, "none", legacy)


def main():
    os.makedirs(CASES, exist_ok=True)
    af301(random.Random(301))
    af302(random.Random(302))
    af303()
    af304()
    af305()
    af306()


if __name__ == "__main__":
    main()
