#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix;
using namespace asyncfix::testing;

TEST_CASE("AF001 async-identifier: valid code is left alone", "[rules][AF001]") {
  const std::vector<std::string> valid = {
      "async def f():\n    async with a as b:\n        async for x in b:\n            await x\n",
      "async def f():\n    return [i async for i in y]\n",
      "x = 'async = 1'\n# async = 1\n",
      "def f():\n    '''async is a keyword'''\n",
      "async_ = 1\nis_async = async_\n",
      "x.cuda(async=True)\n",     // AF101's, not AF001's
      "foo(x.cuda(async=True)\n", // AF101's also inside an ERROR region (unclosed call)
      "x = y.cuda(async=True\n",  // …and when the call's own `)` is missing
      "x = y.cuda(async=\n",
      "class A:\n    async def run(self):\n        pass\n",
      "@decorator\nasync def f():\n    pass\n",
      // A bracket left open above a keyword use: tree-sitter's recovery reads `async` as a name
      // there, but the syntax error is the bracket's, and no Python reads that `async` as a name.
      "x = foo(\nasync def f():\n    pass\n",
      "x = foo(\nasync with a:\n    pass\n",
      "x = foo(\nasync for i in y:\n    pass\n",
      "def g(:\n    pass\nasync def f():\n    return 1\n",
  };
  runRuleTests("AF001", valid, {});
}

TEST_CASE("AF001 async-identifier: local names are renamed safely and scope-aware", "[rules][AF001]") {
  const std::vector<Invalid> invalid = {
      // A local and its references: safe.
      {"def f():\n    async = 1\n    return async\n",
       {{"AF001", 2, 5, 10, FixKind::Safe, "variable name"}, {"AF001", 3, 12, 17, FixKind::Safe}},
       "def f():\n    async_ = 1\n    return async_\n"},
      // Another function's `async` is a different binding: each is renamed on its own.
      {"def f():\n    async = 1\n    return async\n\ndef g(x):\n    return x.async\n",
       {{"AF001", 2, 5, 10, FixKind::Safe},
        {"AF001", 3, 12, 17, FixKind::Safe},
        {"AF001", 6, 14, 19, FixKind::Unsafe, "attribute"}},
       "def f():\n    async_ = 1\n    return async_\n\ndef g(x):\n    return x.async_\n",
       "def f():\n    async_ = 1\n    return async_\n\ndef g(x):\n    return x.async\n"},
      // for / with / except targets, tuple targets, comprehension variables.
      {"def f(xs):\n    for async in xs:\n        print(async)\n",
       {{"AF001", 2, 9, 14, FixKind::Safe}, {"AF001", 3, 15, 20, FixKind::Safe}},
       "def f(xs):\n    for async_ in xs:\n        print(async_)\n"},
      {"def f():\n    with open(p) as async:\n        return async.read()\n",
       {{"AF001", 2, 21, 26}, {"AF001", 3, 16, 21}},
       "def f():\n    with open(p) as async_:\n        return async_.read()\n"},
      {"def f():\n    try:\n        g()\n    except E as async:\n        log(async)\n",
       {{"AF001", 4, 17, 22}, {"AF001", 5, 13, 18}},
       "def f():\n    try:\n        g()\n    except E as async_:\n        log(async_)\n"},
      {"def f(p):\n    a, (async, b) = p\n    return async\n",
       {{"AF001", 2, 9, 14}, {"AF001", 3, 12, 17}},
       "def f(p):\n    a, (async_, b) = p\n    return async_\n"},
      {"ys = [async * 2 for async in xs]\n",
       {{"AF001", 1, 7, 12, FixKind::Safe}, {"AF001", 1, 21, 26, FixKind::Safe}},
       "ys = [async_ * 2 for async_ in xs]\n"},
      // A lambda parameter: safe inside a function…
      {"def f(xs):\n    return sorted(xs, key=lambda async: async.priority)\n",
       {{"AF001", 2, 34, 39, FixKind::Safe}, {"AF001", 2, 41, 46, FixKind::Safe}},
       "def f(xs):\n    return sorted(xs, key=lambda async_: async_.priority)\n"},
      // …unsafe when the lambda is a public module-level name (callers may pass it by keyword);
      // its calls in the file are renamed with it.
      {"key = lambda async=False: async\nkey(async=True)\n",
       {{"AF001", 1, 14, 19, FixKind::Unsafe},
        {"AF001", 1, 27, 32, FixKind::Unsafe},
        {"AF001", 2, 5, 10, FixKind::Unsafe}},
       "key = lambda async_=False: async_\nkey(async_=True)\n",
       "key = lambda async=False: async\nkey(async=True)\n"},
      {"def f():\n    cb = lambda async=False: async\n    return cb(async=True)\n",
       {{"AF001", 2, 17, 22, FixKind::Safe}, {"AF001", 2, 30, 35, FixKind::Safe}, {"AF001", 3, 15, 20, FixKind::Safe}},
       "def f():\n    cb = lambda async_=False: async_\n    return cb(async_=True)\n"},
      // The configured style is used.
      {"def f():\n    async = 1\n    return async\n",
       {{"AF001", 2, 5, 10}, {"AF001", 3, 12, 17}},
       "def f():\n    async_ = 1\n    return async_\n"},
      // A closure reads the enclosing function's `async`: one binding.
      {"def f():\n    async = 1\n    def g():\n        return async\n    return g\n",
       {{"AF001", 2, 5, 10, FixKind::Safe}, {"AF001", 4, 16, 21, FixKind::Safe}},
       "def f():\n    async_ = 1\n    def g():\n        return async_\n    return g\n"},
  };
  runRuleTests("AF001", {}, invalid);
}

