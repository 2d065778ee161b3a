// AF315 upsample-to-interpolate (lib/src/rules/upsample_to_interpolate.cpp).
#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix::testing;

TEST_CASE("AF315 upsample-to-interpolate", "[rules][AF315]") {
  const std::vector<std::string> valid = {
      "import torch.nn.functional as F\ny = F.interpolate(x, scale_factor=2, mode='bilinear', align_corners=True)\n",
      "import torch.nn as nn\nup = nn.Upsample(scale_factor=2)\nself.upsample = up\n",
      // Not PyTorch's.
      "import mylib as F\ny = F.upsample(x, 2)\n",
      "def f(F, x):\n    return F.upsample_bilinear(x)\n",
      "s = 'F.upsample(x)'\n",
      // Imported by name: not looked for (the prefilter's words are `F.upsample`, `functional.upsample`).
      "import torch\nfrom torch.nn.functional import upsample_nearest\nw = upsample_nearest(x, scale_factor=2)\n",
  };
  const std::vector<Invalid> invalid = {
      {"import torch.nn.functional as F\ny = F.upsample(x, scale_factor=2)\n",
       {{"AF315", 2, 5, 15, FixKind::Safe, "interpolate"}},
       "import torch.nn.functional as F\ny = F.interpolate(x, scale_factor=2)\n"},
      // A linear mode: 0.3's numbers need align_corners=True, which today's call does not compute.
      {"import torch.nn.functional as F\ny = F.upsample(x, scale_factor=2, mode='bilinear')\n",
       {{"AF315", 2, 5, 15, FixKind::Unsafe, "align_corners=True"}},
       "import torch.nn.functional as F\ny = F.interpolate(x, scale_factor=2, mode='bilinear', align_corners=True)\n",
       "import torch.nn.functional as F\ny = F.upsample(x, scale_factor=2, mode='bilinear')\n"},
      {"import torch\ny = torch.nn.functional.upsample(x, None, 2, \"trilinear\")\n",
       {{"AF315", 2, 5, 33, FixKind::Unsafe}},
       "import torch\ny = torch.nn.functional.interpolate(x, None, 2, \"trilinear\", align_corners=True)\n",
       "import torch\ny = torch.nn.functional.upsample(x, None, 2, \"trilinear\")\n"},
      {"import torch.nn.functional as F\ny = F.upsample(x, size=s, mode='bilinear', align_corners=False)\n",
       {{"AF315", 2, 5, 15, FixKind::Safe}},
       "import torch.nn.functional as F\ny = F.interpolate(x, size=s, mode='bilinear', align_corners=False)\n"},
      {"from torch.nn import functional as F\nz = F.upsample_bilinear(x, size=(4, 4))\nw = F.upsample_nearest(\n"
       "    x,\n    scale_factor=2,  # twice\n)\n",
       {{"AF315", 2, 5, 24, FixKind::Safe}, {"AF315", 3, 5, 23, FixKind::Safe}},
       "from torch.nn import functional as F\nz = F.interpolate(x, size=(4, 4), mode='bilinear', "
       "align_corners=True)\nw = F.interpolate(\n    x,\n    scale_factor=2, mode='nearest',  # twice\n)\n"},
      // **kwargs may hold mode=: no fix.
      {"import torch.nn.functional as F\ny = F.upsample(x, **opts)\n",
       {{"AF315", 2, 5, 15, FixKind::None}},
       std::nullopt},
  };
  runRuleTests("AF315", valid, invalid);
}
