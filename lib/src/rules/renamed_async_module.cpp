// AF201 renamed-async-module — module paths that libraries renamed for Python 3.7.
#include "rules/renames.h"

namespace asyncfix::rules {

extern const RuleInfo kRenamedAsyncModule;
const RuleInfo kRenamedAsyncModule{
    "AF201",
    "renamed-async-module",
    "Import or attribute path of a module that its library renamed for Python 3.7 (`kombu.async`)",
    R"(## What it does
Flags module paths that a library renamed because Python 3.7 reserved `async` and `await`:
in imports (`import kombu.async`, `import kombu.async.hub as hub`,
`from kombu.async.hub import Hub`, `from kombu import async` together with every use of the
imported name) and in attribute paths that reach the module through the file's imports
(`kombu.async.Hub` after `import kombu`, `k.async` after `import kombu as k`).

The renames come from one table (module rows):

| old | new | since |
|---|---|---|
| `kombu.async` | `kombu.asynchronous` | kombu 4.2.0 |
| `celery.backends.async` | `celery.backends.asynchronous` | Celery 4.3.0 |
| `salt.utils.async` | `salt.utils.asynchronous` | Salt 2019.2.0 |
| `pexpect.async` | `pexpect._async` | pexpect 4.4 |
| `rpyc.core.async` | `rpyc.core.async_` | RPyC 4.0.0 |
| `gunicorn.workers.async` | `gunicorn.workers.base_async` | gunicorn 19.9.0 |
| `pymodbus.client.async` | `pymodbus.client.asynchronous` | pymodbus 2.2.0 |

It also flags a module or package of the project itself named `async` or `await`
(`pkg/async.py`, `pkg/async/__init__.py`), when `asyncfix check` sees the project's files: on the
module, and on every import of it in the checked files — absolute or relative
(`from .async import helper`, `from . import async`) — and attribute paths reached through them.

## Why is this bad?
Since Python 3.7 `async` is a keyword, so `import kombu.async` is a `SyntaxError` and the whole
file fails to compile, at the first such line, with no hint about the new name. The libraries
moved the module; the old path cannot even be written any more.

## Example
```python
import kombu.async
from kombu.async.hub import Hub
from celery.backends import async as backend

hub = kombu.async.Hub()
```

## Use instead
```python
import kombu.asynchronous
from kombu.asynchronous.hub import Hub
from celery.backends import asynchronous as backend

hub = kombu.asynchronous.Hub()
```

## Fix safety
The fix respells the path (and, for `from kombu import async`, the imported name at each of
its uses). It is safe: the module is the same under its new name, from the release in the table
on (a project pinned to an older release must upgrade). It is unsafe when the new path starts
with another package in a plain `import a.async` (the statement would bind another name), when
the path's first name is not imported in the file (`kombu.async.Hub` with no `import kombu`: a
star import or a missing one, so a guess), and when the new name is already used in the file.
These rules take precedence over AF001/AF002 on the tokens they own.

For a module of the project, the fix renames the module's file or the package's directory
(`module-rename-style`: `asynchronous`, or a template such as `_{name}`) together with every
import of it in the checked files; relative imports keep their dots. It is safe when the module
lies in a regular package and no checked file would go on naming it; unsafe in a namespace
package (an installed distribution could provide the same name), and when its safe fixes would
leave an import of it (under `# noqa: AF201`, in a skipped file, where AF201 is off), a string
that names it, or a file that cannot be read or configured; the titles say where. When the new name is taken, nothing is renamed. A string that names the
module (`mock.patch('pkg.async.x')`, `importlib.import_module('pkg.async')`) is reported as a
warning with no fix, never edited.

## Options
More rows go in `[tool.asyncfix.renames]` (see docs/configuration.md, "The renames table"):
`module = [{ old = "mylib.async", new = "mylib.aio" }]`. `module-rename-style` spells the
project's renamed modules; `src` says where its top-level packages start.
)",
    FixAvailability::Sometimes,
    true};

std::unique_ptr<Rule> makeRenamedAsyncModule() { return std::make_unique<RenamedAsyncRule>(kRenamedAsyncModule); }

} // namespace asyncfix::rules
