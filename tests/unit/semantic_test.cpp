#include <catch2/catch.hpp>

#include "analysis/semantic.h"
#include "asyncfix/document.h"

using namespace asyncfix;

namespace {
/// Start offsets (in `src`) of every use of the binding that the use at `at` resolves to.
std::vector<std::size_t> bindingOf(const std::string &src, std::size_t at) {
  const Document doc(src);
  const SemanticModel model(doc);
  const NameUse *use = model.nameAt(static_cast<std::uint32_t>(at));
  REQUIRE(use);
  std::vector<std::size_t> out;
  for (const NameUse *u : model.usesOf(model.resolve(*use))) out.push_back(ts_node_start_byte(u->node));
  return out;
}
std::size_t nth(const std::string &s, const std::string &what, int n) {
  std::size_t p = std::string::npos;
  for (int i = 0; i <= n; ++i) p = s.find(what, p == std::string::npos ? 0 : p + 1);
  return p;
}
} // namespace

TEST_CASE("semantic: class scopes are not visible to methods", "[semantic]") {
  const std::string src = "v = 1\nclass C:\n    v = 2\n    def m(self):\n        return v\n";
  // `v` in m() is the module's, not the class attribute.
  CHECK(bindingOf(src, nth(src, "v", 2)) == std::vector<std::size_t>{0, nth(src, "v", 2)});
  CHECK(bindingOf(src, nth(src, "v", 1)) == std::vector<std::size_t>{nth(src, "v", 1)});
}

TEST_CASE("semantic: nonlocal, global, comprehensions, lambda defaults", "[semantic]") {
  const std::string nl =
      "def f():\n    cnt = 0\n    def g():\n        nonlocal cnt\n        cnt += 1\n    return cnt\n";
  CHECK(bindingOf(nl, nth(nl, "cnt", 3)).size() == 4); // cnt = 0, nonlocal cnt, cnt += 1, return cnt

  const std::string gl = "def f():\n    global q\n    q = 1\nq = 0\n";
  CHECK(bindingOf(gl, nth(gl, "q", 2)).size() == 3);

  // The first iterable is evaluated outside the comprehension; its target is local to it.
  const std::string comp = "x = [1]\ny = [x for x in x]\n";
  CHECK(bindingOf(comp, nth(comp, "x", 3)) == std::vector<std::size_t>{0, nth(comp, "x", 3)});
  CHECK(bindingOf(comp, nth(comp, "x", 1)).size() == 2);

  // A lambda's default is evaluated in the enclosing scope; its parameter is local.
  const std::string lam = "z = 1\nf = lambda z=z: z\n";
  CHECK(bindingOf(lam, nth(lam, "z", 2)) == std::vector<std::size_t>{0, nth(lam, "z", 2)});
  CHECK(bindingOf(lam, nth(lam, "z", 3)).size() == 2);

  // A walrus inside a comprehension binds in the enclosing scope.
  const std::string walrus = "def f(xs):\n    [(w := x) for x in xs]\n    return w\n";
  CHECK(bindingOf(walrus, nth(walrus, "w", 1)).size() == 2);
}

TEST_CASE("semantic: roles", "[semantic]") {
  const std::string src = "import a.b as c\nfrom m import n\ndef f(p, *q, k=1, **r):\n    pass\nclass K:\n    pass\n";
  const Document doc(src);
  const SemanticModel model(doc);
  // `context` locates the name: its offset plus `skip` bytes.
  auto role = [&](const std::string &context, std::size_t skip) {
    const NameUse *u = model.nameAt(static_cast<std::uint32_t>(src.find(context) + skip));
    REQUIRE(u);
    return u->role;
  };
  CHECK(role("as c", 3) == NameRole::Binding);
  CHECK(role("import n", 7) == NameRole::ImportedName);
  CHECK(role("def f", 4) == NameRole::FunctionName);
  CHECK(role("(p", 1) == NameRole::Parameter);
  CHECK(role("*q", 1) == NameRole::Parameter);
  CHECK(role("k=", 0) == NameRole::Parameter);
  CHECK(role("**r", 2) == NameRole::Parameter);
  CHECK(role("class K", 6) == NameRole::ClassName);
  CHECK(model.nameAt(static_cast<std::uint32_t>(src.find("a.b"))) == nullptr); // module path
  CHECK(model.nameAt(static_cast<std::uint32_t>(src.find("from m") + 5)) == nullptr);
}

