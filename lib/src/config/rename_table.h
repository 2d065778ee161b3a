// rename_table.h — the renames that Python 3.7's reserved `async`/`await` forced on libraries, as
// data: the built-in rows, how their dotted paths and patterns read, and the check of a user's
// row (`[tool.asyncfix.renames]`, Config::renames). The rules that report the rows, AF201–AF203,
// are rules/renames.h. Private.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asyncfix/config.h"

namespace asyncfix::rules {

/// The compiled-in rows, in a stable order.
std::span<const RenameRow> builtinRenames();

/// The rule code that reports rows of `kind`: AF201 (Module), AF202 (Function, Attribute),
/// AF203 (Keyword), AF310 (Api).
std::string_view renameRuleCode(RenameRow::Kind kind);

/// `async` or `await`: the names Python 3.7 reserved.
bool isAsyncOrAwait(std::string_view name);

/// A dotted path's components: "a.b.c" → {"a", "b", "c"} (views into the path).
using RenamePath = std::vector<std::string_view>;
RenamePath splitRenamePath(std::string_view path);

/// Does the dotted `path` match `pattern`? In the pattern `*` stands for one component and `**`
/// for any number of them (also none): "pexpect.**.expect" matches "pexpect.spawn.expect".
bool renamePathMatches(std::string_view pattern, std::string_view path);
/// The same on split paths.
bool renamePathMatches(std::span<const std::string_view> pattern, std::span<const std::string_view> path);

/// Checks a user's row: nullopt when it is usable, else the offending field ("old", "new",
/// "callable", "owner") and what is wrong with it.
struct RenameRowProblem {
  std::string field;
  std::string message;
};
/// Whether `name` is a builtin that an `api` row's `new` may name: the row is then an alias of
/// it that its library removed (AF311's `numpy.float` → `float`), not a rename (AF310's).
bool isBuiltinAliasTarget(std::string_view name);
std::optional<RenameRowProblem> validateRenameRow(const RenameRow &row);

} // namespace asyncfix::rules
