// AF317 torch-load-full-pickle — `torch.load(path)` without `weights_only=`.
#include "rules/torch_api.h"
#include "text/syntax.h"
#include "text/torch_words.h"

namespace asyncfix::rules {

extern const RuleInfo kTorchLoadFullPickle;
const RuleInfo kTorchLoadFullPickle{
    "AF317",
    "torch-load-full-pickle",
    "`torch.load(…)` without `weights_only=`: PyTorch 2.6 refuses full pickles by default",
    R"(## What it does
Flags calls of `torch.load(…)` (resolved through the file's imports) that do not pass
`weights_only=` (nor `**kwargs`, which may); also `load(…)` after `from torch import *`, with a
message that names the star import (a name the file does not bind may be torch's).

## Why is this bad?
`torch.load` unpickles: a file made by `torch.save(model, path)` or a checkpoint that holds
more than tensors (an `argparse.Namespace`, NumPy arrays, the optimizer's class) is a full
pickle, which may run arbitrary code when loaded. PyTorch 1.13 added `weights_only=`
(default `False`); PyTorch 2.4 started warning (`FutureWarning: You are using torch.load with
weights_only=False`) and PyTorch 2.6 made `weights_only=True` the default, which refuses those
files: `_pickle.UnpicklingError: Weights only load failed`. Old training and evaluation scripts
that load a whole model stop there. On PyTorch 1.13 (Debian bookworm's) the call still loads
silently: the rule reports what breaks on today's PyTorch.

## Example
```python
model = torch.load("model.pth")
```

## Use instead
```python
state = torch.load("model.pth", weights_only=True)  # tensors only: safe for any file
model.load_state_dict(state)
# or, for a file you made or trust:
model = torch.load("model.pth", weights_only=False)
```

## Fix safety
No automatic fix. Whether a file may run code when loaded is a security decision about where
it comes from: pass `weights_only=False` for files you trust only; prefer saving and loading
`state_dict()`s, which load with `weights_only=True`. The finding is information, not a
warning: a file of plain tensors loads either way.
)",
    FixAvailability::None,
    false};

namespace {

class TorchLoadFullPickle final : public Rule {
public:
  const RuleInfo &info() const override { return kTorchLoadFullPickle; }
  unsigned triggers() const override { return kTriggerTorchApi; }
  std::vector<TSSymbol> subscriptions() const override { return {Kinds::get().call}; }

  void check(TSNode node, Context &ctx) const override {
    if (ctx.insideError()) return;
    const std::string_view text = ctx.text();
    const TSNode function = ctx.field(node, "function"), args = ctx.field(node, "arguments");
    // `torch.load(…)`, or `load(…)` after `from torch import *`.
    const TSNode name = symbolOf(function) == Kinds::get().attribute ? ctx.field(function, "attribute") : function;
    if (!isIdentifier(name) || textOf(name, text) != "load") return;
    if (!startsTorchWord(text, ts_node_start_byte(function)) || symbolOf(args) != Kinds::get().argumentList) return;
    const Resolved how = resolvesTo(function, "torch.load", ctx);
    // A bare `load` counts only through a star import (`from torch import load` is not looked for).
    if (how == Resolved::No || (isIdentifier(function) && how != Resolved::Star)) return;
    if (!ts_node_is_null(keywordArgument(args, "weights_only", text)) || hasDictionarySplat(args)) return;
    ctx.report(makeDiagnostic(kTorchLoadFullPickle, Severity::Info, function,
                              (how == Resolved::Star ? starMessageFor(function, "torch.load", ctx) : std::string()) +
                                  "`torch.load` without `weights_only=`: since PyTorch 2.6 it loads tensors only and "
                                  "refuses a full pickle (a whole model); pass `weights_only=False` only for a "
                                  "file you trust"));
  }
};

} // namespace

std::unique_ptr<Rule> makeTorchLoadFullPickle() { return std::make_unique<TorchLoadFullPickle>(); }

} // namespace asyncfix::rules
