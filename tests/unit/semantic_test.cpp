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
