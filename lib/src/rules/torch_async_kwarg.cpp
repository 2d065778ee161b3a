// AF101 torch-async-kwarg — `async=` on PyTorch's device-transfer calls.
#include <algorithm>
#include <array>

#include "rules/edits.h"
#include "rules/rule.h"
#include "text/prefilter.h"
#include "text/syntax.h"

namespace asyncfix::rules {

extern const RuleInfo kTorchAsyncKwarg;
const RuleInfo kTorchAsyncKwarg{"AF101",
                                "torch-async-kwarg",
                                "`async=` keyword on a PyTorch device-transfer call (renamed `non_blocking=`)",
                                R"(## What it does
Flags the `async=` keyword argument on PyTorch calls that took it before PyTorch 0.4 —
`Tensor.cuda`, `Tensor.type`, `Tensor.copy_`, the same methods of storages and of `Variable` —
and on `Tensor.to` / `Module.to`, whatever the value (`True`, a variable, an expression), wherever
it stands among the arguments, on calls split over several lines.

## Why is this bad?
PyTorch 0.4.0 (pytorch/pytorch#4999, 2018) renamed the argument to `non_blocking`, and Python 3.7
made `async` a reserved keyword. Since then `x.cuda(async=True)` does not even compile:
`SyntaxError: invalid syntax`, one file at a time, with no hint about the fix. `.to()` was born
with `non_blocking`, so `async=` there can only have meant `non_blocking=`.

## Example
```python
images = images.cuda(async=True)
target = target.to(device, async=True)
```

## Use instead
```python
images = images.cuda(non_blocking=True)
target = target.to(device, non_blocking=True)
```

## Fix safety
The fix renames the keyword and touches nothing else (value, comments, line breaks stay). It is
safe: PyTorch still accepts the old spelling through hidden deprecated overloads, so the renamed
call does exactly what the old one did. When the call already passes `non_blocking=`, the fix
removes the duplicate `async=` argument instead, and is unsafe (the two values may differ).
)",
                                FixAvailability::Always,
                                true};

namespace {

constexpr std::array<std::string_view, 6> kMethods{"cuda", "to", "type", "copy_", "_cuda", "_type"};

/// True when `keywordArgument` is `async=…` in a call of a PyTorch method that took `async`
/// (Tensor/Variable/storage `.cuda`, `.type`, `.copy_`, their private `_cuda`/`_type` helpers)
/// or of `.to` (born with `non_blocking`, so `async=` there can only mean it). AF101 claims these;
/// AF001 leaves them alone.
bool isTorchAsyncKeyword(TSNode keywordArgument, std::string_view text);

/// The same, token by token, for an `async` (identifier or keyword token) inside an ERROR region
/// where the parser lost the call's structure: `y = x.cuda(0, async=True` with the `)` missing.
/// True when `async` is followed by `=` and is an argument of an open `.cuda(`/`.to(`/… call.
/// The leaves it reads back to the call are declared to `ctx` (Context::dependsOn).
bool isTorchAsyncToken(TSNode asyncToken, Context &ctx);

class TorchAsyncKwarg final : public Rule {
public:
  const RuleInfo &info() const override { return kTorchAsyncKwarg; }
  std::vector<TSSymbol> subscriptions() const override {
    const Kinds &k = Kinds::get();
    std::vector<TSSymbol> kinds = k.identifier;
    kinds.push_back(k.keywordArgument);
    kinds.push_back(k.anonAsync);
    return kinds;
  }

  void check(TSNode node, Context &ctx) const override {
    TSNode name;
    if (ts_node_symbol(node) == Kinds::get().keywordArgument) {
      if (!isTorchAsyncKeyword(node, ctx.text())) return;
      // AF102 claims `model.cuda(async=…)`, AF105 the fallback branch of a shim.
      if (ctx.claimedByOther(*this, kClaimKeywordArgument | kClaimStatement, node)) return;
      name = field(node, "name");
    } else {
      // A bare `async` token in a region the parser could not structure.
      if (!ctx.insideError() || !isTorchAsyncToken(node, ctx)) return;
      if (!ctx.ancestors().empty() && isTorchAsyncKeyword(ctx.ancestors().back(), ctx.text()))
        return; // reported through its keyword_argument
      name = node;
    }
    Diagnostic d =
        makeDiagnostic(kTorchAsyncKwarg, keywordSeverity(ctx.config()), name,
                       ctx.config().keywordsReserved()
                           ? "`async=` is a syntax error since Python 3.7; PyTorch renamed it `non_blocking=`"
                           : "`async=` becomes a syntax error in Python 3.7; PyTorch renamed it `non_blocking=`");
    const bool structured = ts_node_symbol(node) == Kinds::get().keywordArgument;
    if (const TSNode existing = structured ? existingNonBlocking(node, ctx.text()) : TSNode{};
        !ts_node_is_null(existing)) {
      d.fix = Fix{"Remove `async=` (the call already passes `non_blocking=`)",
                  Applicability::Unsafe,
                  {removeArgument(node, ctx.text())}};
    } else {
      d.fix = Fix{"Replace `async=` with `non_blocking=`", Applicability::Safe, {replaceNode(name, "non_blocking")}};
    }
    ctx.report(std::move(d));
  }

