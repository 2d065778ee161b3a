// AF306 scheduler-step-order — `scheduler.step()` before `optimizer.step()` in a loop.
#include <algorithm>
#include <array>

#include "rules/rule.h"
#include "rules/torch_api.h"
#include "rules/torch_values.h"
#include "text/syntax.h"

namespace asyncfix::rules {

extern const RuleInfo kSchedulerStepOrder;
const RuleInfo kSchedulerStepOrder{
    "AF306",
    "scheduler-step-order",
    "`lr_scheduler.step()` before `optimizer.step()` in the same loop (the order changed in PyTorch 1.1)",
    R"(## What it does
Flags `scheduler.step()` where `scheduler` is built in the same function (or module-level
statement) from one of `torch.optim.lr_scheduler`'s epoch schedulers (`StepLR`, `MultiStepLR`,
`ExponentialLR`, `CosineAnnealingLR`, `LambdaLR`, `MultiplicativeLR`, `CyclicLR`, `OneCycleLR`,
`CosineAnnealingWarmRestarts`, `LinearLR`, `ConstantLR`, `PolynomialLR`), when a later statement
of the same loop body — and no earlier one — steps an optimizer: `optimizer.step()` where
`optimizer` is built from `torch.optim.*`, or a call of a function of the file whose body steps
such an optimizer, or steps the parameter the call passes it to (`train(loader, model,
optimizer)`, the ImageNet example's shape). Also `scheduler.step()` (spelt `scheduler`,
`lr_scheduler` or `sched`) on a function's parameter to which every call of the function in the
file passes such a scheduler, with an optimizer parameter passed the same way (the transfer
learning tutorial's `train_model(model, criterion, optimizer, scheduler)`).

## Why is this bad?
Until PyTorch 1.0 the scheduler was stepped at the start of each epoch. PyTorch 1.1 changed the
contract: the constructor already sets the first learning rate, and `scheduler.step()` belongs
after `optimizer.step()`, at the end of the epoch. Called first, it moves the whole schedule one
epoch early (the first value is never used) and warns: `UserWarning: Detected call of
lr_scheduler.step() before optimizer.step(). In PyTorch 1.1.0 and later, you should call them in
the opposite order`.

## Example
```python
scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
for epoch in range(epochs):
    scheduler.step()
    train(train_loader, model, criterion, optimizer, epoch)
```

## Use instead
```python
scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
for epoch in range(epochs):
    train(train_loader, model, criterion, optimizer, epoch)
    scheduler.step()
```

## Fix safety
No automatic fix: moving the call changes the learning rate of every epoch (by design: it
restores the schedule the code meant), code that reads `scheduler.get_lr()` or logs the rate
around it moves with it, and resumed runs (`last_epoch=`) count differently. A human moves it.
The rule does not follow a scheduler built in one top-level statement and stepped in another
under a name of its own (only through a function's parameter, as above). A scheduler or
optimizer class that only a star import may make PyTorch's (`from torch.optim.lr_scheduler
import *`) counts too, the message naming the star import.
)",
    FixAvailability::None,
    false};

namespace {

constexpr std::array<std::string_view, 12> kSchedulers{
    "StepLR",           "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",           "LambdaLR",
    "MultiplicativeLR", "CyclicLR",    "OneCycleLR",    "CosineAnnealingWarmRestarts", "LinearLR",
    "ConstantLR",       "PolynomialLR"};

/// `X.step(…)`: the receiver X, or a null node.
TSNode stepReceiver(TSNode call, std::string_view text) {
  if (symbolOf(call) != Kinds::get().call) return TSNode{};
  const TSNode fn = field(call, "function");
  if (symbolOf(fn) != Kinds::get().attribute || textOf(field(fn, "attribute"), text) != "step") return TSNode{};
  return field(fn, "object");
}

/// A name every assignment of which builds a `torch.optim` optimizer.
bool isOptimizerValue(TSNode e, Context &ctx) {
  if (!isIdentifier(e)) return false;
  const auto values = boundValues(e, ctx);
  return values && std::all_of(values->begin(), values->end(), [&](TSNode v) {
           if (symbolOf(v) != Kinds::get().call) return false;
           return torchNameWhere(field(v, "function"), ctx, [](std::string_view q) {
             const std::string_view rest = q.substr(std::min<std::size_t>(q.size(), 12));
             return q.starts_with("torch.optim.") && !q.starts_with("torch.optim.lr_scheduler") && !rest.empty() &&
                    rest.front() >= 'A' && rest.front() <= 'Z' && rest.find('.') == std::string_view::npos;
           });
         });
}

/// Such a name, or a parameter to which every call of its function passes one.
bool isOptimizer(TSNode e, Context &ctx) {
  if (!isIdentifier(e)) return false;
  if (isOptimizerValue(e, ctx)) return true;
  const auto arguments = parameterArguments(e, ctx);
  return arguments &&
         std::all_of(arguments->begin(), arguments->end(), [&](TSNode a) { return isOptimizerValue(a, ctx); });
}

/// `lr_scheduler.StepLR(…)` and the other epoch schedulers, spelt with the class name right
/// before its `(` (the prefilter's word).
bool isSchedulerConstruction(TSNode call, Context &ctx) {
  const std::string_view text = ctx.text();
  if (symbolOf(call) != Kinds::get().call) return false;
  const TSNode fn = ctx.field(call, "function"), args = ctx.field(call, "arguments");
  const TSNode last = symbolOf(fn) == Kinds::get().attribute ? ctx.field(fn, "attribute") : fn;
  if (ts_node_is_null(args) || ts_node_end_byte(fn) != ts_node_start_byte(args) ||
      std::find(kSchedulers.begin(), kSchedulers.end(), textOf(last, text)) == kSchedulers.end())
    return false;
  const std::string wanted = "torch.optim.lr_scheduler." + std::string(textOf(last, text));
  return torchNameWhere(fn, ctx, [&](std::string_view q) { return q == wanted; });
}

/// A name every assignment of which builds an epoch scheduler.
bool isScheduler(TSNode e, Context &ctx) {
  if (!isIdentifier(e)) return isSchedulerConstruction(e, ctx);
  const auto values = boundValues(e, ctx);
  return values &&
         std::all_of(values->begin(), values->end(), [&](TSNode v) { return isSchedulerConstruction(v, ctx); });
}

/// True when `call` calls a function of the file whose body steps an optimizer: one it names,
/// or the parameter to which `call` passes one.
bool callSteps(TSNode call, Context &ctx) {
  const std::string_view text = ctx.text();
  const TSNode fn = field(call, "function");
  if (!isIdentifier(fn)) return false;
  const SemanticModel &model = ctx.semantic();
  const NameUse *use = model.nameAt(ts_node_start_byte(fn));
  if (!use) return false;
  const Scope *callee = nullptr;
  for (const NameUse *u : model.usesOf(model.resolve(*use))) {
    if (u->role == NameRole::Reference) continue;
    const Scope *s = u->role == NameRole::FunctionName ? model.scopeNamedBy(u->node) : nullptr;
    if (!s || callee) return false;
    callee = s;
  }
  if (!callee) return false;
  ctx.dependsOn(ts_node_start_byte(callee->node), ts_node_end_byte(callee->node));
  const TSNode params = field(callee->node, "parameters");
  return !ts_node_is_null(findNode(field(callee->node, "body"), [&](TSNode n) {
    const TSNode receiver = stepReceiver(n, text);
    if (!isIdentifier(receiver)) return false;
    if (isOptimizer(receiver, ctx)) return true;
    const NameUse *r = model.nameAt(ts_node_start_byte(receiver));
    if (!r) return false;
    for (std::uint32_t i = 0, count = ts_node_named_child_count(params); i < count; ++i) {
      const TSNode param = ts_node_named_child(params, i);
      const TSNode name = isIdentifier(param) ? param : field(param, "name");
      if (!isIdentifier(name) || textOf(name, text) != r->name) continue;
      return isOptimizer(argumentFor(call, i, r->name, text), ctx);
    }
    return false;
  }));
}

/// The first call in `statement` that steps an optimizer (directly or through a function of
/// the file), or a null node.
TSNode optimizerStep(TSNode statement, Context &ctx) {
  const std::string_view text = ctx.text();
  return findNode(statement, [&](TSNode n) {
    if (symbolOf(n) != Kinds::get().call) return false;
    const TSNode receiver = stepReceiver(n, text);
    return ts_node_is_null(receiver) ? callSteps(n, ctx) : isOptimizer(receiver, ctx);
  });
}

class SchedulerStepOrder final : public Rule {
public:
  const RuleInfo &info() const override { return kSchedulerStepOrder; }
  unsigned triggers() const override { return kTriggerTorchApi; }
  std::vector<TSSymbol> subscriptions() const override { return {Kinds::get().call}; }

  void check(TSNode call, Context &ctx) const override {
    if (ctx.insideError()) return;                // code the parser could not read: no finding, no fix
    std::vector<std::pair<TSNode, TSNode>> found; // (the scheduler's step, the optimizer's after it)
    const Provenance how = provenOrStar(ctx, [&] {
      found = stepsBeforeOptimizer(call, ctx);
      return !found.empty();
    });
    for (const auto &[step, later] : found) report(step, later, how, ctx);
  }

private:
  /// The scheduler steps `call` makes or builds (see checkStep) that run before an optimizer's.
  static std::vector<std::pair<TSNode, TSNode>> stepsBeforeOptimizer(TSNode call, Context &ctx) {
    std::vector<std::pair<TSNode, TSNode>> found;
    const auto add = [&](TSNode step) {
      if (const TSNode later = checkStep(step, ctx); !ts_node_is_null(later)) found.emplace_back(step, later);
    };
    const std::string_view text = ctx.text();
    // `scheduler.step()` of a function's parameter, which the file's calls give a scheduler (the
    // tutorials' `train_model(model, criterion, optimizer, scheduler)`).
    if (const TSNode receiver = stepReceiver(call, text); isIdentifier(receiver)) {
      const std::string_view name = textOf(receiver, text);
      // Spelt as the prefilter's words: `scheduler.step(`, `lr_scheduler.step(`, `sched.step(`.
      if ((name != "scheduler" && name != "lr_scheduler" && name != "sched") ||
          !textOf(call, text).substr(name.size()).starts_with(".step("))
        return found;
      const auto arguments = parameterArguments(receiver, ctx);
      if (arguments && std::all_of(arguments->begin(), arguments->end(), [&](TSNode a) { return isScheduler(a, ctx); }))
        add(call);
      return found;
    }
    // `scheduler = StepLR(…)`: its `scheduler.step()` in the same top-level statement.
    if (!isSchedulerConstruction(call, ctx)) return found;
    const TSNode assignment = ctx.parentOf(call);
    if (symbolOf(assignment) != Kinds::get().assignment || !isIdentifier(field(assignment, "left"))) return found;
    const SemanticModel &model = ctx.semantic();
    const NameUse *binding = model.nameAt(ts_node_start_byte(field(assignment, "left")));
    if (!binding || binding->inError) return found;
    const TSNode statement = topLevelStatement(call, ctx);
    for (const NameUse *u : model.usesOf(model.resolve(*binding))) {
      if (u->role != NameRole::Reference || !within(u->node, statement)) continue;
      const TSNode attribute = ts_node_parent(u->node);
      const TSNode step = ts_node_parent(attribute);
      if (!ts_node_eq(stepReceiver(step, text), u->node)) continue;
      add(step);
    }
    return found;
  }

  /// `scheduler.step()`: the optimizer's step after it, when a later statement of its loop's
  /// body, and no earlier one, steps an optimizer (a null node otherwise).
  static TSNode checkStep(TSNode step, Context &ctx) {
    const Kinds &k = Kinds::get();
    TSNode inBody = step, body = ts_node_parent(step);
    while (!ts_node_is_null(body)) {
      const TSSymbol p = symbolOf(ts_node_parent(body));
      if (symbolOf(body) == k.block && (p == k.forStatement || p == TorchKinds::get().whileStatement)) break;
      if (symbolOf(body) == k.functionDefinition || symbolOf(body) == k.classDefinition) return TSNode{};
      inBody = body;
      body = ts_node_parent(body);
    }
    if (ts_node_is_null(body)) return TSNode{};
    for (std::uint32_t i = 0, n = ts_node_named_child_count(body); i < n; ++i) {
      const TSNode statement = ts_node_named_child(body, i);
      const bool before = ts_node_end_byte(statement) <= ts_node_start_byte(inBody);
      if (ts_node_eq(statement, inBody)) continue;
      const TSNode found = optimizerStep(statement, ctx);
      if (ts_node_is_null(found)) continue;
      return before ? TSNode{} : found; // before: the optimizer has stepped once by then
    }
    return TSNode{};
  }

  static void report(TSNode step, TSNode later, const Provenance &how, Context &ctx) {
    const std::string_view text = ctx.text();
    Diagnostic d = makeDiagnostic(kSchedulerStepOrder, Severity::Warning, step,
                                  (how.how == Resolved::Star ? starMessage(how.written, how.module) : std::string()) +
                                      "`" + std::string(textOf(step, text)) + "` runs before the optimizer steps (`" +
                                      std::string(textOf(later, text)) + "`, line ");
    ctx.appendLineNumber(d, ts_node_start_byte(later), "The optimizer's step");
    d.message += "): since PyTorch 1.1 it belongs after `optimizer.step()`, and called first it skips the schedule's "
                 "first value; move it to the end of the loop body";
    ctx.report(std::move(d));
  }
};

} // namespace

std::unique_ptr<Rule> makeSchedulerStepOrder() { return std::make_unique<SchedulerStepOrder>(); }

} // namespace asyncfix::rules