TEST_CASE("AF001 async-identifier: names visible outside the file are unsafe", "[rules][AF001]") {
  const std::vector<Invalid> invalid = {
      // Module-level name.
      {"async = True\nif async:\n    pass\n",
       {{"AF001", 1, 1, 6, FixKind::Unsafe}, {"AF001", 2, 4, 9, FixKind::Unsafe}},
       "async_ = True\nif async_:\n    pass\n",
       "async = True\nif async:\n    pass\n"},
      // A public function's parameter: call sites in the file are renamed too.
      {"def fetch(url, async=False):\n    return async\n\nfetch(u, async=True)\n",
       {{"AF001", 1, 16, 21, FixKind::Unsafe, "parameter"},
        {"AF001", 2, 12, 17, FixKind::Unsafe},
        {"AF001", 4, 10, 15, FixKind::Unsafe, "keyword argument"}},
       "def fetch(url, async_=False):\n    return async_\n\nfetch(u, async_=True)\n",
       "def fetch(url, async=False):\n    return async\n\nfetch(u, async=True)\n"},
      // A private function's parameter: safe, with its call sites.
      {"def _fetch(url, async=False):\n    return async\n\n_fetch(u, async=True)\n",
       {{"AF001", 1, 17, 22, FixKind::Safe}, {"AF001", 2, 12, 17, FixKind::Safe}, {"AF001", 4, 11, 16, FixKind::Safe}},
       "def _fetch(url, async_=False):\n    return async_\n\n_fetch(u, async_=True)\n"},
      // A method's parameter and a constructor's: calls through attributes and the class name.
      {"class Loader:\n    def __init__(self, async=False):\n        self.async = async\n\n"
       "l = Loader(async=True)\nprint(l.async)\n",
       {{"AF001", 2, 24, 29, FixKind::Unsafe},
        {"AF001", 3, 14, 19, FixKind::Unsafe},
        {"AF001", 3, 22, 27, FixKind::Unsafe},
        {"AF001", 5, 12, 17, FixKind::Unsafe},
        {"AF001", 6, 9, 14, FixKind::Unsafe}},
       "class Loader:\n    def __init__(self, async_=False):\n        self.async_ = async_\n\n"
       "l = Loader(async_=True)\nprint(l.async_)\n",
       "class Loader:\n    def __init__(self, async=False):\n        self.async = async\n\n"
       "l = Loader(async=True)\nprint(l.async)\n"},
      // Call sites are tied to the function by name resolution, not by spelling: `h`'s `_g` is
      // another function, whose `async=` keyword is not renamed with `f`'s `_g`. While the file
      // renames a parameter `async`, that keyword (which `**kw` could pass on to it) is renamed
      // too, unsafely; once the parameter is renamed (the safe fixes' first round), it keeps its
      // key as `**{"async": 2}`.
      {"def f():\n    def _g(async): return async\n    return _g(async=1)\ndef h():\n"
       "    def _g(x, **kw): return kw\n    return _g(1, async=2)\n",
       {{"AF001", 2, 12, 17, FixKind::Safe},
        {"AF001", 2, 27, 32, FixKind::Safe},
        {"AF001", 3, 15, 20, FixKind::Safe},
        {"AF001", 6, 18, 23, FixKind::Unsafe, "renames the parameter `async`"}},
       "def f():\n    def _g(async_): return async_\n    return _g(async_=1)\ndef h():\n"
       "    def _g(x, **kw): return kw\n    return _g(1, async_=2)\n",
       "def f():\n    def _g(async_): return async_\n    return _g(async_=1)\ndef h():\n"
       "    def _g(x, **kw): return kw\n    return _g(1, **{\"async\": 2})\n"},
      // Methods called through an attribute: the receiver is unknown, so the rename is unsafe,
      // and a call cannot be tied to one of two methods of the same name.
      {"class A:\n    def _f(self, async=False): return async\nclass B:\n    def _f(self, x, **kw): return kw\n"
       "print(B()._f(1, async=True))\n",
       {{"AF001", 2, 18, 23, FixKind::Unsafe},
        {"AF001", 2, 39, 44, FixKind::Unsafe},
        {"AF001", 5, 17, 22, FixKind::Unsafe, "keyword argument"}},
       "class A:\n    def _f(self, async_=False): return async_\nclass B:\n    def _f(self, x, **kw): return kw\n"
       "print(B()._f(1, async_=True))\n",
       "class A:\n    def _f(self, async=False): return async\nclass B:\n    def _f(self, x, **kw): return kw\n"
       "print(B()._f(1, async=True))\n"},
      // The new name is only a conflict where it is visible: another function's `async_` is not.
      {"def f(async_):\n    return async_\ndef g():\n    async = 1\n    return async\n",
       {{"AF001", 4, 5, 10, FixKind::Safe}, {"AF001", 5, 12, 17, FixKind::Safe}},
       "def f(async_):\n    return async_\ndef g():\n    async_ = 1\n    return async_\n"},
      // …but a module-level `async_` that the function reads is.
      {"async_ = 0\ndef g():\n    async = 1\n    return async + async_\n",
       {{"AF001", 3, 5, 10, FixKind::Unsafe}, {"AF001", 4, 12, 17, FixKind::Unsafe}},
       "async_ = 0\ndef g():\n    async_ = 1\n    return async_ + async_\n",
       "async_ = 0\ndef g():\n    async = 1\n    return async + async_\n"},
      // An attribute conflicts with an attribute or class-level name, not with a local.
      {"def f(o):\n    async_ = 1\n    return o.async\n",
       {{"AF001", 3, 14, 19, FixKind::Unsafe}},
       "def f(o):\n    async_ = 1\n    return o.async_\n",
       "def f(o):\n    async_ = 1\n    return o.async\n"},
      {"def f(o):\n    o.async_ = 1\n    return o.async\n",
       {{"AF001", 3, 14, 19, FixKind::Unsafe, "already used"}},
       "def f(o):\n    o.async_ = 1\n    return o.async_\n",
       "def f(o):\n    o.async_ = 1\n    return o.async\n"},
      // A keyword to a callee defined elsewhere, or to a `**kwargs`: `**{"async": v}` passes the
      // callee the very key and value it got on Python 3.6 (a rename would pass `async_`), so it
      // is safe. Issue 32: `h(async=1)` became `h(async_=1)` and printed another key.
      {"requests.get(url, async=True)\n",
       {{"AF001", 1, 19, 24, FixKind::Safe, "keyword argument"}},
       "requests.get(url, **{\"async\": True})\n"},
      {"def h(**kw):\n    return sorted(kw)\nprint(h(async=1, b=2), dict(async = 3), h(x, async=  # c\n  4))\n",
       {{"AF001", 3, 9, 14, FixKind::Safe, "`**{\"async\": …}`"},
        {"AF001", 3, 29, 34, FixKind::Safe},
        {"AF001", 3, 46, 51, FixKind::Safe}},
       "def h(**kw):\n    return sorted(kw)\nprint(h(**{\"async\": 1}, b=2), dict(**{\"async\": 3}), "
       "h(x, **{\"async\":  # c\n  4}))\n"},
      {"class K(Base, async=1):\n    pass\n",
       {{"AF001", 1, 15, 20, FixKind::Safe}},
       "class K(Base, **{\"async\": 1}):\n    pass\n"},
      // …except before a `*args` (`**` cannot precede it), and where the file renames a parameter
      // or an attribute `async` that the keyword may reach or set: renamed with them, unsafely.
      {"import h\nh(async=1, *rest)\n",
       {{"AF001", 2, 3, 8, FixKind::Unsafe, "a `*` argument follows it"}},
       "import h\nh(async_=1, *rest)\n",
       "import h\nh(async=1, *rest)\n"},
      // A callee bound nowhere in the file came from a star import: the project may rename its
      // parameter `async` without tying this call to it (found by the runtime oracle).
      {"from pkg.m import *\nhelper(2, async=3)\nprint(dict(async=1))\n",
       {{"AF001", 2, 11, 16, FixKind::Unsafe, "`helper` is not defined in this file"},
        {"AF001", 3, 12, 17, FixKind::Safe}},
       "from pkg.m import *\nhelper(2, async_=3)\nprint(dict(**{\"async\": 1}))\n",
       "from pkg.m import *\nhelper(2, async=3)\nprint(dict(**{\"async\": 1}))\n"},
      {"import types\nns = types.SimpleNamespace(async=1)\nprint(ns.async)\n",
       {{"AF001", 2, 28, 33, FixKind::Unsafe, "renames the attribute `async`"}, {"AF001", 3, 10, 15, FixKind::Unsafe}},
       "import types\nns = types.SimpleNamespace(async_=1)\nprint(ns.async_)\n",
       "import types\nns = types.SimpleNamespace(async=1)\nprint(ns.async)\n"},
      {"def inner(x, async=False):\n    return async\ndef outer(**kw):\n    return inner(1, **kw)\n"
       "outer(async=True)\n",
       {{"AF001", 1, 14, 19, FixKind::Unsafe},
        {"AF001", 2, 12, 17, FixKind::Unsafe},
        {"AF001", 5, 7, 12, FixKind::Unsafe, "renames the parameter `async`"}},
       "def inner(x, async_=False):\n    return async_\ndef outer(**kw):\n    return inner(1, **kw)\n"
       "outer(async_=True)\n",
       "def inner(x, async=False):\n    return async\ndef outer(**kw):\n    return inner(1, **kw)\n"
       "outer(async=True)\n"},
      // Function and class names.
      {"def async():\n    pass\n\nasync()\n",
       {{"AF001", 1, 5, 10, FixKind::Unsafe, "function name"}, {"AF001", 4, 1, 6}},
       "def async_():\n    pass\n\nasync_()\n",
       "def async():\n    pass\n\nasync()\n"},
      {"class async:\n    pass\n",
       {{"AF001", 1, 7, 12, FixKind::Unsafe, "class name"}},
       "class async_:\n    pass\n",
       "class async:\n    pass\n"},
      // `global` ties a function's assignment to the module binding.
      {"async = 0\ndef f():\n    global async\n    async = 1\n",
       {{"AF001", 1, 1, 6, FixKind::Unsafe},
        {"AF001", 3, 12, 17, FixKind::Unsafe},
        {"AF001", 4, 5, 10, FixKind::Unsafe}},
       "async_ = 0\ndef f():\n    global async_\n    async_ = 1\n",
       "async = 0\ndef f():\n    global async\n    async = 1\n"},
      // The new name already exists: unsafe.
      {"def f(async_):\n    async = 1\n    return async + async_\n",
       {{"AF001", 2, 5, 10, FixKind::Unsafe, ""}, {"AF001", 3, 12, 17, FixKind::Unsafe}},
       "def f(async_):\n    async_ = 1\n    return async_ + async_\n",
       "def f(async_):\n    async = 1\n    return async + async_\n"},
      // Imported names cannot be renamed here; an alias can.
      {"from tornado.gen import async\nasync(f)\n",
       {{"AF001", 1, 25, 30, FixKind::None}, {"AF001", 2, 1, 6, FixKind::None}},
       std::nullopt},
      {"import foo as async\nasync.run()\n",
       {{"AF001", 1, 15, 20, FixKind::Unsafe}, {"AF001", 2, 1, 6, FixKind::Unsafe}},
       "import foo as async_\nasync_.run()\n",
       "import foo as async\nasync.run()\n"},
      // A module path component: no fix.
      {"from kombu.async import Hub\n", {{"AF001", 1, 12, 17, FixKind::None, "module path"}}, std::nullopt},
  };
  runRuleTests("AF001", {}, invalid);
}

