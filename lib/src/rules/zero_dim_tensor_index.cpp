// AF301 zero-dim-tensor-index — `loss.data[0]` / `prec1[0]` on what became a 0-dim tensor.
#include "rules/edits.h"
#include "rules/rule.h"
#include "rules/torch_api.h"
#include "rules/torch_values.h"
#include "text/syntax.h"

namespace asyncfix::rules {

extern const RuleInfo kZeroDimTensorIndex;
const RuleInfo kZeroDimTensorIndex{
    "AF301",
    "zero-dim-tensor-index",
    "`x.data[0]` / `prec1[0]` on a 0-dim tensor (an IndexError since PyTorch 0.4): use `x.item()`",
    R"(## What it does
Flags `x.data[0]` where `x` holds a one-element tensor, and `prec1[0]` where `prec1` comes from
the ImageNet example's `accuracy()` helper, and replaces them with `x.item()` / `prec1.item()`.

A value counts as one element when the file shows it: the result of a PyTorch loss that keeps its
reduction (a criterion `criterion = nn.CrossEntropyLoss()` (`.cuda()` or not) called, or
`F.nll_loss(...)` and the other `F.*_loss` functions), of a reduction without `dim` (`.sum()`,
`.mean()`, `.prod()`, `.max()`, `.min()`, `.norm()`, `torch.sum(x)`, …), of arithmetic of those
with numbers (`loss1 + 0.1 * loss2`), or of the `accuracy()` helper defined in the file, whose
body appends `correct_k.mul_(100.0 / batch_size)` to the list it returns (or returns
`[… * (100.0 / batch_size) for k in topk]`). A criterion may be moved (`criterion =
criterion.cuda()`), and passed to a function of the file as a parameter
(`train(train_loader, model, criterion, optimizer)`, where every call of `train` in the file
passes such a criterion). The uses of `prec1` are followed within the function (or the top-level
statement) that assigns it. Names resolve through
the file's imports and scopes: a local `nn` or `F` that is not PyTorch's proves nothing.

Where the file shows none of that, the rule still flags `x.data[0]` and `prec1[0]` whose value
is used as a Python number: passed to a meter's `.update(…)`, added with `+=` to a name that holds
a number, formatted (`'%.3f' % …`, `'{}'.format(…)`, an f-string) or given to `float(…)`.
Anything else stays alone: `heatmap.data[0]` on a 4-D tensor is correct code.

## Why is this bad?
Until PyTorch 0.3 a loss was a one-element tensor and `loss.data[0]` was how to read its value.
PyTorch 0.4 (April 2018) introduced 0-dim tensors: losses and full reductions now have no
dimension to index, and `loss.data[0]` raises `IndexError: invalid index of a 0-dim tensor. Use
tensor.item() in Python or tensor.item<T>() in C++ to convert a 0-dim tensor to a number` (a
UserWarning in 0.4, an error since 0.5). It is the most reported error in repositories of that
era.

## Example
```python
criterion = nn.CrossEntropyLoss().cuda()
loss = criterion(output, target)
prec1, prec5 = accuracy(output.data, target, topk=(1, 5))
losses.update(loss.data[0], input.size(0))
top1.update(prec1[0], input.size(0))
```

## Use instead
```python
criterion = nn.CrossEntropyLoss().cuda()
loss = criterion(output, target)
prec1, prec5 = accuracy(output.data, target, topk=(1, 5))
losses.update(loss.item(), input.size(0))
top1.update(prec1.item(), input.size(0))
```

## Fix safety
The fix is safe where the file proves a one-element tensor: `.item()` gives the number that
`[0]` gave on PyTorch 0.3. It is unsafe where only the use as a number suggests it: were the
tensor larger, `.item()` would raise where `[0]` took the first row. An `accuracy` helper that
the file imports from elsewhere proves nothing (its body is not visible): its `prec1[0]` is
flagged only when used as a number, with an unsafe fix. A receiver that is one element only if
a star import makes its names PyTorch's (`CrossEntropyLoss()(out, y)` after
`from torch.nn import *`) is reported naming the star import, without a fix.
)",
    FixAvailability::Sometimes,
    false};

