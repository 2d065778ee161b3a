// AF104 non-blocking-without-pinned-memory — `non_blocking=True` on batches of an unpinned loader.
#include "rules/rule.h"
#include "text/syntax.h"

namespace asyncfix::rules {

extern const RuleInfo kNonBlockingWithoutPinnedMemory;
const RuleInfo kNonBlockingWithoutPinnedMemory{
    "AF104",
    "non-blocking-without-pinned-memory",
    "`non_blocking=True` copies of batches from a `DataLoader` built without `pin_memory=True`",
    R"(## What it does
Flags `x.cuda(non_blocking=True)` / `x.to(device, non_blocking=True)` where `x` comes from iterating
a `DataLoader` that the file builds without `pin_memory=True`.

## Why is this bad?
A host-to-device copy can only overlap with computation when the source is in pinned (page-locked)
memory. From a pageable tensor, `non_blocking=True` silently does a synchronous copy: the flag
promises a speed-up it cannot give.

## Example
```python
loader = DataLoader(dataset, batch_size=64, num_workers=4)
for images, labels in loader:
    images = images.cuda(non_blocking=True)
```

## Use instead
```python
loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
for images, labels in loader:
    images = images.cuda(non_blocking=True)
```

## Fix safety
The fix adds `pin_memory=True` to the `DataLoader(...)` call (or turns `pin_memory=False` into
`True`). It is unsafe: pinned memory is a scarce resource, and pinning every batch costs host
memory and start-up time.
)",
    FixAvailability::Always,
    false};

namespace {

/// The edit that pins the memory of the `DataLoader(...)` call `loader`: its `pin_memory` is
/// absent or a literal False. Nothing when it pins, or when its arguments cannot tell (a
/// variable, `**kwargs`, eight positional arguments).
std::optional<TextEdit> pinMemoryEdit(TSNode loader, std::string_view text) {
  const TSNode args = field(loader, "arguments");
  if (ts_node_is_null(args)) return std::nullopt;
  TSNode pin{}, last{};
  int positional = 0;
  // One step per argument (a cursor: looking up the i-th child starts from the first each time).
  Cursor cursor(args);
  for (bool more = ts_tree_cursor_goto_first_child(cursor.get()); more;
       more = ts_tree_cursor_goto_next_sibling(cursor.get())) {
    const TSNode arg = cursor.node();
    if (!ts_node_is_named(arg) || ts_node_symbol(arg) == Kinds::get().comment) continue;
    const std::string_view type = ts_node_type(arg);
    if (type == "dictionary_splat" || type == "list_splat") return std::nullopt;
    // pin_memory is DataLoader's 8th parameter: with 8 positional arguments it is given.
    if (ts_node_symbol(arg) != Kinds::get().keywordArgument && ++positional >= 8) return std::nullopt;
    // A keyword argument starts with its name.
    if (ts_node_symbol(arg) == Kinds::get().keywordArgument &&
        text.compare(ts_node_start_byte(arg), 10, "pin_memory") == 0 &&
        textOf(field(arg, "name"), text) == "pin_memory")
      pin = arg;
    last = arg;
  }
  if (!ts_node_is_null(pin)) {
    const TSNode value = field(pin, "value");
    if (textOf(value, text) != "False") return std::nullopt;
    return TextEdit{ts_node_start_byte(value), ts_node_end_byte(value), "True"};
  }
  if (!ts_node_is_null(last)) return TextEdit{ts_node_end_byte(last), ts_node_end_byte(last), ", pin_memory=True"};
  return TextEdit{ts_node_start_byte(args) + 1, ts_node_start_byte(args) + 1, "pin_memory=True"};
}

bool unpinned(TSNode call, std::string_view text) { return pinMemoryEdit(call, text).has_value(); }

class NonBlockingWithoutPinnedMemory final : public Rule {
public:
  const RuleInfo &info() const override { return kNonBlockingWithoutPinnedMemory; }
  std::vector<TSSymbol> subscriptions() const override { return {Kinds::get().keywordArgument}; }
  unsigned triggers() const override { return kTriggerNonBlocking; }

  void check(TSNode node, Context &ctx) const override {
    const std::string_view text = ctx.text();
    // The name starts the keyword argument: most are not `non_blocking`, told without a field lookup.
    if (text.compare(ts_node_start_byte(node), 12, "non_blocking") != 0) return;
    if (textOf(field(node, "name"), text) != "non_blocking" || textOf(field(node, "value"), text) != "True") return;
    const TSNode argumentList = ctx.parentOf(node), call = ctx.parentOf(argumentList);
    const std::string_view method = ctx.calledMethod(argumentList, call);
    if (method != "cuda" && method != "to") return;
    // The receiver's ancestors: the walk's, with the method's attribute for the argument list.
    const TSNode function = ctx.field(call, "function");
    std::vector<TSNode> ancestors(ctx.ancestors().begin(), ctx.ancestors().end());
    if (ancestors.empty() || !ts_node_eq(ancestors.back(), argumentList)) return;
    ancestors.back() = function;
    const TSNode loader = ctx.receivers().dataLoaderCallOf(field(function, "object"), ancestors, unpinned);
    if (ts_node_is_null(loader)) return;
    const std::optional<TextEdit> edit = pinMemoryEdit(loader, text);
    if (!edit) return;
    Diagnostic d = makeDiagnostic(kNonBlockingWithoutPinnedMemory, Severity::Info, field(node, "name"),
                                  "`non_blocking=True` is synchronous here: the DataLoader on line ");
    ctx.appendLineNumber(d, ts_node_start_byte(loader), "The DataLoader");
    d.message += " does not pin memory";
    d.fix = Fix{"Add `pin_memory=True` to the DataLoader", Applicability::Unsafe, {*edit}};
    ctx.report(std::move(d));
  }
};

} // namespace

std::unique_ptr<Rule> makeNonBlockingWithoutPinnedMemory() {
  return std::make_unique<NonBlockingWithoutPinnedMemory>();
}

} // namespace asyncfix::rules
