// AF103 to-positional-non-blocking — `.to(device, True)`: a bool in the `dtype` slot.
#include "rules/edits.h"
#include "rules/rule.h"
#include "text/syntax.h"

namespace asyncfix::rules {

extern const RuleInfo kToPositionalNonBlocking;
const RuleInfo kToPositionalNonBlocking{"AF103",
                                        "to-positional-non-blocking",
                                        "`.to(device, True)`: the second positional argument is `dtype`",
                                        R"(## What it does
Flags a bare `True`/`False` as the second positional argument of `.to(...)`.

## Why is this bad?
`Tensor.to(device, dtype, non_blocking, copy)` takes the dtype second: `x.to(device, True)` raises
`TypeError` (a bool is not a dtype). Code written for `.cuda(device, async)` and moved to `.to()`
kept the flag in place, meaning `non_blocking`. (For `.to(tensor, …)` and `.to(dtype, …)` the
second slot is `non_blocking` — the keyword spelling works for every overload.)

## Example
```python
x = x.to(device, True)
```

## Use instead
```python
x = x.to(device, non_blocking=True)
```

## Fix safety
The fix writes the keyword in front of the value; safe — it means the same for every overload
that accepted the call, and makes the device overload work.
)",
                                        FixAvailability::Always,
                                        false};

namespace {

class ToPositionalNonBlocking final : public Rule {
public:
  const RuleInfo &info() const override { return kToPositionalNonBlocking; }
  std::vector<TSSymbol> subscriptions() const override { return {Kinds::get().call}; }
  unsigned triggers() const override { return kTriggerToCall; }

  void check(TSNode call, Context &ctx) const override {
    const TSNode fn = ctx.field(call, "function");
    if (ts_node_symbol(fn) != Kinds::get().attribute || textOf(ctx.field(fn, "attribute"), ctx.text()) != "to") return;
    const TSNode args = ctx.field(call, "arguments");
    if (ts_node_is_null(args) || ts_node_symbol(args) != Kinds::get().argumentList) return;
    // An error in the call (`.to(x True)`, `.to(\0False)`, `.to W(x, True)`) makes it a guess
    // what the arguments are: an ERROR node is no argument, and the fix could not mend the call.
    if (ts_node_has_error(call)) return;
    // Exactly two positional arguments, the second a bool literal (a third positional one could
    // not follow the keyword the fix writes).
    std::vector<TSNode> positional;
    for (std::uint32_t i = 0, n = ts_node_named_child_count(args); i < n; ++i) {
      const TSNode arg = ts_node_named_child(args, i);
      const std::string_view type = ts_node_type(arg);
      if (type == "keyword_argument" && textOf(field(arg, "name"), ctx.text()) == "non_blocking")
        return; // the fix would pass it twice
      // Comments and line continuations are extras the grammar puts among the arguments.
      if (type == "comment" || type == "line_continuation" || type == "keyword_argument") continue;
      if (type == "list_splat" || type == "dictionary_splat") return;
      positional.push_back(arg);
    }
    if (positional.size() != 2) return;
    {
      const TSNode arg = positional[1];
      const std::string_view type = ts_node_type(arg);
      {
        if (type != "true" && type != "false") return;
        Diagnostic d = makeDiagnostic(kToPositionalNonBlocking, Severity::Warning, arg,
                                      "`" + std::string(textOf(arg, ctx.text())) +
                                          "` in `.to()`'s `dtype` slot: pass it as `non_blocking=`");
        d.fix = Fix{"Pass it as `non_blocking=" + std::string(textOf(arg, ctx.text())) + "`",
                    Applicability::Safe,
                    {{ts_node_start_byte(arg), ts_node_start_byte(arg), "non_blocking="}}};
        ctx.report(std::move(d));
      }
    }
  }
};

} // namespace

std::unique_ptr<Rule> makeToPositionalNonBlocking() { return std::make_unique<ToPositionalNonBlocking>(); }

} // namespace asyncfix::rules