namespace {

constexpr std::string_view kHelper = "accuracy";

/// `value[0]`: a subscript with the one index `0`.
bool isIndexZero(TSNode subscript, std::string_view text) {
  if (symbolOf(subscript) != TorchKinds::get().subscript || ts_node_named_child_count(subscript) != 2) return false;
  const TSNode index = ts_node_named_child(subscript, 1);
  return symbolOf(index) == TorchKinds::get().integer && textOf(index, text) == "0";
}

bool isString(TSNode n) { return symbolOf(n) == Kinds::get().string; }

/// True when `name` (an identifier) has a binding to a number literal (`total = 0.0`).
bool holdsNumber(TSNode name, Context &ctx) {
  if (!isIdentifier(name)) return false;
  const SemanticModel &model = ctx.semantic();
  const NameUse *use = model.nameAt(ts_node_start_byte(name));
  if (!use) return false;
  for (const NameUse *u : model.usesOf(model.resolve(*use))) {
    const TSSymbol s = symbolOf(u->value);
    if (u->role == NameRole::Binding && !u->iterated &&
        (s == TorchKinds::get().integer || s == TorchKinds::get().floatLiteral))
      return true;
  }
  return false;
}

/// True when the value of `e` is used as a Python number; `up(n)` gives n's parent.
template <class Up> bool usedAsNumber(TSNode e, Context &ctx, Up up) {
  const Kinds &k = Kinds::get();
  const TorchKinds &t = TorchKinds::get();
  const std::string_view text = ctx.text();
  const TSNode parent = up(e);
  const TSSymbol p = symbolOf(parent);
  if (p == t.interpolation) return true; // f"{loss.data[0]:.3f}"
  if (p == k.augmentedAssignment)
    return ts_node_eq(field(parent, "right"), e) && textOf(field(parent, "operator"), text) == "+=" &&
           holdsNumber(field(parent, "left"), ctx);
  if (p == t.binaryOperator) // '%.3f' % loss.data[0]
    return ts_node_eq(field(parent, "right"), e) && textOf(field(parent, "operator"), text) == "%" &&
           isString(field(parent, "left"));
  if (p == k.tuple) { // '%.3f %.3f' % (a.data[0], b.data[0])
    const TSNode op = up(parent);
    return symbolOf(op) == t.binaryOperator && ts_node_eq(field(op, "right"), parent) &&
           textOf(field(op, "operator"), text) == "%" && isString(field(op, "left"));
  }
  TSNode args = parent;
  if (p == k.keywordArgument) args = up(parent);
  else if (p != k.argumentList) return false;
  const TSNode call = up(args);
  if (symbolOf(call) != k.call) return false;
  const TSNode fn = ctx.field(call, "function");
  if (symbolOf(fn) == k.attribute) {
    const std::string_view method = textOf(ctx.field(fn, "attribute"), text);
    if (method == "update") return true; // meter.update(loss.data[0], n)
    return method == "format" && isString(field(fn, "object"));
  }
  return p == k.argumentList && isIdentifier(fn) && textOf(fn, text) == "float" && torchName(fn, ctx) == "float";
}

/// The ImageNet example's helper, defined in the file: a function that appends
/// `correct_k.mul_(100.0 / batch_size)` to the list it returns.
bool isAccuracyHelper(TSNode name, Context &ctx) {
  const SemanticModel &model = ctx.semantic();
  const NameUse *use = model.nameAt(ts_node_start_byte(name));
  if (!use) return false;
  const Scope *helper = nullptr;
  for (const NameUse *u : model.usesOf(model.resolve(*use))) {
    if (u->role == NameRole::Reference) continue;
    const Scope *s = u->role == NameRole::FunctionName ? model.scopeNamedBy(u->node) : nullptr;
    if (!s || helper) return false; // another binding, or a second definition
    helper = s;
  }
  if (!helper) return false;
  const TSNode body = field(helper->node, "body");
  ctx.dependsOn(ts_node_start_byte(helper->node), ts_node_end_byte(helper->node));
  const std::string_view text = ctx.text();
  const Kinds &k = Kinds::get();
  const TorchKinds &t = TorchKinds::get();
  // `100.0 / batch_size`
  const auto isPercentScale = [&](TSNode scale) {
    while (symbolOf(scale) == k.parenthesizedExpression) scale = ts_node_named_child(scale, 0);
    if (symbolOf(scale) != t.binaryOperator || textOf(field(scale, "operator"), text) != "/") return false;
    const std::string_view hundred = textOf(field(scale, "left"), text);
    return hundred == "100" || hundred == "100." || hundred == "100.0";
  };
  // `correct_k.mul_(100.0 / batch_size)` or `… * (100.0 / batch_size)`
  const auto isPercent = [&](TSNode e) {
    if (symbolOf(e) == t.binaryOperator)
      return textOf(field(e, "operator"), text) == "*" && isPercentScale(field(e, "right"));
    if (symbolOf(e) != k.call) return false;
    const std::string_view method = textOf(field(field(e, "function"), "attribute"), text);
    return (method == "mul_" || method == "mul") && isPercentScale(ts_node_named_child(field(e, "arguments"), 0));
  };
  return !ts_node_is_null(findNode(body, [&](TSNode n) {
    // res.append(correct_k.mul_(100.0 / batch_size)), or [… * (100.0 / batch_size) for k in topk]
    if (ts_node_symbol(n) == k.listComprehension) return isPercent(field(n, "body"));
    if (ts_node_symbol(n) != k.call || textOf(field(field(n, "function"), "attribute"), text) != "append") return false;
    return isPercent(ts_node_named_child(field(n, "arguments"), 0));
  }));
}

/// The assignment whose target pattern holds `target` (a name it binds), or a null node.
TSNode assignmentOf(TSNode target) {
  TSNode n = ts_node_parent(target);
  while (!ts_node_is_null(n) && isTargetPattern(ts_node_symbol(n))) n = ts_node_parent(n);
  return symbolOf(n) == Kinds::get().assignment ? n : TSNode{};
}

/// A call of the helper's name: `accuracy(…)`, the name right before its `(`.
bool isHelperCall(TSNode call, std::string_view text) {
  if (symbolOf(call) != Kinds::get().call) return false;
  const TSNode fn = field(call, "function");
  return isIdentifier(fn) && textOf(fn, text) == kHelper && textOf(call, text).starts_with("accuracy(");
}

class ZeroDimTensorIndex final : public Rule {
public:
  const RuleInfo &info() const override { return kZeroDimTensorIndex; }
  unsigned triggers() const override { return kTriggerTorchApi; }
  std::vector<TSSymbol> subscriptions() const override { return {TorchKinds::get().subscript, Kinds::get().call}; }

