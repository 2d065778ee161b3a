// AF301 zero-dim-tensor-index (lib/src/rules/zero_dim_tensor_index.cpp).
#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix;
using namespace asyncfix::testing;

TEST_CASE("AF301 zero-dim-tensor-index", "[rules][AF301]") {
  const std::string head = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n";
  const std::vector<std::string> valid = {
      // a multi-element tensor: correct code
      head + "heatmap = model(x)\nfirst = heatmap.data[0]\n",
      head + "def f(batch):\n    return batch.data[0]\n",
      // a reduction along a dim, a per-element loss
      head + "s = x.sum(0)\nv = s.data[0]\n",
      head + "s = x.sum(dim=1)\nv = s.data[0]\n",
      head + "c = nn.CrossEntropyLoss(reduction='none')\nloss = c(a, b)\nv = loss.data[0]\n",
      head + "c = nn.MSELoss(reduce=False)\nloss = c(a, b)\nv = loss.data[0]\n",
      head + "loss = F.nll_loss(a, b, reduction='none')\nv = loss.data[0]\n",
      // a local nn / F that is not torch's
      "import torch\nimport mylosses as nn\nc = nn.CrossEntropyLoss()\nloss = c(a, b)\nv = loss.data[0]\n",
      "import torch\nfrom mylib import F\nloss = F.nll_loss(a, b)\nv = loss.data[0]\n",
      // a parameter that a call gives something else
      head + "def train(criterion):\n    loss = criterion(a, b)\n    row = loss.data[0]\n"
             "train(nn.CrossEntropyLoss())\ntrain(my_loss)\n",
      // no torch in the file
      "c = nn.CrossEntropyLoss()\nloss = c(a, b)\nv = loss.data[0]\n",
      // a name bound to something else too
      head + "c = nn.CrossEntropyLoss()\nloss = c(a, b)\nif x:\n    loss = model(x)\nv = loss.data[0]\n",
      // already fixed, or another index
      head + "loss = F.nll_loss(a, b)\nv = loss.item()\nw = loss.data[1]\n",
      // text only
      head + "s = 'loss.data[0]'  # loss.data[0]\n",
      // prec1 from an accuracy() whose body is not the helper's, not used as a number
      head + "def accuracy(o, t, topk=(1,)):\n    return [o]\nprec1, prec5 = accuracy(o, t)\nrow = prec1[0]\n",
      // an imported accuracy, prec1[0] not used as a number
      head + "from utils import accuracy\nprec1, prec5 = accuracy(o, t)\nrow = prec1[0]\n",
      // prec1 rebound to something else
      head + "from utils import accuracy\nprec1, prec5 = accuracy(o, t)\nprec1 = [3]\nm.update(prec1[0])\n",
  };
  const std::string helper = "def accuracy(output, target, topk=(1,)):\n"
                             "    res = []\n"
                             "    for k in topk:\n"
                             "        correct_k = correct[:k].view(-1).float().sum(0)\n"
                             "        res.append(correct_k.mul_(100.0 / batch_size))\n"
                             "    return res\n";
  const std::vector<Invalid> invalid = {
      {head + "criterion = nn.CrossEntropyLoss().cuda()\nloss = criterion(out, y)\nv = loss.data[0]\n",
       {{"AF301", 6, 5, 17, FixKind::Safe, "IndexError"}},
       head + "criterion = nn.CrossEntropyLoss().cuda()\nloss = criterion(out, y)\nv = loss.item()\n"},
      {head + "loss = F.nll_loss(a, b)\nprint(loss.data[0])\n",
       {{"AF301", 5, 7, 19, FixKind::Safe}},
       head + "loss = F.nll_loss(a, b)\nprint(loss.item())\n"},
      {head + "v = F.cross_entropy(a, b).data[0]\n",
       {{"AF301", 4, 5, 34, FixKind::Safe}},
       head + "v = F.cross_entropy(a, b).item()\n"},
      {head + "n = (a - b).abs().mean().data[0] + x.norm(2).data[0] + torch.sum(x).data[0]\n",
       {{"AF301", 4, 5, 33, FixKind::Safe}, {"AF301", 4, 36, 53, FixKind::Safe}, {"AF301", 4, 56, 76, FixKind::Safe}},
       head + "n = (a - b).abs().mean().item() + x.norm(2).item() + torch.sum(x).item()\n"},
      {head + "c = torch.nn.MSELoss(size_average=True)\nl1 = c(a, b)\nloss = l1 + 0.5 * F.l1_loss(a, b)\n"
              "v = loss.data[0]\n",
       {{"AF301", 7, 5, 17, FixKind::Safe}},
       head + "c = torch.nn.MSELoss(size_average=True)\nl1 = c(a, b)\nloss = l1 + 0.5 * F.l1_loss(a, b)\n"
              "v = loss.item()\n"},
      // a criterion moved in a second assignment; the helper returning a comprehension
      {head + "criterion = nn.CrossEntropyLoss()\nif gpu:\n    criterion = criterion.cuda()\n"
              "loss = criterion(out, y)\nv = loss.data[0]\n",
       {{"AF301", 8, 5, 17, FixKind::Safe}},
       head + "criterion = nn.CrossEntropyLoss()\nif gpu:\n    criterion = criterion.cuda()\n"
              "loss = criterion(out, y)\nv = loss.item()\n"},
      {head + "def accuracy(output, target, topk=(1,)):\n"
              "    return [correct[:k].view(-1).float().sum(0) * (100.0 / n) for k in topk]\n"
              "def f():\n    prec1, = accuracy(o, t)\n    row = prec1[0]\n",
       {{"AF301", 8, 11, 19, FixKind::Safe}},
       head + "def accuracy(output, target, topk=(1,)):\n"
              "    return [correct[:k].view(-1).float().sum(0) * (100.0 / n) for k in topk]\n"
              "def f():\n    prec1, = accuracy(o, t)\n    row = prec1.item()\n"},
      // a criterion passed to the function that calls it: the ImageNet example's train()
      {head + "def train(loader, model, criterion):\n    loss = criterion(model(x), y)\n"
              "    print(loss.data[0])\n"
              "def main():\n    criterion = nn.CrossEntropyLoss().cuda()\n    train(loader, model, criterion)\n"
              "    train(loader, model, criterion=nn.NLLLoss())\n",
       {{"AF301", 6, 11, 23, FixKind::Safe}},
       head + "def train(loader, model, criterion):\n    loss = criterion(model(x), y)\n"
              "    print(loss.item())\n"
              "def main():\n    criterion = nn.CrossEntropyLoss().cuda()\n    train(loader, model, criterion)\n"
              "    train(loader, model, criterion=nn.NLLLoss())\n"},
      // used as a number only: unsafe
      {head + "out = model(x)\nmeter.update(out.data[0], n)\n",
       {{"AF301", 5, 14, 25, FixKind::Unsafe}},
       head + "out = model(x)\nmeter.update(out.item(), n)\n",
       head + "out = model(x)\nmeter.update(out.data[0], n)\n"},
      {head + "total = 0.0\nfor b in data:\n    total += run(b).data[0]\n",
       {{"AF301", 6, 14, 28, FixKind::Unsafe}},
       head + "total = 0.0\nfor b in data:\n    total += run(b).item()\n",
       head + "total = 0.0\nfor b in data:\n    total += run(b).data[0]\n"},
      {head + "s = '%.3f %d' % (l.data[0], 1) + '{}'.format(m.data[0]) + f'{k.data[0]}'\nv = float(z.data[0])\n",
       {{"AF301", 4, 18, 27, FixKind::Unsafe},
        {"AF301", 4, 46, 55, FixKind::Unsafe},
        {"AF301", 4, 62, 71, FixKind::Unsafe},
        {"AF301", 5, 11, 20, FixKind::Unsafe}},
       head + "s = '%.3f %d' % (l.item(), 1) + '{}'.format(m.item()) + f'{k.item()}'\nv = float(z.item())\n",
       head + "s = '%.3f %d' % (l.data[0], 1) + '{}'.format(m.data[0]) + f'{k.data[0]}'\nv = float(z.data[0])\n"},
      // the accuracy helper defined in the file: safe
      {head + helper +
           "def train():\n    prec1, prec5 = accuracy(out, y, topk=(1, 5))\n"
           "    top1.update(prec1[0], n)\n    print(prec5[0])\n",
       {{"AF301", 12, 17, 25, FixKind::Safe, "accuracy"}, {"AF301", 13, 11, 19, FixKind::Safe}},
       head + helper +
           "def train():\n    prec1, prec5 = accuracy(out, y, topk=(1, 5))\n"
           "    top1.update(prec1.item(), n)\n    print(prec5.item())\n"},
      // an imported helper: unsafe where used as a number only
      {head + "from utils import accuracy\ndef train():\n    prec1, prec5 = accuracy(out, y, topk=(1, 5))\n"
              "    top1.update(prec1[0], n)\n    row = prec5[0]\n",
       {{"AF301", 7, 17, 25, FixKind::Unsafe}},
       head + "from utils import accuracy\ndef train():\n    prec1, prec5 = accuracy(out, y, topk=(1, 5))\n"
              "    top1.update(prec1.item(), n)\n    row = prec5[0]\n",
       head + "from utils import accuracy\ndef train():\n    prec1, prec5 = accuracy(out, y, topk=(1, 5))\n"
              "    top1.update(prec1[0], n)\n    row = prec5[0]\n"},
  };
  runRuleTests("AF301", valid, invalid);
}
