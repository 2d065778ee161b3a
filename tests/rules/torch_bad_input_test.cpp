// Issue 28's "Bad input" for the PyTorch-migration rules (AF3xx): shadowed names, star imports,
// PyTorch imported inside a function, notebooks, and syntax errors elsewhere. A fix is made only
// where a name provably is PyTorch's; a fix never makes a file that does not parse; fixing twice
// changes nothing. The rules' own tests hold their specific cases; these hold every rule to the
// same shapes, the last two over every AF3xx fixture (tests/fixtures/AF3*.py).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "asyncfix/linter.h"
#include "asyncfix/notebook.h"
#include "asyncfix/report.h"
#include "asyncfix/rules.h"
#include "test_util.h"

using namespace asyncfix;
using namespace asyncfix::testing;
namespace fs = std::filesystem;

namespace {

Linter linterFor(std::string_view code) {
  Config config;
  config.rules.select = {std::string(code)};
  return Linter(config);
}

/// A snippet and the rule it is about.
struct Case {
  std::string code, source;
};

} // namespace

TEST_CASE("AF3xx: PyTorch imported inside a function is PyTorch", "[rules][torch-bad-input]") {
  const std::vector<Case> cases = {
      {"AF301", "def f(out, y):\n    import torch.nn as nn\n    loss = nn.CrossEntropyLoss()(out, y)\n"
                "    return loss.data[0]\n"},
      {"AF302",
       "def accuracy(output, target, topk=(1,)):\n    import torch\n    _, pred = output.topk(5, 1, True, True)\n"
       "    pred = pred.t()\n    correct = pred.eq(target.view(1, -1).expand_as(pred))\n"
       "    return [correct[:k].view(-1).float().sum(0) for k in topk]\n"},
      {"AF303", "def make():\n    from torch.autograd import Function\n    class Flip(Function):\n"
                "        def forward(self, x):\n            return -x\n    return Flip\n"},
      {"AF304", "def f(x):\n    import torch.nn.functional as F\n    return F.softmax(x)\n"},
      {"AF305", "def f(x):\n    import torch\n    return x.masked_fill((x > 0).byte(), 0)\n"},
      {"AF306", "def train(params):\n    import torch\n    opt = torch.optim.SGD(params, lr=0.1)\n"
                "    sched = torch.optim.lr_scheduler.StepLR(opt, 1)\n    for epoch in range(3):\n"
                "        sched.step()\n        opt.step()\n"},
      {"AF310", "def f(w):\n    from torch.nn import init\n    init.xavier_uniform(w)\n"},
      {"AF311", "def f():\n    import numpy as np\n    return np.float(1)\n"},
      {"AF312", "def f(loss, x):\n    import torch\n    loss.backward(retain_variables=True)\n"},
      {"AF313", "def f():\n    import torch.nn as nn\n    return nn.MSELoss(size_average=False)\n"},
      {"AF314", "def f(t):\n    from torch.autograd import Variable\n    return Variable(t, volatile=True)\n"},
      {"AF315", "def f(x):\n    import torch.nn.functional as F\n    return F.upsample_bilinear(x, scale_factor=2)\n"},
      {"AF316", "def f(b, A):\n    import torch\n    return torch.gesv(b, A)\n"},
      {"AF317", "def f(p):\n    import torch\n    return torch.load(p)\n"},
      {"AF318", "def f():\n    import torch\n    return torch.FloatTensor(2, 3)\n"},
  };
  for (const Case &c : cases) {
    INFO(c.code << ":\n" << c.source);
    const auto found = linterFor(c.code).lint(Document(c.source));
    CHECK(std::count_if(found.begin(), found.end(), [&](const Diagnostic &d) { return d.code == c.code; }) == 1);
  }
}

TEST_CASE("AF3xx: a name shadowed by another module or class is not PyTorch's", "[rules][torch-bad-input]") {
  std::vector<Case> cases = {
      {"AF301", "import torch\nimport mylib as nn\nloss = nn.CrossEntropyLoss()(out, y)\nprint(loss.data[0])\n"},
      {"AF303", "import torch\nfrom mylib import Function\nclass Flip(Function):\n    def forward(self, x):\n"
                "        return -x\n"},
      {"AF304", "import torch\nimport mylib as F\ny = F.softmax(x)\n"},
      {"AF305",
       "import torch\nclass T:\n    def byte(self):\n        return self\n    def masked_fill(self, m, v):\n"
       "        return self\nx = T()\ny = x.masked_fill(T().byte(), 0)\nm = x.byte()\nz = x.masked_fill(m, 0)\n"},
      {"AF306", "import torch\nfrom mylib import StepLR\nopt = torch.optim.SGD(p, lr=0.1)\nsched = StepLR(opt, 1)\n"
                "for epoch in range(3):\n    sched.step()\n    opt.step()\n"},
      {"AF311", "import torch\nimport mylib as np\nx = np.float(1)\n"},
      {"AF312", "import torch\nclass Net:\n    def cuda(self, device_id=None):\n        return self\n"
                "Net().cuda(device_id=1)\n"},
      {"AF313", "import torch\nimport mylib as nn\nc = nn.MSELoss(size_average=False)\n"},
      {"AF315", "import torch\nimport mylib as F\ny = F.upsample_bilinear(x, scale_factor=2)\n"},
      {"AF316", "import mylib as torch\nx = torch.gesv(b, A)\n"},
      {"AF317", "import mylib as torch\nx = torch.load(p)\n"},
      {"AF318", "import mylib as torch\nx = torch.FloatTensor(2, 3)\n"},
  };
  // `import torch.nn.functional as F` at the top, and a local `F` (a parameter, an assignment)
  // in the function that calls it.
  const std::string localF = "import torch\nimport torch.nn.functional as F\n\ndef f(x, F):\n"
                             "    return F.softmax(x) + F.sigmoid(x) + F.upsample_bilinear(x)\n\ndef g(x):\n"
                             "    F = load_features()\n    return F.softmax(x), F.tanh(x)\n";
  for (const char *code : {"AF304", "AF310", "AF315"}) cases.push_back({code, localF});
  for (const Case &c : cases) {
    INFO(c.code << ":\n" << c.source);
    CHECK(linterFor(c.code).lint(Document(c.source)).empty());
  }
}

