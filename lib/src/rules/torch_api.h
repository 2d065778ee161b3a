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
#include <vector>

#include "analysis/name_origins.h"
#include "rules/rule.h"

namespace asyncfix::rules {

/// How sure a rule is that an expression denotes a library's name.
enum class Resolved : std::uint8_t {
  No,     ///< something else, or unknown
  Star,   ///< spelt without a binding in scope, and a star import of the library (`from torch
          ///< import *`) may provide it: reported without a fix (the file does not show it is)
  Proven, ///< through the file's imports: safe fixes
};

/// The file's NameOrigins, kept in the Context (its memos live as long as the lint of the file).
NameOrigins &torchOrigins(Context &ctx);

/// Whether `expression` denotes `path` ("torch.nn.functional.sigmoid"). A name the file never
/// binds in scope (`softmax`, `transforms.Scale`) is Star when a module-level `from M import *`
/// of the path's package makes `M.<written>` the path; a star import of another module alone
/// (`from mylib import *`) makes nothing PyTorch's.
Resolved resolvesTo(TSNode expression, std::string_view path, Context &ctx);
/// The dotted path `expression` denotes: through the file's imports (Proven), or, spelt without a
/// binding, as written (Star: a star import may provide it; resolvesTo() says whether one does,
/// and which path it makes it); No when it is not a path.
struct ResolvedPath {
  std::string path;
  Resolved how = Resolved::No;
};
ResolvedPath resolvedPath(TSNode expression, Context &ctx);

/// The module of the star import through which `expression` (a name the file never binds, or an
/// attribute chain from one) may denote `path`: "torch.nn.functional" for `softmax` and
/// "torch.nn.functional.softmax" after `from torch.nn.functional import *`; "" when none.
std::string_view starImportFor(TSNode expression, std::string_view path, Context &ctx);

/// How a test over names (torchNameWhere) held: with the file's imports alone (Proven), or only
/// once names spelt without a binding may come from the file's star imports (Star: `written`
/// is the first such name the test went through, `module` its star import's module).
struct Provenance {
  Resolved how = Resolved::No;
  std::string_view module, written;
};

/// Runs `test` with names resolved through the file's imports alone, then, when it fails after
/// consulting a name the file binds nowhere and the file has star imports of the family's
/// packages, once more with torchNameWhere() also taking such a name as each star import's. A
/// rule whose test passes only the second time reports without a fix (starMessage).
template <class F> Provenance provenOrStar(Context &ctx, F &&test);

/// Whether the dotted name `expression` denotes through the file's imports (Receivers::
/// qualifiedName: a name the file does not bind stands for itself) satisfies `wanted`; inside
/// provenOrStar's second run, also whether `M.<written>` does for a star import `from M import *`
/// of torch, torchvision, NumPy or SciPy, when the name is bound nowhere in scope.
template <class P> bool torchNameWhere(TSNode expression, Context &ctx, P &&wanted);

/// The start of the message of a finding through a star import: "`softmax` may be
/// torch.nn.functional's through `from torch.nn.functional import *` (no fix: the file does not
/// show where the name comes from); ".
std::string starMessage(std::string_view written, std::string_view module);
/// starMessage() for `expression`, which resolvesTo() found to denote `path` through a star import.
std::string starMessageFor(TSNode expression, std::string_view path, Context &ctx);

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

// ---- implementation of the templates ----
namespace detail {
/// Starts provenOrStar's first run.
void beginProvenRun(Context &ctx);
/// Starts its second run: false when the first consulted no name bound nowhere, or the file has
/// no star import of the family.
bool beginStarRun(Context &ctx);
/// Ends it: how the test went.
Provenance endStarRun(Context &ctx, bool held);
/// The star candidates of `expression` when a star run is on: "M.<written>" for each star import.
std::vector<std::string> starCandidates(TSNode expression, Context &ctx);
/// Notes that the test went through `expression`, as `path`.
void usedStar(TSNode expression, std::string_view path, Context &ctx);
std::string qualifiedName(TSNode expression, Context &ctx);
} // namespace detail

template <class F> Provenance provenOrStar(Context &ctx, F &&test) {
  detail::beginProvenRun(ctx);
  if (test()) return {Resolved::Proven, {}, {}};
  if (!detail::beginStarRun(ctx)) return {};
  const bool held = test();
  return detail::endStarRun(ctx, held);
}

template <class P> bool torchNameWhere(TSNode expression, Context &ctx, P &&wanted) {
  if (ts_node_is_null(expression)) return false;
  if (wanted(std::string_view(detail::qualifiedName(expression, ctx)))) return true;
  for (const std::string &candidate : detail::starCandidates(expression, ctx))
    if (wanted(std::string_view(candidate))) {
      detail::usedStar(expression, candidate, ctx);
      return true;
    }
  return false;
}

} // namespace asyncfix::rules
