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

TEST_CASE("AF314 volatile-variable: the attribute", "[rules][AF314]") {
  const std::vector<std::string> valid = {
      // No torch in the file: another library's `volatile`.
      "class C:\n    volatile = []\nfor attr in C().volatile:\n    pass\n",
      // The file's own class, a module, a class's descriptor.
      "import torch\nclass Net(torch.nn.Module):\n    def f(self):\n        self.volatile = True\n"
      "        return self.volatile\n",
      "import torch\nm = torch.nn.Linear(2, 2)\nprint(m.volatile)\n",
      "import torch\nfrom torch import Tensor\ngetters = {Tensor.volatile.__get__: 1, torch.Tensor.volatile: 2}\n",
      "import torch\ns = 'x.volatile'  # x.volatile\n",
  };
  const std::vector<Invalid> invalid = {
      // A tensor the file builds: its read becomes `False`, safely.
      {"import torch\nx = torch.zeros(2)\nif x.volatile:\n    pass\nflag = not x.volatile\n",
       {{"AF314", 3, 4, 14, FixKind::Safe, "always `False`"}, {"AF314", 5, 12, 22, FixKind::Safe}},
       "import torch\nx = torch.zeros(2)\nif False:\n    pass\nflag = not False\n"},
      // An object not known to be a tensor: reported without a fix; an assignment likewise.
      {"import torch\ndef forward(input):\n    return input.volatile\n",
       {{"AF314", 3, 12, 26, FixKind::None, "where the object is a tensor"}},
       std::nullopt},
      {"import torch\nx = torch.zeros(2)\nx.volatile = True\n",
       {{"AF314", 3, 1, 11, FixKind::None, "Assigning `.volatile` has no effect"}},
       std::nullopt},
      // A call's result: `False` in its place would drop the call, so no fix.
      {"import torch\nv = torch.zeros(2).volatile\n", {{"AF314", 2, 5, 28, FixKind::None}}, std::nullopt},
      // Inside `volatile=` of a Variable: only the argument's finding, whose fix removes the read.
      {"import torch\nfrom torch.autograd import Variable\ndef f(x):\n    return Variable(x, volatile=x.volatile)\n",
       {{"AF314", 4, 24, 32, FixKind::Safe, "`volatile=` has no effect"}},
       "import torch\nfrom torch.autograd import Variable\ndef f(x):\n    return Variable(x)\n"},
  };
  runRuleTests("AF314", valid, invalid);
}
