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
      // `requires_grad=False` beside it: the message says it does not replace `volatile`.
      {"from torch.autograd import Variable\nx = Variable(t, requires_grad=False, volatile=True)\n",
       {{"AF314", 2, 38, 46, FixKind::Safe, "`requires_grad=False` does not stop that"}},
       "from torch.autograd import Variable\nx = Variable(t, requires_grad=False)\n"},
      // `requires_grad=True` (or unknown) beside a `volatile=` that may be true: a ValueError today,
      // which removing `volatile=` turns into a tensor that requires grad (unsafe).
      {"from torch.autograd import Variable\nx = Variable(t, volatile=True, requires_grad=True)\n"
       "y = Variable(t, requires_grad=flag, volatile=evaluating)\nz = Variable(t, volatile=False, "
       "requires_grad=True)\n",
       {{"AF314", 2, 17, 25, FixKind::Unsafe, "raises `ValueError`"},
        {"AF314", 3, 37, 45, FixKind::Unsafe, "may raise `ValueError`"},
        {"AF314", 4, 17, 25, FixKind::Safe}},
       "from torch.autograd import Variable\nx = Variable(t, requires_grad=True)\n"
       "y = Variable(t, requires_grad=flag)\nz = Variable(t, requires_grad=True)\n",
       "from torch.autograd import Variable\nx = Variable(t, volatile=True, requires_grad=True)\n"
       "y = Variable(t, requires_grad=flag, volatile=evaluating)\nz = Variable(t, requires_grad=True)\n"},
      {"from torch.autograd import *\nx = Variable(t, volatile=True)\n",
       {{"AF314", 2, 17, 25, FixKind::Unsafe}},
       "from torch.autograd import *\nx = Variable(t)\n",
       "from torch.autograd import *\nx = Variable(t, volatile=True)\n"},
  };
  runRuleTests("AF314", valid, invalid);
}
