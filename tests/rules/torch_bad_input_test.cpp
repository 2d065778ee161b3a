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

#include "asyncfix/document_internals.h"
#include "asyncfix/linter.h"
#include "asyncfix/notebook.h"
#include "asyncfix/report.h"
#include "asyncfix/rules.h"
#include "test_util.h"
#include "text/syntax.h"

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

TEST_CASE("AF3xx: a name only a star import may provide is reported without a fix", "[rules][torch-bad-input]") {
  // Spelt like PyTorch's and bound nowhere in scope, but the file does not show where it comes
  // from: each rule reports it, names the star import, and offers no fix (not even an unsafe one).
  struct StarCase {
    std::string code, source, star;
  };
  const std::vector<StarCase> cases = {
      {"AF301", "import torch\nfrom torch.nn import *\nloss = CrossEntropyLoss()(out, y)\nprint(loss.data[0])\n",
       "torch.nn"},
      {"AF303", "from torch.autograd import *\nclass Flip(Function):\n    def forward(self, x):\n        return -x\n",
       "torch.autograd"},
      {"AF304", "import torch\nfrom torch.nn.functional import *\ny = softmax(x)\n", "torch.nn.functional"},
      {"AF304", "from torch.nn import *\nm = Softmax()\n", "torch.nn"},
      {"AF306",
       "import torch\nfrom torch.optim.lr_scheduler import *\ndef train(p):\n    opt = torch.optim.SGD(p, lr=0.1)\n"
       "    sched = StepLR(opt, 1)\n    for epoch in range(3):\n        sched.step()\n        opt.step()\n",
       "torch.optim.lr_scheduler"},
      {"AF310", "from torchvision.transforms import *\nt = Scale(32)\n", "torchvision.transforms"},
      {"AF310", "from torchvision import *\nt = transforms.RandomSizedCrop(32)\n", "torchvision"},
      {"AF313", "from torch.nn import *\nc = MSELoss(size_average=False)\n", "torch.nn"},
      {"AF314", "from torch.autograd import *\nx = Variable(t, volatile=True)\n", "torch.autograd"},
      {"AF315", "import torch\nfrom torch.nn.functional import *\ny = upsample_bilinear(x, scale_factor=2)\n",
       "torch.nn.functional"},
      {"AF316", "from torch import *\nx = gesv(b, A)\n", "torch"},
      {"AF316", "from torch import *\nx = lstsq(b, A)\n", "torch"},
      {"AF316", "import scipy\nfrom scipy.misc import *\nim = imread(path)\n", "scipy.misc"},
      {"AF317", "from torch import *\nx = load(p)\n", "torch"},
      {"AF318", "from torch import *\nimport torch\nx = FloatTensor(2)\n", "torch"},
      // A star import of another module as well: still only maybe PyTorch's.
      {"AF304", "from mylib import *\nfrom torch.nn.functional import *\ny = softmax(x)\n", "torch.nn.functional"},
      {"AF317", "from torch import *\nfrom mylib import *\nx = load(p)\n", "torch"},
  };
  for (const StarCase &c : cases) {
    INFO(c.code << ":\n" << c.source);
    const std::vector<Diagnostic> found = linterFor(c.code).lint(Document(c.source));
    REQUIRE(found.size() == 1);
    CHECK(found[0].code == c.code);
    CHECK_FALSE(found[0].fix);
    CHECK_THAT(found[0].message, Catch::Contains("through `from " + c.star + " import *`"));
    // The CLI's path (the prefilter first) finds it too.
    CHECK(linterFor(c.code).lint(std::string_view(c.source)).size() == 1);
  }
}

TEST_CASE("AF3xx: the words of names only a star import provides keep a file only with one",
          "[rules][torch-bad-input]") {
  // `load(`, `solve(`, `upsample…`: common words, counted where the text spells a star import of
  // the family (`from torch… import *`, numpy…, scipy… or relative): a star import of another
  // module makes no name PyTorch's (the next test), and keeps no file.
  const Linter linter;
  for (const std::string body : {"x = load(p)\n", "x = solve(b, A)\n", "y = upsample_bilinear(x)\n"}) {
    INFO(body);
    CHECK_FALSE(linter.mayHaveFindings("import torch\nimport json\n" + body));
    CHECK_FALSE(linter.mayHaveFindings("import torch\nfrom mylib import *\n" + body));
    CHECK(linter.lint(Document("import torch\nfrom mylib import *\n" + body)).empty());
    CHECK(linter.mayHaveFindings("import torch\nfrom . import *\n" + body));
    CHECK(linter.mayHaveFindings("from torch import \\\n    *\n" + body));
  }
}

