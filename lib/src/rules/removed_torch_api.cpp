// AF316 removed-torch-api — PyTorch and SciPy functions and modules removed without a 1:1
// successor: the old linear algebra, `torch.utils.serialization`/`ffi`, `torch.legacy`,
// `scipy.misc`'s image functions. Reported with what to write; never fixed.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "rules/torch_api.h"
#include "rules/torch_rule_data.h"
#include "text/syntax.h"
#include "text/torch_words.h"

namespace asyncfix::rules {

extern const RuleInfo kRemovedTorchApi;
const RuleInfo kRemovedTorchApi{"AF316",
                                "removed-torch-api",
                                "A PyTorch or SciPy function or module that was removed: what to write instead",
                                R"(## What it does
Flags uses of functions and modules that PyTorch and SciPy removed without a drop-in successor,
resolved through the file's imports (`torch.gesv(…)`, `from torch.utils.serialization import
load_lua`, `scipy.misc.imread(…)`, `from scipy.misc import imresize`), and the tensor methods of
the removed linear algebra with distinctive names (`A.potrf()`, `b.gesv(A)`, `A.symeig()`) in a
file that imports torch. Functions are flagged where they are called (`add_docstr(torch.symeig,
…)` in PyTorch's own sources refers to it on purpose), modules wherever they are named; a method
call on a name bound by an import (`_utils.symeig(M)`, a module's own function) is not a tensor
method. The message says what to write and what changes on the way.

| old | use instead | what changes | status |
|---|---|---|---|
| `torch.gesv(B, A)` | `torch.linalg.solve(A, B)` | arguments swap; returns the solution only, not `(X, LU)` | deprecated in PyTorch 1.0, gone by 1.13 |
| `torch.potrf(A, upper=True)` | `torch.linalg.cholesky(A)` | returns the lower factor `L`; `potrf`'s default was the upper one (`L.mH`) | deprecated in 1.0, gone by 1.13 |
| `torch.trtrs(b, A)` | `torch.linalg.solve_triangular(A, b, upper=True)` | arguments swap; `upper` is required; returns the solution only | deprecated in 1.0, gone by 1.13 |
| `torch.gels(B, A)` | `torch.linalg.lstsq(A, B).solution` | arguments swap; a named tuple; the solution has `n` rows, not `max(m, n)` | deprecated in 1.0, gone by 1.13 |
| `torch.symeig(A, eigenvectors)` | `torch.linalg.eigh(A, UPLO="U")` (`eigvalsh` for values only) | `symeig` read the upper triangle by default, `eigh` reads the lower one | deprecated in 1.9, a warning on 1.13, removed in 2.0 |
| `torch.eig(A, eigenvectors)` | `torch.linalg.eig(A)` (`eigvals` for values only) | complex eigenvalues in a complex tensor, not an `(n, 2)` real one | deprecated in 1.9, a `RuntimeError` since 1.13 |
| `torch.solve(B, A)` | `torch.linalg.solve(A, B)` | arguments swap; returns the solution only, not `(X, LU)` | deprecated in 1.9, a `RuntimeError` since 1.13 |
| `torch.lstsq(B, A)` | `torch.linalg.lstsq(A, B).solution` | arguments swap; the solution has `n` rows, not `max(m, n)` | deprecated in 1.9, a `RuntimeError` since 1.13 |
| `torch.matrix_rank(A, symmetric)` | `torch.linalg.matrix_rank(A, hermitian=…)` | `symmetric=` is `hermitian=` | deprecated in 1.9, a `RuntimeError` since 1.13 |
| `torch.utils.serialization` (`load_lua`) | the `torchfile` package to read Lua Torch `.t7` files | no PyTorch replacement | removed in PyTorch 1.0 |
| `torch.utils.ffi` | C++ extensions (`torch.utils.cpp_extension`) | a rewrite of the binding | removed in PyTorch 1.0 |
| `torch.legacy` | `torch.nn` | a rewrite of the model | removed in PyTorch 1.0 |
| `scipy.misc.imread` | `imageio.v2.imread(path)` or `numpy.asarray(PIL.Image.open(path))` | | removed in SciPy 1.2 |
| `scipy.misc.imsave` | `imageio.imwrite(path, a)` or `PIL.Image.fromarray(a).save(path)` | | removed in SciPy 1.2 |
| `scipy.misc.imresize(a, (h, w))` | `numpy.asarray(PIL.Image.fromarray(a).resize((w, h)))` | PIL takes `(width, height)`; `imresize` also rescaled values to bytes | removed in SciPy 1.3 |

## Why is this bad?
On today's PyTorch and SciPy these names are an `AttributeError` or `ImportError` (or, for
`torch.eig`, `solve`, `lstsq` and `matrix_rank` on PyTorch 1.13–1.x, a `RuntimeError` that
says the function "is now removed"): the program stops where it first uses one. `torch.symeig`
still runs on PyTorch 1.13 with a warning and is gone in 2.0.

## Example
```python
X, LU = torch.gesv(B, A)
image = scipy.misc.imread(path)
```

## Use instead
```python
X = torch.linalg.solve(A, B)
image = imageio.v2.imread(path)
```

## Fix safety
No automatic fix: each replacement changes the argument order, the return value or the
numbers (`symeig`'s triangle, `imresize`'s rescaling), and the code around the call must follow.

## Options
The table is data: more rows go in `[tool.asyncfix.renames]` (see docs/configuration.md, "The
renames table") as `api` rows with `message` instead of `new`:
`api = [{ old = "mylib.ops.old_solve", message = "use `mylib.ops.solve(A, B)`: the arguments swap" }]`.
A row of the configuration wins over a built-in one; its name is flagged wherever the file uses
it (an attribute path or a `from … import`), called or not, with its message. A called name that
only a star import may provide (`gesv(b, A)` after `from torch import *`, `imread(p)` after
`from scipy.misc import *`) is reported with the star import named.
)",
                                FixAvailability::None,
                                true};

namespace {

struct Removed {
  std::string_view path;
  std::string_view message;
  bool module = false;
};

constexpr std::array<Removed, 15> kRemoved{{
    {"torch.gesv",
     "`torch.gesv` was removed (deprecated in PyTorch 1.0): use `torch.linalg.solve(A, B)` — the arguments swap "
     "(`gesv(B, A)`) and it returns the solution only, not `(X, LU)`"},
    {"torch.potrf",
     "`torch.potrf` was removed (deprecated in PyTorch 1.0): use `torch.linalg.cholesky(A)`, which returns the lower "
     "factor `L` (`potrf`'s default was the upper one: `L.mH`)"},
    {"torch.trtrs",
     "`torch.trtrs` was removed (deprecated in PyTorch 1.0): use `torch.linalg.solve_triangular(A, b, upper=True)` — "
     "the arguments swap (`trtrs(b, A)`), `upper` is required, and it returns the solution only"},
    {"torch.gels",
     "`torch.gels` was removed (deprecated in PyTorch 1.0): use `torch.linalg.lstsq(A, B).solution` — the arguments "
     "swap (`gels(B, A)`) and the solution has `n` rows, not `max(m, n)`"},
    {"torch.symeig",
     "`torch.symeig` is deprecated since PyTorch 1.9 and removed in 2.0: use `torch.linalg.eigh(A, UPLO='U')` "
     "(`torch.linalg.eigvalsh` for eigenvalues only) — `symeig` read the upper triangle by default, `eigh` the lower"},
    {"torch.eig",
     "`torch.eig` is a RuntimeError since PyTorch 1.13 (deprecated in 1.9): use `torch.linalg.eig(A)` "
     "(`torch.linalg.eigvals` for eigenvalues only) — eigenvalues come as a complex tensor, not an (n, 2) real one"},
    {"torch.solve",
     "`torch.solve` is a RuntimeError since PyTorch 1.13 (deprecated in 1.9): use `torch.linalg.solve(A, B)` — the "
     "arguments swap (`solve(B, A)`) and it returns the solution only, not `(X, LU)`"},
    {"torch.lstsq",
     "`torch.lstsq` is a RuntimeError since PyTorch 1.13 (deprecated in 1.9): use `torch.linalg.lstsq(A, B).solution` "
     "— the arguments swap (`lstsq(B, A)`) and the solution has `n` rows, not `max(m, n)`"},
    {"torch.matrix_rank", "`torch.matrix_rank` is a RuntimeError since PyTorch 1.13 (deprecated in 1.9): use "
                          "`torch.linalg.matrix_rank(A)` (`symmetric=` is `hermitian=`)"},
    {"torch.utils.serialization",
     "`torch.utils.serialization` (`load_lua`) was removed in PyTorch 1.0: read Lua Torch `.t7` files with the "
     "`torchfile` package",
     true},
    {"torch.utils.ffi",
     "`torch.utils.ffi` was removed in PyTorch 1.0: build the extension with `torch.utils.cpp_extension`", true},
    {"torch.legacy", "`torch.legacy` (Lua Torch's `nn`) was removed in PyTorch 1.0: rewrite the model with `torch.nn`",
     true},
    {"scipy.misc.imread", "`scipy.misc.imread` was removed in SciPy 1.2: use `imageio.v2.imread(path)` or "
                          "`numpy.asarray(PIL.Image.open(path))`"},
    {"scipy.misc.imsave", "`scipy.misc.imsave` was removed in SciPy 1.2: use `imageio.imwrite(path, a)` or "
                          "`PIL.Image.fromarray(a).save(path)`"},
    {"scipy.misc.imresize",
     "`scipy.misc.imresize` was removed in SciPy 1.3: use `numpy.asarray(PIL.Image.fromarray(a).resize((w, h)))` — "
     "PIL takes (width, height), and `imresize` also rescaled the values to bytes"},
}};

/// The row for `path`: a function's exact path, or a removed module it lies in.
const Removed *rowFor(std::string_view path) {
  for (const Removed &r : kRemoved)
    if (path == r.path ||
        (r.module && path.starts_with(r.path) && path.size() > r.path.size() && path[r.path.size()] == '.'))
      return &r;
  return nullptr;
}

/// The user's rows (`[tool.asyncfix.renames] api` with `message`), made once per file; the
/// views in `rows` point into `owned` and into the Config, which outlive the lint.
struct UserRows {
  std::vector<std::string> messages;
  std::vector<Removed> rows;
};
constexpr char kUserRowsKey = 0;
const std::vector<Removed> &userRows(Context &ctx) {
  UserRows &u = ctx.state<UserRows>(&kUserRowsKey);
  if (u.messages.empty() && u.rows.empty()) {
    for (const RenameRow &r : ctx.config().renames)
      if (r.kind == RenameRow::Kind::Api && r.replacement.empty() && !r.message.empty())
        u.messages.push_back("`" + r.old + "` was removed (a row of `[tool.asyncfix.renames] api`): " + r.message);
    std::size_t i = 0;
    for (const RenameRow &r : ctx.config().renames)
      if (r.kind == RenameRow::Kind::Api && r.replacement.empty() && !r.message.empty())
        u.rows.push_back({r.old, u.messages[i++], false});
  }
  return u.rows;
}

/// The user's row for `path` (they win over the built-in ones), or nullptr.
const Removed *userRowFor(std::string_view path, Context &ctx) {
  for (const Removed &r : userRows(ctx))
    if (r.path == path) return &r;
  return nullptr;
}

/// Whether `name` is the last name of one of the user's rows: a word the linter marks for them.
bool isUserWord(std::string_view name, Context &ctx) {
  for (const Removed &r : userRows(ctx))
    if (r.path.size() > name.size() && r.path.ends_with(name) && r.path[r.path.size() - name.size() - 1] == '.')
      return true;
  return false;
}

/// The linear-algebra rows whose name is distinctive enough to flag as a tensor method.
const Removed *methodRow(std::string_view name) {
  for (std::string_view m : kRemovedMethods)
    if (name == m) return rowFor("torch." + std::string(m));
  return nullptr;
}

std::string_view lastComponent(std::string_view path) { return path.substr(path.rfind('.') + 1); }

class RemovedTorchApi final : public Rule {
public:
  const RuleInfo &info() const override { return kRemovedTorchApi; }
  unsigned triggers() const override { return kTriggerTorchApi; }
  std::vector<TSSymbol> subscriptions() const override {
    const Kinds &k = Kinds::get();
    std::vector<TSSymbol> kinds = k.identifier;
    kinds.insert(kinds.end(), {k.attribute, k.importStatement, k.importFromStatement});
    return kinds;
  }

  void check(TSNode node, Context &ctx) const override {
    if (ctx.insideError()) return;
    const Kinds &k = Kinds::get();
    const TSSymbol s = ts_node_symbol(node);
    if (s == k.attribute) return checkAttribute(node, ctx);
    if (s == k.importStatement) return checkImport(node, ctx);
    if (s == k.importFromStatement) return checkFromImport(node, ctx);
    checkName(node, ctx);
  }

private:
  static bool wordAt(TSNode node, std::string_view text) {
    return !ts_node_is_null(node) && startsTorchWord(text, ts_node_start_byte(node));
  }

  static void report(Context &ctx, TSNode node, const Removed &row) {
    ctx.report(makeDiagnostic(kRemovedTorchApi, Severity::Warning, node, std::string(row.message)));
  }

  /// `torch.gesv`, `scipy.misc.imread`, `torch.utils.serialization`, `A.potrf`.
  static void checkAttribute(TSNode node, Context &ctx) {
    const std::string_view text = ctx.text();
    const TSNode name = field(node, "attribute"), object = field(node, "object");
    const std::string_view attribute = textOf(name, text);
    const TSNode objectName = symbolOf(object) == Kinds::get().attribute ? field(object, "attribute") : object;
    // The word: the name (`symeig`), or starting at the object's last name (`misc.imread`,
    // `torch.eig`, `torch.legacy`, `torch.utils.serialization` from its `torch`).
    const bool userWord = isUserWord(attribute, ctx);
    if (!userWord && !wordAt(name, text) && !wordAt(objectName, text) && !wordAt(node, text)) return;
    const ResolvedPath path = resolvedPath(node, ctx);
    if (path.how == Resolved::Proven && userWord) {
      if (const Removed *row = userRowFor(path.path, ctx)) return report(ctx, node, *row);
    }
    if (path.how == Resolved::Proven) {
      const Removed *row = rowFor(path.path);
      // A module row once, at its own path (not again at `torch.legacy.nn`); a function where it
      // is called (a table of functions may list it on purpose, as PyTorch's own do).
      if (row && (row->module ? path.path == row->path : isCalled(node, ctx))) report(ctx, node, *row);
      return;
    }
    // A method of something the file does not resolve (a tensor): `A.potrf()`. (Spelt like a
    // removed function after a star import, `symeig(A)`, is checkName's.)
    const Removed *row = methodRow(attribute);
    if (row && wordAt(name, text) && isCalled(node, ctx) && !rootBoundByImport(object, ctx) &&
        fileImports("torch", ctx))
      report(ctx, name, *row);
  }

  /// `gesv(b, A)` after `from torch import *`, `imread(path)` after `from scipy.misc import *`:
  /// a called name the file binds nowhere, which the star import may provide. Reported with the
  /// star import named; the rule makes no fix anyway.
  static void checkName(TSNode node, Context &ctx) {
    const std::string_view text = ctx.text();
    const std::string_view written = textOf(node, text);
    // Spelt as no row's function first (a word of the rule is looked up in a table; asking the
    // model walks the statement).
    const bool userWord = isUserWord(written, ctx);
    const auto spelt = [&](const Removed &row) { return !row.module && lastComponent(row.path) == written; };
    if (!userWord && (std::none_of(kRemoved.begin(), kRemoved.end(), spelt) || !wordAt(node, text))) return;
    const NameUse *use = ctx.semantic().nameAt(ts_node_start_byte(node));
    if (!use || use->role != NameRole::Reference || !isCalled(node, ctx)) return;
    const auto star = [&](const Removed &row) {
      if (row.module || lastComponent(row.path) != written || resolvesTo(node, row.path, ctx) != Resolved::Star)
        return false;
      ctx.report(makeDiagnostic(kRemovedTorchApi, Severity::Warning, node,
                                starMessageFor(node, row.path, ctx) + std::string(row.message)));
      return true;
    };
    if (userWord)
      for (const Removed &row : userRows(ctx))
        if (star(row)) return;
    if (!wordAt(node, text)) return;
    for (const Removed &row : kRemoved)
      if (star(row)) return;
  }

  /// `import torch.utils.serialization`, `import torch.legacy.nn as lnn`.
  static void checkImport(TSNode node, Context &ctx) {
    const std::string_view text = ctx.text();
    const Kinds &k = Kinds::get();
    for (std::uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
      TSNode child = ts_node_named_child(node, i);
      if (symbolOf(child) == k.aliasedImport) child = field(child, "name");
      if (symbolOf(child) != k.dottedName || !wordAt(child, text)) continue;
      if (const Removed *row = rowFor(textOf(child, text)); row && row->module) report(ctx, child, *row);
    }
  }

  /// `from torch.utils.ffi import create_extension`, `from scipy.misc import imread`,
  /// `from torch import symeig`.
  static void checkFromImport(TSNode node, Context &ctx) {
    const std::string_view text = ctx.text();
    const Kinds &k = Kinds::get();
    const TSNode module = field(node, "module_name");
    if (symbolOf(module) != k.dottedName) return;
    const std::string_view modulePath = textOf(module, text);
    if (const Removed *row = rowFor(modulePath); row && row->module) {
      if (wordAt(module, text)) report(ctx, module, *row);
      return;
    }
    for (std::uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
      TSNode child = ts_node_named_child(node, i);
      if (ts_node_eq(child, module)) continue;
      if (symbolOf(child) == k.aliasedImport) child = field(child, "name");
      if (symbolOf(child) != k.dottedName) continue;
      const std::string path = std::string(modulePath) + "." + std::string(textOf(child, text));
      if (const Removed *user = userRowFor(path, ctx)) {
        report(ctx, child, *user);
        continue;
      }
      const Removed *row = rowFor(path);
      if (!row || row->module || (!wordAt(child, text) && !wordAt(module, text))) continue;
      if (lastComponent(row->path) == textOf(child, text)) report(ctx, child, *row);
    }
  }
};

} // namespace

std::unique_ptr<Rule> makeRemovedTorchApi() { return std::make_unique<RemovedTorchApi>(); }

} // namespace asyncfix::rules
