// AF313 legacy-loss-reduction (lib/src/rules/legacy_loss_reduction.cpp).
#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix::testing;

TEST_CASE("AF313 legacy-loss-reduction", "[rules][AF313]") {
  const std::vector<std::string> valid = {
      "import torch.nn as nn\nc = nn.MSELoss(reduction='sum')\n",
      "import torch.nn.functional as F\nl = F.nll_loss(x, y, reduction='none')\n",
      // Not PyTorch's losses.
      "from mylib import MSELoss\nc = MSELoss(size_average=False)\n",
      "import torch\ndef MSELoss(size_average=True):\n    pass\nMSELoss(size_average=False)\n",
      "import torch\nfrom functools import reduce\nx = my_reduce(f, xs, reduce=False)\n",
      "import torch\nx = t.scatter_reduce(0, i, s, reduce='sum')\n",
      "s = 'nn.MSELoss(size_average=False)'\n",
  };
  const std::vector<Invalid> invalid = {
      {"import torch.nn as nn\nc = nn.MSELoss(size_average=False)\n",
       {{"AF313", 2, 16, 28, FixKind::Safe, "reduction='sum'"}},
       "import torch.nn as nn\nc = nn.MSELoss(reduction='sum')\n"},
      {"import torch.nn.functional as F\nl = F.cross_entropy(out, y, reduce=False)\n",
       {{"AF313", 2, 29, 35, FixKind::Safe, "reduction='none'"}},
       "import torch.nn.functional as F\nl = F.cross_entropy(out, y, reduction='none')\n"},
      // reduce=False wins over size_average; None counts as True.
      {"import torch\nc = torch.nn.NLLLoss(w, size_average=True, reduce=False)\n",
       {{"AF313", 2, 25, 37}},
       "import torch\nc = torch.nn.NLLLoss(w, reduction='none')\n"},
      {"import torch\nc = torch.nn.L1Loss(size_average=None, reduce=True)\n",
       {{"AF313", 2, 21, 33}},
       "import torch\nc = torch.nn.L1Loss(reduction='mean')\n"},
      // A `reduction=` the legacy keywords override.
      {"from torch import nn\nc = nn.BCELoss(reduction='mean', size_average=False, reduce=True)\n",
       {{"AF313", 2, 34, 46}},
       "from torch import nn\nc = nn.BCELoss(reduction='sum')\n"},
      {"from torch.nn import CrossEntropyLoss\nc = CrossEntropyLoss(\n    reduce=True,  # per batch\n    "
       "size_average=False,\n)\n",
       {{"AF313", 3, 5, 11}},
       "from torch.nn import CrossEntropyLoss\nc = CrossEntropyLoss(\n    reduction='sum',  # per batch\n)\n"},
      // Not literals: reported, no fix.
      {"import torch.nn as nn\nc = nn.MSELoss(size_average=args.avg)\n",
       {{"AF313", 2, 16, 28, FixKind::None}},
       std::nullopt},
      // A star import: reported, naming it, without a fix.
      {"from torch.nn import *\nc = KLDivLoss(size_average=False)\n",
       {{"AF313", 2, 15, 27, FixKind::None, "through `from torch.nn import *`"}},
       std::nullopt},
  };
  runRuleTests("AF313", valid, invalid);
}
