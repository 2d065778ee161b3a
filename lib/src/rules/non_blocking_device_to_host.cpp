// AF106 non-blocking-device-to-host — a non-blocking copy to the CPU read before it is done.
#include <array>

#include "rules/rule.h"
#include "text/syntax.h"

namespace asyncfix::rules {

extern const RuleInfo kNonBlockingDeviceToHost;
const RuleInfo kNonBlockingDeviceToHost{
    "AF106",
    "non-blocking-device-to-host",
    "a `non_blocking=True` copy to the CPU read on the host before any synchronization",
    R"(## What it does
Flags `y = x.to('cpu', non_blocking=True)` (or to `torch.device('cpu')`, or `device='cpu'`) when,
later in the same block, `y` is read on the host — `.numpy()`, `.item()`, `.tolist()`, `print(y)`,
`float(y)`, `int(y)`, `bool(y)`, `list(y)` — with no `torch.cuda.synchronize()`,
`stream.synchronize()` or `event.synchronize()` in between.

## Why is this bad?
A non-blocking device-to-host copy returns at once; the CPU tensor is filled in later by the GPU.
Reading it before the copy finished reads whatever the memory held: stale or partial values, a
race that depends on timing and hardware.

## Example
```python
scores = logits.to("cpu", non_blocking=True)
print(scores.numpy())
```

## Use instead
```python
scores = logits.to("cpu", non_blocking=True)
torch.cuda.synchronize()
print(scores.numpy())
```

## Fix safety
Display-only: the suggested `torch.cuda.synchronize()` waits for all streams, which may be more
than needed (an event on the copy's stream is finer); asyncfix never applies it on its own.
)",
    FixAvailability::Sometimes,
    false};

namespace {

constexpr std::array<std::string_view, 3> kHostMethods{"numpy", "item", "tolist"};
constexpr std::array<std::string_view, 6> kHostFunctions{"print", "float", "int", "bool", "list", "str"};

template <std::size_t N> bool in(const std::array<std::string_view, N> &set, std::string_view s) {
  for (std::string_view x : set)
    if (x == s) return true;
  return false;
}

bool isCpuDevice(TSNode arg, std::string_view text) {
  std::string_view t = textOf(arg, text);
  if (ts_node_symbol(arg) == Kinds::get().keywordArgument) {
    if (textOf(field(arg, "name"), text) != "device") return false;
    t = textOf(field(arg, "value"), text);
  }
  return t == "'cpu'" || t == "\"cpu\"" || t == "torch.device('cpu')" || t == "torch.device(\"cpu\")";
}

/// What node `n` does with `name`: 0 nothing relevant, 1 synchronizes (or rebinds the name),
/// 2 reads it on the host.
int effect(TSNode n, std::string_view name, std::string_view text) {
  const Kinds &k = Kinds::get();
  if (ts_node_symbol(n) == k.assignment && textOf(field(n, "left"), text) == name) return 1;
  if (ts_node_symbol(n) != k.call) return 0;
  const TSNode fn = field(n, "function");
  const bool attr = ts_node_symbol(fn) == k.attribute;
  const std::string_view callee = attr ? textOf(field(fn, "attribute"), text) : textOf(fn, text);
  if (callee == "synchronize") return 1;
  if (attr) return in(kHostMethods, callee) && textOf(field(fn, "object"), text) == name ? 2 : 0;
  if (!in(kHostFunctions, callee)) return 0;
  const TSNode args = field(n, "arguments");
  for (std::uint32_t i = 0, m = ts_node_named_child_count(args); i < m; ++i)
    if (textOf(ts_node_named_child(args, i), text) == name) return 2;
  return 0;
}

/// The first thing statement `stmt` does with `name` (see effect()); `*at` is where.
int scan(TSNode stmt, std::string_view name, std::string_view text, TSNode *at) {
  *at = findNode(stmt, [&](TSNode n) { return effect(n, name, text) != 0; });
  return ts_node_is_null(*at) ? 0 : effect(*at, name, text);
}

class NonBlockingDeviceToHost final : public Rule {
public:
  const RuleInfo &info() const override { return kNonBlockingDeviceToHost; }
  std::vector<TSSymbol> subscriptions() const override { return {Kinds::get().assignment}; }
  unsigned triggers() const override { return kTriggerNonBlocking; }

