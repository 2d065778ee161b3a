// rules/renames.h — AF201 (modules), AF202 (functions, attributes) and AF203 (keyword
// arguments): the tokens `async`/`await` that a row of the rename table (rename_table.h: the
// built-in rows plus Config::renames) owns.
//
// A token is matched against the table where it stands:
//   - in an import: `import kombu.async`, `from kombu.async.hub import Hub`,
//     `from asyncio import async` (the import and every use of the imported name);
//   - in an attribute path: `kombu.async.Hub`, `asyncio.async(...)`, `doc.async`;
//   - as a keyword argument: `child.expect(p, async=True)`.
// What a path or an object is comes from name_origins.h (`k.async` after `import kombu as k` is
// `kombu.async`; `child.expect` after `child = pexpect.spawn(cmd)` is `pexpect.spawn.expect`).
#pragma once

#include <tree_sitter/api.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "asyncfix/config.h"
#include "rules/rule.h"

namespace asyncfix::rules {

/// A token that a row of the table owns: what to report and how to fix it.
struct RenameMatch {
  const RenameRow *row = nullptr;
  std::size_t start = 0, end = 0; ///< the diagnostic's byte range
  std::string message;
  std::optional<Fix> fix;
};

/// The row that owns `token` (an identifier spelt `async` or `await`, where the walk stands) and
/// the finding, or nullopt. Tokens inside ERROR regions are never matched (AF001/AF002 report
/// them). The result lives until the next call.
const std::optional<RenameMatch> &matchRenamedToken(TSNode token, Context &ctx);

/// The rule class behind AF201, AF202 and AF203: reports the tokens whose row's kind maps to
/// `info.code` (see renameRuleCode).
class RenamedAsyncRule final : public Rule {
public:
  explicit RenamedAsyncRule(const RuleInfo &info) : info_(info) {}
  const RuleInfo &info() const override { return info_; }
  std::vector<TSSymbol> subscriptions() const override;
  void check(TSNode node, Context &ctx) const override;
  /// The tokens a row of `info.code`'s kind owns, while the rule is enabled (AF001/AF002 report
  /// them as names otherwise), where the walk stands or recorded anywhere in the file.
  bool claims(Claim what, TSNode node, Context &ctx) const override;

private:
  const RuleInfo &info_;
};

} // namespace asyncfix::rules
