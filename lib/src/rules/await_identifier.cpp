// AF002 await-identifier — `await` used as a name.
#include "rules/keyword_name.h"

namespace asyncfix::rules {

extern const RuleInfo kAwaitIdentifier;
const RuleInfo kAwaitIdentifier{"AF002",
                                "await-identifier",
                                "`await` used as a name (a reserved keyword since Python 3.7)",
                                R"(## What it does
Flags every use of `await` as a name — the same positions as AF001 — and calls of a function named
`await` outside `async def` (`await(x)`), which Python 3.6 read as a call. An `await` followed by
a name, a string, `{` or `~` (`await g()`) is the keyword wherever it stands, also where a syntax
error elsewhere (a bracket left open above it) makes the parser read it as a name.

## Why is this bad?
Python 3.7 made `await` a reserved keyword. A file that uses it as a name no longer compiles, and
`await(x)` outside a coroutine is `SyntaxError: 'await' outside function`.

## Example
```python
def await(future, timeout=None):
    return future.result(timeout)

value = await(job)
```

## Use instead
```python
def await_(future, timeout=None):
    return future.result(timeout)

value = await_(job)
```

## Fix safety
As for AF001: the binding and all its references in the file are renamed, scope-aware, to
`await_` (or the configured style). Safe for names nothing outside the file can see; unsafe for
module-level names, public parameters, attributes, and when the new name already exists in the
file. `await(x)` is renamed with the function it calls. A keyword `await=` that no parameter of
the file binds keeps its key as `**{"await": v}` (safe: the callee gets what it got on 3.6),
unless a `*args` follows it or the file or project renames a parameter or attribute `await`
(then it is renamed with them, unsafely), as AF001 explains.
)",
                                FixAvailability::Sometimes,
                                false};

std::unique_ptr<Rule> makeAwaitIdentifier() { return std::make_unique<KeywordNameRule>("await", kAwaitIdentifier); }

} // namespace asyncfix::rules
