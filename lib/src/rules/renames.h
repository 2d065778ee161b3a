// rules/renames.h — the table of renames that Python 3.7's reserved `async`/`await` forced on
// libraries, and the lookup that AF201 (modules), AF202 (functions, attributes) and AF203
// (keyword arguments) share.
//
// The table is data: built-in rows (renames.cpp) plus the user's rows (Config::renames). A token
// `async`/`await` is matched against it where it stands:
//   - in an import: `import kombu.async`, `from kombu.async.hub import Hub`,
//     `from asyncio import async` (the import and every use of the imported name);
//   - in an attribute path: `kombu.async.Hub`, `asyncio.async(...)`, `doc.async`;
//   - as a keyword argument: `child.expect(p, async=True)`.
// Paths are resolved through the file's imports (scope-aware, via the SemanticModel): `k.async`
// after `import kombu as k` is `kombu.async`. What an object is comes from what made it, as far as
// the file shows: `child = pexpect.spawn(cmd)` makes `child.expect` the callable
// `pexpect.spawn.expect`; likewise `with pexpect.spawn(cmd) as child`, `self.child = …` assigned
// in the class's methods, and chains `pexpect.spawn(cmd).expect`. A name bound several times
// resolves only when every binding agrees.
#pragma once

#include <tree_sitter/api.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "asyncfix/config.h"
#include "rules/rule.h"

namespace asyncfix::rules {

/// The compiled-in rows, in a stable order.
std::span<const RenameRow> builtinRenames();

/// The rule code that reports rows of `kind`: AF201 (Module), AF202 (Function, Attribute),
/// AF203 (Keyword).
std::string_view renameRuleCode(RenameRow::Kind kind);

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

/// Does the dotted `path` match `pattern`? In the pattern `*` stands for one component and `**`
/// for any number of them (also none): "pexpect.**.expect" matches "pexpect.spawn.expect".
bool renamePathMatches(std::string_view pattern, std::string_view path);

/// Checks a user's row: nullopt when it is usable, else the offending field ("old", "new",
/// "callable", "owner") and what is wrong with it.
struct RenameRowProblem {
  std::string field;
  std::string message;
};
std::optional<RenameRowProblem> validateRenameRow(const RenameRow &row);

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
