// AF102, AF103, AF105: the PyTorch transfer rules that need to know what a receiver is.
#include <catch2/catch.hpp>

#include "asyncfix/document.h"
#include "asyncfix/linter.h"
#include "receivers.h"
#include "rules/rule_tester.h"
#include "syntax.h"

using namespace asyncfix;
using namespace asyncfix::testing;

TEST_CASE("receiver kinds", "[receivers]") {
  const std::string src = R"(import torch
import torch.nn as nn
import torchvision.models as models
from torch.utils.data import DataLoader as DL
from mylib import Net

class Block(nn.Module):
    def forward(self, x):
        return self
class Deeper(Block):
    pass

a = nn.Linear(2, 3)
b = torch.nn.Conv2d(1, 1, 3)
c = models.resnet50()
d = Deeper()
e = torch.randn(3)
f = e.cuda()
g = a.cuda()
h = DL(ds)
i = Net()
j = torch.nn.functional.relu(e)
k = torch.zeros(2) if cond else nn.ReLU()
for x, y in h:
    pass
for n, (p, q) in enumerate(h):
    pass
s = torch.cuda.Stream()
ev = torch.cuda.Event()
)";
  const Document doc(src);
  const SemanticModel model(doc);
  const Receivers receivers(doc.text(), model);
  const auto kindOfName = [&](const std::string &name) {
    for (const NameUse &u : model.allNamesForTests())
      if (u.name == name && u.role == NameRole::Binding) return receivers.kindOf(u.node);
    FAIL("no binding " << name);
    return ValueKind::Unknown;
  };
  CHECK(kindOfName("a") == ValueKind::Module);
  CHECK(kindOfName("b") == ValueKind::Module);
  CHECK(kindOfName("c") == ValueKind::Module);
  CHECK(kindOfName("d") == ValueKind::Module); // through a class of the file
  CHECK(kindOfName("e") == ValueKind::Tensor);
  CHECK(kindOfName("f") == ValueKind::Tensor);
  CHECK(kindOfName("g") == ValueKind::Module); // Module.cuda() returns the module
  CHECK(kindOfName("h") == ValueKind::DataLoader);
  CHECK(kindOfName("i") == ValueKind::Unknown); // a class from another file
  CHECK(kindOfName("j") == ValueKind::Unknown);
  CHECK(kindOfName("k") == ValueKind::Unknown);
  CHECK(kindOfName("x") == ValueKind::Tensor);
  CHECK(kindOfName("y") == ValueKind::Tensor);
  CHECK(kindOfName("n") == ValueKind::Unknown); // enumerate's counter
  CHECK(kindOfName("p") == ValueKind::Tensor);
  CHECK(kindOfName("s") == ValueKind::Stream);
  CHECK(kindOfName("ev") == ValueKind::Event);
  // `self` in a Module subclass.
  const auto self = src.find("return self") + 7;
  const TSNode selfNode = ts_node_descendant_for_byte_range(ts_tree_root_node(doc.tree()),
                                                            static_cast<std::uint32_t>(self), static_cast<std::uint32_t>(self + 4));
  CHECK(receivers.kindOf(selfNode) == ValueKind::Module);
}

TEST_CASE("AF102 unsupported-non-blocking", "[rules][AF102]") {
  const std::vector<std::string> valid = {
      "import torch\nmodel = torch.randn(3)\nmodel = model.cuda(non_blocking=True)\n", // a tensor called model
      "from mylib import Net\nmodel = Net()\nmodel.cuda(non_blocking=True)\n",       // unknown: silent
      "import torch.nn as nn\nmodel = nn.Linear(2, 2)\nmodel.cuda()\nmodel.to(d, non_blocking=True)\n",
      "x.cpu()\n",
      // torch.nn.parameter.Parameter is a tensor, not a module.
      "from torch.nn.parameter import Parameter\np = Parameter(t)\np.cuda(non_blocking=True)\n",
      // A class of the file with its own cpu(non_blocking=...).
      "class Box:\n    def cpu(self, non_blocking=False):\n        return self\nBox().cpu(non_blocking=True)\n",
  };
  const std::vector<Invalid> invalid = {
      {"import torchvision\nmodel = torchvision.models.resnet50()\nmodel = model.cuda(async=True)\n",
       {{"AF102", 3, 20, 25, FixKind::Safe, "TypeError"}},
       "import torchvision\nmodel = torchvision.models.resnet50()\nmodel = model.cuda()\n"},
      {"import torch.nn as nn\nnet = nn.Sequential()\nnet.cuda(0, non_blocking=True)  # GPU 0\n",
       {{"AF102", 3, 13, 25, FixKind::Safe}}, "import torch.nn as nn\nnet = nn.Sequential()\nnet.cuda(0)  # GPU 0\n"},
      {"from torch import nn\nclass M(nn.Module):\n    def go(self):\n        return self.cuda(\n            0,\n"
       "            async=True,  # old API\n        )\n",
       {{"AF102", 6, 13, 18}},
       "from torch import nn\nclass M(nn.Module):\n    def go(self):\n        return self.cuda(\n            0,  # old API\n        )\n"},
      {"y = out.cpu(async=True)\n", {{"AF102", 1, 13, 18}}, "y = out.cpu()\n"},
      // Comments on both arguments: they stay, and the result parses.
      {"import torch.nn as nn\nmodel = nn.Linear(2, 2)\nmodel.cuda(\n    0,  # device\n    async=True,  # legacy\n)\n",
       {{"AF102", 5, 5, 10, FixKind::Safe}},
       "import torch.nn as nn\nmodel = nn.Linear(2, 2)\nmodel.cuda(\n    0,  # device\n      # legacy\n)\n"},
      {"y = out.cpu(non_blocking=True).numpy()\n", {{"AF102", 1, 13, 25}}, "y = out.cpu().numpy()\n"},
  };
  runRuleTests("AF102", valid, invalid);
}

