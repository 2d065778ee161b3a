#include "rules/rule_tester.h"

#include <catch2/catch.hpp>

#include <sstream>

#include "asyncfix/document.h"
#include "asyncfix/linter.h"
#include "asyncfix/linter_internals.h"
#include "test_util.h"

namespace asyncfix::testing {
namespace {

std::string describe(const Document &doc, const Diagnostic &d) {
  const Position s = doc.lines().position(d.start, PositionEncoding::Utf32);
  const Position e = doc.lines().position(d.end, PositionEncoding::Utf32);
  std::ostringstream out;
  out << d.code << " " << s.line + 1 << ":" << s.column + 1 << "-" << e.column + 1;
  if (d.fix) out << (d.fix->applicability == Applicability::Safe ? " [safe]" : " [unsafe]");
  out << " " << d.message;
  return out.str();
}

bool matches(const Document &doc, const Diagnostic &d, const Expected &x) {
  const Position s = doc.lines().position(d.start, PositionEncoding::Utf32);
  const Position e = doc.lines().position(d.end, PositionEncoding::Utf32);
  if (d.code != x.code || static_cast<int>(s.line) + 1 != x.row || static_cast<int>(s.column) + 1 != x.column ||
      static_cast<int>(e.column) + 1 != x.endColumn)
    return false;
  if (!x.messageContains.empty() && d.message.find(x.messageContains) == std::string::npos &&
      (!d.fix || d.fix->title.find(x.messageContains) == std::string::npos))
    return false;
  switch (x.fix) {
  case FixKind::Any: return true;
  case FixKind::None: return !d.fix;
  case FixKind::Safe: return d.fix && d.fix->applicability == Applicability::Safe;
  case FixKind::Unsafe: return d.fix && d.fix->applicability == Applicability::Unsafe;
  }
  return false;
}

void checkFix(const Linter &linter, const std::string &source, const std::string &expected, bool unsafe) {
  FixOptions options;
  options.unsafe = unsafe;
  const FixResult fixed = fix(linter, source, options);
  CHECK(fixed.text == expected);
  CHECK(fixed.converged);
  CHECK(fixed.rejected.empty());
  const Document before(source), after(fixed.text);
  CHECK(after.syntaxErrorCount() <= before.syntaxErrorCount());
  const FixResult again = fix(linter, fixed.text, options);
  CHECK(again.text == fixed.text); // idempotent
  CHECK_FALSE(again.changed);
}

} // namespace

void runRuleTests(const std::string &select, const std::vector<std::string> &valid, const std::vector<Invalid> &invalid,
                  const Config &base) {
  Config config = base;
  config.rules.select = {select};
  const Linter linter(config);

  for (const std::string &source : valid) {
    INFO("VALID (must not fire):\n" << source);
    const Document doc(source);
    const auto found = linter.lint(doc);
    for (const Diagnostic &d : found) FAIL_CHECK("noisy: " << describe(doc, d));
    CHECK(found.empty());
    CHECK(LinterInternals::lintWithoutPruning(linter, doc).empty()); // the pruned walk hides nothing
    CHECK(fix(linter, source, asyncfix::testing::unsafeFixes()).text == source);
  }

  for (const Invalid &c : invalid) {
    INFO("INVALID:\n" << c.source);
    const Document doc(c.source);
    const auto found = linter.lint(doc);
    std::vector<bool> used(found.size());
    for (const Expected &x : c.expected) {
      bool hit = false;
      for (std::size_t i = 0; i < found.size() && !hit; ++i)
        if (!used[i] && matches(doc, found[i], x)) used[i] = hit = true;
      if (!hit) FAIL_CHECK("missing: " << x.code << " " << x.row << ":" << x.column << "-" << x.endColumn);
    }
    for (std::size_t i = 0; i < found.size(); ++i)
      if (!used[i]) FAIL_CHECK("noisy: " << describe(doc, found[i]));
    // The walk skips only subtrees without a prefilter mark: visiting everything finds the same.
    CHECK(LinterInternals::lintWithoutPruning(linter, doc) == found);
    // The prefilter must never skip a text that has findings.
    CHECK(linter.mayHaveFindings(c.source));
    CHECK(linter.lint(std::string_view(c.source)).size() == found.size());

    checkFix(linter, c.source, c.output.value_or(c.source), true);
    checkFix(linter, c.source, c.safeOutput.value_or(c.output.value_or(c.source)), false);
  }
}

} // namespace asyncfix::testing
