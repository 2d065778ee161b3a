// AF001 async-identifier — `async` used as a name.
#include "rules/keyword_name.h"

namespace asyncfix::rules {

extern const RuleInfo kAsyncIdentifier;
const RuleInfo kAsyncIdentifier{"AF001",
                                "async-identifier",
                                "`async` used as a name (a reserved keyword since Python 3.7)",
                                R"(## What it does
Flags every use of `async` as a name: variables, `for`/`with`/`except` targets, parameters (also
of lambdas), function and class names, imported names and aliases, `global`/`nonlocal`
declarations, attribute access and assignment (`self.async = x`), and keyword arguments to calls
that AF101 does not own. An `async` that starts a line before `def`, `with` or `for`, or follows
an expression before `for`, is the keyword, also where a syntax error elsewhere (a bracket left
open above an `async def`) makes the parser read it as a name: the syntax error is not this one.

## Why is this bad?
Python 3.7 made `async` a reserved keyword. A file that uses it as a name no longer compiles:
`SyntaxError: invalid syntax` at the first occurrence, and nothing in the file runs.

## Example
```python
def fetch(url, async=False):
    if async:
        return submit(url)
    return get(url)

fetch(URL, async=True)
```

## Use instead
```python
def fetch(url, async_=False):
    if async_:
        return submit(url)
    return get(url)

fetch(URL, async_=True)
```

## Fix safety
The fix renames the binding and every reference to it in the file, following Python's scoping
rules (a local `async` in one function does not touch another function's `async`); renaming a
parameter also renames `async=` at the calls of that function in the file. The new name is
`async_` (PEP 8's convention) or what the rename style asks for (`is_async`, a template).

A keyword argument that no parameter of the file binds (`requests.get(url, async=True)`,
`h(async=1)` for a `def h(**kw)`, `dict(async=1)`, `class K(Base, async=1)`) keeps its key:
it becomes `**{"async": True}`, which passes the callee the very key and value it got on Python
3.6, also into a `**kwargs` — where a rename to `async_=` would pass another key. That fix is
safe. It is renamed like the other uses instead, unsafely and saying why in the fix's title,
when a `*args` follows it (`**` cannot precede `*`), when the callee is a name the file never
binds (a star import brought it, and the project may rename its parameter), or when the file
(or the project, below) renames a parameter `async` (a `**kwargs` may pass the keyword on to
it) or an attribute `async` (the keyword may set it: `SimpleNamespace(async=1).async`). A safe `--fix` renames the
file's safe parameters first; a keyword then left without a parameter `async` keeps its key.

The fix is safe for names that nothing outside the file can see: local variables, parameters of
private functions (`_helper`) and of lambdas that are not public module-level names,
comprehension variables. It is unsafe where other code may use the name: module-level names
(importers), parameters of public functions (keyword callers), parameters of methods called
through an attribute (`obj.run(async=…)`: the receiver is not known), attributes (`obj.async`
anywhere), keyword arguments renamed as above, where the new name is already visible
(it would be shadowed or captured), and when a syntax error hides some uses of the name. Imported names (`from m import async`)
get no fix: the name is fixed by the other module (AF201 knows the libraries that renamed theirs,
and `asyncfix check` the project's own, below).

`asyncfix check` sees the run's files as a project. A parameter of a public function, method or
class (`__init__`) of the project is renamed there together with `async=` at every call in the
other files whose callee resolves to it through their imports (`from pkg.kfac import Kfac`,
`import pkg.kfac as k`, relative imports, a method of an instance the file made); those calls
are AF203's, with the same new name. The fix then says which files it touches, and it is safe
when every call found in the project resolves to the function: unsafe when some `async=` (or a
`**mapping`) may reach it without resolving (an unknown receiver with the method's name,
`super().__init__(…)`, another function of the project that may forward it), or when it lies in
a namespace package. A public parameter that no other file of the run passes by keyword is
renamed as above, unsafely: callers outside the run may pass it.

The same holds for a module-level name (`async = …`, `def async(…)`, `class async:`) that other
files of the run use through their imports (`from pkg.m import async`, `… import async as a`,
`import pkg.m` then `pkg.m.async`, `from pkg import m` then `m.async`, relative imports): it is
renamed here and, by AF202, at every such use, to the name this file's rename style gives. And
for an attribute (`self.async = …` in a method, a class-level `async = …` or `def async(self)`)
that other files use on objects the project knows (`self.async` in a method, `c.async` after
`c = C()` with `C` the project's class, `C.async`): every `obj.async` of the files that use it is
renamed to one name, and the title lists those files. Either is unsafe when some use in the
project may reach the name without resolving to it (`o.async` where `o` is not known, a free
`async` that a star import may bind, an attribute of an object of another library, an import of
it from a module that does not define it); the title lists the first of those uses. A module-level
name is unsafe too when its module has an `__all__` (a star import follows it, and the rename
leaves its strings alone), and either when the defining module spells the name in a string
(`getattr(self, 'async')`), which the rename leaves naming the old one. A parameter, a
module-level name or an attribute renamed across files is unsafe in every one of them when one
already uses the new name (`async_` anywhere in it): the title names that file.
)",
                                FixAvailability::Sometimes,
                                false};

std::unique_ptr<Rule> makeAsyncIdentifier() { return std::make_unique<KeywordNameRule>("async", kAsyncIdentifier); }

} // namespace asyncfix::rules