TEST_CASE("AF3xx: a name after a star import gets no safe fix", "[rules][torch-bad-input]") {
  // Spelt like PyTorch's, but the file does not show where it comes from: reported with an
  // unsafe fix or none (AF310, AF313, AF314, AF318), or not reported (the rest).
  const std::vector<Case> cases = {
      {"AF301", "import torch\nfrom torch.nn import *\nloss = CrossEntropyLoss()(out, y)\nprint(loss.data[0])\n"},
      {"AF303", "from torch.autograd import *\nclass Flip(Function):\n    def forward(self, x):\n        return -x\n"},
      {"AF304", "import torch\nfrom torch.nn.functional import *\ny = softmax(x)\n"},
      {"AF310", "from torchvision.transforms import *\nt = Scale(32)\n"},
      {"AF313", "from torch.nn import *\nc = MSELoss(size_average=False)\n"},
      {"AF314", "from torch.autograd import *\nx = Variable(t, volatile=True)\n"},
      {"AF315", "import torch\nfrom torch.nn.functional import *\ny = upsample_bilinear(x, scale_factor=2)\n"},
      {"AF316", "from torch import *\nx = gesv(b, A)\n"},
      {"AF317", "from torch import *\nx = load(p)\n"},
      {"AF318", "from torch import *\nimport torch\nx = FloatTensor(2)\n"},
  };
  for (const Case &c : cases) {
    INFO(c.code << ":\n" << c.source);
    for (const Diagnostic &d : linterFor(c.code).lint(Document(c.source)))
      CHECK((!d.fix || d.fix->applicability != Applicability::Safe));
  }
}

TEST_CASE("AF3xx: a syntax error elsewhere, and the fixtures as notebooks", "[rules][torch-bad-input]") {
  int seen = 0;
  for (const RuleInfo *rule : ruleCatalogue()) {
    if (!rule->code.starts_with("AF3")) continue;
    ++seen;
    INFO("rule " << rule->code);
    const Linter linter = linterFor(rule->code);
    const std::string source = readFile(fs::path(ASYNCFIX_FIXTURES_DIR) / (std::string(rule->code) + ".py"));
    const std::vector<Diagnostic> clean = linter.lint(Document(source));
    REQUIRE_FALSE(clean.empty());
    const FixResult fixed = fix(linter, source, unsafeFixes());

    // Statements that do not parse after the code: every finding stays, at the same place, and
    // the fixes make the same text before them, with no new syntax error, idempotent. (Code that
    // tree-sitter puts inside an ERROR node, such as everything before a bracket left open at the
    // end of the file, is not looked into by these rules: no fix is made where the tree is unsure.)
    const std::string tail = "\n\ndef broken(:\n    pass\nx = = 1\n";
    const Document broken(source + tail);
    REQUIRE(broken.syntaxErrorCount() > 0);
    const std::vector<Diagnostic> found = linter.lint(broken);
    for (const Diagnostic &d : clean) {
      INFO(d.message);
      CHECK(std::any_of(found.begin(), found.end(),
                        [&](const Diagnostic &e) { return e.code == d.code && e.start == d.start && e.end == d.end; }));
    }
    const FixResult brokenFixed = fix(linter, broken.text(), unsafeFixes());
    CHECK(brokenFixed.rejected.empty());
    CHECK(Document(brokenFixed.text).syntaxErrorCount() <= broken.syntaxErrorCount());
    CHECK(brokenFixed.text == fixed.text + tail);
    CHECK(fix(linter, brokenFixed.text, unsafeFixes()).text == brokenFixed.text);

    // The fixture as a notebook, its first statement in a cell of its own: the same findings,
    // and the fix writes the fixed file's text back into the cells.
    const std::size_t split = source.find("\n\n") + 2;
    auto made =
        Notebook::fromCells({{true, source.substr(0, split)}, {false, "# Notes"}, {true, source.substr(split)}});
    REQUIRE(std::holds_alternative<Notebook>(made));
    const std::string json = std::get<Notebook>(made).json();
    const Report report = linter.lint(json, "legacy.ipynb");
    REQUIRE(report.ok());
    CHECK(report.diagnostics().size() == clean.size());
    const FixResult notebookFixed = linter.fix(json, "legacy.ipynb", Applicability::Unsafe);
    REQUIRE_FALSE(notebookFixed.error);
    auto reparsed = Notebook::parse(notebookFixed.text);
    REQUIRE(std::holds_alternative<Notebook>(reparsed));
    std::string cells;
    for (const NotebookCell &cell : std::get<Notebook>(reparsed).codeCells()) cells += cell.source;
    CHECK(cells == fixed.text);
    CHECK(linter.fix(notebookFixed.text, "legacy.ipynb", Applicability::Unsafe).text == notebookFixed.text);
  }
  CHECK(seen == 15); // AF301-AF306, AF310-AF318
}
