// AF304 implicit-softmax-dim — `F.softmax(x)` / `nn.Softmax()` without `dim`.
#include "rules/rule.h"
#include "rules/torch_api.h"
#include "rules/torch_values.h"
#include "text/syntax.h"

namespace asyncfix::rules {

extern const RuleInfo kImplicitSoftmaxDim;
const RuleInfo kImplicitSoftmaxDim{
    "AF304",
    "implicit-softmax-dim",
    "`F.softmax(x)` / `nn.Softmax()` without `dim` (deprecated since PyTorch 0.4; an implicit choice)",
    R"(## What it does
Flags calls of `torch.nn.functional.softmax`, `log_softmax` and `softmin` without a `dim`
(neither a second positional argument nor `dim=`), and constructions of `torch.nn.Softmax`,
`LogSoftmax` and `Softmin` without one. Names resolve through the file's imports: a local `F`
or `nn` that is not PyTorch's is left alone.

## Why is this bad?
PyTorch 0.4 made `dim` an argument and deprecated leaving it out: every call warns `UserWarning:
Implicit dimension choice for softmax has been deprecated. Change the call to include dim=X as
an argument.` The implicit choice depends on the input's number of dimensions: dim 0 for 0-, 1-
and 3-D inputs, dim 1 otherwise. For a 3-D input such as a sequence batch `(N, L, C)` that is a
softmax over the *batch*, a silent bug that the warning exists to expose.

## Example
```python
probs = F.softmax(logits)
self.softmax = nn.Softmax()
```

## Use instead
```python
probs = F.softmax(logits, dim=1)
self.softmax = nn.Softmax(dim=1)
```

## Fix safety
No automatic fix. The dimension that reproduces the old behaviour depends on the number of
dimensions of the input, which the file does not show (for `nn.Softmax()` the input is not even
at hand), and the old choice is wrong for 3-D inputs: writing it down would hide the bug the
warning reports, and writing `dim=1` would change results for 1-D and 3-D inputs. Which
dimension holds the classes is for a human to say. A `softmax` that only a star import may make
PyTorch's (`from torch.nn.functional import *`) is reported too, the message naming it.
)",
    FixAvailability::None,
    true};

namespace {

class ImplicitSoftmaxDim final : public Rule {
public:
  const RuleInfo &info() const override { return kImplicitSoftmaxDim; }
  unsigned triggers() const override { return kTriggerTorchApi; }
  std::vector<TSSymbol> subscriptions() const override { return {Kinds::get().call}; }

  void check(TSNode call, Context &ctx) const override {
    if (ctx.insideError()) return; // code the parser could not read: no finding, no fix
    const std::string_view text = ctx.text();
    const TSNode fn = ctx.field(call, "function"), args = ctx.field(call, "arguments");
    // Spelt as the prefilter's words: the name right before its `(`.
    if (ts_node_is_null(args) || ts_node_end_byte(fn) != ts_node_start_byte(args)) return;
    const TSNode last = symbolOf(fn) == Kinds::get().attribute ? field(fn, "attribute") : fn;
    const std::string_view name = textOf(last, text);
    const bool functional = name == "softmax" || name == "log_softmax" || name == "softmin";
    const bool module = name == "Softmax" || name == "LogSoftmax" || name == "Softmin";
    if (!functional && !module) return;
    if (!ts_node_is_null(keywordOfCall(call, "dim", text))) return;
    const unsigned positional = positionalCount(call);
    if (positional >= (functional ? 2U : 1U)) return;
    const Provenance torch = provenOrStar(ctx, [&] {
      return torchNameWhere(fn, ctx, [&](std::string_view q) {
        return functional
                   ? q == "torch.nn.functional." + std::string(name)
                   : q == "torch.nn." + std::string(name) || q == "torch.nn.modules.activation." + std::string(name);
      });
    });
    if (torch.how == Resolved::No) return;
    ctx.report(makeDiagnostic(
        kImplicitSoftmaxDim, Severity::Warning, call,
        (torch.how == Resolved::Star ? starMessage(torch.written, torch.module) : std::string()) + "`" +
            std::string(textOf(fn, text)) +
            "` without `dim`: deprecated since PyTorch 0.4 (a UserWarning), the implicit choice takes dim 0 for 0-, "
            "1- and 3-D inputs (the batch, for a 3-D batch) and dim 1 otherwise; pass `dim=` (the class dimension)"));
  }
};

} // namespace

std::unique_ptr<Rule> makeImplicitSoftmaxDim() { return std::make_unique<ImplicitSoftmaxDim>(); }

} // namespace asyncfix::rules