  void check(TSNode node, Context &ctx) const override {
    if (ctx.insideError()) return; // code the parser could not read: no finding, no fix
    if (ts_node_symbol(node) == Kinds::get().call) checkHelperCall(node, ctx);
    else checkData(node, ctx);
  }

private:
  /// `x.data[0]`.
  void checkData(TSNode node, Context &ctx) const {
    const std::string_view text = ctx.text();
    if (!textOf(node, text).ends_with(".data[0]") || !isIndexZero(node, text)) return;
    const TSNode data = field(node, "value");
    if (symbolOf(data) != Kinds::get().attribute || textOf(field(data, "attribute"), text) != "data") return;
    const TSNode receiver = field(data, "object");
    if (!ctx.semantic().importsPackage("torch")) return;
    const Provenance one = provenOrStar(ctx, [&] { return isOneElementTensor(receiver, ctx); });
    if (one.how == Resolved::Proven)
      return report(node, receiver, Applicability::Safe, "a loss or a full reduction", ctx);
    if (one.how == Resolved::Star) return reportStar(node, one, ctx);
    if (!usedAsNumber(node, ctx, [&](TSNode n) { return ctx.parentOf(n); })) return;
    report(node, receiver, Applicability::Unsafe, "a loss or a full reduction", ctx);
  }

