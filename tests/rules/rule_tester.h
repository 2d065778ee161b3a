// rule_tester.h — VALID / INVALID tables for rules, in the style of ESLint's RuleTester and
// ast-grep's rule tests. A VALID snippet must not fire ("noisy"); an INVALID one must fire exactly
// the expected diagnostics ("missing"/"noisy"), and its fixed output is stated (or stated absent).
// Every fixing case is also checked to re-parse without new errors and to be idempotent.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "asyncfix/config.h"
#include "asyncfix/diagnostic.h"

namespace asyncfix::testing {

enum class FixKind { None, Safe, Unsafe, Any };

/// A diagnostic as a test states it: 1-based row and code-point columns, end column exclusive.
struct Expected {
  std::string code;
  int row = 1;
  int column = 1;
  int endColumn = 1;
  FixKind fix = FixKind::Any;
  std::string messageContains = {}; ///< in the message or the fix title
};

struct Invalid {
  std::string source;
  std::vector<Expected> expected;
  /// The text after `fix` with unsafe fixes enabled; nullopt = the text must stay unchanged.
  std::optional<std::string> output;
  /// The text after safe fixes only, when it differs from `output`.
  std::optional<std::string> safeOutput = std::nullopt;
};

/// Runs the tables against the rules selected by `select` (e.g. "AF101").
void runRuleTests(const std::string &select, const std::vector<std::string> &valid, const std::vector<Invalid> &invalid,
                  const Config &base = {});

} // namespace asyncfix::testing