  void check(TSNode assignment, Context &ctx) const override {
    const std::string_view text = ctx.text();
    // Its call passes `non_blocking=` and a CPU device, each spelt with its word (isCpuDevice):
    // most assignments do not, told without a field lookup — the copies to the GPU of a
    // training loop (`x = x.to(device, non_blocking=True)`) by the second word.
    const std::uint32_t start = ts_node_start_byte(assignment), end = ts_node_end_byte(assignment);
    if (end > text.size()) return;
    const std::string_view spelt = text.substr(start, end - start);
    if (spelt.find("non_blocking") == std::string_view::npos || spelt.find("cpu") == std::string_view::npos) return;
    const TSNode left = field(assignment, "left"), right = field(assignment, "right");
    // `x: int` has no right-hand side.
    if (ts_node_is_null(left) || ts_node_is_null(right) || !isIdentifier(left) ||
        ts_node_symbol(right) != Kinds::get().call)
      return;
    const TSNode fn = field(right, "function");
    if (ts_node_symbol(fn) != Kinds::get().attribute || textOf(field(fn, "attribute"), text) != "to") return;
    const TSNode args = field(right, "arguments");
    TSNode nonBlocking{};
    bool toCpu = false;
    for (std::uint32_t i = 0, n = ts_node_named_child_count(args); i < n; ++i) {
      const TSNode arg = ts_node_named_child(args, i);
      if (ts_node_symbol(arg) == Kinds::get().keywordArgument && textOf(field(arg, "name"), text) == "non_blocking" &&
          textOf(field(arg, "value"), text) == "True")
        nonBlocking = arg;
      toCpu = toCpu || isCpuDevice(arg, text);
    }
    if (ts_node_is_null(nonBlocking) || !toCpu) return;
    // The statements after the assignment's, in the same block.
    const TSNode stmt = ctx.parentOf(assignment);
    if (ts_node_is_null(stmt) || std::string_view(ts_node_type(stmt)) != "expression_statement") return;
    const std::string_view name = textOf(left, text);
    const TSNode block = ctx.parentOf(stmt);
    const bool topLevel = ts_node_is_null(block) || ts_node_symbol(block) == Kinds::get().module;
    // The statements after it (at module level, to the end of the text).
    ctx.dependsOn(ts_node_end_byte(stmt), topLevel ? static_cast<std::uint32_t>(text.size()) : ts_node_end_byte(block));
    const auto after = [&](TSNode n) { return ctx.nextStatement(n, block); };
    for (TSNode next = after(stmt); !ts_node_is_null(next); next = after(next)) {
      TSNode read{};
      const int what = scan(next, name, text, &read);
      if (what == 1) return;
      if (what == 2) {
        Diagnostic d = makeDiagnostic(kNonBlockingDeviceToHost, Severity::Warning, field(nonBlocking, "name"),
                                      "`" + std::string(name) + "` is read on the host on line ");
        ctx.appendLineNumber(d, ts_node_start_byte(read), "The read on the host");
        d.message += " before the non-blocking copy is known to be done";
        // Suggest a synchronize on its own line before the reading statement, with the file's line
        // break and the statement's indentation.
        const std::uint32_t at = ts_node_start_byte(next);
        std::string insert = "torch.cuda.synchronize()";
        insert.append(ctx.lineBreakAt(at)).append(ctx.lineBefore(at));
        d.fix = Fix{"Synchronize before reading `" + std::string(name) + "`",
                    Applicability::DisplayOnly,
                    {{at, at, std::move(insert)}}};
        ctx.report(std::move(d));
        return;
      }
    }
  }
};

} // namespace

std::unique_ptr<Rule> makeNonBlockingDeviceToHost() { return std::make_unique<NonBlockingDeviceToHost>(); }

} // namespace asyncfix::rules
