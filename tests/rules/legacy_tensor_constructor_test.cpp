// AF318 legacy-tensor-constructor (lib/src/rules/legacy_tensor_constructor.cpp).
#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix::testing;

TEST_CASE("AF318 legacy-tensor-constructor", "[rules][AF318]") {
  const std::vector<std::string> valid = {
      // Today's spellings.
      "import torch\nx = torch.empty(2, 3, dtype=torch.float32, device='cuda')\ny = torch.tensor([1], "
      "dtype=torch.int64)\n",
      // References to the classes, not calls (a CPU class given to `.type`, an `isinstance`).
      "import torch\ny = x.type(torch.cuda.FloatTensor)\nok = isinstance(x, torch.LongTensor)\n",
      "import torch\nok = isinstance(x, torch.cuda.FloatTensor)\nf(torch.cuda.LongTensor, 0)\n",
      "import torch\ndef f(x: torch.LongTensor) -> torch.FloatTensor:\n    return x\n",
      // The untyped legacy constructor is not this rule's.
      "import torch\nw = torch.Tensor(2, 3)\n",
      // Not PyTorch's.
      "from mylib import FloatTensor\nx = FloatTensor(2)\n",
      "import torch\nclass LongTensor:\n    pass\nx = LongTensor(3)\n",
      "import tensorflow as torch\nx = torch.FloatTensor(2)\n",
      "import torch\nx = np.FloatTensor(2)\ns = 'torch.cuda.FloatTensor(2)'\n",
  };
  const std::vector<Invalid> invalid = {
      // Sizes: literal ints, two or more arguments of any kind, no argument.
      {"import torch\nx = torch.FloatTensor(2, 3)\n",
       {{"AF318", 2, 5, 28, FixKind::Safe, "torch.empty"}},
       "import torch\nx = torch.empty(2, 3, dtype=torch.float32)\n"},
      {"import torch\nx = torch.cuda.LongTensor(batch, n)\ny = torch.cuda.ByteTensor()\n",
       {{"AF318", 2, 5, 36, FixKind::Safe, "UserWarning since PyTorch 2.1"}, {"AF318", 3, 5, 28, FixKind::Safe}},
       "import torch\nx = torch.empty(batch, n, dtype=torch.int64, device='cuda')\n"
       "y = torch.empty(0, dtype=torch.uint8, device='cuda')\n"},
      {"import torch\nx = torch.HalfTensor(3)\n",
       {{"AF318", 2, 5, 24, FixKind::Safe}},
       "import torch\nx = torch.empty(3, dtype=torch.float16)\n"},
      // Data: a literal of numbers, nested, negative, bools; a trailing comma and a comment.
      {"import torch\nx = torch.LongTensor([[1, -2], [3, 4]])\ny = torch.cuda.BoolTensor((True, 0,))\n",
       {{"AF318", 2, 5, 40, FixKind::Safe, "torch.tensor"}, {"AF318", 3, 5, 38, FixKind::Safe}},
       "import torch\nx = torch.tensor([[1, -2], [3, 4]], dtype=torch.int64)\n"
       "y = torch.tensor((True, 0,), dtype=torch.bool, device='cuda')\n"},
      {"import torch\nx = torch.DoubleTensor(\n    [1.5, 2],  # data\n)\n",
       {{"AF318", 2, 5, 2, FixKind::Safe}},
       "import torch\nx = torch.tensor(\n    [1.5, 2], dtype=torch.float64,  # data\n)\n"},
      // Imported by name, and through an alias of torch.cuda.
      {"import torch\nfrom torch import IntTensor\nimport torch.cuda as tc\nx = IntTensor([1])\ny = tc.CharTensor(4)\n",
       {{"AF318", 4, 5, 19, FixKind::Safe}, {"AF318", 5, 5, 21, FixKind::Safe}},
       "import torch\nfrom torch import IntTensor\nimport torch.cuda as tc\nx = torch.tensor([1], dtype=torch.int32)\n"
       "y = torch.empty(4, dtype=torch.int8, device='cuda')\n"},
      // Unsafe: sizes by the look of them, a list of names.
      {"import torch\nx = torch.FloatTensor(*shape)\ny = torch.FloatTensor(t.size())\nz = torch.FloatTensor([a, b])\n",
       {{"AF318", 2, 5, 30, FixKind::Unsafe},
        {"AF318", 3, 5, 32, FixKind::Unsafe},
        {"AF318", 4, 5, 30, FixKind::Unsafe}},
       "import torch\nx = torch.empty(*shape, dtype=torch.float32)\ny = torch.empty(t.size(), dtype=torch.float32)\n"
       "z = torch.tensor([a, b], dtype=torch.float32)\n",
       "import torch\nx = torch.FloatTensor(*shape)\ny = torch.FloatTensor(t.size())\nz = torch.FloatTensor([a, b])\n"},
      // Unsafe: a list comprehension, a name that only sequences are bound to.
      {"import torch\nx = torch.LongTensor([t for _, t in batch])\nmean = [0.5, 0.5]\ny = torch.FloatTensor(mean)\n"
       "def norm(std=(0.2, 0.3)):\n    return torch.FloatTensor(std)\n",
       {{"AF318", 2, 5, 44, FixKind::Unsafe},
        {"AF318", 4, 5, 28, FixKind::Unsafe},
        {"AF318", 6, 12, 34, FixKind::Unsafe}},
       "import torch\nx = torch.tensor([t for _, t in batch], dtype=torch.int64)\nmean = [0.5, 0.5]\n"
       "y = torch.tensor(mean, dtype=torch.float32)\ndef norm(std=(0.2, 0.3)):\n"
       "    return torch.tensor(std, dtype=torch.float32)\n",
       "import torch\nx = torch.LongTensor([t for _, t in batch])\nmean = [0.5, 0.5]\ny = torch.FloatTensor(mean)\n"
       "def norm(std=(0.2, 0.3)):\n    return torch.FloatTensor(std)\n"},
      // A star import: only spelt like PyTorch's.
      {"from torch import *\nimport torch\nx = FloatTensor(2)\n",
       {{"AF318", 3, 5, 19, FixKind::Unsafe}},
       "from torch import *\nimport torch\nx = torch.empty(2, dtype=torch.float32)\n",
       "from torch import *\nimport torch\nx = FloatTensor(2)\n"},
      // No fix: one argument decided at run time, keywords, a generator, `torch` not the module.
      {"import torch\nx = torch.FloatTensor(data)\ny = torch.FloatTensor(2, device='cpu')\n"
       "z = torch.FloatTensor(v for v in w)\n",
       {{"AF318", 2, 5, 28, FixKind::None, "for data"},
        {"AF318", 3, 5, 39, FixKind::None},
        {"AF318", 4, 5, 36, FixKind::None}},
       std::nullopt},
      {"from torch import FloatTensor\nx = FloatTensor(2)\n", {{"AF318", 2, 5, 19, FixKind::None}}, std::nullopt},
      {"import torch\ndef f(mean, std=None):\n    a = torch.FloatTensor(mean)\n    return torch.FloatTensor(std)\n"
       "v = [1.0]\nv = load()\nw = torch.FloatTensor(v)\n",
       {{"AF318", 3, 9, 32, FixKind::None}, {"AF318", 4, 12, 34, FixKind::None}, {"AF318", 7, 5, 25, FixKind::None}},
       std::nullopt},
      {"import torch\ndef f(torch):\n    return torch.FloatTensor(2)\nx = torch.FloatTensor(2)\n",
       {{"AF318", 4, 5, 25, FixKind::None}},
       std::nullopt},
  };
  runRuleTests("AF318", valid, invalid);
}

