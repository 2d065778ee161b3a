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
