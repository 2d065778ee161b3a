// AF305 uint8-mask — a `.byte()` / `torch.ByteTensor` mask given to `masked_fill` or indexing.
#include <algorithm>
#include <array>

#include "rules/rule.h"
#include "rules/torch_api.h"
#include "rules/torch_rule_data.h"
#include "rules/torch_values.h"
#include "text/syntax.h"

namespace asyncfix::rules {

extern const RuleInfo kUint8Mask;
const RuleInfo kUint8Mask{
    "AF305",
    "uint8-mask",
    "uint8 mask (`.byte()`, `torch.ByteTensor`) given to `masked_fill`/`masked_select`/indexing: use `.bool()`",
    R"(## What it does
Flags a tensor made uint8 — `x.byte()`, `torch.ByteTensor(…)` (and `torch.cuda.ByteTensor`),
`x.type(torch.ByteTensor)` — that is used as a mask: the `mask` of `masked_fill`,
`masked_fill_`, `masked_select`, `masked_scatter`, `masked_scatter_`, the condition of
`torch.where`, or the index of `t[mask]`; directly, or through the name it is assigned to (the
uses that assignment reaches). The finding stands where the mask is made, which is what changes;
its message names the line of the use. A `.byte()` of an object that a class of the file's own
makes (`T().byte()`) is that class's method, not PyTorch's: not flagged.

## Why is this bad?
Before PyTorch 1.2 masks were `uint8` tensors (comparisons returned them). PyTorch 1.2
introduced `torch.bool`, made comparisons return it and deprecated uint8 masks: every use warns
(`UserWarning: masked_fill_ received a mask with dtype torch.uint8, this behavior is now
deprecated`, `indexing with dtype torch.uint8 is now deprecated`). PyTorch 2.1 removed them from
`masked_fill`/`masked_fill_` (pytorch/pytorch#96594) and `masked_scatter`
(pytorch/pytorch#97999): there it is a `RuntimeError`. PyTorch 1.13, Debian's, still only warns.

## Example
```python
mask = (lengths > 0).byte()
scores = scores.masked_fill(mask, -1e9)
```

## Use instead
```python
mask = (lengths > 0).bool()
scores = scores.masked_fill(mask, -1e9)
```

## Fix safety
No automatic fix: a uint8 tensor is also a number tensor, and code of that era counts and
combines masks arithmetically (`mask.sum()`, `1 - mask`, `mask * x`), which a bool tensor refuses
or computes differently (`1 - mask` raises for `torch.bool`). Whether every use of the tensor
accepts a bool is for a human to check.
)",
    FixAvailability::None,
    true};

namespace {

bool isByteTensorName(const std::string &q) { return q == "torch.ByteTensor" || q == "torch.cuda.ByteTensor"; }

/// Where the value of `e` is used as a mask: the method or "indexing", or "" when it is not.
/// `up(n)` gives n's parent.
template <class Up> std::string consumerOf(TSNode e, Context &ctx, Up up) {
  const Kinds &k = Kinds::get();
  const std::string_view text = ctx.text();
  TSNode parent = up(e);
  while (symbolOf(parent) == k.parenthesizedExpression) {
    e = parent;
    parent = up(parent);
  }
  const TSSymbol p = symbolOf(parent);
  if (p == TorchKinds::get().subscript)
    return ts_node_named_child_count(parent) == 2 && ts_node_eq(ts_node_named_child(parent, 1), e) ? "indexing" : "";
  TSNode args = parent;
  if (p == k.keywordArgument) {
    if (textOf(field(parent, "name"), text) != "mask") return "";
    args = up(parent);
  } else if (p != k.argumentList || !ts_node_eq(ts_node_named_child(parent, 0), e)) {
    return "";
  }
  const TSNode call = up(args);
  const TSNode fn = ctx.field(call, "function");
  if (symbolOf(fn) != k.attribute) return "";
  const std::string_view method = textOf(ctx.field(fn, "attribute"), text);
  if (p == k.argumentList && method == "where" && torchName(fn, ctx) == "torch.where") return "torch.where";
  if (std::find(kMaskMethods.begin(), kMaskMethods.end(), method) == kMaskMethods.end()) return "";
  return "`" + std::string(method) + "`";
}

/// True when `call` makes a uint8 tensor, spelt with one of the prefilter's words.
bool makesUint8(TSNode call, Context &ctx) {
  const std::string_view text = ctx.text();
  const TSNode fn = ctx.field(call, "function");
  if (symbolOf(fn) != Kinds::get().attribute && !isIdentifier(fn)) return false;
  if (symbolOf(fn) == Kinds::get().attribute) {
    const std::string_view method = textOf(ctx.field(fn, "attribute"), text);
    if (method == "byte") // not of an object the file's own class makes (its own `byte()`)
      return textOf(call, text).ends_with(".byte()") &&
             torchOrigins(ctx).of(field(fn, "object")).kind != Origin::Kind::Local;
    if (method == "type" && positionalCount(call) == 1) {
      const TSNode arg = ts_node_named_child(field(call, "arguments"), 0);
      if (isByteTensorName(torchName(arg, ctx))) return true;
    }
  }
  return textOf(fn, text).ends_with("ByteTensor") && isByteTensorName(torchName(fn, ctx));
}

class Uint8Mask final : public Rule {
public:
  const RuleInfo &info() const override { return kUint8Mask; }
  unsigned triggers() const override { return kTriggerTorchApi; }
  std::vector<TSSymbol> subscriptions() const override { return {Kinds::get().call}; }

  void check(TSNode call, Context &ctx) const override {
    if (ctx.insideError()) return; // code the parser could not read: no finding, no fix
    std::string use;
    std::uint32_t at = 0;
    if (!isMask(call, ctx, use, at)) return;
    Diagnostic d = makeDiagnostic(kUint8Mask, Severity::Warning, call,
                                  "`" + std::string(textOf(call, ctx.text())) + "` makes a uint8 mask");
    if (at) {
      d.message += ", used for " + use + " on line ";
      ctx.appendLineNumber(d, at, "The mask's use");
    } else {
      d.message += " for " + use;
    }
    d.message += ": deprecated since PyTorch 1.2 (a UserWarning), an error in `masked_fill`/`masked_scatter` since "
                 "PyTorch 2.1; make it `torch.bool` (`.bool()`)";
    ctx.report(std::move(d));
  }

  /// A call this rule reports (AF318 then leaves `torch.ByteTensor(…)` alone: its fix,
  /// `torch.tensor(…, dtype=torch.uint8)`, would hide the mask from this rule).
  bool claims(Claim what, TSNode node, Context &ctx) const override {
    std::string use;
    std::uint32_t at = 0;
    return what == kClaimCall && symbolOf(node) == Kinds::get().call && isMask(node, ctx, use, at);
  }

private:
  /// Whether `call` makes a uint8 tensor used as a mask: where (`use`), and the byte of that use
  /// when it is through a name (`at`, else 0).
  static bool isMask(TSNode call, Context &ctx, std::string &use, std::uint32_t &at) {
    if (!makesUint8(call, ctx) || !ctx.semantic().importsPackage("torch")) return false;
    use = consumerOf(call, ctx, [&](TSNode n) { return ctx.parentOf(n); });
    if (use.empty()) findThroughName(call, ctx, use, at);
    return !use.empty();
  }

  /// `mask = x.byte()`: the first use of `mask` that this assignment reaches and that is a mask.
  static void findThroughName(TSNode call, Context &ctx, std::string &use, std::uint32_t &at) {
    TSNode value = call, assignment = ctx.parentOf(call);
    for (std::size_t up = 2; symbolOf(assignment) == Kinds::get().parenthesizedExpression; ++up) {
      const std::span<const TSNode> ancestors = ctx.ancestors();
      if (ancestors.size() < up) return;
      value = assignment;
      assignment = ancestors[ancestors.size() - up];
    }
    if (symbolOf(assignment) != Kinds::get().assignment || !ts_node_eq(field(assignment, "right"), value)) return;
    const TSNode target = field(assignment, "left");
    if (!isIdentifier(target)) return;
    const SemanticModel &model = ctx.semantic();
    const NameUse *binding = model.nameAt(ts_node_start_byte(target));
    if (!binding || binding->inError) return;
    bool after = false;
    for (const NameUse *u : model.usesOf(model.resolve(*binding))) {
      if (u == binding) {
        after = true;
        continue;
      }
      if (u->role != NameRole::Reference) {
        if (after) return;
        continue;
      }
      // A use inside the assignment itself (`labels = eye[labels].byte()`) reads the old value.
      if (!after || ts_node_start_byte(u->node) < ts_node_end_byte(assignment)) continue;
      use = consumerOf(u->node, ctx, [](TSNode n) { return ts_node_parent(n); });
      if (!use.empty()) {
        at = ts_node_start_byte(u->node);
        return;
      }
    }
  }
};

} // namespace

std::unique_ptr<Rule> makeUint8Mask() { return std::make_unique<Uint8Mask>(); }

} // namespace asyncfix::rules
