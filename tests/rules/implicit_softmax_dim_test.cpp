// AF304 implicit-softmax-dim (lib/src/rules/implicit_softmax_dim.cpp).
#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix;
using namespace asyncfix::testing;

TEST_CASE("AF304 implicit-softmax-dim", "[rules][AF304]") {
  const std::string head = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n";
  const std::vector<std::string> valid = {
      head + "p = F.softmax(x, dim=1)\nq = F.log_softmax(x, 1)\nm = nn.Softmax(dim=-1)\nn = nn.LogSoftmax(1)\n",
      head + "p = torch.softmax(x, 1)\nq = x.softmax(-1)\n",
      "import torch\nfrom mylib import F\np = F.softmax(x)\n", // a local F
      "import torch\nimport keras.layers as nn\nm = nn.Softmax()\n",
      head + "p = F.softmax (x)\n", // not the word's spelling
      head + "p = F.softmax(*args)\n",
      head + "s = 'F.softmax(x)'  # F.softmax(x)\n",
  };
  const std::vector<Invalid> invalid = {
      {head + "p = F.softmax(x)\n", {{"AF304", 4, 5, 17, FixKind::None, "dim 0 for 0-, 1- and 3-D"}}, std::nullopt},
      {head + "p = F.log_softmax(self.fc(x), dtype=torch.float)\n", {{"AF304", 4, 5, 49, FixKind::None}}, std::nullopt},
      {head + "m = nn.Softmax()\nn = torch.nn.LogSoftmax()\n",
       {{"AF304", 4, 5, 17, FixKind::None}, {"AF304", 5, 5, 26, FixKind::None}},
       std::nullopt},
      {"from torch.nn.functional import softmin\np = softmin(x)\n", {{"AF304", 2, 5, 15, FixKind::None}}, std::nullopt},
  };
  runRuleTests("AF304", valid, invalid);
}