  /// `x.cuda(async=…)` and the like are no names: AF001 leaves them alone, also while AF101 is
  /// off.
  bool claims(Claim what, TSNode node, Context &ctx) const override {
    if (what == kClaimKeywordArgument) return isTorchAsyncKeyword(node, ctx.text());
    if (what == kClaimToken) return ctx.insideError() && isTorchAsyncToken(node, ctx);
    return false;
  }

private:
  static TSNode existingNonBlocking(TSNode keywordArgument, std::string_view text) {
    const TSNode args = ts_node_parent(keywordArgument);
    const std::uint32_t n = ts_node_named_child_count(args);
    for (std::uint32_t i = 0; i < n; ++i) {
      const TSNode arg = ts_node_named_child(args, i);
      if (ts_node_symbol(arg) == Kinds::get().keywordArgument && textOf(field(arg, "name"), text) == "non_blocking")
        return arg;
    }
    return TSNode{};
  }
};

bool isTorchAsyncKeyword(TSNode keywordArgument, std::string_view text) {
  const Kinds &k = Kinds::get();
  if (ts_node_symbol(keywordArgument) != k.keywordArgument) return false;
  const TSNode name = field(keywordArgument, "name");
  if (textOf(name, text) != "async") return false;
  // Not read by the error recovery from the middle of a longer name (`!dasync=`), as AF001.
  if (!keywordStandsAlone(text, ts_node_start_byte(name), 5)) return false;
  const TSNode args = ts_node_parent(keywordArgument);
  if (ts_node_is_null(args) || ts_node_symbol(args) != k.argumentList) return false;
  const TSNode call = ts_node_parent(args);
  if (ts_node_is_null(call) || ts_node_symbol(call) != k.call) return false;
  const TSNode fn = field(call, "function");
  if (ts_node_symbol(fn) != k.attribute) return false;
  const std::string_view method = textOf(field(fn, "attribute"), text);
  return std::find(kMethods.begin(), kMethods.end(), method) != kMethods.end();
}

bool isTorchAsyncToken(TSNode token, Context &ctx) {
  const std::string_view text = ctx.text();
  if (textOf(token, text) != "async" || !keywordStandsAlone(text, ts_node_start_byte(token), 5)) return false;
  const TSNode next = nextLeaf(token), prev = prevLeaf(token);
  if (ts_node_is_null(next) || textOf(next, text) != "=" || ts_node_is_null(prev)) return false;
  if (textOf(prev, text) != "(" && textOf(prev, text) != ",") return false;
  // Back to the unmatched `(` that opens the call (bounded: a broken file can be long). The walk
  // may leave the statement being checked: what it read is a dependency.
  std::uint32_t readFrom = ts_node_start_byte(prev);
  const auto read = [&](TSNode leaf) {
    if (!ts_node_is_null(leaf)) readFrom = std::min(readFrom, ts_node_start_byte(leaf));
  };
  const auto answer = [&](bool result) {
    ctx.dependsOn(readFrom, ts_node_end_byte(next));
    return result;
  };
  int depth = 0;
  TSNode open = prev;
  for (int steps = 0; !ts_node_is_null(open) && steps < 4096; ++steps, open = prevLeaf(open)) {
    read(open);
    const std::string_view t = textOf(open, text);
    if (t == ")" || t == "]" || t == "}") ++depth;
    else if (t == "(" || t == "[" || t == "{") {
      if (depth == 0) break;
      --depth;
    }
  }
  if (ts_node_is_null(open) || textOf(open, text) != "(") return answer(false);
  const TSNode method = prevLeaf(open);
  read(method);
  if (ts_node_is_null(method) || !isIdentifier(method)) return answer(false);
  if (std::find(kMethods.begin(), kMethods.end(), textOf(method, text)) == kMethods.end()) return answer(false);
  const TSNode dot = prevLeaf(method);
  read(dot);
  return answer(!ts_node_is_null(dot) && textOf(dot, text) == ".");
}

} // namespace

std::unique_ptr<Rule> makeTorchAsyncKwarg() { return std::make_unique<TorchAsyncKwarg>(); }

} // namespace asyncfix::rules
