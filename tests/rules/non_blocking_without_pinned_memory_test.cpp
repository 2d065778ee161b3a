// AF104 non-blocking-without-pinned-memory (lib/src/rules/non_blocking_without_pinned_memory.cpp).
#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix;
using namespace asyncfix::testing;

TEST_CASE("AF104 non-blocking-without-pinned-memory", "[rules][AF104]") {
  const std::string head = "import torch\nfrom torch.utils.data import DataLoader\n";
  const std::vector<std::string> valid = {
      head + "loader = DataLoader(ds, batch_size=8, pin_memory=True)\nfor x, y in loader:\n    x = "
             "x.cuda(non_blocking=True)\n",
      head + "loader = DataLoader(ds, pin_memory=pin)\nfor x, y in loader:\n    x = x.cuda(non_blocking=True)\n",
      head + "loader = DataLoader(ds, **opts)\nfor x, y in loader:\n    x = x.cuda(non_blocking=True)\n",
      head + "loader = make_loader()\nfor x, y in loader:\n    x = x.cuda(non_blocking=True)\n",
      head + "loader = DataLoader(ds)\nfor x, y in loader:\n    x = x.cuda(non_blocking=False)\n",
      // The same names over two loaders: the loop around the copy decides, not the first loop.
      head + "a = DataLoader(ds)\nb = DataLoader(ds, pin_memory=True)\nfor x, y in a:\n    pass\n"
             "for x, y in b:\n    x = x.cuda(non_blocking=True)\n",
      // Not a loop variable where it is copied: which loader it came from is not traced.
      head + "a = DataLoader(ds)\nfor x, y in a:\n    pass\nfor batch in b:\n    x, y = batch\n    x = "
             "x.cuda(non_blocking=True)\n",
      // pin_memory given positionally (the 8th parameter).
      head + "a = DataLoader(ds, 4, False, None, None, 0, None, False)\nfor x, y in a:\n    x = "
             "x.cuda(non_blocking=True)\n",
  };
  const std::vector<Invalid> invalid = {
      {head + "loader = DataLoader(ds, batch_size=8)\nfor x, y in loader:\n    x = x.cuda(non_blocking=True)\n",
       {{"AF104", 5, 16, 28, FixKind::Unsafe, "line 3"}},
       head + "loader = DataLoader(ds, batch_size=8, pin_memory=True)\nfor x, y in loader:\n    x = "
              "x.cuda(non_blocking=True)\n",
       head + "loader = DataLoader(ds, batch_size=8)\nfor x, y in loader:\n    x = x.cuda(non_blocking=True)\n"},
      {head + "loader = DataLoader(ds, pin_memory=False)\nfor i, (x, y) in enumerate(loader):\n    y = y.to(dev, "
              "non_blocking=True)\n",
       {{"AF104", 5, 19, 31, FixKind::Unsafe}},
       head + "loader = DataLoader(ds, pin_memory=True)\nfor i, (x, y) in enumerate(loader):\n    y = y.to(dev, "
              "non_blocking=True)\n",
       head + "loader = DataLoader(ds, pin_memory=False)\nfor i, (x, y) in enumerate(loader):\n    y = y.to(dev, "
              "non_blocking=True)\n"},
  };
  runRuleTests("AF104", valid, invalid);
}

TEST_CASE("AF104: the loader is found wherever an assignment binds it", "[rules][AF104]") {
  // AF104 asks the text first whether the loop's iterable can have been assigned (so that dense
  // files do not walk every function): these must still be found.
  const std::string head = "import torch\nfrom torch.utils.data import DataLoader\n";
  const std::string loop = "def train(model):\n    for x, y in loader:\n        x = x.cuda(non_blocking=True)\n";
  const std::vector<std::string> valid = {
      // A parameter named like another function's loader.
      head + "def make():\n    loader = DataLoader(ds)\n    return loader\n"
             "def train(loader):\n    for x, y in loader:\n        x = x.cuda(non_blocking=True)\n",
      // An attribute, not the name.
      head + "class T:\n    def __init__(self):\n        self.loader = DataLoader(ds)\n" + loop,
      // The module's loader is unpinned, the function's own is pinned.
      head + "loader = DataLoader(ds)\ndef train(model):\n    loader = DataLoader(ds, pin_memory=True)\n"
             "    for x, y in loader:\n        x = x.cuda(non_blocking=True)\n",
  };
  const auto pinned = [](std::string text) {
    const std::size_t at = text.find("DataLoader(ds)");
    return text.replace(at, 14, "DataLoader(ds, pin_memory=True)");
  };
  const std::string atModule = head + "if True:\n    loader = DataLoader(ds)\n" + loop;
  const std::string global = head + "def setup():\n    global loader\n    loader = DataLoader(ds)\n" + loop;
  const std::string continued = head + "def train(model):\n    loader \\\n        = DataLoader(ds)\n"
                                       "    for x, y in loader:\n        x = x.cuda(non_blocking=True)\n";
  // Before resolving the name, AF104 looks at every value the name may hold (the module's and
  // those assigned in the statement) for an unpinned loader: these are among them.
  const std::string annotated = head + "def train(model):\n    loader: DataLoader = DataLoader(ds)\n"
                                       "    for x, y in loader:\n        x = x.cuda(non_blocking=True)\n";
  const std::string chained = head + "def train(model):\n    first = loader = DataLoader(ds)\n"
                                     "    for x, y in loader:\n        x = x.cuda(non_blocking=True)\n";
  const std::string shadowing = head + "loader = DataLoader(ds, pin_memory=True)\n"
                                       "def train(model):\n    loader = DataLoader(ds)\n"
                                       "    for x, y in loader:\n        x = x.cuda(non_blocking=True)\n";
  const std::string afterBlock = head + "def train(model):\n    if model: loader = DataLoader(ds)\n"
                                        "    for x, y in loader:\n        x = x.cuda(non_blocking=True)\n";
  const std::vector<Invalid> invalid = {
      {annotated, {{"AF104", 6, 20, 32, FixKind::Unsafe}}, pinned(annotated), annotated},
      {chained, {{"AF104", 6, 20, 32, FixKind::Unsafe}}, pinned(chained), chained},
      {shadowing, {{"AF104", 7, 20, 32, FixKind::Unsafe}}, pinned(shadowing), shadowing},
      {afterBlock, {{"AF104", 6, 20, 32, FixKind::Unsafe}}, pinned(afterBlock), afterBlock},
      {atModule, {{"AF104", 7, 20, 32, FixKind::Unsafe}}, pinned(atModule), atModule},
      {global, {{"AF104", 8, 20, 32, FixKind::Unsafe}}, pinned(global), global},
      {continued, {{"AF104", 7, 20, 32, FixKind::Unsafe}}, pinned(continued), continued},
  };
  runRuleTests("AF104", valid, invalid);
}
