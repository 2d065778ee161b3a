// AF313 legacy-loss-reduction — `size_average=` / `reduce=` on PyTorch's losses.
#include <array>

#include "rules/edits.h"
#include "rules/torch_api.h"
#include "text/syntax.h"
#include "text/torch_words.h"

namespace asyncfix::rules {

extern const RuleInfo kLegacyLossReduction;
const RuleInfo kLegacyLossReduction{"AF313",
                                    "legacy-loss-reduction",
                                    "`size_average=` / `reduce=` on a PyTorch loss (use `reduction=`)",
                                    R"(## What it does
Flags the keyword arguments `size_average=` and `reduce=` of PyTorch's loss criteria
(`nn.MSELoss`, `nn.CrossEntropyLoss`, `nn.NLLLoss`, … — every class of `torch.nn` that takes them)
and loss functions (`F.mse_loss`, `F.cross_entropy`, `F.nll_loss`, …), resolved through the file's
imports.

## Why is this bad?
PyTorch 0.4.1 replaced the two booleans by one `reduction='mean'|'sum'|'none'`. The old
keywords still work on PyTorch 1.13 and 2.x but warn at every construction or call
(`UserWarning: size_average and reduce args will be deprecated, please use reduction='sum'
instead.`), and their combination is easy to misread: `reduce=False` wins over any
`size_average`.

## Example
```python
criterion = nn.MSELoss(size_average=False)
per_sample = F.cross_entropy(out, y, reduce=False)
```

## Use instead
```python
criterion = nn.MSELoss(reduction="sum")
per_sample = F.cross_entropy(out, y, reduction="none")
```

## Fix safety
The fix replaces the legacy keywords with the `reduction=` that PyTorch itself derives from
them (`torch.nn._reduction.legacy_get_string`): `reduce=False` → `'none'`; otherwise
`size_average=False` → `'sum'`; otherwise `'mean'` (an absent or `None` keyword counts as `True`),
and it replaces a `reduction=` the call also passes, which the legacy keywords override. It is
safe where both values are `True`, `False` or `None` literals and the callee resolves to
PyTorch through the imports. Where only a star import may make the callee PyTorch's
(`from torch.nn import *`, then `MSELoss(size_average=False)`), the finding names the star
import and has no fix. A value that is not a literal (`size_average=args.avg`) is reported
without a fix.
)",
                                    FixAvailability::Sometimes,
                                    true};

