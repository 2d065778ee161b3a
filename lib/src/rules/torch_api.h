// rules/torch_api.h — what the PyTorch-migration rules (AF3xx) share: what an expression denotes
// through the file's imports (name_origins.h, one per file in the Context), whether the file uses
// PyTorch at all, and small readers of calls and their arguments.
//
// Every AF3xx rule reports only on a node that holds, in code, the start of one of its words
// (text/torch_words.h): the pruned walk enters nothing else. Each rule therefore checks that the
// token it matched starts a word (startsTorchWord) before it reports, so that a node the walk
// entered for another rule's mark never gives a finding that a fresh lint would not.
#pragma once

#include <tree_sitter/api.h>

#include <optional>
#include <string>
#include <string_view>

#include "analysis/name_origins.h"
#include "rules/rule.h"

namespace asyncfix::rules {

/// How sure a rule is that an expression denotes a library's name.
enum class Resolved : std::uint8_t {
  No,     ///< something else, or unknown
  Guess,  ///< spelt like it, through a star import or a name the file never binds: unsafe fixes
  Proven, ///< through the file's imports: safe fixes
};

/// The file's NameOrigins, kept in the Context (its memos live as long as the lint of the file).
NameOrigins &torchOrigins(Context &ctx);

/// Whether `expression` denotes `path` ("torch.nn.functional.sigmoid"). A path the file spells
/// without binding its first name (`F.sigmoid` with no `F` bound) is a guess when the file imports
/// the path's package (a star import, or a name bound outside the file's view).
Resolved resolvesTo(TSNode expression, std::string_view path, Context &ctx);
/// The dotted path `expression` denotes and whether it is a guess (see resolvesTo); nullopt when
/// it is not a path.
struct ResolvedPath {
  std::string path;
  Resolved how = Resolved::No;
};
ResolvedPath resolvedPath(TSNode expression, Context &ctx);

/// Whether the file imports `package` (`import torch`, `from torch import nn`, a star import).
bool fileImports(std::string_view package, Context &ctx);

/// Whether every binding of `name` in the file is `import name` (a module-level one among them),
/// so that `name.attr` written anywhere in the file denotes the module's attribute.
bool namesModuleEverywhere(std::string_view name, Context &ctx);

/// Whether the file binds `name` anywhere (an assignment, a parameter, a definition, an import):
/// the builtin of that name may then be shadowed where a fix would write it.
bool bindsName(std::string_view name, Context &ctx);

/// Whether the file defines a function or method `function` with a parameter `parameter` (a
/// class of its own whose `cuda(device_id=…)` is no PyTorch call).
bool definesParameter(std::string_view function, std::string_view parameter, Context &ctx);

/// Whether `expression` is the callee of a call (`F.sigmoid(x)`, not `fns = [F.sigmoid]`): a
/// deprecated function that is only referred to may be kept on purpose (a table of functions).
bool isCalled(TSNode expression, Context &ctx);

/// Whether the root name of `expression` (`_utils` in `_utils.symeig`) is bound by an import:
/// then it is some module's name, even where the import does not resolve (a relative import).
bool rootBoundByImport(TSNode expression, Context &ctx);

/// The keyword argument `name=…` in argument list `args` (null when absent).
TSNode keywordArgument(TSNode args, std::string_view name, std::string_view text);
/// Whether `args` passes `**mapping` (which may hold any keyword).
bool hasDictionarySplat(TSNode args);
/// `True`/`False` as a literal (nullopt for anything else).
std::optional<bool> literalBool(TSNode value, std::string_view text);

/// The call whose argument list is `args` (null when `args` is no argument list of a call).
TSNode callOfArguments(TSNode args, Context &ctx);

} // namespace asyncfix::rules
