// AF314 volatile-variable — `Variable(x, volatile=True)`, which has done nothing since PyTorch 0.4.
#include "analysis/receivers.h"
#include "rules/edits.h"
#include "rules/torch_api.h"
#include "rules/torch_values.h"
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

## The attribute
The same rule flags the attribute `x.volatile` in a file that imports torch. On PyTorch 1.13
(checked on Debian's 1.13.1; PyTorch 2.x keeps the property) reading it warns `UserWarning:
volatile was removed (Variable.volatile is always False)` and gives `False`, so old code such as
`if input.volatile:` or `hx = Variable(…, volatile=input.volatile)` always takes the training
branch; assigning it (`x.volatile = True`) warns `volatile was removed and now has no effect` and
does nothing. A read is replaced by `False` — what PyTorch gives — where the object is provably
a tensor (built by a PyTorch call the file shows) and is a name or an attribute chain, whose
reading has no effect of its own: safe. Where the object is not known to be a tensor (a
parameter, `input` in a `forward`) the read is reported without a fix, as is every assignment
(whether to delete it, or to put the code under `torch.no_grad()`, is the program's decision).
Not flagged: an object known to be something else (a module, a loader), `self.volatile` (an
attribute of the file's own class), a class's descriptor (`torch.Tensor.volatile`), and a read
inside `volatile=…` given to `Variable`, which the argument's own finding removes.
)",
                                 FixAvailability::Always,
                                 true};

namespace {

class VolatileVariable final : public Rule {
public:
  const RuleInfo &info() const override { return kVolatileVariable; }
  unsigned triggers() const override { return kTriggerTorchApi; }
  std::vector<TSSymbol> subscriptions() const override {
    return {Kinds::get().keywordArgument, Kinds::get().attribute};
  }

  void check(TSNode node, Context &ctx) const override {
    if (ctx.insideError()) return;
    if (symbolOf(node) == Kinds::get().attribute) return checkAttribute(node, ctx);
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
  /// `x.volatile`: always `False` when read, nothing when assigned, since PyTorch 0.4.
  static void checkAttribute(TSNode attribute, Context &ctx) {
    const std::string_view text = ctx.text();
    const Kinds &k = Kinds::get();
    const TSNode name = field(attribute, "attribute"), object = field(attribute, "object");
    if (textOf(name, text) != "volatile" || !startsTorchWord(text, ts_node_start_byte(name))) return;
    if (!fileImports("torch", ctx)) return;
    if (!isIdentifier(object) && symbolOf(object) != k.attribute && symbolOf(object) != k.call &&
        symbolOf(object) != TorchKinds::get().subscript)
      return;
    // Something the file's imports name (`torch.Tensor.volatile`, a module), or defines itself.
    const Origin origin = torchOrigins(ctx).of(object);
    if (origin.kind == Origin::Kind::Path || origin.kind == Origin::Kind::Local) return;
    if (isIdentifier(object) && torchOrigins(ctx).selfClass(object)) return;
    const ValueKind kind = ctx.receivers().kindOf(object);
    if (kind != ValueKind::Tensor && kind != ValueKind::Unknown) return;
    const TSNode parent = ctx.parentOf(attribute);
    const TSSymbol p = symbolOf(parent);
    if (p == k.keywordArgument && textOf(field(parent, "name"), text) == "volatile") return; // the argument's
    const bool assigned =
        (p == k.assignment || p == k.augmentedAssignment) && ts_node_eq(field(parent, "left"), attribute);
    if (assigned) {
      ctx.report(makeDiagnostic(kVolatileVariable, Severity::Warning, attribute,
                                "Assigning `.volatile` has no effect since PyTorch 0.4 (a UserWarning): compute "
                                "without a graph in `with torch.no_grad():` instead"));
      return;
    }
    if ((p == k.assignment && !ts_node_eq(field(parent, "right"), attribute)) || isType(parent, "delete_statement") ||
        isType(parent, "pattern_list") || isType(parent, "tuple_pattern") || isType(parent, "list_pattern"))
      return; // a target among others: not a read
    Diagnostic d =
        makeDiagnostic(kVolatileVariable, Severity::Warning, attribute,
                       "`" + std::string(textOf(attribute, text)) +
                           "` is always `False` since PyTorch 0.4 (a UserWarning: volatile was removed)" +
                           (kind == ValueKind::Tensor ? std::string() : std::string(", where the object is a tensor")) +
                           "; inference without a graph is `with torch.no_grad():`");
    const bool plain = isIdentifier(object) || symbolOf(object) == k.attribute;
    if (kind == ValueKind::Tensor && plain)
      d.fix = Fix{"Replace with `False`", Applicability::Safe, {replaceNode(attribute, "False")}};
    ctx.report(std::move(d));
  }

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
