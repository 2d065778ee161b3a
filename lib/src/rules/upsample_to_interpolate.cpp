// AF315 upsample-to-interpolate — `F.upsample`, `F.upsample_bilinear`, `F.upsample_nearest`.
#include <array>

#include "rules/edits.h"
#include "rules/torch_api.h"
#include "text/syntax.h"
#include "text/torch_words.h"

namespace asyncfix::rules {

extern const RuleInfo kUpsampleToInterpolate;
const RuleInfo kUpsampleToInterpolate{"AF315",
                                      "upsample-to-interpolate",
                                      "`F.upsample`, `F.upsample_bilinear`, `F.upsample_nearest`: use `F.interpolate`",
                                      R"(## What it does
Flags calls of `torch.nn.functional.upsample`, `upsample_bilinear` and `upsample_nearest`
written `F.…` or `functional.…` and resolved through the file's imports (`F.upsample(…)` after
`import torch.nn.functional as F`, `nn.functional.upsample_bilinear(…)`). A name imported by name
(`from torch.nn.functional import upsample_nearest`) is not looked for: the prefilter would have
to parse PyTorch's own sources, which define these functions, for a spelling old code rarely used.
A bare name after a star import (`from torch.nn.functional import *`) is, without a fix.

## Why is this bad?
PyTorch 0.4.1 replaced them by `F.interpolate`; they still work on PyTorch 1.13 and 2.x but warn
at every call (`UserWarning: nn.functional.upsample is deprecated. Use nn.functional.interpolate
instead.`). Worse, the numbers changed underneath: up to PyTorch 0.3, the linear modes
(`'linear'`, `'bilinear'`, `'trilinear'`) aligned the corner pixels of input and output. PyTorch
0.4.0 added `align_corners` with the default `False`, so a 2017 model that calls
`F.upsample(x, scale_factor=2, mode='bilinear')` computes other values today than the ones it was
trained with. `upsample_bilinear` kept `align_corners=True`; `upsample_nearest` has no corners.

## Example
```python
y = F.upsample(x, scale_factor=2, mode="bilinear")
z = F.upsample_bilinear(x, size=(64, 64))
w = F.upsample_nearest(x, scale_factor=2)
```

## Use instead
```python
y = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)
z = F.interpolate(x, size=(64, 64), mode="bilinear", align_corners=True)
w = F.interpolate(x, scale_factor=2, mode="nearest")
```

## Fix safety
- `upsample_bilinear(…)` → `interpolate(…, mode='bilinear', align_corners=True)` and
  `upsample_nearest(…)` → `interpolate(…, mode='nearest')`: exactly what the old functions
  call today; safe.
- `upsample(…)` with mode `'nearest'` (the default), a mode that is not a literal, or an explicit
  `align_corners=`: renamed to `interpolate`, which is what `upsample` calls today; safe.
- `upsample(…)` with a literal linear mode and no `align_corners=`: renamed, and
  `align_corners=True` is added, which gives PyTorch 0.3's numbers (what the code was written
  and trained with) and not the ones the call computes today (`align_corners=False`); unsafe.
  To keep today's numbers instead, write `align_corners=False`.

A name that only a star import may make PyTorch's (`upsample_bilinear(x)` after
`from torch.nn.functional import *`) is reported, naming the star import, without a fix; a call
with `**kwargs` (which may hold `mode=`) gets none.
)",
                                      FixAvailability::Sometimes,
                                      true};

namespace {

constexpr std::array<std::string_view, 3> kLinearModes{"linear", "bilinear", "trilinear"};

/// A string literal's content, for short literals without prefixes or escapes ("" otherwise).
std::string_view literalString(TSNode value, std::string_view text) {
  const std::string_view t = textOf(value, text);
  if (symbolOf(value) != Kinds::get().string || t.size() < 2 || (t.front() != '\'' && t.front() != '"') ||
      t.back() != t.front())
    return {};
  return t.substr(1, t.size() - 2);
}

class UpsampleToInterpolate final : public Rule {
public:
  const RuleInfo &info() const override { return kUpsampleToInterpolate; }
  unsigned triggers() const override { return kTriggerTorchApi; }
  std::vector<TSSymbol> subscriptions() const override { return {Kinds::get().call}; }

