// AF310 renamed-torch-api — PyTorch and torchvision names with a 1:1 successor
// (`transforms.Scale` → `transforms.Resize`, `init.xavier_uniform` → `init.xavier_uniform_`).
#include "config/torch_rename_table.h"
#include "rules/edits.h"
#include "rules/torch_api.h"
#include "text/syntax.h"
#include "text/torch_words.h"

namespace asyncfix::rules {

extern const RuleInfo kRenamedTorchApi;
const RuleInfo kRenamedTorchApi{"AF310",
                                "renamed-torch-api",
                                "A PyTorch or torchvision name that was renamed or removed with a 1:1 successor",
                                R"(## What it does
Flags names that PyTorch and torchvision replaced by another name doing the same thing, written
as an attribute path that resolves to the library through the file's imports
(`transforms.Scale` after `from torchvision import transforms`, `nn.init.xavier_uniform`,
`F.sigmoid` after `import torch.nn.functional as F`), imported by name
(`from torchvision.transforms import Scale`), or used by name after a star import.

| old | new | what happened |
|---|---|---|
| `torchvision.transforms.Scale` | `torchvision.transforms.Resize` | deprecated in torchvision 0.2.0, removed in 0.12 |
| `torchvision.transforms.RandomSizedCrop` | `torchvision.transforms.RandomResizedCrop` | deprecated in torchvision 0.2.0, removed in 0.12 |
| `torch.nn.init.uniform`, `normal`, `constant`, `eye`, `dirac`, `xavier_uniform`, `xavier_normal`, `kaiming_uniform`, `kaiming_normal`, `orthogonal`, `sparse` | the same name with a trailing `_` | deprecated in PyTorch 0.4.0 |
| `torch.nn.utils.clip_grad_norm` | `torch.nn.utils.clip_grad_norm_` | deprecated in PyTorch 0.4.0 |
| `torch.nn.functional.sigmoid`, `torch.nn.functional.tanh` | `torch.sigmoid`, `torch.tanh` | deprecated in PyTorch 0.4.1 |

(`clip_grad_value_` was born with its `_` in PyTorch 0.4.0: there is no old name to rename.)

## Why is this bad?
On torchvision ≥ 0.12, `transforms.Scale` is an `AttributeError`: the script dies while it
builds its data pipeline. The other names still work on PyTorch 1.13 and 2.x but print a
`UserWarning` at every call (`nn.init.xavier_uniform is now deprecated in favor of
nn.init.xavier_uniform_`), and a test suite that turns warnings into errors fails.

## Example
```python
import torch.nn.functional as F
from torch import nn
from torchvision import transforms

t = transforms.Compose([transforms.Scale(256), transforms.RandomSizedCrop(224)])
nn.init.xavier_uniform(layer.weight)
y = F.sigmoid(x)
```

## Use instead
```python
import torch.nn.functional as F
from torch import nn
from torchvision import transforms

t = transforms.Compose([transforms.Resize(256), transforms.RandomResizedCrop(224)])
nn.init.xavier_uniform_(layer.weight)
y = torch.sigmoid(x)
```

## Fix safety
Each new name computes exactly what the old one did (the old ones are thin wrappers that warn
and call the new one), so the fix is safe where the path resolves to PyTorch or torchvision
through the file's imports. `from torchvision.transforms import Scale` becomes
`from torchvision.transforms import Resize as Scale` (the uses keep their name). A name used after
a star import (`from torchvision.transforms import *`, then `Scale(256)`) is only spelt like the
library's: its fix is unsafe. `F.sigmoid` becomes `torch.sigmoid` only when every binding of
`torch` in the file is `import torch` (one at module level); otherwise, and for
`from torch.nn.functional import sigmoid`, the finding has no fix. A name that resolves elsewhere
(`from mylib import Scale`, a local `F`) is not flagged.

A name that still exists (all but the torchvision rows) is flagged where it is called: a
reference such as `ignored = [F.sigmoid, nn.init.uniform]` may be a table of functions that
means the old ones (PyTorch's own `torch/overrides.py` is one).

The generic initialiser names (`uniform`, `normal`, `constant`, `eye`, `dirac`, `orthogonal`,
`sparse`) are found as `init.NAME` and in `from torch.nn.init import NAME`; the others also by
name.

## Options
More rows go in `[tool.asyncfix.renames]` (see docs/configuration.md, "The renames table"), for
other names with a 1:1 successor:
`api = [{ old = "mylib.models.build_net", new = "mylib.models.make_net" }]`. A row of the
configuration wins over a built-in one; its name is flagged wherever it is used, called or not.
)",
                                FixAvailability::Sometimes,
                                true};

namespace {

std::string_view lastComponent(std::string_view path) { return path.substr(path.rfind('.') + 1); }
std::string_view parentOf(std::string_view path) {
  const std::size_t dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string_view{} : path.substr(0, dot);
}

/// Whether a word of torch_words.h starts at `node` (null: no).
bool wordAt(TSNode node, std::string_view text) {
  return !ts_node_is_null(node) && startsTorchWord(text, ts_node_start_byte(node));
}

constexpr std::string_view kUserStatus = "renamed (a row of `[tool.asyncfix.renames] api`)";

/// The user's rows (`[tool.asyncfix.renames] api`, first: they win) and the built-in ones.
std::vector<TorchRename> rowsOf(const Config &config) {
  std::vector<TorchRename> rows;
  for (const RenameRow &r : config.renames)
    if (r.kind == RenameRow::Kind::Api && !r.replacement.empty()) // not a removal (AF316's)
      rows.push_back({r.old, r.replacement, kUserStatus, r.source});
  const std::span<const TorchRename> builtin = torchRenames();
  rows.insert(rows.end(), builtin.begin(), builtin.end());
  return rows;
}

/// The row whose old path is `path` (nullptr when none).
const TorchRename *rowOf(const std::vector<TorchRename> &rows, std::string_view path) {
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const TorchRename &r) { return r.old == path; });
  return it == rows.end() ? nullptr : &*it;
}

