// AF303 legacy-autograd-function — a `torch.autograd.Function` with an instance `forward`.
#include "rules/rule.h"
#include "rules/torch_api.h"
#include "rules/torch_values.h"
#include "text/syntax.h"

namespace asyncfix::rules {

extern const RuleInfo kLegacyAutogradFunction;
const RuleInfo kLegacyAutogradFunction{
    "AF303",
    "legacy-autograd-function",
    "`torch.autograd.Function` subclass with an instance `forward` (an error since PyTorch 1.5)",
    R"(## What it does
Flags the `forward` method of a class deriving from `torch.autograd.Function` (imported as
`Function`, `autograd.Function` or spelt in full) when it is an instance method, not a
`@staticmethod`: the "legacy" autograd functions of PyTorch 0.3.

## Why is this bad?
PyTorch 0.4 introduced the new style — `forward(ctx, …)` and `backward(ctx, …)` as static methods,
called through `Cls.apply(…)` — and deprecated instances; since PyTorch 1.5 calling a legacy
function raises `RuntimeError: Legacy autograd function with non-static forward method is
deprecated. Please use new-style autograd function with static forward method.`

## Example
```python
class Clamp(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return x.clamp(min=0)

    def backward(self, grad):
        x, = self.saved_tensors
        return grad * (x > 0).float()

y = Clamp()(x)
```

## Use instead
```python
class Clamp(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * (x > 0).float()

y = Clamp.apply(x)
```

## Fix safety
No automatic fix: state kept on `self` in `__init__` (arguments given to the constructor) must
become arguments of `forward` and of `apply`, `backward` must return one gradient per `forward`
argument, and every `Cls()(…)` call site changes. A human rewrites it. A base `Function` that
only a star import may make PyTorch's (`from torch.autograd import *`) is reported too, the
message naming the star import.
)",
    FixAvailability::None,
    true};

namespace {

bool isTorchFunction(std::string_view q) {
  return q == "torch.autograd.Function" || q == "torch.autograd.function.Function";
}

/// The `forward` defined in `body` without `@staticmethod`, or a null node (also when a static
/// one is there).
TSNode instanceForward(TSNode body, std::string_view text) {
  const Kinds &k = Kinds::get();
  for (std::uint32_t i = 0, n = ts_node_named_child_count(body); i < n; ++i) {
    TSNode def = ts_node_named_child(body, i);
    bool isStatic = false;
    if (ts_node_symbol(def) == k.decoratedDefinition) {
      for (std::uint32_t j = 0, m = ts_node_named_child_count(def); j < m; ++j) {
        const TSNode decorator = ts_node_named_child(def, j);
        if (symbolOf(decorator) == TorchKinds::get().decorator) {
          const std::string_view written = textOf(ts_node_named_child(decorator, 0), text);
          isStatic = isStatic || written == "staticmethod" || written == "classmethod";
        }
      }
      def = field(def, "definition");
    }
    if (symbolOf(def) != k.functionDefinition || textOf(field(def, "name"), text) != "forward") continue;
    return isStatic ? TSNode{} : field(def, "name");
  }
  return TSNode{};
}

class LegacyAutogradFunction final : public Rule {
public:
  const RuleInfo &info() const override { return kLegacyAutogradFunction; }
  unsigned triggers() const override { return kTriggerTorchApi; }
  std::vector<TSSymbol> subscriptions() const override { return {Kinds::get().classDefinition}; }

  void check(TSNode cls, Context &ctx) const override {
    if (ctx.insideError()) return; // code the parser could not read: no finding, no fix
    const std::string_view text = ctx.text();
    const TSNode bases = field(cls, "superclasses");
    if (ts_node_is_null(bases)) return;
    const Provenance derives = provenOrStar(ctx, [&] {
      for (std::uint32_t i = 0, n = ts_node_named_child_count(bases); i < n; ++i) {
        const TSNode base = ts_node_named_child(bases, i);
        // Spelt as the prefilter's words: `Function)` or `Function,`.
        const char after = ts_node_end_byte(base) < text.size() ? text[ts_node_end_byte(base)] : '\0';
        if (!textOf(base, text).ends_with("Function") || (after != ')' && after != ',')) continue;
        if (torchNameWhere(base, ctx, isTorchFunction)) return true;
      }
      return false;
    });
    if (derives.how == Resolved::No) return;
    const TSNode forward = instanceForward(field(cls, "body"), text);
    if (ts_node_is_null(forward)) return;
    const std::string name(textOf(field(cls, "name"), text));
    ctx.report(makeDiagnostic(
        kLegacyAutogradFunction, Severity::Warning, forward,
        (derives.how == Resolved::Star ? starMessage(derives.written, derives.module) : std::string()) + "`" + name +
            ".forward` is an instance method: legacy autograd functions raise a `RuntimeError` since "
            "PyTorch 1.5; make `forward(ctx, …)` and `backward(ctx, …)` `@staticmethod`s (state on `ctx`, "
            "`ctx.save_for_backward`) and call `" +
            name + ".apply(…)` instead of `" + name + "()(…)`"));
  }
};

} // namespace

std::unique_ptr<Rule> makeLegacyAutogradFunction() { return std::make_unique<LegacyAutogradFunction>(); }

} // namespace asyncfix::rules
