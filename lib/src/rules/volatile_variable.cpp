// AF314 volatile-variable — `Variable(x, volatile=True)`, which has done nothing since PyTorch 0.4.
#include "rules/edits.h"
#include "rules/torch_api.h"
#include "text/syntax.h"
#include "text/torch_words.h"

namespace asyncfix::rules {

extern const RuleInfo kVolatileVariable;
const RuleInfo kVolatileVariable{"AF314",
                                 "volatile-variable",
                                 "`Variable(x, volatile=…)`: no effect since PyTorch 0.4 (use `torch.no_grad()`)",
                                 R"(## What it does
Flags the `volatile=` argument of `torch.autograd.Variable(…)` (resolved through the file's
imports: `from torch.autograd import Variable`, `torch.autograd.Variable`, …).

Its companion of the same era, `Variable(x, requires_grad=False)`, is not flagged: `False` is
the default, it means the same in every PyTorch release, and nothing warns about it. It never
did what `volatile=True` did — the model's parameters still require gradients, so the graph is
recorded — and where the two stand together the message says so: only `torch.no_grad()`
replaces `volatile=True`.

## Why is this bad?
Before PyTorch 0.4, `volatile=True` made everything computed from the Variable skip autograd:
the way to run inference without building a graph. PyTorch 0.4 removed it: the argument is
ignored with a `UserWarning: volatile was removed and now has no effect. Use `with
torch.no_grad():` instead.` So old evaluation loops now record a graph for every batch they
compute, keep every intermediate activation alive until the output is dropped, and can run out
of memory where they did not before; the warning also fails a test suite that turns warnings
into errors.

## Example
```python
def validate(loader, model):
    for images, target in loader:
        images = Variable(images, volatile=True)
        output = model(images)
```

## Use instead
```python
def validate(loader, model):
    with torch.no_grad():
        for images, target in loader:
            images = Variable(images)
            output = model(images)
```

## Fix safety
The fix removes the argument, which is what PyTorch does with it anyway: the program computes
the same values, without the warning. It is safe where `Variable` resolves to PyTorch's through
the file's imports and unsafe where it is only spelt like it (a star import). One combination is
not ignored: `Variable(x, volatile=True, requires_grad=True)` raises `ValueError: Variable can't
be volatile and require_grad at the same time!` (PyTorch 1.13; a `requires_grad=` that is not a
literal `False` beside a `volatile=` that is not a literal `False` may do the same). Removing
`volatile=` makes that call run and return a tensor that requires gradients, which a program
that asked for `volatile` did not mean: that fix is unsafe. The fix does not
add `with torch.no_grad():` — where the no-grad region begins and ends (the loop, the function,
the whole evaluation) is a decision about the program; the message names the function to wrap.
A `Variable` of the file's own (`class Variable`, `from mylib import Variable`) is left alone.
)",
                                 FixAvailability::Always,
                                 true};

namespace {

class VolatileVariable final : public Rule {
public:
  const RuleInfo &info() const override { return kVolatileVariable; }
  unsigned triggers() const override { return kTriggerTorchApi; }
  std::vector<TSSymbol> subscriptions() const override { return {Kinds::get().keywordArgument}; }

  void check(TSNode node, Context &ctx) const override {
    if (ctx.insideError()) return;
    const std::string_view text = ctx.text();
    const TSNode name = field(node, "name");
    if (textOf(name, text) != "volatile" || !startsTorchWord(text, ts_node_start_byte(name))) return;
    const TSNode call = callOfArguments(ctx.parentOf(node), ctx);
    if (ts_node_is_null(call)) return;
    const TSNode function = field(call, "function");
    const Resolved how = std::max(resolvesTo(function, "torch.autograd.Variable", ctx),
                                  resolvesTo(function, "torch.autograd.variable.Variable", ctx));
    if (how == Resolved::No) return;
    const std::optional<bool> value = literalBool(field(node, "value"), text);
    const TSNode requiresGrad = keywordArgument(ctx.parentOf(node), "requires_grad", text);
    const std::optional<bool> grad =
        ts_node_is_null(requiresGrad) ? std::optional<bool>(false) : literalBool(field(requiresGrad, "value"), text);
    // `volatile=True, requires_grad=True` is a ValueError: removing `volatile=` makes it run.
    const bool mayRaise = value != false && grad != false;
    std::string message = "`volatile=` has no effect since PyTorch 0.4";
    if (mayRaise) {
      message += value && grad ? ": with `requires_grad=True` this call raises `ValueError`"
                               : ": with `requires_grad=` this call may raise `ValueError`";
      message += " (a Variable cannot be volatile and require grad); without `volatile=` it requires grad";
    } else if (value != false) {
      message += ": autograd records this computation";
      if (!ts_node_is_null(requiresGrad)) message += " (`requires_grad=False` does not stop that)";
      message += "; wrap ";
      const std::string_view where = enclosingFunction(ctx);
      message += where.empty() ? std::string("the inference code") : "the body of `" + std::string(where) + "()`";
      message += " (or the loop that evaluates) in `with torch.no_grad():`";
    }
    Diagnostic d = makeDiagnostic(kVolatileVariable, Severity::Warning, name, std::move(message));
    Fix fix{"Remove `volatile=`",
            how == Resolved::Proven && !mayRaise ? Applicability::Safe : Applicability::Unsafe,
            {removeArgument(node, text)}};
    if (how != Resolved::Proven) fix.title += " (`Variable` is not resolved to PyTorch through this file's imports)";
    else if (mayRaise) fix.title += " (the call then returns a tensor that requires grad)";
    d.fix = std::move(fix);
    ctx.report(std::move(d));
  }

private:
  /// The name of the innermost function around the node being checked ("" at module level).
  static std::string_view enclosingFunction(Context &ctx) {
    const std::span<const TSNode> ancestors = ctx.ancestors();
    for (auto it = ancestors.rbegin(); it != ancestors.rend(); ++it)
      if (symbolOf(*it) == Kinds::get().functionDefinition) return textOf(field(*it, "name"), ctx.text());
    return {};
  }
};

} // namespace

std::unique_ptr<Rule> makeVolatileVariable() { return std::make_unique<VolatileVariable>(); }

} // namespace asyncfix::rules
