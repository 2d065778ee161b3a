// What a receiver holds (receivers.h): the kinds AF102, AF104 and AF106 ask about.
#include <catch2/catch.hpp>

#include "analysis/receivers.h"
#include "analysis/semantic.h"
#include "asyncfix/document.h"
#include "asyncfix/document_internals.h"
#include "text/syntax.h"

using namespace asyncfix;

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
  const TSNode selfNode =
      ts_node_descendant_for_byte_range(ts_tree_root_node(DocumentInternals::tree(doc)),
                                        static_cast<std::uint32_t>(self), static_cast<std::uint32_t>(self + 4));
  CHECK(receivers.kindOf(selfNode) == ValueKind::Module);
}
