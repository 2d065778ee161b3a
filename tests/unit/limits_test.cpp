// Limits: huge files, deep nesting, very long lines, thousands of findings in one file. Bounded
// time and memory, no stack overflow. Work is counted (shared fixes, edits), not timed.
#include <catch2/catch.hpp>

#include <set>
#include <thread>

#include "asyncfix/linter.h"
#include "test_util.h"

using namespace asyncfix;

namespace {

std::size_t countOf(const std::vector<Diagnostic> &diags, std::string_view code) {
  return static_cast<std::size_t>(
      std::count_if(diags.begin(), diags.end(), [&](const Diagnostic &d) { return d.code == code; }));
}

} // namespace

TEST_CASE("3 000 uses of one `async` binding share one rename fix", "[limits]") {
  // A rename group rebuilt per occurrence, each with its own copy of the 3 000-edit fix, is
  // quadratic in time and memory (~20 s). One Fix object, shared, proves the rename is computed
  // once.
  constexpr std::size_t kUses = 3000;
  std::string src = "def f():\n    async = 0\n";
  for (std::size_t i = 1; i < kUses; ++i) src += "    async += " + std::to_string(i) + "\n";
  src += "    return async\n";
  const Linter linter;
  const auto diags = linter.lint(std::string_view(src));
  REQUIRE(countOf(diags, "AF001") == kUses + 1);
  std::set<const Fix *> fixes;
  for (const Diagnostic &d : diags) {
    REQUIRE(d.fix);
    fixes.insert(&*d.fix);
  }
  CHECK(fixes.size() == 1);
  CHECK(diags.front().fix->edits.size() == kUses + 1);
  CHECK(diags.front().fix->applicability == Applicability::Safe);

  const FixResult r = fix(linter, src);
  CHECK(r.remaining.empty());
  CHECK(r.fixedDiagnostics == kUses + 1);
  CHECK(r.text.find("async ") == std::string::npos);
  CHECK(r.text.find("    async_ = 0\n") != std::string::npos);
}

TEST_CASE("3 000 functions each binding `async`: one fix per binding, each complete", "[limits]") {
  constexpr int kFunctions = 3000;
  std::string src;
  for (int i = 0; i < kFunctions; ++i)
    src += "def _f" + std::to_string(i) + "(async):\n    return async\n_f" + std::to_string(i) + "(async=1)\n";
  const Linter linter;
  const auto diags = linter.lint(std::string_view(src));
  REQUIRE(countOf(diags, "AF001") == 3 * kFunctions);
  std::set<const Fix *> fixes;
  for (const Diagnostic &d : diags) {
    REQUIRE(d.fix);
    CHECK(d.fix->edits.size() == 3); // parameter, reference and the call's keyword
    fixes.insert(&*d.fix);
  }
  CHECK(fixes.size() == kFunctions);
  const FixResult r = fix(linter, src);
  CHECK(r.remaining.empty());
  CHECK(r.text.find("async") == r.text.find("async_"));
}

TEST_CASE("an attribute `async` used 3 000 times shares one member rename", "[limits]") {
  std::string src = "class C:\n    async = 1\n";
  for (int i = 0; i < 3000; ++i) src += "print(C.async)\n";
  const auto diags = Linter().lint(std::string_view(src));
  REQUIRE(countOf(diags, "AF001") == 3001);
  // The class-level binding and the attribute spellings: two ways to one rename, at most two
  // Fix objects (one per way), equal.
  std::set<const Fix *> fixes;
  for (const Diagnostic &d : diags) {
    REQUIRE(d.fix);
    CHECK(*d.fix == *diags.front().fix);
    fixes.insert(&*d.fix);
  }
  CHECK(fixes.size() <= 2);
  CHECK(diags.front().fix->edits.size() == 3001);
}

TEST_CASE("30 000 functions binding the same name: receivers traced once per name", "[limits]") {
  // Each `a.cuda(non_blocking=True)` asks what `a` holds. Scanning every use of `a` in the file
  // for each function's own `a` would be 30 000 × 60 000 lookups (minutes; a 50 MB file of such
  // functions would not finish in 10 minutes): the receiver analysis makes one pass per name.
  std::string src = "import torch\nnet = torch.nn.Linear(2, 2)\n";
  for (int i = 0; i < 30000; ++i)
    src += "def f" + std::to_string(i) + "(a, b):\n    return a.cuda(non_blocking=True), b.cpu(non_blocking=True)\n";
  src += "net.cuda(non_blocking=True)\n";
  const auto diags = Linter().lint(std::string_view(src));
  CHECK(countOf(diags, "AF102") == 30001); // .cpu(non_blocking=) everywhere, and the module's .cuda
}