TEST_CASE("AF001 async-identifier: the rename style is configurable", "[rules][AF001]") {
  asyncfix::Config config;
  config.renameTemplate = "is_{name}";
  runRuleTests("AF001", {},
               {{"def f():\n    async = 1\n    return async\n",
                 {{"AF001", 2, 5, 10}, {"AF001", 3, 12, 17}},
                 "def f():\n    is_async = 1\n    return is_async\n"}},
               config);
}

TEST_CASE("AF001 async-identifier: syntax errors elsewhere", "[rules][AF001]") {
  const std::vector<Invalid> invalid = {
      // A half-typed line: the token is still reported, without a fix.
      {"x = (async\n", {{"AF001", 1, 6, 11, FixKind::None}}, std::nullopt},
      {"foo(bar(async=True\n", {{"AF001", 1, 9, 14, FixKind::None}}, std::nullopt},
      // Next to a bracket left open, an `async` that no keyword follows is still a name.
      {"x = foo(\nasync = 1\n", {{"AF001", 2, 1, 6, FixKind::None}}, std::nullopt},
      // A tuple target of `with`: the function's own binding, not the module's.
      {"async = 0\ndef f(ctx):\n    with ctx() as (a, async):\n        return async\n",
       {{"AF001", 1, 1, 6, FixKind::Unsafe}, {"AF001", 3, 23, 28, FixKind::Safe}, {"AF001", 4, 16, 21, FixKind::Safe}},
       "async_ = 0\ndef f(ctx):\n    with ctx() as (a, async_):\n        return async_\n",
       "async = 0\ndef f(ctx):\n    with ctx() as (a, async_):\n        return async_\n"},
      {"def f(ctx):\n    with ctx() as [async, b]:\n        return async\n",
       {{"AF001", 2, 20, 25, FixKind::Safe}, {"AF001", 3, 16, 21, FixKind::Safe}},
       "def f(ctx):\n    with ctx() as [async_, b]:\n        return async_\n"},
      // Python 2 leftovers do not stop a clean rename elsewhere.
      {"print 'hi'\ndef f():\n    async = 1\n    return async\n",
       {{"AF001", 3, 5, 10}, {"AF001", 4, 12, 17}},
       "print 'hi'\ndef f():\n    async_ = 1\n    return async_\n"},
  };
  runRuleTests("AF001", {}, invalid);
}

