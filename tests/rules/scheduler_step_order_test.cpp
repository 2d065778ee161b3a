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
      // a parameter that a call gives something else, or that no call gives a scheduler
      head + "def fit(opt, scheduler):\n    for e in range(3):\n        scheduler.step()\n        opt.step()\n"
             "fit(torch.optim.SGD(p, lr=1), make_scheduler())\n",
      head + "def fit(opt, scheduler):\n    for e in range(3):\n        scheduler.step()\n        opt.step()\n",
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
      // the transfer learning tutorial: parameters, the scheduler built at module level
      {head + "import torch.optim as optim\n"
              "def train_model(model, criterion, optimizer, scheduler, num_epochs=25):\n"
              "    for epoch in range(num_epochs):\n"
              "        for phase in ['train', 'val']:\n"
              "            if phase == 'train':\n"
              "                scheduler.step()\n"
              "            for inputs, labels in loaders[phase]:\n"
              "                optimizer.step()\n"
              "optimizer_ft = optim.SGD(params, lr=0.001)\n"
              "exp_lr_scheduler = lr_scheduler.StepLR(optimizer_ft, step_size=7, gamma=0.1)\n"
              "model_ft = train_model(model_ft, criterion, optimizer_ft, exp_lr_scheduler, num_epochs=25)\n",
       {{"AF306", 8, 17, 33, FixKind::None, "optimizer.step()"}},
       std::nullopt},
  };
  runRuleTests("AF306", valid, invalid);
}