/// Whether some row's old path ends with the component `name`.
bool endsSomeRow(const std::vector<TorchRename> &rows, std::string_view name) {
  return std::any_of(rows.begin(), rows.end(), [&](const TorchRename &r) {
    return r.old.size() > name.size() && r.old.ends_with(name) && r.old[r.old.size() - name.size() - 1] == '.';
  });
}

/// Whether `name` (a whole identifier) is the last name of one of the user's rows: a word the
/// linter marks for them (Linter::Impl::apiWords).
bool isUserWord(const Config &config, std::string_view name) {
  return std::any_of(config.renames.begin(), config.renames.end(), [&](const RenameRow &r) {
    return r.kind == RenameRow::Kind::Api && !r.replacement.empty() && r.old.size() > name.size() &&
           r.old.ends_with(name) && r.old[r.old.size() - name.size() - 1] == '.';
  });
}

std::string message(const TorchRename &row, std::string_view written) {
  std::string m = "`";
  m.append(written).append("` is ").append(row.status).append(": use `").append(row.replacement).append("`");
  return m;
}

/// The rows, made once per file (the Config's rows live as long as the lint).
struct Rows {
  std::optional<std::vector<TorchRename>> rows;
};
constexpr char kRowsKey = 0;
const std::vector<TorchRename> &rows(Context &ctx) {
  Rows &r = ctx.state<Rows>(&kRowsKey);
  if (!r.rows) r.rows = rowsOf(ctx.config());
  return *r.rows;
}

class RenamedTorchApi final : public Rule {
public:
  const RuleInfo &info() const override { return kRenamedTorchApi; }
  unsigned triggers() const override { return kTriggerTorchApi; }
  std::vector<TSSymbol> subscriptions() const override {
    const Kinds &k = Kinds::get();
    std::vector<TSSymbol> kinds = k.identifier;
    kinds.push_back(k.attribute);
    kinds.push_back(k.importFromStatement);
    return kinds;
  }

  void check(TSNode node, Context &ctx) const override {
    if (ctx.insideError()) return;
    const Kinds &k = Kinds::get();
    const TSSymbol s = ts_node_symbol(node);
    if (s == k.attribute) return checkAttribute(node, ctx);
    if (s == k.importFromStatement) return checkImport(node, ctx);
    checkName(node, ctx);
  }

private:
  /// `transforms.Scale`, `nn.init.normal`, `F.sigmoid`.
  static void checkAttribute(TSNode node, Context &ctx) {
    const std::string_view text = ctx.text();
    const TSNode name = field(node, "attribute"), object = field(node, "object");
    if (!endsSomeRow(rows(ctx), textOf(name, text))) return;
    // The word is the name itself (`Scale`) or starts at the object's last name (`init.normal`).
    const TSNode objectName = symbolOf(object) == Kinds::get().attribute ? field(object, "attribute") : object;
    if (!wordAt(name, text) && !wordAt(objectName, text) && !isUserWord(ctx.config(), textOf(name, text))) return;
    const ResolvedPath path = resolvedPath(node, ctx);
    const TorchRename *row = path.how == Resolved::No ? nullptr : rowFor(node, path, ctx);
    if (!row || !(isCalled(node, ctx) || removed(*row))) return;
    Diagnostic d = makeDiagnostic(kRenamedTorchApi, Severity::Warning, node, message(*row, textOf(node, text)));
    const Resolved how = resolvesTo(node, row->old, ctx);
    const Applicability applicability = how == Resolved::Proven ? Applicability::Safe : Applicability::Unsafe;
    if (parentOf(row->old) == parentOf(row->replacement)) {
      d.fix = Fix{title(*row), applicability, {replaceNode(name, std::string(lastComponent(row->replacement)))}};
    } else if (const std::string_view module = row->replacement.substr(0, row->replacement.find('.'));
               namesModuleEverywhere(module, ctx)) {
      d.fix = Fix{title(*row), applicability, {replaceNode(node, std::string(row->replacement))}};
    }
    ctx.report(std::move(d));
  }