  void check(TSNode node, Context &ctx) const override {
    if (ctx.insideError()) return;
    const std::string_view text = ctx.text();
    const Kinds &k = Kinds::get();
    const TSNode function = ctx.field(node, "function"), args = ctx.field(node, "arguments");
    const bool attribute = symbolOf(function) == k.attribute;
    if (!attribute && !isIdentifier(function)) return;
    const TSNode nameNode = attribute ? field(function, "attribute") : function;
    const std::string_view name = textOf(nameNode, text);
    if (name != "upsample" && name != "upsample_bilinear" && name != "upsample_nearest") return;
    if (symbolOf(args) != k.argumentList) return;
    // The word: the function's name (`upsample_bilinear`) or the object's last name (`F.upsample`).
    const TSNode object = attribute ? field(function, "object") : TSNode{};
    const TSNode objectName = symbolOf(object) == k.attribute ? field(object, "attribute") : object;
    if (!startsTorchWord(text, ts_node_start_byte(nameNode)) &&
        (ts_node_is_null(objectName) || !startsTorchWord(text, ts_node_start_byte(objectName))))
      return;
    const std::string path = "torch.nn.functional." + std::string(name);
    const Resolved how = resolvesTo(function, path, ctx);
    // A bare name counts only through a star import (one imported by name is not looked for).
    if (how == Resolved::No || (!attribute && how != Resolved::Star)) return;

    std::string message = how == Resolved::Star ? starMessageFor(function, path, ctx) : std::string();
    message += "`" + std::string(textOf(function, text)) + "` is deprecated since PyTorch 0.4.1: use `F.interpolate`";
    std::string extra;       // arguments the fix appends
    bool restores03 = false; // the fix adds align_corners=True to a call that computes with False today
    if (name == "upsample_bilinear") {
      extra = "mode='bilinear', align_corners=True";
    } else if (name == "upsample_nearest") {
      extra = "mode='nearest'";
    } else {
      TSNode mode = fieldOf(keywordArgument(args, "mode", text), "value");
      if (ts_node_is_null(mode)) mode = positional(args, 3);
      const std::string_view modeText = literalString(mode, text);
      const bool linear = std::find(kLinearModes.begin(), kLinearModes.end(), modeText) != kLinearModes.end();
      if (linear && ts_node_is_null(keywordArgument(args, "align_corners", text))) {
        extra = "align_corners=True";
        restores03 = true;
        message += " (mode '" + std::string(modeText) +
                   "': PyTorch 0.3 computed `align_corners=True`, today's default is `False`)";
      }
    }
    Diagnostic d = makeDiagnostic(kUpsampleToInterpolate, Severity::Warning, function, std::move(message));
    if (const std::optional<TextEdit> rename = renameEdit(nameNode, attribute);
        rename && how == Resolved::Proven && !hasDictionarySplat(args) && ts_node_named_child_count(args) > 0) {
      Fix fix{"Replace with `interpolate`", restores03 ? Applicability::Unsafe : Applicability::Safe, {*rename}};
      if (!extra.empty()) {
        fix.title += " with `" + extra + "`";
        fix.edits.push_back(appendArguments(args, extra));
      }
      if (restores03) fix.title += " (PyTorch 0.3's numbers, not the ones this call computes today)";
      d.fix = std::move(fix);
    }
    ctx.report(std::move(d));
  }

private:
  /// The `index`-th positional argument (null when absent or after a keyword).
  static TSNode positional(TSNode args, std::uint32_t index) {
    std::uint32_t seen = 0;
    for (std::uint32_t i = 0, n = ts_node_named_child_count(args); i < n; ++i) {
      const TSNode a = ts_node_named_child(args, i);
      if (symbolOf(a) == Kinds::get().comment) continue;
      if (symbolOf(a) == Kinds::get().keywordArgument || isType(a, "list_splat") || isType(a, "dictionary_splat"))
        return TSNode{};
      if (seen++ == index) return a;
    }
    return TSNode{};
  }

  /// `F.upsample` → `F.interpolate`.
  static std::optional<TextEdit> renameEdit(TSNode nameNode, bool attribute) {
    if (!attribute) return std::nullopt;
    return replaceNode(nameNode, "interpolate");
  }

  /// `, extra` after the last argument.
  static TextEdit appendArguments(TSNode args, std::string_view extra) {
    TSNode last{};
    for (std::uint32_t i = 0, n = ts_node_named_child_count(args); i < n; ++i)
      if (const TSNode a = ts_node_named_child(args, i); symbolOf(a) != Kinds::get().comment) last = a;
    const std::uint32_t at = ts_node_end_byte(last);
    return {at, at, ", " + std::string(extra)};
  }
};

} // namespace

std::unique_ptr<Rule> makeUpsampleToInterpolate() { return std::make_unique<UpsampleToInterpolate>(); }

} // namespace asyncfix::rules
