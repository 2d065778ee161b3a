// asyncfix/config.h — what to check and how to fix: rule selection, target Python, rename style.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "asyncfix/diagnostic.h"

namespace asyncfix {

struct PythonVersion {
  int major = 3;
  int minor = 8;
  friend auto operator<=>(const PythonVersion &, const PythonVersion &) = default;
  /// "py38" / "3.8" → {3, 8}; nullopt for anything outside py35…py314.
  static std::optional<PythonVersion> parse(std::string_view text);
  std::string toString() const; ///< "py38"
};

/// Rule selection in the style of Ruff: entries are codes ("AF101"), prefixes ("AF1", "AF") or
/// "ALL". A rule is enabled when the most specific matching entry of select ∪ extend-select is
/// more specific than (or as specific as) the most specific matching ignore entry.
struct RuleSelection {
  std::vector<std::string> select{"ALL"};
  std::vector<std::string> extendSelect;
  std::vector<std::string> ignore;
  bool enables(std::string_view code) const;
  /// Entries that match no rule code, for a clear usage error.
  std::vector<std::string> unknownEntries() const;
};

struct Config {
  RuleSelection rules;
  PythonVersion target{3, 8};
  /// How a renamed name is spelt: "{name}" is replaced by the old name. "{name}_" gives PEP 8's
  /// `async_` (the default), "is_{name}" gives `is_async`.
  std::string renameTemplate = "{name}_";
  /// Severity per rule code, replacing the rule's own (`[tool.asyncfix.severity]`).
  std::map<std::string, Severity, std::less<>> severity;

  std::string renamed(std::string_view name) const;
  /// "async_" → "{name}_", "is_async" → "is_{name}", a template stays; nullopt when invalid.
  static std::optional<std::string> renameTemplateFor(std::string_view style);
  /// Validates the template: it must contain "{name}" and produce a valid Python identifier.
  static bool isValidRenameTemplate(std::string_view tmpl);
};

} // namespace asyncfix