namespace {

constexpr std::array<std::string_view, 17> kCriteria{"BCELoss",
                                                     "BCEWithLogitsLoss",
                                                     "CosineEmbeddingLoss",
                                                     "CrossEntropyLoss",
                                                     "HingeEmbeddingLoss",
                                                     "KLDivLoss",
                                                     "L1Loss",
                                                     "MSELoss",
                                                     "MarginRankingLoss",
                                                     "MultiLabelMarginLoss",
                                                     "MultiLabelSoftMarginLoss",
                                                     "MultiMarginLoss",
                                                     "NLLLoss",
                                                     "PoissonNLLLoss",
                                                     "SmoothL1Loss",
                                                     "SoftMarginLoss",
                                                     "TripletMarginLoss"};
constexpr std::array<std::string_view, 17> kFunctions{"binary_cross_entropy",
                                                      "binary_cross_entropy_with_logits",
                                                      "cosine_embedding_loss",
                                                      "cross_entropy",
                                                      "hinge_embedding_loss",
                                                      "kl_div",
                                                      "l1_loss",
                                                      "margin_ranking_loss",
                                                      "mse_loss",
                                                      "multi_margin_loss",
                                                      "multilabel_margin_loss",
                                                      "multilabel_soft_margin_loss",
                                                      "nll_loss",
                                                      "poisson_nll_loss",
                                                      "smooth_l1_loss",
                                                      "soft_margin_loss",
                                                      "triplet_margin_loss"};

template <std::size_t N> bool contains(const std::array<std::string_view, N> &names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

/// `edit` widened to whole lines when it leaves only blanks on its first and last line: an
/// argument alone on its line goes with its line.
TextEdit wholeLines(TextEdit edit, std::string_view text) {
  std::size_t start = edit.start, end = edit.end;
  while (start > 0 && (text[start - 1] == ' ' || text[start - 1] == '\t')) --start;
  while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
  const bool lineStart = start == 0 || text[start - 1] == '\n' || text[start - 1] == '\r';
  if (lineStart && edit.content.empty() && end < text.size() && (text[end] == '\n' || text[end] == '\r')) {
    const std::size_t eol = text.compare(end, 2, "\r\n") == 0 ? 2 : 1; // "\r\n", "\n" or a lone "\r"
    return {start, end + eol, ""};
  }
  return edit;
}

bool isLegacy(std::string_view keyword) { return keyword == "size_average" || keyword == "reduce"; }

/// How sure we are that `function` is one of PyTorch's losses, and which.
ResolvedPath lossCallee(TSNode function, Context &ctx) {
  const std::string_view text = ctx.text();
  const TSNode last = symbolOf(function) == Kinds::get().attribute ? field(function, "attribute") : function;
  const std::string_view name = textOf(last, text);
  std::array<std::string, 2> paths;
  if (contains(kCriteria, name))
    paths = {"torch.nn." + std::string(name), "torch.nn.modules.loss." + std::string(name)};
  else if (contains(kFunctions, name)) paths = {"torch.nn.functional." + std::string(name), ""};
  else return {};
  ResolvedPath best;
  for (const std::string &p : paths)
    if (const Resolved how = p.empty() ? Resolved::No : resolvesTo(function, p, ctx); how > best.how) best = {p, how};
  return best;
}

class LegacyLossReduction final : public Rule {
public:
  const RuleInfo &info() const override { return kLegacyLossReduction; }
  unsigned triggers() const override { return kTriggerTorchApi; }
  std::vector<TSSymbol> subscriptions() const override { return {Kinds::get().keywordArgument}; }

  void check(TSNode node, Context &ctx) const override {
    if (ctx.insideError()) return;
    const std::string_view text = ctx.text();
    const TSNode name = field(node, "name");
    if (!isLegacy(textOf(name, text)) || !startsTorchWord(text, ts_node_start_byte(name))) return;
    const TSNode args = ctx.parentOf(node);
    const TSNode call = callOfArguments(args, ctx);
    if (ts_node_is_null(call)) return;
    // One finding per call: at its first legacy keyword that holds a word.
    std::vector<TSNode> legacy;
    for (std::uint32_t i = 0, n = ts_node_named_child_count(args); i < n; ++i) {
      const TSNode a = ts_node_named_child(args, i);
      if (symbolOf(a) != Kinds::get().keywordArgument) continue;
      const TSNode aName = field(a, "name");
      if (!isLegacy(textOf(aName, text))) continue;
      if (legacy.empty() && !ts_node_eq(a, node) && startsTorchWord(text, ts_node_start_byte(aName))) return;
      legacy.push_back(a);
    }
    const ResolvedPath callee = lossCallee(field(call, "function"), ctx);
    const Resolved how = callee.how;
    if (how == Resolved::No) return;

    std::optional<bool> sizeAverage = true, reduce = true;
    bool literal = true;
    for (const TSNode a : legacy) {
      const TSNode value = field(a, "value");
      std::optional<bool> v = isType(value, "none") ? std::optional<bool>(true) : literalBool(value, text);
      if (!v) literal = false;
      (textOf(field(a, "name"), text) == "reduce" ? reduce : sizeAverage) = v;
    }
    std::string message = "`size_average=`/`reduce=` are deprecated since PyTorch 0.4.1";
    if (how == Resolved::Star) message = starMessageFor(field(call, "function"), callee.path, ctx) + message;
    Diagnostic d = makeDiagnostic(kLegacyLossReduction, Severity::Warning, name, "");
    if (!literal) {
      d.message = message + ": pass `reduction='mean'|'sum'|'none'` instead";
      ctx.report(std::move(d));
      return;
    }
    const std::string_view reduction = !*reduce ? "none" : !*sizeAverage ? "sum" : "mean";
    const std::string replacement = "reduction='" + std::string(reduction) + "'";
    d.message = message + ": this call means `" + replacement + "`";
    if (how == Resolved::Star) return ctx.report(std::move(d));
    Fix fix{"Replace with `" + replacement + "`", Applicability::Safe, {}};
    // The first of the legacy keywords and `reduction=` becomes `reduction=…`; the others go with
    // the comma before them (two neighbours' removals then never overlap), or, where a comment
    // stands between that comma and them, as removeArgument takes them (the comment stays).
    std::vector<TSNode> touched = legacy;
    if (const TSNode existing = keywordArgument(args, "reduction", text); !ts_node_is_null(existing))
      touched.push_back(existing);
    std::sort(touched.begin(), touched.end(),
              [](TSNode a, TSNode b) { return ts_node_start_byte(a) < ts_node_start_byte(b); });
    fix.edits.push_back(replaceNode(touched.front(), replacement));
    for (std::size_t i = 1; i < touched.size(); ++i) {
      TSNode comma = ts_node_prev_sibling(touched[i]);
      const bool commentBetween = symbolOf(comma) == Kinds::get().comment;
      while (!ts_node_is_null(comma) && symbolOf(comma) == Kinds::get().comment) comma = ts_node_prev_sibling(comma);
      if (ts_node_is_null(comma) || textOf(comma, text) != ",") return ctx.report(std::move(d));
      TextEdit edit = commentBetween ? wholeLines(removeArgument(touched[i], text), text)
                                     : TextEdit{ts_node_start_byte(comma), ts_node_end_byte(touched[i]), ""};
      if (fix.edits.back().end > edit.start) return ctx.report(std::move(d)); // no fix rather than a wrong one
      fix.edits.push_back(std::move(edit));
    }
    d.fix = std::move(fix);
    ctx.report(std::move(d));
  }
};

} // namespace

std::unique_ptr<Rule> makeLegacyLossReduction() { return std::make_unique<LegacyLossReduction>(); }

} // namespace asyncfix::rules
