// AF312 renamed-torch-kwarg — keyword arguments PyTorch 0.4 renamed: `retain_variables=` of
// `backward`, `device_id=` of `cuda`.
#include <array>

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
)",
                                  FixAvailability::Sometimes,
                                  true};

namespace {

struct Rename {
  std::string_view old, replacement, method, since;
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
    const auto *r = std::find_if(kRenames.begin(), kRenames.end(), [&](const Rename &x) { return x.old == keyword; });
    if (r == kRenames.end() || !startsTorchWord(text, ts_node_start_byte(name))) return;
    const TSNode args = ctx.parentOf(node);
    const TSNode call = callOfArguments(args, ctx);
    if (ts_node_is_null(call)) return;
    const TSNode function = field(call, "function");
    const bool method =
        symbolOf(function) == Kinds::get().attribute && textOf(field(function, "attribute"), text) == r->method;
    const bool autogradBackward =
        r->method == "backward" && resolvesTo(function, "torch.autograd.backward", ctx) == Resolved::Proven;
    if (!method && !autogradBackward) return;
    if (!fileImports("torch", ctx) || definesParameter(r->method, r->old, ctx)) return;
    std::string message =
        "`" + std::string(r->old) + "=` is a TypeError since PyTorch 0.4 (" + std::string(r->since) + ")";
    Diagnostic d = makeDiagnostic(kRenamedTorchKwarg, Severity::Warning, name, std::move(message));
    if (ts_node_is_null(keywordArgument(args, r->replacement, text)))
      d.fix = Fix{"Replace `" + std::string(r->old) + "=` with `" + std::string(r->replacement) + "=`",
                  Applicability::Safe,
                  {replaceNode(name, std::string(r->replacement))}};
    ctx.report(std::move(d));
  }
};

} // namespace

std::unique_ptr<Rule> makeRenamedTorchKwarg() { return std::make_unique<RenamedTorchKwarg>(); }

} // namespace asyncfix::rules
