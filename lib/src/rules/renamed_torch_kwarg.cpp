// AF312 renamed-torch-kwarg — keyword arguments PyTorch 0.4 renamed: `retain_variables=` of
// `backward`, `device_id=` of `cuda`.
#include <array>

#include "config/rename_table.h"
#include "rules/edits.h"
#include "rules/torch_api.h"
#include "text/syntax.h"
#include "text/torch_words.h"

namespace asyncfix::rules {

extern const RuleInfo kRenamedTorchKwarg;
const RuleInfo kRenamedTorchKwarg{"AF312",
                                  "renamed-torch-kwarg",
                                  "`backward(retain_variables=…)` and `.cuda(device_id=…)`: keywords PyTorch renamed",
                                  R"(## What it does
Flags `retain_variables=` passed to `.backward(…)` (of a tensor or `Variable`) or to
`torch.autograd.backward(…)`, and `device_id=` passed to `.cuda(…)` (of a tensor, `Variable` or
`nn.Module`), in a file that imports PyTorch.

## Why is this bad?
PyTorch 0.3's `Variable.backward` took `retain_variables`, deprecated in favour of
`retain_graph` since PyTorch 0.2; `Module.cuda(device_id=None)` and `Variable.cuda(device_id=None, async=False)`
named the GPU `device_id`. PyTorch 0.4 merged `Variable` into `Tensor` with the new names only:
on PyTorch 1.x and 2.x both are a `TypeError` (`Tensor.backward() got an unexpected keyword
argument 'retain_variables'`, `Module.cuda() got an unexpected keyword argument 'device_id'`).

## Example
```python
loss.backward(retain_variables=True)
model.cuda(device_id=0)
```

## Use instead
```python
loss.backward(retain_graph=True)
model.cuda(device=0)
```

## Fix safety
The fix renames the keyword, keeping its value: the new keyword means what the old one meant.
It is safe. It is not offered when the call already passes the new keyword. A file that
defines its own `backward(…, retain_variables=…)` or `cuda(…, device_id=…)` is left alone, and
so is a file that does not import torch.

## Options
The table is data: `asyncfix rule AF312` lists its rows. More go in `[tool.asyncfix.renames]`
(see docs/configuration.md, "The renames table"), as a `keyword` row whose `old` is not `async`
or `await` (those are AF203's):
`keyword = [{ callable = "mylib.Model.fit", old = "nb_epoch", new = "epochs" }]` flags
`nb_epoch=` passed to a `.fit(…)` method (the callable's last name) in a file that imports the
callable's package (its first name), or to a callee that resolves to the callable (`*` matches
one component, `**` any number), and renames it like the built-in rows. A row of the
configuration wins over a built-in one.

| callable | old | new | what happened |
|---|---|---|---|
| `torch.Tensor.backward`, `torch.autograd.backward` | `retain_variables` | `retain_graph` | renamed in PyTorch 0.2, removed in 0.4 |
| `torch.Tensor.cuda`, `torch.nn.Module.cuda` | `device_id` | `device` | PyTorch 0.4 |
)",
                                  FixAvailability::Sometimes,
                                  true};

namespace {

struct Rename {
  std::string_view old, replacement, method, since;
  std::string_view package = "torch"; ///< a file that does not import it has no such call
  std::string_view callable = {};     ///< a user row's path pattern, which a callee may resolve to
};
constexpr std::array<Rename, 2> kRenames{{
    {"retain_variables", "retain_graph", "backward", "renamed `retain_graph=` in PyTorch 0.2"},
    {"device_id", "device", "cuda", "`cuda()` takes `device=`"},
}};

class RenamedTorchKwarg final : public Rule {
public:
  const RuleInfo &info() const override { return kRenamedTorchKwarg; }
  unsigned triggers() const override { return kTriggerTorchApi; }
  std::vector<TSSymbol> subscriptions() const override { return {Kinds::get().keywordArgument}; }

  void check(TSNode node, Context &ctx) const override {
    if (ctx.insideError()) return;
    const std::string_view text = ctx.text();
    const TSNode name = field(node, "name");
    const std::string_view keyword = textOf(name, text);
    const std::optional<Rename> user = userRow(keyword, ctx);
    const Rename *r = user ? &*user : nullptr;
    if (!r) {
      const auto it = std::find_if(kRenames.begin(), kRenames.end(), [&](const Rename &x) { return x.old == keyword; });
      if (it == kRenames.end() || !startsTorchWord(text, ts_node_start_byte(name))) return;
      r = &*it;
    }
    const TSNode args = ctx.parentOf(node);
    const TSNode call = callOfArguments(args, ctx);
    if (ts_node_is_null(call)) return;
    const TSNode function = field(call, "function");
    const bool method =
        symbolOf(function) == Kinds::get().attribute && textOf(field(function, "attribute"), text) == r->method;
    const bool autogradBackward =
        !user && r->method == "backward" && resolvesTo(function, "torch.autograd.backward", ctx) == Resolved::Proven;
    const bool callable = user && resolvesToCallable(function, r->callable, ctx);
    if (!method && !autogradBackward && !callable) return;
    if (!fileImports(r->package, ctx) || definesParameter(r->method, r->old, ctx)) return;
    std::string message =
        user ? "`" + std::string(r->old) + "=` was renamed `" + std::string(r->replacement) +
                   "=` (a row of `[tool.asyncfix.renames] keyword`)"
             : "`" + std::string(r->old) + "=` is a TypeError since PyTorch 0.4 (" + std::string(r->since) + ")";
    Diagnostic d = makeDiagnostic(kRenamedTorchKwarg, Severity::Warning, name, std::move(message));
    if (ts_node_is_null(keywordArgument(args, r->replacement, text)))
      d.fix = Fix{"Replace `" + std::string(r->old) + "=` with `" + std::string(r->replacement) + "=`",
                  Applicability::Safe,
                  {replaceNode(name, std::string(r->replacement))}};
    ctx.report(std::move(d));
  }

private:
  /// The user's row for `keyword` (a `keyword` row of `[tool.asyncfix.renames]` that is not
  /// AF203's `async`/`await`), as a Rename whose views point into the Config.
  static std::optional<Rename> userRow(std::string_view keyword, Context &ctx) {
    for (const RenameRow &row : ctx.config().renames) {
      if (row.kind != RenameRow::Kind::Keyword || row.old != keyword || isAsyncOrAwait(row.old)) continue;
      const std::string_view owner = row.owner;
      return Rename{row.old, row.replacement, owner.substr(owner.rfind('.') + 1), {}, owner.substr(0, owner.find('.')),
                    owner};
    }
    return std::nullopt;
  }

  /// Whether `function` resolves, through the file's imports, to a path `pattern` matches.
  static bool resolvesToCallable(TSNode function, std::string_view pattern, Context &ctx) {
    const ResolvedPath path = resolvedPath(function, ctx);
    return path.how == Resolved::Proven && renamePathMatches(pattern, path.path);
  }
};

} // namespace

std::unique_ptr<Rule> makeRenamedTorchKwarg() { return std::make_unique<RenamedTorchKwarg>(); }

} // namespace asyncfix::rules
