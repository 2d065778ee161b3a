// AF311 numpy-removed-alias — `np.float`, `np.int` and the other aliases of builtins that NumPy
// 1.24 removed.
#include <array>
#include <utility>

#include "config/rename_table.h"
#include "rules/edits.h"
#include "rules/torch_api.h"
#include "text/syntax.h"
#include "text/torch_words.h"

namespace asyncfix::rules {

extern const RuleInfo kNumpyRemovedAlias;
const RuleInfo kNumpyRemovedAlias{"AF311",
                                  "numpy-removed-alias",
                                  "`np.float`, `np.int` and the other aliases of builtins that NumPy 1.24 removed",
                                  R"(## What it does
Flags `np.float`, `np.int`, `np.bool`, `np.object`, `np.str`, `np.complex`, `np.long` and
`np.unicode` (also spelt `numpy.float` …), where `np`/`numpy` resolves to NumPy through the
file's imports.

## Why is this bad?
They were aliases of Python's builtins (`np.float is float`; `np.long` and `np.unicode` of
Python 2's `long` and `unicode`, so `int` and `str`). NumPy 1.20 deprecated them and NumPy 1.24
removed them: `AttributeError: module 'numpy' has no attribute 'float'`. Old code used them
as dtypes (`np.zeros(3, dtype=np.float)`, `x.astype(np.int)`) and in `isinstance` checks, and
it dies there on any NumPy from 1.24 on.

NumPy 2.0 added `np.bool` and `np.long` back with another meaning: NumPy's own boolean type
(`np.bool_`) and the C `long` integer type. In a file written for NumPy 2, `np.bool` is valid.

## Example
```python
import numpy as np

x = np.zeros(3, dtype=np.float)
n = np.int(x.sum())
```

## Use instead
```python
import numpy as np

x = np.zeros(3, dtype=float)
n = int(x.sum())
```

## Fix safety
The fix writes the builtin the alias stood for, which is what the alias was (NumPy's release
note: "Doing this will not modify any behavior and is safe"). It is unsafe where the file binds
the builtin's name itself (`float = …`, a parameter `int`): the name may not be the builtin
where the fix writes it; and for `np.bool` and `np.long`, which mean NumPy's types in code
written for NumPy 2 (`isinstance(v, np.bool)` is not `isinstance(v, bool)`). Names that do not
resolve to NumPy (`np = MyModule()`) are not flagged.

## Options
The table above is data: `asyncfix rule AF311` lists its rows (`numpy.float` → `float`, …). More
go in `[tool.asyncfix.renames]` (see docs/configuration.md, "The renames table"), as an `api`
row whose `new` is a builtin (`bool`, `bytes`, `bytearray`, `complex`, `float`, `int`,
`object`, `str`): `api = [{ old = "numpy.float_", new = "float" }]` flags `np.float_` where `np`
resolves to NumPy and fixes it like the built-in rows. A row of the configuration wins over a
built-in one.

| old | new |
|---|---|
| `numpy.float` | `float` |
| `numpy.int` | `int` |
| `numpy.bool` | `bool` |
| `numpy.object` | `object` |
| `numpy.str` | `str` |
| `numpy.complex` | `complex` |
| `numpy.long` | `int` |
| `numpy.unicode` | `str` |
)",
                                  FixAvailability::Always,
                                  true};

namespace {

/// The alias and the builtin it stood for.
constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kAliases{{
    {"float", "float"},
    {"int", "int"},
    {"bool", "bool"},
    {"object", "object"},
    {"str", "str"},
    {"complex", "complex"},
    {"long", "int"},
    {"unicode", "str"},
}};

class NumpyRemovedAlias final : public Rule {
public:
  const RuleInfo &info() const override { return kNumpyRemovedAlias; }
  unsigned triggers() const override { return kTriggerTorchApi; }
  std::vector<TSSymbol> subscriptions() const override { return {Kinds::get().attribute}; }

  void check(TSNode node, Context &ctx) const override {
    if (ctx.insideError()) return;
    const std::string_view text = ctx.text();
    const TSNode object = field(node, "object");
    const std::string_view alias = textOf(field(node, "attribute"), text);
    if (const RenameRow *row = userRow(node, alias, ctx))
      return report(node, row->replacement,
                    "`" + std::string(textOf(node, text)) +
                        "` was removed (a row of `[tool.asyncfix.renames] api`): it was the builtin `" +
                        row->replacement + "`",
                    false, ctx);
    const auto *entry = std::find_if(kAliases.begin(), kAliases.end(), [&](const auto &a) { return a.first == alias; });
    if (entry == kAliases.end() || !isIdentifier(object)) return;
    // `np.float` written as one word (the prefilter's), on a name that is NumPy.
    if (!startsTorchWord(text, ts_node_start_byte(node)) || resolvesTo(object, "numpy", ctx) != Resolved::Proven)
      return;
    const std::string_view builtin = entry->second;
    std::string message = "`" + std::string(textOf(node, text)) + "` was removed in NumPy 1.24: it was the builtin `" +
                          std::string(builtin) + "`";
    if (alias == "bool" || alias == "long")
      message += " (NumPy 2.0 reintroduced it as " +
                 std::string(alias == "bool" ? "NumPy's `np.bool_`" : "the C `long` type") + ")";
    report(node, builtin, std::move(message), alias == "bool" || alias == "long", ctx);
  }

private:
  /// The user's row (`[tool.asyncfix.renames] api` whose `new` is a builtin) for the attribute
  /// path `node`, whose last name is `alias`: its old path, resolved through the file's imports.
  static const RenameRow *userRow(TSNode node, std::string_view alias, Context &ctx) {
    for (const RenameRow &r : ctx.config().renames) {
      if (r.kind != RenameRow::Kind::Api || !isBuiltinAliasTarget(r.replacement) || !r.old.ends_with(alias) ||
          r.old.size() <= alias.size() || r.old[r.old.size() - alias.size() - 1] != '.')
        continue;
      if (resolvesTo(node, r.old, ctx) == Resolved::Proven) return &r;
    }
    return nullptr;
  }

  static void report(TSNode node, std::string_view builtin, std::string message, bool changedMeaning, Context &ctx) {
    const std::string_view text = ctx.text();
    Diagnostic d = makeDiagnostic(kNumpyRemovedAlias, Severity::Warning, node, std::move(message));
    const bool shadowed = bindsName(builtin, ctx);
    std::string title = "Replace with `" + std::string(builtin) + "`";
    if (shadowed) title += " (the file binds `" + std::string(builtin) + "` itself)";
    else if (changedMeaning) title += " (on NumPy 2 `" + std::string(textOf(node, text)) + "` is NumPy's own type)";
    d.fix = Fix{std::move(title),
                shadowed || changedMeaning ? Applicability::Unsafe : Applicability::Safe,
                {replaceNode(node, std::string(builtin))}};
    ctx.report(std::move(d));
  }
};

} // namespace

std::unique_ptr<Rule> makeNumpyRemovedAlias() { return std::make_unique<NumpyRemovedAlias>(); }

} // namespace asyncfix::rules