TEST_CASE("100 000 nested parentheses: no stack overflow, nothing lost", "[limits]") {
  const std::string src =
      "x = " + std::string(100000, '(') + "async" + std::string(100000, ')') + "\ny.cuda(async=True)\n";
  const Linter linter;
  const auto diags = linter.lint(std::string_view(src));
  for (const Diagnostic &d : diags) CHECK(d.end <= src.size());
  const FixResult r = fix(linter, src, asyncfix::testing::unsafeFixes());
  CHECK(r.text.find(std::string(100000, '(')) != std::string::npos);
  CHECK(r.text.find(std::string(100000, ')')) != std::string::npos);
  CHECK(fix(linter, r.text, asyncfix::testing::unsafeFixes()).text == r.text);
}

TEST_CASE("100 000 nested lists and calls in one expression", "[limits]") {
  std::string src = "x = ";
  for (int i = 0; i < 50000; ++i) src += "f([";
  src += "async";
  for (int i = 0; i < 50000; ++i) src += "])";
  src += "\n";
  const Linter linter;
  const auto diags = linter.lint(std::string_view(src));
  const FixResult r = fix(linter, src, asyncfix::testing::unsafeFixes());
  CHECK(r.text.size() + 8 >= src.size());
  (void)diags;
}

TEST_CASE("a 2 MB line with 50 000 findings", "[limits]") {
  std::string src = "x = [";
  const std::string item = "y.cuda(async=True), \"\xc3\xa9t\xc3\xa9 async\", ";
  while (src.size() < 2u * 1024 * 1024) src += item;
  src += "]\n";
  const std::size_t items = (src.size() - 7) / item.size();
  const Linter linter;
  const auto diags = linter.lint(std::string_view(src));
  CHECK(countOf(diags, "AF101") == items);
  const FixResult r = fix(linter, src);
  CHECK(r.remaining.empty());
  CHECK(r.text.size() == src.size() + items * (std::string_view("non_blocking").size() - 5));
}

TEST_CASE("a 10 MB file of ordinary code with 2 500 findings", "[limits]") {
  std::string src;
  src.reserve(11u * 1024 * 1024);
  std::size_t findings = 0;
  for (int i = 0; src.size() < 10u * 1024 * 1024; ++i) {
    src += "def f" + std::to_string(i) + "(a, b):\n    '''docstring async await'''\n    return a + b  # async\n";
    if (i % 64 == 0) {
      src += "t" + std::to_string(i) + " = x.cuda(async=True)\n";
      ++findings;
    }
  }
  const Linter linter;
  const auto diags = linter.lint(std::string_view(src));
  CHECK(countOf(diags, "AF101") == findings);
  CHECK(diags.size() == findings);
}

TEST_CASE("one Linter shared by four threads gives each the same findings and fixes", "[limits][threads]") {
  // The CLI's workers share one Linter (and one configuration resolver); a fix is shared between
  // the diagnostics of one file. Run under ThreadSanitizer by the tsan preset.
  std::string src = "import torch\n";
  for (int i = 0; i < 200; ++i) src += "def f" + std::to_string(i) + "(async):\n    return x.cuda(async=async)\n";
  const Linter linter;
  const FixResult expected = fix(linter, src, asyncfix::testing::unsafeFixes());
  std::vector<std::string> results(4);
  std::vector<std::size_t> counts(4);
  {
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int round = 0; round < 3; ++round) {
          const std::vector<Diagnostic> diags = linter.lint(std::string_view(src));
          std::vector<Diagnostic> copies = diags; // shared fixes, copied across the vector
          counts[t] = copies.size();
          results[t] = fix(linter, src, asyncfix::testing::unsafeFixes()).text;
        }
      });
    for (std::thread &th : threads) th.join();
  }
  for (std::size_t t = 0; t < 4; ++t) {
    CHECK(results[t] == expected.text);
    CHECK(counts[t] == linter.lint(std::string_view(src)).size());
  }
}