TEST_CASE("semantic: a name right after a byte order mark is found by its word", "[semantic]") {
  // The statements holding a word are found by a text search; a BOM's bytes are no letters.
  const Document doc("\xEF\xBB\xBF"
                     "async = 30\nprint(async + 1, async)\n");
  const SemanticModel model(doc);
  const NameUse *use = model.nameAt(3);
  REQUIRE(use != nullptr);
  CHECK(model.usesOf(model.resolve(*use)).size() == 3);
  CHECK(model.namesCalled("async").size() == 3);
}

namespace {
/// Whether the binding that the use at `at` resolves to gets a value from an assignment.
bool assignedAValue(const SemanticModel &model, const NameUse &use) {
  for (const NameUse *u : model.usesOf(model.resolve(use)))
    if (!ts_node_is_null(u->value) && !u->iterated) return true;
  return false;
}
} // namespace

TEST_CASE("semantic: mayAssignValue is never false where an assignment gives a value", "[semantic]") {
  // Every use in each text: when the model finds a value for its binding, the textual answer
  // must say "maybe" — a false there would hide a DataLoader from AF104.
  const std::vector<std::string> texts = {
      "loader = make()\ndef f():\n    for x in loader:\n        pass\n",
      "if cond:\n    loader = make()\ndef f():\n    for x in loader:\n        pass\n",
      "def g():\n    global loader\n    loader = make()\ndef f():\n    for x in loader:\n        pass\n",
      "def f():\n    loader: Loader = make()\n    for x in loader:\n        pass\n",
      "def f():\n    a = loader = make()\n    for x in loader:\n        pass\n",
      "def f():\n    loader \\\n        = make()\n    def inner():\n        return loader\n",
      "\xEF\xBB\xBFloader = make()\ndef f():\n    return loader\n",
      "class C:\n    loader = make()\n    def m(self):\n        return [loader for _ in loader]\n",
      "@decorate\ndef f():\n    loader = make()\n    return loader\n",
      "for loader in loaders:\n    pass\nloader = make()\ndef f():\n    return loader\n",
      // An annotated assignment after a block's colon, in a function and at module level.
      "def f(fast):\n    if fast: loader: Loader = make()\n    return loader\n",
      "try: loader: Loader = make()\nexcept ImportError: pass\ndef f():\n    return loader\n",
      // `nonlocal` with no function around binding it: the model resolves it to the module's name.
      "def g():\n    nonlocal loader\n    loader = make()\ndef f():\n    return loader\n",
      // Spaces tree-sitter accepts between tokens: U+00A0, a vertical tab, U+200B.
      "def f():\n    loader\xC2\xA0= make()\n    return loader\n",
      "def f():\n    loader\v= make()\n    return loader\n",
      "def f():\n    loader\xE2\x80\x8B= make()\n    return loader\n",
  };
  for (const std::string &text : texts) {
    INFO(text);
    const Document doc(text);
    const SemanticModel model(doc);
    for (const NameUse &use : model.allNamesForTests()) {
      if (!assignedAValue(model, use)) continue;
      INFO("the use at " << ts_node_start_byte(use.node));
      CHECK(model.mayAssignValue(use.name, ts_node_start_byte(use.node)));
    }
  }
}

