// AF302 transposed-slice-view (lib/src/rules/transposed_slice_view.cpp).
#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix;
using namespace asyncfix::testing;

TEST_CASE("AF302 transposed-slice-view", "[rules][AF302]") {
  const std::string head = "import torch\n";
  const std::vector<std::string> valid = {
      head + "correct = pred.eq(target)\nc = correct[:k].view(-1)\n",   // not transposed
      head + "pred = pred.t().contiguous()\nc = pred[:k].view(-1)\n",   // made contiguous
      head + "pred = pred.t()\nc = pred[0].view(-1)\n",                 // an index, not a slice
      head + "pred = pred.t()\nc = pred[:k].view(-1, 1)\n",             // another shape
      head + "pred = pred.t()\nc = pred[:k].reshape(-1)\n",             // already fixed
      head + "pred = pred.t()\nc = pred[:k] .view(-1)\n",               // not the word's spelling
      head + "pred = x.t()\npred = x.clone()\nc = pred[:k].view(-1)\n", // the nearest assignment
      "pred = pred.t()\nc = pred[:k].view(-1)\n",                       // no torch
      head + "def f(pred):\n    return pred[:k].view(-1)\n",            // a parameter
      head + "s = 'pred.t()[:k].view(-1)'\n",
  };
  const std::vector<Invalid> invalid = {
      {head + "_, pred = output.topk(maxk, 1, True, True)\npred = pred.t()\n"
              "correct = pred.eq(target.view(1, -1).expand_as(pred))\n"
              "for k in topk:\n    correct_k = correct[:k].view(-1).float().sum(0)\n",
       {{"AF302", 6, 29, 33, FixKind::Safe, "RuntimeError"}},
       head + "_, pred = output.topk(maxk, 1, True, True)\npred = pred.t()\n"
              "correct = pred.eq(target.view(1, -1).expand_as(pred))\n"
              "for k in topk:\n    correct_k = correct[:k].reshape(-1).float().sum(0)\n"},
      {head + "c = x.transpose(0, 1).float()[:2].view(-1)\n",
       {{"AF302", 2, 35, 39, FixKind::Safe}},
       head + "c = x.transpose(0, 1).float()[:2].reshape(-1)\n"},
      {head + "a = x.T\nb = (a > 0)\nc = x.permute(1, 0)[1:3].view(-1) + torch.t(y)[:2].view(-1)\n",
       {{"AF302", 4, 26, 30, FixKind::Safe}, {"AF302", 4, 52, 56, FixKind::Safe}},
       head + "a = x.T\nb = (a > 0)\nc = x.permute(1, 0)[1:3].reshape(-1) + torch.t(y)[:2].reshape(-1)\n"},
  };
  runRuleTests("AF302", valid, invalid);
}
