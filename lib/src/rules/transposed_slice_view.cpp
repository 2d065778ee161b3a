// AF302 transposed-slice-view — `correct[:k].view(-1)` on a slice of a transposed tensor.
#include <algorithm>
#include <array>

#include "rules/edits.h"
#include "rules/rule.h"
#include "rules/torch_values.h"
#include "text/syntax.h"

namespace asyncfix::rules {

extern const RuleInfo kTransposedSliceView;
const RuleInfo kTransposedSliceView{
    "AF302",
    "transposed-slice-view",
    "`.view(-1)` of a slice of a transposed tensor (the `accuracy()` helper's `correct[:k]`): use `.reshape(-1)`",
    R"(## What it does
Flags `.view(-1)` called on a slice `t[:k]` (any slice of the first dimension) of a tensor `t`
that the file shows to be transposed: the result of `.t()`, `.t_()`, `.transpose(…)`,
`.permute(…)`, `.T` or `.mT`, or of an elementwise method (`eq`, `ne`, `lt`, `le`, `gt`, `ge`, a
cast such as `.float()`, `mul`, `add`, …) applied to one, directly or through names (the
assignment to a name nearest before its use). That is the ImageNet example's `accuracy()`
helper, copied into thousands of repositories:

```python
_, pred = output.topk(maxk, 1, True, True)
pred = pred.t()
correct = pred.eq(target.view(1, -1).expand_as(pred))
correct_k = correct[:k].view(-1).float().sum(0)
```

Other `.view(-1)` calls are left alone.

## Why is this bad?
`pred.t()` is a transposed, non-contiguous view, and since PyTorch 1.7 (pytorch/examples#836)
elementwise results keep their input's memory layout, so `correct` is laid out like `pred` and
the rows of `correct[:k]` are not adjacent in memory. `view` never copies: for every `k > 1`
it raises `RuntimeError: view size is not compatible with input tensor's size and stride (at
least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.` The top-1
accuracy works, the top-5 crashes.

## Example
```python
correct_k = correct[:k].view(-1).float().sum(0, keepdim=True)
```

## Use instead
```python
correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
```

## Fix safety
Safe: `reshape` returns the same view as `view` wherever `view` succeeds, and copies only where
`view` would raise.
)",
    FixAvailability::Always,
    false};

namespace {

constexpr int kMaxDepth = 8;

constexpr std::array<std::string_view, 5> kTransposing{"t", "t_", "transpose", "transpose_", "permute"};
/// Methods whose result is laid out like their receiver (elementwise operations and casts).
constexpr std::array<std::string_view, 23> kElementwise{
    "eq",   "ne",      "lt",  "le",  "gt",  "ge",  "float", "double", "long",   "int",  "byte", "bool",
    "half", "type_as", "mul", "add", "sub", "div", "abs",   "neg",    "detach", "cuda", "cpu"};

template <std::size_t N> bool in(const std::array<std::string_view, N> &set, std::string_view s) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

/// The value of the assignment to `identifier`'s binding nearest before it, or a null node.
TSNode reachingValue(TSNode identifier, Context &ctx) {
  const SemanticModel &model = ctx.semantic();
  const NameUse *use = model.nameAt(ts_node_start_byte(identifier));
  if (!use || use->inError) return TSNode{};
  const NameUse *reaching = nullptr;
  for (const NameUse *u : model.usesOf(model.resolve(*use))) {
    if (ts_node_start_byte(u->node) >= ts_node_start_byte(identifier)) break;
    if (u->role != NameRole::Reference) reaching = u;
  }
  if (!reaching || reaching->role != NameRole::Binding || reaching->iterated) return TSNode{};
  return reaching->value;
}

bool isTransposed(TSNode e, Context &ctx, int depth) {
  if (ts_node_is_null(e) || depth > kMaxDepth) return false;
  const Kinds &k = Kinds::get();
  const std::string_view text = ctx.text();
  const TSSymbol s = ts_node_symbol(e);
  if (s == k.parenthesizedExpression) return isTransposed(ts_node_named_child(e, 0), ctx, depth + 1);
  if (isIdentifier(e)) return isTransposed(reachingValue(e, ctx), ctx, depth + 1);
  if (s == k.attribute) {
    const std::string_view name = textOf(field(e, "attribute"), text);
    return name == "T" || name == "mT";
  }
  if (s != k.call) return false;
  const TSNode fn = field(e, "function");
  if (symbolOf(fn) != k.attribute) return false;
  const std::string_view method = textOf(field(fn, "attribute"), text);
  const std::string q = torchName(fn, ctx);
  if (q == "torch.t" || q == "torch.transpose" || q == "torch.permute") return true;
  if (q.starts_with("torch.")) return false; // another function of torch's
  if (in(kTransposing, method)) return true;
  return in(kElementwise, method) && isTransposed(field(fn, "object"), ctx, depth + 1);
}

class TransposedSliceView final : public Rule {
public:
  const RuleInfo &info() const override { return kTransposedSliceView; }
  unsigned triggers() const override { return kTriggerTorchApi; }
  std::vector<TSSymbol> subscriptions() const override { return {Kinds::get().call}; }

  void check(TSNode call, Context &ctx) const override {
    if (ctx.insideError()) return; // code the parser could not read: no finding, no fix
    const std::string_view text = ctx.text();
    const TSNode fn = ctx.field(call, "function");
    if (symbolOf(fn) != Kinds::get().attribute) return;
    const TSNode slice = ctx.field(fn, "object");
    // Spelt as the prefilter's word: `].view(-1)`, nothing between.
    if (symbolOf(slice) != TorchKinds::get().subscript ||
        !text.substr(ts_node_end_byte(slice) - 1).starts_with("].view(-1)") ||
        ts_node_end_byte(call) != ts_node_end_byte(slice) + std::string_view(".view(-1)").size())
      return;
    if (ts_node_named_child_count(slice) != 2 || symbolOf(ts_node_named_child(slice, 1)) != TorchKinds::get().slice)
      return;
    if (!ctx.semantic().importsPackage("torch") || !isTransposed(field(slice, "value"), ctx, 0)) return;
    const TSNode view = field(fn, "attribute");
    Diagnostic d = makeDiagnostic(kTransposedSliceView, Severity::Warning, view,
                                  "`" + std::string(textOf(slice, text)) +
                                      ".view(-1)` on a slice of a transposed tensor raises a `RuntimeError` "
                                      "(view size is not compatible with input tensor's size and stride) for slices "
                                      "of more than one row since PyTorch 1.7; use `.reshape(-1)`");
    d.fix = Fix{"Replace `.view(-1)` with `.reshape(-1)`", Applicability::Safe, {replaceNode(view, "reshape")}};
    ctx.report(std::move(d));
  }
};

} // namespace

std::unique_ptr<Rule> makeTransposedSliceView() { return std::make_unique<TransposedSliceView>(); }

} // namespace asyncfix::rules