namespace {

/// The Config the CLI's project view gives `pkg/kfac.py` when `Kfac.__init__`'s parameter
/// `async` is renamed with `async=` at its calls in `train.py`.
Config definingConfig(std::string module, bool uncertain = false) {
  Config config;
  RenameRow row;
  row.kind = RenameRow::Kind::Keyword;
  row.library = "this project";
  row.owner = "pkg.kfac.Kfac";
  row.old = "async";
  row.replacement = "async_";
  row.touches = {"pkg/kfac.py", "train.py"};
  row.uncertain = uncertain;
  config.renames = {row};
  config.package = "pkg";
  config.module = std::move(module);
  return config;
}

} // namespace

TEST_CASE("AF001 async-identifier: a public parameter the project renames with its calls", "[rules][AF001][project]") {
  const std::string source = "class Kfac(object):\n    def __init__(self, lr, async=False):\n        self.a = async\n"
                             "\n\nopt = Kfac(0.1, async=True)\n";
  const std::string fixed = "class Kfac(object):\n    def __init__(self, lr, async_=False):\n        self.a = async_\n"
                            "\n\nopt = Kfac(0.1, async_=True)\n";
  // Every call in the project resolves to it: safe, and the fix names the other file.
  runRuleTests("AF001", {},
               {{source,
                 {{"AF001", 2, 28, 33, FixKind::Safe, "with `async=` at its calls in `train.py`"},
                  {"AF001", 3, 18, 23, FixKind::Safe},
                  {"AF001", 6, 17, 22, FixKind::Safe}},
                 fixed}},
               definingConfig("pkg.kfac"));
  // A call elsewhere may pass it without resolving to it: unsafe, and the title says so.
  runRuleTests("AF001", {},
               {{source,
                 {{"AF001", 2, 28, 33, FixKind::Unsafe, "may pass it without resolving"},
                  {"AF001", 3, 18, 23, FixKind::Unsafe},
                  {"AF001", 6, 17, 22, FixKind::Unsafe}},
                 fixed,
                 source}},
               definingConfig("pkg.kfac", true));
  // The row is another module's: a public parameter, unsafe as without a project view.
  runRuleTests("AF001", {},
               {{source,
                 {{"AF001", 2, 28, 33, FixKind::Unsafe},
                  {"AF001", 3, 18, 23, FixKind::Unsafe},
                  {"AF001", 6, 17, 22, FixKind::Unsafe}},
                 fixed,
                 source}},
               definingConfig("pkg.other"));
  // A method of the class is a callable of its own: not the constructor's row.
  runRuleTests("AF001", {},
               {{"class Kfac(object):\n    def step(self, async=False):\n        return async\n",
                 {{"AF001", 2, 20, 25, FixKind::Unsafe}, {"AF001", 3, 16, 21, FixKind::Unsafe}},
                 "class Kfac(object):\n    def step(self, async_=False):\n        return async_\n",
                 "class Kfac(object):\n    def step(self, async=False):\n        return async\n"}},
               definingConfig("pkg.kfac"));
}