TEST_CASE("AF101, AF102 and AF001 do not fire on the same argument", "[rules][AF102]") {
  const Linter linter;
  const auto codes = [&](const std::string &src) {
    std::vector<std::string> out;
    for (const Diagnostic &d : linter.lint(Document(src))) out.emplace_back(d.code);
    return out;
  };
  using V = std::vector<std::string>;
  CHECK(codes("import torch.nn as nn\nm = nn.Linear(1, 1)\nm.cuda(async=True)\n") == V{"AF102"});
  CHECK(codes("import torch\nm = torch.randn(1)\nm.cuda(async=True)\n") == V{"AF101"});
  CHECK(codes("y = x.cpu(async=True)\n") == V{"AF102"});
}

TEST_CASE("AF103 to-positional-non-blocking", "[rules][AF103]") {
  const std::vector<std::string> valid = {
      "x.to(device, non_blocking=True)\n", "x.to(device)\n", "x.to(device, dtype)\n",
      "x.to(device, True, False)\n", // three positional: not this pattern
      "foo(device, True)\n",
      "x.to(*args)\n",
      "x.to('cuda', True, non_blocking=False)\n", // the fix would repeat the keyword
  };
  const std::vector<Invalid> invalid = {
      {"x = x.to(device, True)\n", {{"AF103", 1, 18, 22, FixKind::Safe, "dtype"}}, "x = x.to(device, non_blocking=True)\n"},
      {"x = x.to(device, False, copy=True)\n", {{"AF103", 1, 18, 23}}, "x = x.to(device, non_blocking=False, copy=True)\n"},
      {"x = x.to(\n    device,  # where\n    True,\n)\n", {{"AF103", 3, 5, 9}}, "x = x.to(\n    device,  # where\n    non_blocking=True,\n)\n"},
  };
  runRuleTests("AF103", valid, invalid);
}

TEST_CASE("AF105 async-compat-shim", "[rules][AF105]") {
  const std::vector<std::string> valid = {
      "try:\n    x = x.cuda(non_blocking=True)\nexcept TypeError:\n    x = x.cuda()\n",
      "try:\n    x = x.cuda(non_blocking=True)\nexcept ValueError:\n    x = x.cuda(async_=True)\n",
  };
  const std::vector<Invalid> invalid = {
      {"try:\n    x = x.cuda(non_blocking=True)\nexcept TypeError:\n    x = x.cuda(async=True)\n",
       {{"AF105", 4, 16, 21, FixKind::Safe, "shim"}}, "x = x.cuda(non_blocking=True)\n"},
      // The other order, nested in a function, with comments and several statements.
      {"def load(batch):\n    try:  # old PyTorch\n        batch = batch.cuda(async=True)\n    except TypeError:\n"
       "        # PyTorch >= 0.4\n        batch = batch.cuda(non_blocking=True)\n        log('moved')\n    return batch\n",
       {{"AF105", 3, 28, 33}},
       "def load(batch):\n    # PyTorch >= 0.4\n    batch = batch.cuda(non_blocking=True)\n    log('moved')\n    return batch\n"},
      {"if gpu:\n    try:\n        a = a.cuda(non_blocking=True)\n        b = b.cuda(non_blocking=True)\n"
       "    except (TypeError, RuntimeError):\n        a = a.cuda(async=True)\n        b = b.cuda(async=True)\n",
       {{"AF105", 6, 20, 25}},
       "if gpu:\n    a = a.cuda(non_blocking=True)\n    b = b.cuda(non_blocking=True)\n"},
  };
  runRuleTests("AF105", valid, invalid);
}

TEST_CASE("AF105 owns the shim's async=: AF101 and AF001 stay silent there", "[rules][AF105]") {
  const auto diags = Linter().lint(Document("try:\n    x = x.cuda(non_blocking=True)\nexcept TypeError:\n    x = x.cuda(async=True)\n"));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "AF105");
}

