// AF305 uint8-mask (lib/src/rules/uint8_mask.cpp).
#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix;
using namespace asyncfix::testing;

TEST_CASE("AF305 uint8-mask", "[rules][AF305]") {
  const std::string head = "import torch\n";
  const std::vector<std::string> valid = {
      head + "m = (x > 0).bool()\ny = x.masked_fill(m, 0)\n",               // a bool mask
      head + "img = (x * 255).byte()\nsave(img)\n",                         // an image, no mask
      head + "m = (x > 0).byte()\nn = m.sum()\n",                           // counted, not a mask
      head + "m = (x > 0).byte()\nm = m.bool()\ny = x.masked_fill(m, 0)\n", // rebound before the use
      head + "y = x.masked_fill(mask, 0)\n",                                // not made here
      head + "y = x[idx.long()]\nz = y[(x > 0).byte().sum()]\n",
      "m = (x > 0).byte()\ny = x.masked_fill(m, 0)\n", // no torch
      "import torch\nfrom mylib import ByteTensor\nm = ByteTensor(3)\ny = x[m]\n",
      head + "s = 'x.masked_fill(m.byte(), 0)'\n",
  };
  const std::vector<Invalid> invalid = {
      {head + "y = x.masked_fill((x > 0).byte(), 0)\n",
       {{"AF305", 2, 19, 33, FixKind::None, "PyTorch 2.1"}},
       std::nullopt},
      {head + "mask = (lengths > 0).byte()\nscores = scores.masked_fill_(mask, -1e9)\nv = x[mask]\n",
       {{"AF305", 2, 8, 28, FixKind::None, "on line 3"}},
       std::nullopt},
      {head + "m = torch.ByteTensor([1, 0])\nv = x[m]\n",
       {{"AF305", 2, 5, 29, FixKind::None, "indexing"}},
       std::nullopt},
      {head + "m = x.gt(0).type(torch.cuda.ByteTensor)\nv = x.masked_select(mask=m)\nw = torch.where(m.byte(), x, y)\n",
       {{"AF305", 2, 5, 40, FixKind::None}, {"AF305", 4, 17, 25, FixKind::None, "torch.where"}},
       std::nullopt},
  };
  runRuleTests("AF305", valid, invalid);
}