namespace {

/// The Config the project view gives a file that defines or uses a renamed module-level name
/// (a function row) or attribute (an attribute row).
Config nameConfig(RenameRow::Kind kind, std::string old, std::string replacement, bool uncertain = false) {
  Config config;
  RenameRow row;
  row.kind = kind;
  row.library = "this project";
  row.old = std::move(old);
  row.replacement = std::move(replacement);
  row.touches = {"pkg/m.py", "user.py"};
  row.uncertain = uncertain;
  if (uncertain) row.unresolved = "`o.async` in `other.py:3` does not resolve";
  config.renames = {row};
  config.package = "pkg";
  config.module = "pkg.m";
  return config;
}

} // namespace

TEST_CASE("AF001 async-identifier: a module-level name the project renames with its uses", "[rules][AF001][project]") {
  const std::string source = "async = 1\ndef f():\n    return async\n";
  const std::string fixed = "async_ = 1\ndef f():\n    return async_\n";
  runRuleTests("AF001", {},
               {{source,
                 {{"AF001", 1, 1, 6, FixKind::Safe, "Rename `async` to `async_` with its uses in `user.py`"},
                  {"AF001", 3, 12, 17, FixKind::Safe}},
                 fixed}},
               nameConfig(RenameRow::Kind::Function, "pkg.m.async", "pkg.m.async_"));
  // A use elsewhere does not resolve: unsafe, and the title lists it.
  runRuleTests("AF001", {},
               {{source,
                 {{"AF001", 1, 1, 6, FixKind::Unsafe, "(`o.async` in `other.py:3` does not resolve)"},
                  {"AF001", 3, 12, 17, FixKind::Unsafe}},
                 fixed,
                 source}},
               nameConfig(RenameRow::Kind::Function, "pkg.m.async", "pkg.m.async_", true));
  // Another module's row: unsafe, as without a project view.
  runRuleTests("AF001", {},
               {{source, {{"AF001", 1, 1, 6, FixKind::Unsafe}, {"AF001", 3, 12, 17, FixKind::Unsafe}}, fixed, source}},
               nameConfig(RenameRow::Kind::Function, "pkg.other.async", "pkg.other.async_"));
}

TEST_CASE("AF001 async-identifier: an attribute the project renames in the files that use it",
          "[rules][AF001][project]") {
  const std::string source = "class C(object):\n    async = False\n    def run(self):\n        return self.async\n";
  const std::string fixed = "class C(object):\n    async_ = False\n    def run(self):\n        return self.async_\n";
  runRuleTests("AF001", {},
               {{source,
                 {{"AF001", 2, 5, 10, FixKind::Safe, "Rename `async` to `async_` in `pkg/m.py` and `user.py`"},
                  {"AF001", 4, 21, 26, FixKind::Safe}},
                 fixed}},
               nameConfig(RenameRow::Kind::Attribute, "async", "async_"));
  runRuleTests("AF001", {},
               {{source,
                 {{"AF001", 2, 5, 10, FixKind::Unsafe, "does not resolve"}, {"AF001", 4, 21, 26, FixKind::Unsafe}},
                 fixed,
                 source}},
               nameConfig(RenameRow::Kind::Attribute, "async", "async_", true));
}
