// AF202 renamed-async-function — functions and attributes that their library renamed for
// Python 3.7 (`asyncio.async` → `asyncio.ensure_future`).
#include "rules/renames.h"

namespace asyncfix::rules {

extern const RuleInfo kRenamedAsyncFunction;
const RuleInfo kRenamedAsyncFunction{
    "AF202",
    "renamed-async-function",
    "A function or attribute that its library renamed for Python 3.7 (`asyncio.async`)",
    R"(## What it does
Flags functions and attributes spelt `async` that their library renamed: `asyncio.async(coro)`
(and any attribute path reaching it through the file's imports, such as `aio.async` after
`import asyncio as aio`); `from asyncio import async` together with every use of the imported
name; and attributes of objects the file gets from the library, such as `doc.async` on a
`xml.dom.minidom` document.

The renames come from one table (function and attribute rows):

| old | new | since |
|---|---|---|
| `asyncio.async` | `asyncio.ensure_future` | Python 3.4.4 |
| `Pyro4.async`, `Pyro4.core.async` | `Pyro4.asyncproxy`, `Pyro4.core.asyncproxy` | Pyro4 4.70 |
| `rpyc.async`, `rpyc.utils.helpers.async` | `rpyc.async_`, `rpyc.utils.helpers.async_` | RPyC 4.0.0 |
| `django_q.tasks.async` | `django_q.tasks.async_task` | django-q 1.0.0 |
| `xml.dom.xmlbuilder.DocumentLS.async` (also `xml.dom.minidom` documents) | `async_` | Python 3.5 |

## Why is this bad?
`asyncio.async` was deprecated in Python 3.4.4 in favour of `asyncio.ensure_future`, and since
Python 3.7 it cannot even be written: `async` is a keyword, so the file fails to compile with
`SyntaxError: invalid syntax`. The same holds for every other row: the old spelling is gone.
Before 3.7 (targets py35/py36) this is a warning: the code still runs, with a
`DeprecationWarning`.

## Example
```python
import asyncio
from asyncio import async

task = asyncio.async(fetch())
other = async(fetch())
```

## Use instead
```python
import asyncio
from asyncio import ensure_future

task = asyncio.ensure_future(fetch())
other = ensure_future(fetch())
```

## Fix safety
The fix respells the name; it is safe when the path resolves to the library through the file's
imports (the new name is the same function, from the release in the table on). For
`from asyncio import async` the import and every use of the name in its scope are renamed
together (strings such as `__all__` entries are left alone); that is unsafe when the new name
is already used in the file. An attribute path whose first name is not imported in the file
(`asyncio.async(…)` with no `import asyncio`) is flagged with an unsafe fix. Attribute rows
(`doc.async`) fire only when the object is known to come from the library
(`doc = minidom.parseString(s)`); elsewhere `obj.async` is AF001's.
These rules take precedence over AF001/AF002 on the tokens they own.

`asyncfix check` adds rows for the project's own module-level names (see AF001): after
`from pkg.m import async`, where `pkg/m.py` assigns or defines `async` at its top level, the
import and the uses of the name are renamed with the definition, to the name the defining
file's rename style gives; so are `from pkg.m import async as a`, `pkg.m.async` and `m.async`
through the imports (relative ones too). Such a fix names the defining file, and is safe when
every use found in the project resolves to the name and the defining module has no `__all__` and
no string that spells the name, unsafe otherwise (the title says why).

## Options
More rows go in `[tool.asyncfix.renames]` (see docs/configuration.md, "The renames table"):
`function = [{ old = "mylib.async", new = "mylib.run_async" }]`,
`attribute = [{ owner = "mylib.Job", old = "async", new = "is_async" }]`.
)",
    FixAvailability::Sometimes,
    true};

std::unique_ptr<Rule> makeRenamedAsyncFunction() { return std::make_unique<RenamedAsyncRule>(kRenamedAsyncFunction); }

} // namespace asyncfix::rules