TEST_CASE("AF318 leaves a uint8 mask to AF305", "[rules][AF318][AF305]") {
  // AF305 reports the mask (make it `torch.bool`); AF318's `dtype=torch.uint8` would hide it.
  const std::string mask = "import torch\nm = torch.ByteTensor([1, 0])\ny = x.masked_fill(m, 0)\n";
  runRuleTests("AF3", {}, {{mask, {{"AF305", 2, 5, 29, FixKind::None, "uint8 mask"}}, std::nullopt}});
  // With AF305 off there is no one to leave it to.
  runRuleTests("AF318", {},
               {{mask,
                 {{"AF318", 2, 5, 29, FixKind::Safe}},
                 "import torch\nm = torch.tensor([1, 0], dtype=torch.uint8)\ny = x.masked_fill(m, 0)\n"}});
  // A ByteTensor that is no mask is AF318's.
  runRuleTests("AF3", {},
               {{"import torch\nimg = torch.ByteTensor(2, 3)\n",
                 {{"AF318", 2, 7, 29, FixKind::Safe}},
                 "import torch\nimg = torch.empty(2, 3, dtype=torch.uint8)\n"}});
}

TEST_CASE("AF318 follows the typed classes under other names", "[rules][AF318]") {
  const std::vector<std::string> valid = {
      // A CPU class under another name; the CUDA class given to `.type` (a conversion) or a list.
      "import torch\ndtype = torch.FloatTensor\ny = x.type(dtype)\n",
      "import torch\ntypes = [torch.cuda.FloatTensor, torch.cuda.LongTensor]\ny = x.type(torch.cuda.HalfTensor)\n",
      // Not PyTorch's: a local `torch`, another library's `cuda`.
      "import mylib as torch\ndtype = torch.cuda.FloatTensor\nfrom mylib.cuda import FloatTensor as FT\n",
      // The import without another name: its calls `FloatTensor(…)` are reported where they are.
      "from torch.cuda import FloatTensor, LongTensor as LongTensor\n",
      // The same name bound to the class: its calls are reported where they are, not the binding.
      "import torch\nFloatTensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor\n",
      // A name bound to one class or to something else: not a choice of legacy classes.
      "import torch\nFloatTensor = torch.FloatTensor if cuda else make_tensor\nx = FloatTensor(3)\n",
  };
  const std::vector<Invalid> invalid = {
      // The same name bound to the CUDA and the CPU class by a condition: reported at each call,
      // without a fix (the device is the program's choice).
      {"import torch\nFloatTensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor\nx = FloatTensor(3)\n",
       {{"AF318", 3, 5, 19, FixKind::None, "`torch.cuda.FloatTensor` or `torch.FloatTensor`"}},
       std::nullopt},
      {"import torch\nif cuda:\n    LongTensor = torch.cuda.LongTensor\nelse:\n    LongTensor = torch.LongTensor\n"
       "def f(n):\n    return LongTensor(n)\n",
       {{"AF318", 7, 12, 25, FixKind::None, "`dtype=torch.int64`"}},
       std::nullopt},
      // Through a name bound once: the call resolves to the class and is fixed as usual.
      {"import torch\nFloatTensor = torch.cuda.FloatTensor\nx = FloatTensor(2, 3)\n",
       {{"AF318", 3, 5, 22, FixKind::Safe}},
       "import torch\nFloatTensor = torch.cuda.FloatTensor\nx = torch.empty(2, 3, dtype=torch.float32, "
       "device='cuda')\n"},
      // The CUDA class under another name, whose calls the rule cannot see: reported at the binding.
      {"import torch\nfrom torch.autograd import Variable\ndtype = torch.cuda.FloatTensor\n"
       "v = Variable(torch.randn(2).type(dtype))\n",
       {{"AF318", 3, 9, 31, FixKind::None, "`.type(dtype)` hard-codes CUDA"}},
       std::nullopt},
      {"import torch\nclass Net:\n    def __init__(self, cuda):\n"
       "        self.dtype = (torch.cuda.DoubleTensor if cuda else torch.DoubleTensor)\n",
       {{"AF318", 4, 23, 46, FixKind::None, "on one branch"}},
       std::nullopt},
      // Imported under another name.
      {"from torch.cuda import (FloatTensor as FT,\n                        LongTensor)\nx = FT(2, 3)\n",
       {{"AF318", 1, 40, 42, FixKind::None, "`FT` is `torch.cuda.FloatTensor`"}},
       std::nullopt},
  };
  runRuleTests("AF318", valid, invalid);
}
