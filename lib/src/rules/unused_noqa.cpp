// AF900 unused-noqa — `# noqa` codes that suppress nothing or name no rule.
//
// The work happens in the linter's suppression pass (noqa.cpp), after every other rule has run:
// only then is it known which codes a directive suppressed. This class carries the metadata.
#include "rules/rule.h"

namespace asyncfix::rules {

extern const RuleInfo kUnusedNoqa;
const RuleInfo kUnusedNoqa{"AF900",
                           "unused-noqa",
                           "`# noqa` code that suppresses nothing, or that names no asyncfix rule",
                           R"(## What it does
Flags an `AF` code in a `# noqa: …` comment that suppressed no diagnostic on its line (or its
statement), and an `AF` code that names no rule (a typo such as `AF10`). Codes of other tools
(`E501`, `F401`) and blanket `# noqa` comments are left alone.

## Why is this bad?
A stale suppression hides the next real finding on that line, and a misspelt one suppresses
nothing while looking as if it did.

## Example
```python
x = y.cuda(non_blocking=True)  # noqa: AF101
```

## Use instead
```python
x = y.cuda(non_blocking=True)
```

## Fix safety
The fix removes the code from the comment, or the whole comment when it held only that code. It
is safe: the code had no effect. A code whose rule is not enabled is never reported as unused.

## Suppressing syntax errors
A finding that is a syntax error on the target version (an `async`/`await` name with a target of
py37 or later) is hidden only by a code that names it; a blanket `# noqa` on its line, often
another tool's, leaves it reported. So in `import kombu.async  # noqa  # noqa: AF201` the code
`AF201` is used (it is what hides the finding), and `--add-noqa` writes such a second directive
where a blanket one does not hide a finding, keeping the blanket one for its tool.
)",
                           FixAvailability::Always,
                           false};

namespace {
class UnusedNoqa final : public Rule {
public:
  const RuleInfo &info() const override { return kUnusedNoqa; }
  std::vector<TSSymbol> subscriptions() const override { return {}; }
  unsigned triggers() const override { return kTriggerNoqa; }
  void check(TSNode, Context &) const override {}
};
} // namespace

std::unique_ptr<Rule> makeUnusedNoqa() { return std::make_unique<UnusedNoqa>(); }

} // namespace asyncfix::rules
