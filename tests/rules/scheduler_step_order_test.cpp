// AF306 scheduler-step-order (lib/src/rules/scheduler_step_order.cpp).
#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix;
using namespace asyncfix::testing;

TEST_CASE("AF306 scheduler-step-order", "[rules][AF306]") {
  const std::string head = "import torch\nfrom torch.optim import lr_scheduler\n";
  const std::string setup = "    opt = torch.optim.SGD(params, lr=0.1)\n"
                            "    sched = lr_scheduler.StepLR(opt, 30)\n";
  const std::vector<std::string> valid = {
      // the modern order
      head + "def main():\n" + setup + "    for e in range(3):\n        opt.step()\n        sched.step()\n",
      head + "def main():\n" + setup +
          "    for e in range(3):\n        for b in data:\n            opt.step()\n        sched.step()\n",
      // an optimizer step earlier in the body as well
      head + "def main():\n" + setup +
          "    for e in range(3):\n        opt.step()\n        sched.step()\n"
          "        opt.step()\n",
      // ReduceLROnPlateau steps on a metric and never warned
      head + "def main():\n    opt = torch.optim.SGD(params, lr=0.1)\n"
             "    sched = lr_scheduler.ReduceLROnPlateau(opt)\n"
             "    for e in range(3):\n        sched.step(loss)\n        opt.step()\n",
      // something else's step
      head + "def main():\n" + setup + "    for e in range(3):\n        sched.step()\n        env.step()\n",
      // a StepLR that is not torch's
      "import torch\nfrom mylib import StepLR\ndef main():\n    opt = torch.optim.SGD(params, lr=0.1)\n"
      "    sched = StepLR(opt, 30)\n    for e in range(3):\n        sched.step()\n        opt.step()\n",
      // not in a loop
      head + "def main():\n" + setup + "    sched.step()\n    opt.step()\n",
  };
  const std::vector<Invalid> invalid = {
      {head + "def main():\n" + setup + "    for e in range(3):\n        sched.step()\n        opt.step()\n",
       {{"AF306", 7, 9, 21, FixKind::None, "line 8"}},
       std::nullopt},
      // through the function the optimizer is passed to: the ImageNet example
      {head +
           "def train(loader, model, optimizer):\n    for x in loader:\n        optimizer.step()\n"
           "def main():\n" +
           setup + "    for e in range(3):\n        sched.step()\n        train(loader, model, opt)\n",
       {{"AF306", 10, 9, 21, FixKind::None, "train(loader, model, opt)"}},
       std::nullopt},
      // a module-level optimizer stepped inside the called function; `while`; keyword argument
      {head + "opt = torch.optim.Adam(params)\ndef train():\n    opt.step()\ndef main():\n"
              "    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)\n"
              "    while True:\n        sched.step()\n        if x:\n            train()\n",
       {{"AF306", 9, 9, 21, FixKind::None, "1.1"}},
       std::nullopt},
  };
  runRuleTests("AF306", valid, invalid);
}
