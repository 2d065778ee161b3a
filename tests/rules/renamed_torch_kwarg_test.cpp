// AF312 renamed-torch-kwarg (lib/src/rules/renamed_torch_kwarg.cpp).
#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix::testing;

TEST_CASE("AF312 renamed-torch-kwarg", "[rules][AF312]") {
  const std::vector<std::string> valid = {
      "import torch\nloss.backward(retain_graph=True)\nmodel.cuda(device=0)\n",
      // No torch in the file.
      "loss.backward(retain_variables=True)\ngpu.cuda(device_id=0)\n",
      // The file's own methods take these keywords.
      "import torch\nclass Pool:\n    def cuda(self, device_id=None):\n        return self\nPool().cuda(device_id=1)\n",
      "import torch\ndef backward(retain_variables=False):\n    pass\nbackward(retain_variables=True)\n",
      // Another callee, text, spaces the prefilter's word does not hold.
      "import torch\nopen_device(device_id=0)\nx = dict(retain_variables=1)\ns = 'x.cuda(device_id=0)'\n",
  };
  const std::vector<Invalid> invalid = {
      {"import torch\nloss.backward(retain_variables=True)\n",
       {{"AF312", 2, 15, 31, FixKind::Safe, "retain_graph"}},
       "import torch\nloss.backward(retain_graph=True)\n"},
      {"import torch\nx = x.cuda(device_id=0)\nmodel.cuda(device_id=args.gpu)\n",
       {{"AF312", 2, 12, 21, FixKind::Safe, "device="}, {"AF312", 3, 12, 21, FixKind::Safe}},
       "import torch\nx = x.cuda(device=0)\nmodel.cuda(device=args.gpu)\n"},
      {"import torch\ntorch.autograd.backward([a, b], [ga, gb], retain_variables=True)\n",
       {{"AF312", 2, 43, 59}},
       "import torch\ntorch.autograd.backward([a, b], [ga, gb], retain_graph=True)\n"},
      // Both spellings: reported, no fix (the values may differ).
      {"import torch\nloss.backward(retain_graph=True, retain_variables=False)\n",
       {{"AF312", 2, 34, 50, FixKind::None}},
       std::nullopt},
  };
  runRuleTests("AF312", valid, invalid);
}