  /// `x.data[0]` where `x` is one element only if a star import provides the names that make it.
  static void reportStar(TSNode subscript, const Provenance &how, Context &ctx) {
    ctx.report(makeDiagnostic(kZeroDimTensorIndex, Severity::Warning, subscript,
                              starMessage(how.written, how.module) + "if so, `" +
                                  std::string(textOf(subscript, ctx.text())) +
                                  "` indexes a 0-dim tensor (a loss or a full reduction): an `IndexError` since "
                                  "PyTorch 0.4; `.item()` gives the number"));
  }

  /// `prec1, prec5 = accuracy(…)`: each `prec1[0]` that this assignment's value reaches, within
  /// the statement being checked.
  void checkHelperCall(TSNode call, Context &ctx) const {
    const std::string_view text = ctx.text();
    if (!isHelperCall(call, text)) return;
    const TSNode assignment = ctx.parentOf(call);
    if (symbolOf(assignment) != Kinds::get().assignment || !ts_node_eq(field(assignment, "right"), call)) return;
    const TSNode left = field(assignment, "left");
    std::vector<TSNode> targets;
    if (isIdentifier(left)) targets.push_back(left);
    else if (isTargetPattern(symbolOf(left)))
      for (std::uint32_t i = 0, n = ts_node_named_child_count(left); i < n; ++i)
        if (isIdentifier(ts_node_named_child(left, i))) targets.push_back(ts_node_named_child(left, i));
    if (targets.empty() || !ctx.semantic().importsPackage("torch")) return;
    const bool proven = isAccuracyHelper(field(call, "function"), ctx);
    const TSNode statement = topLevelStatement(call, ctx);
    const SemanticModel &model = ctx.semantic();
    for (const TSNode target : targets) {
      const NameUse *binding = model.nameAt(ts_node_start_byte(target));
      if (!binding || binding->inError) continue;
      const std::vector<const NameUse *> &uses = model.usesOf(model.resolve(*binding));
      // Every binding of the name must be a helper's result.
      const bool onlyHelper = std::all_of(uses.begin(), uses.end(), [&](const NameUse *u) {
        if (u->role == NameRole::Reference) return true;
        const TSNode a = assignmentOf(u->node);
        return u->role == NameRole::Binding && isHelperCall(field(a, "right"), text);
      });
      if (!onlyHelper) continue;
      // The uses this binding reaches: after it, before the next binding.
      bool after = false;
      for (const NameUse *u : uses) {
        if (u == binding) {
          after = true;
          continue;
        }
        if (u->role != NameRole::Reference) {
          if (after) break;
          continue;
        }
        if (!after || !within(u->node, statement)) continue;
        const TSNode subscript = ts_node_parent(u->node);
        if (!isIndexZero(subscript, text) || !ts_node_eq(field(subscript, "value"), u->node)) continue;
        Applicability safety = Applicability::Safe;
        if (!proven) {
          if (!usedAsNumber(subscript, ctx, [](TSNode n) { return ts_node_parent(n); })) continue;
          safety = Applicability::Unsafe;
        }
        report(subscript, u->node, safety, "what `accuracy()` returns", ctx);
      }
    }
  }

  static void report(TSNode subscript, TSNode receiver, Applicability safety, std::string_view source, Context &ctx) {
    const std::string_view text = ctx.text();
    const std::string replacement = std::string(textOf(receiver, text)) + ".item()";
    const std::string written = std::string("`").append(textOf(subscript, text)).append("`");
    std::string message =
        safety == Applicability::Safe
            ? written + " indexes a 0-dim tensor (" + std::string(source) +
                  "): an `IndexError` since PyTorch 0.4; `.item()` gives the number"
            : written + " is used as a number: on a 0-dim tensor (a loss since PyTorch 0.4) it is an `IndexError`; "
                        "`.item()` gives the number";
    Diagnostic d = makeDiagnostic(kZeroDimTensorIndex, Severity::Warning, subscript, std::move(message));
    d.fix = Fix{"Replace with `" + replacement + "`", safety, {replaceNode(subscript, replacement)}};
    ctx.report(std::move(d));
  }
};

} // namespace

std::unique_ptr<Rule> makeZeroDimTensorIndex() { return std::make_unique<ZeroDimTensorIndex>(); }

} // namespace asyncfix::rules
