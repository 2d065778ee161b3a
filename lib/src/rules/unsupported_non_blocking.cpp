// AF102 unsupported-non-blocking — `async=`/`non_blocking=` where the callee never took it.
#include "rules/edits.h"
#include "rules/rule.h"
#include "text/prefilter.h"
#include "text/syntax.h"

namespace asyncfix::rules {

extern const RuleInfo kUnsupportedNonBlocking;
const RuleInfo kUnsupportedNonBlocking{
    "AF102",
    "unsupported-non-blocking",
    "`async=`/`non_blocking=` on `Module.cuda()` or `.cpu()`, which never took either",
    R"(## What it does
Flags `async=` and `non_blocking=` passed to `.cuda()` of an `nn.Module` — a name bound to
`nn.Something(...)`, `torch.nn.Something(...)`, `torchvision.models.something(...)`, an instance of
a class in the file deriving from `nn.Module`, or `self` inside such a class — and to `.cpu()` of
anything.

## Why is this bad?
`Module.cuda(device=None)` and `Tensor.cpu()` never had such a parameter: the call raised a
`TypeError` in every PyTorch release. The usual `sed 's/async=/non_blocking=/'` advice turns one
`TypeError` into another. Moving a module's parameters is synchronous anyway.

## Example
```python
model = torchvision.models.resnet50()
model = model.cuda(async=True)
labels = output.cpu(non_blocking=True)
```

## Use instead
```python
model = torchvision.models.resnet50()
model = model.cuda()
labels = output.cpu()
```

## Fix safety
The fix removes the argument and the comma that separates it from its neighbours, keeping
comments and the other arguments. It is safe: the argument could only ever raise. When the file
does not show that the receiver of `.cuda()` is a module, AF102 stays silent (AF101 applies).
)",
    FixAvailability::Always,
    false};

namespace {

/// `async=`/`non_blocking=` on `.cuda()` of an nn.Module (which never took either), or on
/// `.cpu()` of anything.
bool isUnsupportedNonBlocking(TSNode keywordArgument, Context &ctx) {
  if (ts_node_symbol(keywordArgument) != Kinds::get().keywordArgument) return false;
  const std::string_view name = textOf(field(keywordArgument, "name"), ctx.text());
  if (name != "async" && name != "non_blocking") return false;
  const TSNode args = ctx.parentOf(keywordArgument), call = ctx.parentOf(args);
  const std::string_view method = ctx.calledMethod(args, call);
  if (method == "cpu") {
    // Unless the file defines a `cpu` that takes it (a class of its own with that method).
    for (std::uint32_t i : ctx.semantic().namesCalled(name)) {
      const NameUse &use = ctx.semantic().name(i);
      if (use.role == NameRole::Parameter && ctx.semantic().scopes()[use.scope].name == "cpu") return false;
    }
    return true;
  }
  if (method != "cuda") return false;
  const TSNode receiver = ctx.field(ctx.field(call, "function"), "object");
  // A loop's variable is no module: told by the loops around the call, before resolving the name
  // (which walks the whole function; dense training code copies loop variables everywhere).
  // (The walk's ancestors are the argument's only while it is the node being checked, not when
  // another rule asks whether this one claims it.)
  const std::span<const TSNode> ancestors = ctx.ancestors();
  if (!ancestors.empty() && ts_node_eq(ancestors.back(), args) && ctx.receivers().isLoopVariable(receiver, ancestors))
    return false;
  return ctx.receivers().kindOf(receiver) == ValueKind::Module;
}

class UnsupportedNonBlocking final : public Rule {
public:
  const RuleInfo &info() const override { return kUnsupportedNonBlocking; }
  std::vector<TSSymbol> subscriptions() const override { return {Kinds::get().keywordArgument}; }
  unsigned triggers() const override { return kTriggerKeywordName | kTriggerNonBlocking; }

  void check(TSNode node, Context &ctx) const override {
    // Cheap tests first: only `async=`/`non_blocking=` on `.cuda()`/`.cpu()` go on. The name
    // starts the keyword argument: most are neither, told without a field lookup.
    const std::string_view text = ctx.text();
    const std::uint32_t start = ts_node_start_byte(node);
    if (text.compare(start, 5, "async") != 0 && text.compare(start, 12, "non_blocking") != 0) return;
    const std::string_view name = textOf(field(node, "name"), text);
    if (name != "async" && name != "non_blocking") return;
    // Not read by the error recovery from the middle of a longer name (`!dasync=`), as AF001.
    if (!keywordStandsAlone(text, start, name.size())) return;
    const TSNode args = ctx.parentOf(node);
    const std::string_view method = ctx.calledMethod(args, ctx.parentOf(args));
    if ((method != "cuda" && method != "cpu") || !isUnsupportedNonBlocking(node, ctx)) return;
    const bool isAsync = name == "async";
    const std::string what = method == "cpu" ? "`Tensor.cpu()` and `Module.cpu()` take" : "`Module.cuda()` takes";
    Diagnostic d = makeDiagnostic(
        kUnsupportedNonBlocking, isAsync ? keywordSeverity(ctx.config()) : Severity::Warning, field(node, "name"),
        std::string("`").append(name).append("=` raises a TypeError: ").append(what).append(" no such argument"));
    // append, not `"literal" + std::string`: GCC 12 -O3 warns falsely (-Wrestrict) on the latter
    d.fix =
        Fix{std::string("Remove `").append(name).append("=`"), Applicability::Safe, {removeArgument(node, ctx.text())}};
    ctx.report(std::move(d));
  }

  /// `model.cuda(async=…)` is no name, and no `async=` for AF101 to rename either.
  bool claims(Claim what, TSNode node, Context &ctx) const override {
    return what == kClaimKeywordArgument && isUnsupportedNonBlocking(node, ctx);
  }
};

} // namespace

std::unique_ptr<Rule> makeUnsupportedNonBlocking() { return std::make_unique<UnsupportedNonBlocking>(); }

} // namespace asyncfix::rules
