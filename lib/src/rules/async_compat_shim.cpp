// AF105 async-compat-shim — `try: …non_blocking=… except TypeError: …async=…`.
#include "rules/rule.h"
#include "rules/torch_api.h"
#include "syntax.h"

namespace asyncfix::rules {

extern const RuleInfo kAsyncCompatShim;
const RuleInfo kAsyncCompatShim{
    "AF105", "async-compat-shim",
    "a `try`/`except TypeError` shim whose fallback passes `async=` (a syntax error since Python 3.7)",
    R"(## What it does
Flags compatibility shims that try `non_blocking=` and fall back to `async=` on `TypeError` (or
the other way round), in a `try` statement with a single `except TypeError` clause.

## Why is this bad?
The shim was meant to support both old and new PyTorch. Since Python 3.7 the `async=` branch is a
syntax error, so the file does not compile at all — the shim breaks exactly the code it meant to
keep working. PyTorch has accepted `non_blocking` since 0.4.0 (2018).

## Example
```python
try:
    batch = batch.cuda(non_blocking=True)
except TypeError:
    batch = batch.cuda(async=True)
```

## Use instead
```python
batch = batch.cuda(non_blocking=True)
```

## Fix safety
The fix replaces the whole `try` statement by the branch that uses `non_blocking=`, re-indented.
It is safe: on every PyTorch ≥ 0.4 that branch is what ran. It is unsafe when that branch holds a
string spanning several lines (re-indenting could change its text). AF101 and AF001 leave the
shim's `async=` alone.
)",
    FixAvailability::Always, false};

namespace {

bool holdsMultilineString(TSNode block, std::string_view text) {
  return !ts_node_is_null(findNode(block, [&](TSNode n) {
    return ts_node_symbol(n) == Kinds::get().string && textOf(n, text).find_first_of("\r\n") != std::string_view::npos;
  }));
}

class AsyncCompatShim final : public Rule {
public:
  const RuleInfo &info() const override { return kAsyncCompatShim; }
  std::vector<TSSymbol> subscriptions() const override {
    return {ts_language_symbol_for_name(tree_sitter_python(), "try_statement", 13, true)};
  }

  void check(TSNode node, Context &ctx) const override {
    const std::string_view text = ctx.text();
    const auto shim = asyncShim(node, text);
    if (!shim) return;
    Diagnostic d = makeDiagnostic(
        kAsyncCompatShim, keywordSeverity(ctx.config()), shim->asyncName,
        "This shim's `async=` fallback is a syntax error since Python 3.7; keep the `non_blocking=` branch");
    // The kept block, moved to the `try`'s indentation: each of its lines loses the block's
    // indentation and gains the `try`'s. Lines are LineIndex's; a block or a `try` that ends in a
    // comment ends before its line break (tree-sitter puts a CRLF's "\r" in the comment).
    const LineIndex &lines = ctx.document().lines();
    const std::uint32_t tryStart = ts_node_start_byte(node);
    const std::string_view tryIndent = ctx.lineBefore(tryStart);
    std::uint32_t keepStart = ts_node_start_byte(shim->keep);
    const std::uint32_t keepEnd = ctx.beforeLineBreak(ts_node_end_byte(shim->keep));
    const bool sameLine = lines.lineOf(keepStart) == lines.lineOf(tryStart);
    const std::string_view blockIndent = sameLine ? std::string_view{} : ctx.lineBefore(keepStart);
    // Comments on their own lines just above the kept block's first statement belong to it
    // (tree-sitter hangs them on the clause, not on the block).
    for (TSNode prev = ts_node_prev_sibling(shim->keep); !ts_node_is_null(prev) &&
                                                         ts_node_symbol(prev) == Kinds::get().comment;
         prev = ts_node_prev_sibling(prev)) {
      const TSNode before = prevLeaf(prev);
      if (ts_node_is_null(before) || lines.lineOf(ts_node_end_byte(before)) == lines.lineOf(ts_node_start_byte(prev)))
        break;
      keepStart = ts_node_start_byte(prev);
    }
    std::string replacement;
    const std::uint32_t firstLine = lines.lineOf(keepStart);
    for (std::uint32_t line = firstLine;; ++line) {
      const std::size_t from = line == firstLine ? keepStart : lines.lineStart(line);
      if (from >= keepEnd) break;
      const std::size_t to = std::min<std::size_t>(lines.lineStart(line + 1), keepEnd); // with its line break
      std::string_view content = text.substr(from, to - from);
      if (line != firstLine && content.starts_with(blockIndent)) {
        content.remove_prefix(blockIndent.size());
        if (content.find_first_not_of(" \t\r\n") != std::string_view::npos) replacement += tryIndent;
      }
      replacement += content;
    }
    const bool unsafe = holdsMultilineString(shim->keep, text);
    d.fix = Fix{"Replace the shim by its `non_blocking=` branch",
                unsafe ? Applicability::Unsafe : Applicability::Safe,
                {{tryStart, ctx.beforeLineBreak(ts_node_end_byte(node)), replacement}}};
    ctx.report(std::move(d));
  }

  /// The shim's `async=` branch goes whole: AF101 and AF001 leave what is in it alone.
  bool claims(Claim what, TSNode node, Context &ctx) const override {
    return what == kClaimStatement && insideAsyncShim(node, ctx);
  }
};

} // namespace

std::unique_ptr<Rule> makeAsyncCompatShim() { return std::make_unique<AsyncCompatShim>(); }

} // namespace asyncfix::rules