TEST_CASE("AF104 non-blocking-without-pinned-memory", "[rules][AF104]") {
  const std::string head = "import torch\nfrom torch.utils.data import DataLoader\n";
  const std::vector<std::string> valid = {
      head + "loader = DataLoader(ds, batch_size=8, pin_memory=True)\nfor x, y in loader:\n    x = x.cuda(non_blocking=True)\n",
      head + "loader = DataLoader(ds, pin_memory=pin)\nfor x, y in loader:\n    x = x.cuda(non_blocking=True)\n",
      head + "loader = DataLoader(ds, **opts)\nfor x, y in loader:\n    x = x.cuda(non_blocking=True)\n",
      head + "loader = make_loader()\nfor x, y in loader:\n    x = x.cuda(non_blocking=True)\n",
      head + "loader = DataLoader(ds)\nfor x, y in loader:\n    x = x.cuda(non_blocking=False)\n",
      // The same names over two loaders: the loop around the copy decides, not the first loop.
      head + "a = DataLoader(ds)\nb = DataLoader(ds, pin_memory=True)\nfor x, y in a:\n    pass\n"
             "for x, y in b:\n    x = x.cuda(non_blocking=True)\n",
      // Not a loop variable where it is copied: which loader it came from is not traced.
      head + "a = DataLoader(ds)\nfor x, y in a:\n    pass\nfor batch in b:\n    x, y = batch\n    x = x.cuda(non_blocking=True)\n",
      // pin_memory given positionally (the 8th parameter).
      head + "a = DataLoader(ds, 4, False, None, None, 0, None, False)\nfor x, y in a:\n    x = x.cuda(non_blocking=True)\n",
  };
  const std::vector<Invalid> invalid = {
      {head + "loader = DataLoader(ds, batch_size=8)\nfor x, y in loader:\n    x = x.cuda(non_blocking=True)\n",
       {{"AF104", 5, 16, 28, FixKind::Unsafe, "line 3"}},
       head + "loader = DataLoader(ds, batch_size=8, pin_memory=True)\nfor x, y in loader:\n    x = x.cuda(non_blocking=True)\n",
       head + "loader = DataLoader(ds, batch_size=8)\nfor x, y in loader:\n    x = x.cuda(non_blocking=True)\n"},
      {head + "loader = DataLoader(ds, pin_memory=False)\nfor i, (x, y) in enumerate(loader):\n    y = y.to(dev, non_blocking=True)\n",
       {{"AF104", 5, 19, 31, FixKind::Unsafe}},
       head + "loader = DataLoader(ds, pin_memory=True)\nfor i, (x, y) in enumerate(loader):\n    y = y.to(dev, non_blocking=True)\n",
       head + "loader = DataLoader(ds, pin_memory=False)\nfor i, (x, y) in enumerate(loader):\n    y = y.to(dev, non_blocking=True)\n"},
  };
  runRuleTests("AF104", valid, invalid);
}

TEST_CASE("AF106 non-blocking-device-to-host", "[rules][AF106]") {
  const std::vector<std::string> valid = {
      "y = x.to('cpu', non_blocking=True)\ntorch.cuda.synchronize()\nprint(y.numpy())\n",
      "y = x.to('cpu', non_blocking=True)\nevent.synchronize()\nv = y.item()\n",
      "y = x.to('cpu')\nprint(y.numpy())\n",
      "y = x.to('cuda', non_blocking=True)\nprint(y.item())\n",
      "y = x.to('cpu', non_blocking=True)\ny = other\nprint(y.numpy())\n",
      "non_blocking = True\nx: int\n", // an annotation without a value (crashed once)
  };
  const std::vector<Invalid> invalid = {
      {"y = x.to('cpu', non_blocking=True)\nprint(y.numpy())\n", {{"AF106", 1, 17, 29, FixKind::Any, "line 2"}}, std::nullopt},
      {"def f(x):\n    s = x.to(device=\"cpu\", non_blocking=True)\n    log(1)\n    return float(s)\n",
       {{"AF106", 2, 28, 40, FixKind::Any, "line 4"}}, std::nullopt},
      {"y = x.to(torch.device('cpu'), non_blocking=True)\nv = y.tolist()\n", {{"AF106", 1, 31, 43}}, std::nullopt},
  };
  runRuleTests("AF106", valid, invalid);
  // The suggestion is display-only: a synchronize before the read, never applied.
  const auto d = Linter().lint(Document("y = x.to('cpu', non_blocking=True)\nprint(y.numpy())\n"));
  REQUIRE(d.size() == 1);
  REQUIRE(d[0].fix);
  CHECK(d[0].fix->applicability == Applicability::DisplayOnly);
  CHECK(applyEdits("y = x.to('cpu', non_blocking=True)\nprint(y.numpy())\n", d[0].fix->edits) ==
        "y = x.to('cpu', non_blocking=True)\ntorch.cuda.synchronize()\nprint(y.numpy())\n");
}
