// AF203 renamed-async-kwarg — `async=` keyword arguments that libraries renamed for Python 3.7.
#include "rules/renames.h"

namespace asyncfix::rules {

extern const RuleInfo kRenamedAsyncKwarg;
const RuleInfo kRenamedAsyncKwarg{
    "AF203",
    "renamed-async-kwarg",
    "`async=` keyword argument to an API that renamed it for Python 3.7 (pexpect, kafka-python, RQ, …)",
    R"(## What it does
Flags `async=` passed to library calls whose parameter was renamed when Python 3.7 reserved
`async`:

| callable | new keyword | since |
|---|---|---|
| pexpect `expect`, `expect_exact`, `expect_list` (`pexpect.**.expect…`) | `async_=` | pexpect 4.4 |
| kafka-python `SimpleProducer`, `KeyedProducer` | `async_send=` | kafka-python 1.4.3 |
| confluent-kafka `Consumer.commit` (`confluent_kafka.**.commit`) | `asynchronous=` | confluent-kafka 0.11.4 |
| psycopg2 `connect` | `async_=` | psycopg2 2.7 |
| RQ `Queue` (`rq.**.Queue`) | `is_async=` | rq 0.12.0 |
| django-rq `get_queue` | `is_async=` | django-rq 1.2.0 |
| Flask-RQ2 `RQ` | `is_async=` | Flask-RQ2 18.1 |

The callee is resolved through the file's imports. A method call resolves through what made its
receiver, as far as the file shows: `child = pexpect.spawn(cmd)` (or `pxssh.pxssh()`,
`fdpexpect.fdspawn(fd)` after `from pexpect import …`), `with pexpect.spawn(cmd) as child:`,
`self.child = pexpect.spawn(cmd)` in the class's methods, or a chain such as
`pexpect.spawn(cmd).expect(…)`. Anything a library callable returns counts as that library's
object; a name bound more than once resolves only when all its bindings agree.

## Why is this bad?
Since Python 3.7 `child.expect(pattern, async=True)` does not compile: `async` is a keyword,
even as an argument name, and the file fails with `SyntaxError: invalid syntax`. The libraries
renamed the parameter; each new name is in the table.

## Example
```python
import pexpect
from kafka import SimpleProducer

child = pexpect.spawn("ssh host")
index = child.expect(["$ "], async=True)  # a coroutine
producer = SimpleProducer(client, async=True)
```

## Use instead
```python
import pexpect
from kafka import SimpleProducer

child = pexpect.spawn("ssh host")
index = child.expect(["$ "], async_=True)  # a coroutine
producer = SimpleProducer(client, async_send=True)
```

## Fix safety
The fix renames the keyword and keeps its value. It is safe when the callee resolves to the
library through the file's imports. When it does not (the receiver is a parameter, or comes
from a function of another module) but the file imports the library and calls a method of that
name, the finding is reported with an unsafe fix: it may be another object's `expect`. A callee
the file defines itself (a function or class named `expect`) is AF001's, which renames the
parameter and its call sites together; so is a callee that resolves to something else. When
the call already passes the new keyword, the fix removes `async=` instead (unsafe: the two
values may differ). These rules take precedence over AF001 on the tokens they own.

`asyncfix check` adds rows for the project's own functions (see AF001): `Kfac(0.1, async=True)`
after `from pkg.kfac import Kfac`, where `pkg/kfac.py`'s `Kfac.__init__` takes `async`, is renamed
with that parameter, to the name the defining file's rename style gives. Such a fix is safe when
every call found in the project resolves to the function, unsafe otherwise.

## Options
More rows go in `[tool.asyncfix.renames]` (see docs/configuration.md, "The renames table"):
`keyword = [{ callable = "mylib.**.submit", old = "async", new = "async_" }]`.
)",
    FixAvailability::Always,
    false};

std::unique_ptr<Rule> makeRenamedAsyncKwarg() { return std::make_unique<RenamedAsyncRule>(kRenamedAsyncKwarg); }

} // namespace asyncfix::rules
