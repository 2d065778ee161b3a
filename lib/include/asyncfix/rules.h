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
/// The address of a rule's page in the manual: `<docsUrl>/rules/<CODE>.md`, where `docsUrl` is
/// the address of the manual's directory (the repository's docs/), without a final `/`. An empty
/// `docsUrl` means defaultDocsUrl(). What the front ends print (JSON `url`, SARIF `helpUri`, the
/// language server's `codeDescription.href` and hover link); `docs-url` in the configuration sets
/// `docsUrl` for those who host the pages.
ASYNCFIX_API std::string ruleUrl(const RuleInfo &rule, std::string_view docsUrl);
/// ruleUrl(rule, defaultDocsUrl()).
ASYNCFIX_API std::string ruleUrl(const RuleInfo &rule);
/// Where the manual is when no `docs-url` says: the URL the build was configured with
/// (ASYNCFIX_DOCS_URL, for distributors who host the pages), else the copy installed beside the
/// running program (`<prefix>/share/doc/asyncfix` for `<prefix>/bin/<program>`; a build tree links
/// its docs/ there), else the directory asyncfix was configured to be installed in; the last two
/// as `file://` URLs. Worked out once per process (one check that the directory exists).
ASYNCFIX_API std::string defaultDocsUrl();

} // namespace asyncfix
