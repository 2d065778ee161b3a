// AF105 async-compat-shim — `try: …non_blocking=… except TypeError: …async=…`.
#include <optional>

#include "rules/rule.h"
#include "text/syntax.h"

namespace asyncfix::rules {

extern const RuleInfo kAsyncCompatShim;
const RuleInfo kAsyncCompatShim{
    "AF105",
    "async-compat-shim",
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
    FixAvailability::Always,
    false};

namespace {

/// The first keyword argument named `name` in the subtree of `node` (iterative walk).
TSNode findKeyword(TSNode node, std::string_view name, std::string_view text) {
  return findNode(node, [&](TSNode n) {
    return ts_node_symbol(n) == Kinds::get().keywordArgument && textOf(field(n, "name"), text) == name;
  });
}

bool catchesTypeError(TSNode exceptClause, std::string_view text) {
  const TSNode value = field(exceptClause, "value");
  if (ts_node_is_null(value)) return false;
  const std::string_view caught = textOf(value, text);
  return caught == "TypeError" || (caught.starts_with("(") && caught.find("TypeError") != std::string_view::npos);
}

/// A `try: …non_blocking=… except TypeError: …async=…` compatibility shim (either order), and
/// which of its two branches keeps the `non_blocking` spelling.
struct AsyncShim {
  TSNode tryStatement{};
  TSNode keep{};      ///< the block to keep (uses non_blocking=)
  TSNode fallback{};  ///< the block to drop (uses async=)
  TSNode asyncName{}; ///< the first `async` keyword name in the fallback
};

std::optional<AsyncShim> asyncShim(TSNode tryStatement, std::string_view text) {
  const Kinds &k = Kinds::get();
  TSNode body{}, handler{};
  for (std::uint32_t i = 0, n = ts_node_named_child_count(tryStatement); i < n; ++i) {
    const TSNode child = ts_node_named_child(tryStatement, i);
    const std::string_view type = ts_node_type(child);
    if (ts_node_symbol(child) == k.block) body = child;
    else if (type == "except_clause" && ts_node_is_null(handler)) handler = child;
    else if (ts_node_symbol(child) != k.comment) return std::nullopt; // another except, else, finally, ...
  }
  if (ts_node_is_null(body) || ts_node_is_null(handler) || !catchesTypeError(handler, text)) return std::nullopt;
  TSNode handlerBlock{};
  for (std::uint32_t i = 0, n = ts_node_named_child_count(handler); i < n; ++i)
    if (ts_node_symbol(ts_node_named_child(handler, i)) == k.block) handlerBlock = ts_node_named_child(handler, i);
  if (ts_node_is_null(handlerBlock)) return std::nullopt;
  AsyncShim shim;
  shim.tryStatement = tryStatement;
  if (!ts_node_is_null(findKeyword(body, "non_blocking", text))) {
    const TSNode async = findKeyword(handlerBlock, "async", text);
    if (ts_node_is_null(async)) return std::nullopt;
    shim.keep = body;
    shim.fallback = handlerBlock;
    shim.asyncName = field(async, "name");
  } else if (!ts_node_is_null(findKeyword(handlerBlock, "non_blocking", text))) {
    const TSNode async = findKeyword(body, "async", text);
    if (ts_node_is_null(async)) return std::nullopt;
    shim.keep = handlerBlock;
    shim.fallback = body;
    shim.asyncName = field(async, "name");
  } else {
    return std::nullopt;
  }
  return shim;
}

/// True when `node` lies in the `async=` branch of a shim (AF105 claims it, not AF101/AF001).
bool insideAsyncShim(TSNode node, const Context &ctx) {
  const auto ancestors = ctx.ancestors();
  for (std::size_t i = ancestors.size(); i-- > 0;) {
    if (std::string_view(ts_node_type(ancestors[i])) != "try_statement") continue;
    const auto shim = asyncShim(ancestors[i], ctx.text());
    if (!shim) return false;
    const std::uint32_t at = ts_node_start_byte(node);
    return at >= ts_node_start_byte(shim->fallback) && at < ts_node_end_byte(shim->fallback);
  }
  return false;
}

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
    for (TSNode prev = ts_node_prev_sibling(shim->keep);
         !ts_node_is_null(prev) && ts_node_symbol(prev) == Kinds::get().comment; prev = ts_node_prev_sibling(prev)) {
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