TEST_CASE("semantic: mayAssignValue says no where no assignment can reach", "[semantic]") {
  const auto answer = [](const std::string &text, const std::string &name, int n) {
    const Document doc(text);
    const SemanticModel model(doc);
    return model.mayAssignValue(name, static_cast<std::uint32_t>(nth(text, name, n)));
  };
  // A parameter; another function's local; an attribute; a comparison; a `for` target.
  const std::string text = "def f(loader):\n    self.loader = loader\n    for x in loader:\n        pass\n"
                           "def g():\n    loader = make()\n    if loader == 1:\n        pass\n";
  CHECK_FALSE(answer(text, "loader", 2));
  CHECK(answer(text, "loader", 5)); // in g, which assigns it
  CHECK_FALSE(answer("def f():\n    for loader in loaders:\n        return loader\n", "loader", 1));
  CHECK_FALSE(answer("def f(loader):\n    return loader == other\n", "loader", 1));
  // Near misses, each a "maybe": module-level code assigns it; `global` is said somewhere.
  CHECK(answer("def f(loader):\n    return loader\nif x:\n    loader = make()\n", "loader", 1));
  CHECK(answer("def f(loader):\n    return loader\ndef g():\n    global other\n    loader = 1\n", "loader", 1));
}

TEST_CASE("semantic: mayAssignValue reads an annotation only where a statement starts", "[semantic]") {
  const auto answer = [](const std::string &text, int n) {
    const Document doc(text);
    const SemanticModel model(doc);
    return model.mayAssignValue("loader", static_cast<std::uint32_t>(nth(text, "loader", n)));
  };
  CHECK_FALSE(answer("def f(loader):\n    for x in loader:\n        pass\n", 1));
  CHECK_FALSE(answer("def f(loader):\n    d = {loader: 1}\n", 1));
  CHECK(answer("def f():\n    loader: Loader = make()\n    return loader\n", 1));
  CHECK(answer("def f():\n    x = 1; loader: Loader = make()\n    return loader\n", 1));
}

TEST_CASE("semantic: a question asked once per use stays linear in the file", "[semantic]") {
  // The rules ask the same whole-file questions at every call they look at (is `cuda` defined
  // here? where else is `async=` passed?). Each answer is kept: asking it again must not go
  // through the file again, or a file of N such calls costs N² (30 000 lines: seconds).
  constexpr std::size_t lines = 2000;
  std::string src = "import torch\n";
  for (std::size_t i = 0; i < lines; ++i) src += "y" + std::to_string(i) + " = x.cuda(async=True)\n";
  const Document doc(src);
  const SemanticModel model(doc);
  std::size_t answers = 0;
  for (std::size_t i = 0; i < lines; ++i) {
    answers += model.definitionsNamed("cuda") + model.definitionsNamed("cuda", ScopeKind::Function);
    answers += model.keywordsCalled("async").size() + model.attributesCalled("cuda").size();
    answers += model.importsPackage("torch") ? 1 : 0;
  }
  CHECK(answers == lines * (2 * lines + 1));
  CHECK(model.unitsScanned() <= 4 * (lines + 1));
}

TEST_CASE("semantic: a module-level star import imports its package", "[semantic]") {
  const Document doc("from torch.nn.functional import *\ntry:\n    from scipy.misc import *\nexcept ImportError:\n"
                     "    pass\nfrom . import *\nimport numpy as np\ny = softmax(x)\n");
  const SemanticModel model(doc);
  CHECK(model.importsPackage("torch"));
  CHECK(model.importsPackage("scipy"));
  CHECK(model.starImportsOf("torch") == std::vector<std::string_view>{"torch.nn.functional"});
  CHECK(model.starImportsOf("scipy") == std::vector<std::string_view>{"scipy.misc"});
  CHECK(model.starImportsOf("numpy").empty()); // imported by name, not by a star
  // What the statement shows the others: the package it imports, as any import's.
  CHECK(model.factsOf(0).has(StatementFacts::import("torch")));
  CHECK(model.factsOf(1).has(StatementFacts::import("scipy")));
  const Document other("from mylib import *\n");
  CHECK_FALSE(SemanticModel(other).importsPackage("torch"));
  // A star import tree-sitter had to repair gives no names (Python runs none of the statement).
  const Document repaired("from torch import~ *\nx = eig(a)\n");
  CHECK(SemanticModel(repaired).starImportsOf("torch").empty());
}