TEST_CASE("AF3xx: a star import does not make a bound name, or another module's, PyTorch's",
          "[rules][torch-bad-input]") {
  const std::vector<Case> cases = {
      // A later explicit import, a local binding, a parameter: the name is bound.
      {"AF304", "from torch.nn.functional import *\nfrom mylib import softmax\ny = softmax(x)\n"},
      {"AF304", "from torch.nn.functional import *\ndef f(x):\n    softmax = make()\n    return softmax(x)\n"},
      {"AF315", "from torch.nn.functional import *\ndef f(x, upsample_bilinear):\n    return upsample_bilinear(x)\n"},
      {"AF317", "from torch import *\ndef load(p):\n    return open(p)\nx = load(p)\n"},
      {"AF316", "from torch import *\nfrom mylib import gesv\nx = gesv(b, A)\n"},
      {"AF310", "from torchvision.transforms import *\nclass Scale:\n    pass\nt = Scale(32)\n"},
      {"AF303", "from torch.autograd import *\nfrom sympy import Function\nclass Flip(Function):\n"
                "    def forward(self, x):\n        return -x\n"},
      {"AF313", "from torch.nn import *\nMSELoss = make_loss\nc = MSELoss(size_average=False)\n"},
      // A star import of another module alone.
      {"AF304", "import torch\nfrom mylib import *\ny = softmax(x)\n"},
      {"AF317", "import torch\nfrom mylib import *\nx = load(p)\n"},
      {"AF316", "import torch\nfrom mylib import *\nx = gesv(b, A)\n"},
      {"AF310", "import torchvision\nfrom mylib import *\nt = Scale(32)\n"},
      {"AF314", "import torch\nfrom mylib import *\nx = Variable(t, volatile=True)\n"},
      {"AF301", "import torch\nfrom mylib import *\nloss = CrossEntropyLoss()(out, y)\nprint(loss.data[0])\n"},
      // A star import of a module that does not have the name there (`torch.nn` has no `load`).
      {"AF317", "from torch.nn import *\nx = load(p)\n"},
      // NumPy's star import does not export its aliases of the builtins: `float` is the builtin.
      {"AF311", "from numpy import *\nx = float(1)\ny = int(2)\n"},
      // A name the file never binds and no star import provides: nothing (a NameError, not PyTorch).
      {"AF304", "import torch\ny = softmax(x)\n"},
      {"AF318", "import torch\nx = FloatTensor(2)\n"},
  };
  for (const Case &c : cases) {
    INFO(c.code << ":\n" << c.source);
    CHECK(linterFor(c.code).lint(Document(c.source)).empty());
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

TEST_CASE("AF3xx: code the parser cannot read gets no finding", "[rules][torch-bad-input]") {
  // A bracket left open above the code (a call never closed) puts what follows it inside an
  // ERROR node, as far as tree-sitter cannot recover: the rules report nothing there, and fix
  // nothing (a fix is made only where the code is known). What they report is code outside it.
  const TSSymbol error = Kinds::get().error;
  std::size_t clean = 0, broken = 0;
  for (const RuleInfo *rule : ruleCatalogue()) {
    if (!rule->code.starts_with("AF3")) continue;
    INFO("rule " << rule->code);
    const Linter linter = linterFor(rule->code);
    const std::string source = readFile(fs::path(ASYNCFIX_FIXTURES_DIR) / (std::string(rule->code) + ".py"));
    clean += linter.lint(Document(source)).size();
    const Document doc("results = compute(\n" + source);
    REQUIRE(doc.syntaxErrorCount() > 0);
    for (const Diagnostic &d : linter.lint(doc)) {
      ++broken;
      INFO(d.message);
      bool inError = false;
      for (TSNode n =
               DocumentInternals::nodeAt(doc, static_cast<std::uint32_t>(d.start), static_cast<std::uint32_t>(d.end));
           !ts_node_is_null(n); n = ts_node_parent(n))
        inError = inError || ts_node_symbol(n) == error;
      CHECK_FALSE(inError);
    }
    CHECK(fix(linter, doc.text(), unsafeFixes()).rejected.empty());
  }
  CHECK(broken < clean / 2); // most of the fixtures' code is inside the ERROR node
}
