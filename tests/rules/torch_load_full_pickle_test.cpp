// AF317 torch-load-full-pickle (lib/src/rules/torch_load_full_pickle.cpp).
#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix::testing;

TEST_CASE("AF317 torch-load-full-pickle", "[rules][AF317]") {
  const std::vector<std::string> valid = {
      "import torch\nstate = torch.load(p, weights_only=True)\nm = torch.load(p, map_location='cpu', "
      "weights_only=False)\n",
      "import torch\nstate = torch.load(p, **options)\n",
      "import pickle\nimport json\nd = json.load(f)\np = pickle.load(f)\n",
      "from mylib import torch\ntorch.load(p)\n",
      "s = 'torch.load(p)'\n",
  };
  const std::vector<Invalid> invalid = {
      {"import torch\nmodel = torch.load('model.pth')\n",
       {{"AF317", 2, 9, 19, FixKind::None, "weights_only=False"}},
       std::nullopt},
      {"import torch\ndef resume(path):\n    ckpt = torch.load(path, map_location=lambda s, l: s)\n    return ckpt\n",
       {{"AF317", 3, 12, 22}},
       std::nullopt},
  };
  runRuleTests("AF317", valid, invalid);
}
