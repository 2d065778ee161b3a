// asyncfix/rules.h — the rule catalogue: codes, names, documentation.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "asyncfix/diagnostic.h"

#include "asyncfix/export.h"

namespace asyncfix {

/// Whether a rule's findings carry fixes.
enum class FixAvailability : std::uint8_t { None, Sometimes, Always };

/// Static metadata of one rule; lives as long as the program, immutable (any thread may read it).
struct RuleInfo {
  std::string_view code;    ///< "AF101"
  std::string_view name;    ///< "torch-async-kwarg"
  std::string_view summary; ///< one line
  /// Markdown under the headings: What it does / Why is this bad? / Example / Use instead /
  /// Fix safety.
  std::string_view doc;
  FixAvailability fix = FixAvailability::Always;
  bool deprecatedApi = false; ///< the finding is a deprecated API (LSP tag Deprecated)
};

/// Every rule, sorted by code.
ASYNCFIX_API std::span<const RuleInfo *const> ruleCatalogue();
/// The rule with this code or name, or nullptr.
ASYNCFIX_API const RuleInfo *findRule(std::string_view codeOrName);
/// Where a rule's documentation is published.
ASYNCFIX_API std::string ruleUrl(const RuleInfo &rule);

} // namespace asyncfix
