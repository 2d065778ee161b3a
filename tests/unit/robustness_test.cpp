// Bad input: deep nesting, NUL bytes, invalid UTF-8, huge lines. No crash, nothing lost.
#include <catch2/catch.hpp>

#include "asyncfix/linter.h"
#include "test_util.h"

using namespace asyncfix;

TEST_CASE("10 000 nested parentheses do not overflow the stack", "[robustness]") {
  const std::string src = "x = " + std::string(10000, '(') + "async" + std::string(10000, ')') + "\n";
  const Linter linter;
  const auto diags = linter.lint(std::string_view(src));
  // tree-sitter may give up on parts of it; the linter must simply not crash.
  const FixResult r = fix(linter, src, asyncfix::testing::unsafeFixes());
  CHECK(r.text.size() >= src.size() - 5);
  CHECK(fix(linter, r.text, asyncfix::testing::unsafeFixes()).text == r.text);
  (void)diags;
}

TEST_CASE("deeply nested blocks", "[robustness]") {
  std::string src;
  for (int i = 0; i < 500; ++i) src += std::string(static_cast<std::size_t>(i), ' ') + "if x:\n";
  src += std::string(500, ' ') + "async = 1\n";
  const auto diags = Linter().lint(std::string_view(src));
  CHECK_FALSE(diags.empty());
}

TEST_CASE("NUL bytes and invalid UTF-8 in the text", "[robustness]") {
  const Linter linter;
  static const char raw[] = "x = '\0'\n\xff\xfe async = 1\nx.cuda(async=True)\n";
  const std::string src(raw, sizeof raw - 1);
  const FixResult r = fix(linter, src, asyncfix::testing::unsafeFixes());
  CHECK(r.text.find("non_blocking") != std::string::npos);
  CHECK(r.text.find(std::string("'\0'", 3)) != std::string::npos); // nothing lost around the edit
}

TEST_CASE("a long file with many findings", "[robustness]") {
  std::string src;
  for (int i = 0; i < 2000; ++i) src += "x" + std::to_string(i) + " = y.cuda(async=True)\n";
  const Linter linter;
  CHECK(linter.lint(std::string_view(src)).size() == 2000);
  const FixResult r = fix(linter, src);
  CHECK(r.remaining.empty());
  CHECK(r.fixedDiagnostics == 2000);
}

TEST_CASE("a 20 000-long attribute chain does not overflow the receiver analysis", "[robustness]") {
  std::string chain = "torch";
  for (int i = 0; i < 20000; ++i) chain += ".a";
  const std::string src = "import torch\nm = " + chain + "()\nm.cuda(async=True)\nclass C(" + chain +
                          "):\n    pass\nC().cuda(async=True)\n";
  const auto diags = Linter().lint(std::string_view(src));
  CHECK(diags.size() == 2); // AF101 twice: neither receiver is known to be a module
}
