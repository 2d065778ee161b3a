// AF314 volatile-variable (lib/src/rules/volatile_variable.cpp).
#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix::testing;

TEST_CASE("AF314 volatile-variable", "[rules][AF314]") {
  const std::vector<std::string> valid = {
      "import torch\nfrom torch.autograd import Variable\nx = Variable(t, requires_grad=False)\n",
      "import torch\nwith torch.no_grad():\n    y = model(x)\n",
      // Not PyTorch's Variable.
      "from tensorflow import Variable\nv = Variable(0, volatile=True)\n",
      "class Variable:\n    def __init__(self, x, volatile=False):\n        pass\nv = Variable(1, volatile=True)\n",
      "import torch\nfield = Field(volatile=True)\ns = 'Variable(x, volatile=True)'\n",
  };
  const std::vector<Invalid> invalid = {
      {"from torch.autograd import Variable\n\ndef validate(loader, model):\n    for x, y in loader:\n"
       "        x = Variable(x, volatile=True)\n",
       {{"AF314", 5, 25, 33, FixKind::Safe, "`validate()`"}},
       "from torch.autograd import Variable\n\ndef validate(loader, model):\n    for x, y in loader:\n"
       "        x = Variable(x)\n"},
      {"import torch\nx = torch.autograd.Variable(t, requires_grad=False, volatile=True)\n",
       {{"AF314", 2, 53, 61, FixKind::Safe, "torch.no_grad()"}},
       "import torch\nx = torch.autograd.Variable(t, requires_grad=False)\n"},
      {"from torch.autograd import Variable as V\nx = V(t, volatile=False)\ny = V(t, volatile=args.eval)\n",
       {{"AF314", 2, 10, 18}, {"AF314", 3, 10, 18}},
       "from torch.autograd import Variable as V\nx = V(t)\ny = V(t)\n"},
      {"from torch.autograd import *\nx = Variable(t, volatile=True)\n",
       {{"AF314", 2, 17, 25, FixKind::Unsafe}},
       "from torch.autograd import *\nx = Variable(t)\n",
       "from torch.autograd import *\nx = Variable(t, volatile=True)\n"},
  };
  runRuleTests("AF314", valid, invalid);
}
