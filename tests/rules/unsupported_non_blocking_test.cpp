// AF102 unsupported-non-blocking (lib/src/rules/unsupported_non_blocking.cpp).
#include <catch2/catch.hpp>

#include "asyncfix/document.h"
#include "asyncfix/linter.h"
#include "rules/rule_tester.h"

using namespace asyncfix;
using namespace asyncfix::testing;

TEST_CASE("AF102 unsupported-non-blocking", "[rules][AF102]") {
  const std::vector<std::string> valid = {
      "import torch\nmodel = torch.randn(3)\nmodel = model.cuda(non_blocking=True)\n", // a tensor called model
      "from mylib import Net\nmodel = Net()\nmodel.cuda(non_blocking=True)\n",         // unknown: silent
      "import torch.nn as nn\nmodel = nn.Linear(2, 2)\nmodel.cuda()\nmodel.to(d, non_blocking=True)\n",
      "x.cpu()\n",
      // torch.nn.parameter.Parameter is a tensor, not a module.
      "from torch.nn.parameter import Parameter\np = Parameter(t)\np.cuda(non_blocking=True)\n",
      // A class of the file with its own cpu(non_blocking=...).
      "class Box:\n    def cpu(self, non_blocking=False):\n        return self\nBox().cpu(non_blocking=True)\n",
  };
  const std::vector<Invalid> invalid = {
      {"import torchvision\nmodel = torchvision.models.resnet50()\nmodel = model.cuda(async=True)\n",
       {{"AF102", 3, 20, 25, FixKind::Safe, "TypeError"}},
       "import torchvision\nmodel = torchvision.models.resnet50()\nmodel = model.cuda()\n"},
      {"import torch.nn as nn\nnet = nn.Sequential()\nnet.cuda(0, non_blocking=True)  # GPU 0\n",
       {{"AF102", 3, 13, 25, FixKind::Safe}},
       "import torch.nn as nn\nnet = nn.Sequential()\nnet.cuda(0)  # GPU 0\n"},
      {"from torch import nn\nclass M(nn.Module):\n    def go(self):\n        return self.cuda(\n            0,\n"
       "            async=True,  # old API\n        )\n",
       {{"AF102", 6, 13, 18}},
       "from torch import nn\nclass M(nn.Module):\n    def go(self):\n        return self.cuda(\n            0,  # old "
       "API\n        )\n"},
      {"y = out.cpu(async=True)\n", {{"AF102", 1, 13, 18}}, "y = out.cpu()\n"},
      // Comments on both arguments: they stay, and the result parses.
      {"import torch.nn as nn\nmodel = nn.Linear(2, 2)\nmodel.cuda(\n    0,  # device\n    async=True,  # legacy\n)\n",
       {{"AF102", 5, 5, 10, FixKind::Safe}},
       "import torch.nn as nn\nmodel = nn.Linear(2, 2)\nmodel.cuda(\n    0,  # device\n      # legacy\n)\n"},
      {"y = out.cpu(non_blocking=True).numpy()\n", {{"AF102", 1, 13, 25}}, "y = out.cpu().numpy()\n"},
  };
  runRuleTests("AF102", valid, invalid);
}

TEST_CASE("AF101, AF102 and AF001 do not fire on the same argument", "[rules][AF102]") {
  const Linter linter;
  const auto codes = [&](const std::string &src) {
    std::vector<std::string> out;
    for (const Diagnostic &d : linter.lint(Document(src))) out.emplace_back(d.code);
    return out;
  };
  using V = std::vector<std::string>;
  CHECK(codes("import torch.nn as nn\nm = nn.Linear(1, 1)\nm.cuda(async=True)\n") == V{"AF102"});
  CHECK(codes("import torch\nm = torch.randn(1)\nm.cuda(async=True)\n") == V{"AF101"});
  CHECK(codes("y = x.cpu(async=True)\n") == V{"AF102"});
}

TEST_CASE("AF102: a loop's variable is no module, told by the loops around it", "[rules][AF102]") {
  // AF102 asks the loops around a call first (resolving the receiver walks the whole function):
  // these are loop variables, so the file does not show a module, and AF102 is silent...
  const std::string head = "import torch.nn as nn\n";
  const std::vector<std::string> valid = {
      head + "def f(loader):\n    for x, y in loader:\n        x = x.cuda(non_blocking=True)\n",
      head + "def f(loader):\n    for i, (x, [y, *z]) in enumerate(loader):\n        x.cuda(non_blocking=True)\n",
      head + "def f(batch):\n    return [t.cuda(non_blocking=True) for t in batch]\n",
      head + "def f(batch):\n    return {k: v.cuda(non_blocking=True) for k, v in batch.items()}\n",
      // Also when another binding makes it a module: one binding of a loop disagrees.
      head + "def f(models):\n    m = nn.Linear(2, 2)\n    for m in models:\n        m.cuda(non_blocking=True)\n",
  };
  // ...but not these: the loop binds something else, or another scope's name.
  const std::string attribute = head + "def f(self, models):\n    model = nn.Linear(2, 2)\n    for self.model in "
                                       "models:\n        model.cuda(non_blocking=True)\n";
  const std::string nested = head + "def f(models):\n    for model in models:\n        def g():\n            model = "
                                    "nn.Linear(2, 2)\n            model.cuda(non_blocking=True)\n";
  // A comprehension skips the class body around it: its `m` is the module's module, not the
  // class body's loop variable.
  const std::string classLoop = "import torch.nn as nn\nm = nn.Linear(2, 2)\nclass C:\n    for m in []:\n        ys = "
                                "[m.cuda(non_blocking=True) for _ in range(2)]\n";
  const std::string classLoopLater = "import torch.nn as nn\nm = nn.Linear(2, 2)\nclass C:\n    for m in []:\n        "
                                     "ys = [x for _ in range(2) for x in m.cuda(non_blocking=True)]\n";
  const std::string otherName = head + "def f(xs):\n    model = nn.Linear(2, 2)\n    return [model.cuda(non_blocking="
                                       "True) for x in xs]\n";
  const auto removed = [](std::string text) {
    const std::size_t at = text.find("(non_blocking=True)");
    return text.replace(at, 19, "()");
  };
  const std::vector<Invalid> invalid = {
      {attribute, {{"AF102", 5, 20, 32, FixKind::Safe}}, removed(attribute)},
      {nested, {{"AF102", 6, 24, 36, FixKind::Safe}}, removed(nested)},
      {otherName, {{"AF102", 4, 24, 36, FixKind::Safe}}, removed(otherName)},
      {classLoop, {{"AF102", 5, 22, 34, FixKind::Safe}}, removed(classLoop)},
      {classLoopLater, {{"AF102", 5, 51, 63, FixKind::Safe}}, removed(classLoopLater)},
  };
  runRuleTests("AF102", valid, invalid);
}
