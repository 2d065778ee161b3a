// AF303 legacy-autograd-function (lib/src/rules/legacy_autograd_function.cpp).
#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix;
using namespace asyncfix::testing;

TEST_CASE("AF303 legacy-autograd-function", "[rules][AF303]") {
  const std::string body = "    def forward(self, x):\n        return x\n";
  const std::vector<std::string> valid = {
      // the new style
      "from torch.autograd import Function\nclass F(Function):\n    @staticmethod\n"
      "    def forward(ctx, x):\n        return x\n",
      "import torch\nclass F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n        return x\n"
      "    def helper(self):\n        pass\n",
      // a Function that is not torch's
      "from sympy import Function\nclass F(Function):\n" + body,
      "import torch\nclass Function:\n    pass\nclass F(Function):\n" + body,
      // an nn.Module's forward
      "import torch.nn as nn\nclass M(nn.Module):\n" + body,
      // not the word's spelling
      "from torch.autograd import Function\nclass F(Function ):\n" + body,
  };
  const std::vector<Invalid> invalid = {
      {"from torch.autograd import Function\nclass Clamp(Function):\n" + body,
       {{"AF303", 3, 9, 16, FixKind::None, "Clamp.apply"}},
       std::nullopt},
      {"import torch\nclass F(torch.autograd.Function, Base):\n    @property\n" + body,
       {{"AF303", 4, 9, 16, FixKind::None, "PyTorch 1.5"}},
       std::nullopt},
      {"from torch import autograd as ag\nclass F(ag.Function):\n    def __init__(self, s):\n        self.s = s\n" +
           body,
       {{"AF303", 5, 9, 16, FixKind::None}},
       std::nullopt},
  };
  runRuleTests("AF303", valid, invalid);
}