  /// A name used after a star import: `Scale(256)` after `from torchvision.transforms import *`.
  static void checkName(TSNode node, Context &ctx) {
    const std::string_view text = ctx.text();
    const std::string_view written = textOf(node, text);
    if (!endsSomeRow(rows(ctx), written) || !(wordAt(node, text) || isUserWord(ctx.config(), written))) return;
    const NameUse *use = ctx.semantic().nameAt(ts_node_start_byte(node));
    if (!use || use->role != NameRole::Reference) return; // imports are checkImport's
    const ResolvedPath path = resolvedPath(node, ctx);
    if (path.how != Resolved::Guess) return; // names imported by name are reported at the import
    const TorchRename *row = rowFor(node, path, ctx);
    if (!row || parentOf(row->old) != parentOf(row->replacement) || !(isCalled(node, ctx) || removed(*row))) return;
    Diagnostic d = makeDiagnostic(kRenamedTorchApi, Severity::Warning, node, message(*row, written));
    d.fix = Fix{title(*row) + " (the name is not resolved to the library through this file's imports)",
                Applicability::Unsafe,
                {replaceNode(node, std::string(lastComponent(row->replacement)))}};
    ctx.report(std::move(d));
  }

  /// `from torchvision.transforms import Scale`, `from torch.nn.init import normal as n`.
  static void checkImport(TSNode node, Context &ctx) {
    const std::string_view text = ctx.text();
    const Kinds &k = Kinds::get();
    const TSNode module = field(node, "module_name");
    const std::string_view modulePath = textOf(module, text);
    if (symbolOf(module) != k.dottedName || modulePath.find_first_of(" \t\\(") != std::string_view::npos) return;
    for (std::uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
      const TSNode child = ts_node_named_child(node, i);
      if (ts_node_eq(child, module)) continue;
      const bool aliased = symbolOf(child) == k.aliasedImport;
      const TSNode name = aliased ? field(child, "name") : child;
      if (symbolOf(name) != k.dottedName || ts_node_named_child_count(name) != 1) continue;
      const std::string path = std::string(modulePath) + "." + std::string(textOf(name, text));
      const TorchRename *row = rowOf(rows(ctx), path);
      if (!row || (!wordAt(name, text) && !wordAt(module, text) && !isUserWord(ctx.config(), textOf(name, text))))
        continue;
      Diagnostic d = makeDiagnostic(kRenamedTorchApi, Severity::Warning, name, message(*row, path));
      if (parentOf(row->old) == parentOf(row->replacement)) {
        std::string content(lastComponent(row->replacement));
        if (!aliased) content.append(" as ").append(textOf(name, text));
        d.fix = Fix{title(*row), Applicability::Safe, {replaceNode(name, std::move(content))}};
      }
      ctx.report(std::move(d));
    }
  }

  /// The row for a resolved path: the path itself, or (a guess) the row whose old path ends with it.
  static const TorchRename *rowFor(TSNode node, const ResolvedPath &path, Context &ctx) {
    if (path.how == Resolved::Proven) return rowOf(rows(ctx), path.path);
    for (const TorchRename &row : rows(ctx))
      if (resolvesTo(node, row.old, ctx) == Resolved::Guess) return &row;
    return nullptr;
  }

  /// A name the library no longer has (any use of it fails), not one it still keeps with a
  /// warning (only a call is reported: a table of functions may refer to it on purpose).
  static bool removed(const TorchRename &row) {
    return row.status.find("removed") != std::string_view::npos || row.status == kUserStatus;
  }

  static std::string title(const TorchRename &row) {
    const bool moved = parentOf(row.old) != parentOf(row.replacement);
    return "Replace with `" + std::string(moved ? row.replacement : lastComponent(row.replacement)) + "`";
  }
};

} // namespace

std::unique_ptr<Rule> makeRenamedTorchApi() { return std::make_unique<RenamedTorchApi>(); }

} // namespace asyncfix::rules
