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

TEST_CASE("AF312 renamed-torch-kwarg: rows of the configuration", "[rules][AF312]") {
  // `[tool.asyncfix.renames] keyword` rows whose `old` is not `async`/`await` (AF203's).
  asyncfix::Config config;
  asyncfix::RenameRow row;
  row.kind = asyncfix::RenameRow::Kind::Keyword;
  row.owner = "mylib.Model.fit";
  row.old = "nb_epoch";
  row.replacement = "epochs";
  config.renames.push_back(row);
  const std::vector<std::string> valid = {
      "model.fit(x, nb_epoch=3)\n",                                              // the file does not import mylib
      "import mylib\nmodel.train(x, nb_epoch=3)\n",                              // another method
      "import mylib\ndef fit(x, nb_epoch=1):\n    pass\nm.fit(x, nb_epoch=3)\n", // the file's own
  };
  const std::vector<Invalid> invalid = {
      {"import mylib\nmodel = mylib.Model()\nmodel.fit(x, nb_epoch=3)\n",
       {{"AF312", 3, 14, 22, FixKind::Safe, "a row of `[tool.asyncfix.renames] keyword`"}},
       "import mylib\nmodel = mylib.Model()\nmodel.fit(x, epochs=3)\n"},
      // A callee that resolves to the callable, under another name.
      {"from mylib.Model import fit as train\ntrain(x, nb_epoch=3)\n",
       {{"AF312", 2, 10, 18, FixKind::Safe}},
       "from mylib.Model import fit as train\ntrain(x, epochs=3)\n"},
      // The built-in rows still hold beside it.
      {"import torch, mylib\nloss.backward(retain_variables=True)\nm.fit(nb_epoch=2)\n",
       {{"AF312", 2, 15, 31, FixKind::Safe}, {"AF312", 3, 7, 15, FixKind::Safe}},
       "import torch, mylib\nloss.backward(retain_graph=True)\nm.fit(epochs=2)\n"},
  };
  runRuleTests("AF312", valid, invalid, config);
}
