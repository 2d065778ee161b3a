#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix::testing;

TEST_CASE("AF202 renamed-async-function: valid code is left alone", "[rules][AF202]") {
  const std::vector<std::string> valid = {
      "import asyncio\ntask = asyncio.ensure_future(coro())\n",
      "from asyncio import ensure_future\n",
      "s = 'asyncio.async(coro())'\n# asyncio.async(coro())\n",
      "import asyncio\n\nasync def main():\n    await asyncio.sleep(0)\n",
      // `asyncio` here is not the module.
      "def f(asyncio):\n    return asyncio.async(1)\n",
      "asyncio = Loop()\nasyncio.async(x)\n",
      // An `async` imported from another module: AF001's.
      "from legacy import async\nasync(x)\n",
      // A class of the file, an object of unknown origin: AF001's.
      "class A:\n    async = 1\nA.async\n",
      "def f(doc):\n    doc.async = False\n",
      "import xml.dom.minidom\ns = 'doc.async'\n",
      // Modules are AF201's.
      "import kombu.async\n",
  };
  runRuleTests("AF202", valid, {});
}

TEST_CASE("AF202 renamed-async-function: asyncio.async and other functions", "[rules][AF202]") {
  const std::vector<Invalid> invalid = {
      {"import asyncio\ntask = asyncio.async(coro())\n",
       {{"AF202", 2, 8, 21, FixKind::Safe, "Python 3.4.4 renamed it `asyncio.ensure_future`"}},
       "import asyncio\ntask = asyncio.ensure_future(coro())\n"},
      {"import asyncio as aio\naio.async(coro())\n",
       {{"AF202", 2, 1, 10, FixKind::Safe}},
       "import asyncio as aio\naio.ensure_future(coro())\n"},
      {"import asyncio\nloop.run_until_complete(asyncio.wait([asyncio.async(c) for c in cs]))\n",
       {{"AF202", 2, 39, 52, FixKind::Safe}},
       "import asyncio\nloop.run_until_complete(asyncio.wait([asyncio.ensure_future(c) for c in cs]))\n"},
      // The function object itself, not only calls.
      {"import asyncio\nspawn = asyncio.async\n",
       {{"AF202", 2, 9, 22, FixKind::Safe}},
       "import asyncio\nspawn = asyncio.ensure_future\n"},
      {"import Pyro4\nproxy = Pyro4.async(p)\n",
       {{"AF202", 2, 9, 20, FixKind::Safe, "Pyro4 4.70"}},
       "import Pyro4\nproxy = Pyro4.asyncproxy(p)\n"},
      {"import rpyc\nf = rpyc.async(conn.root.f)\n",
       {{"AF202", 2, 5, 15, FixKind::Safe}},
       "import rpyc\nf = rpyc.async_(conn.root.f)\n"},
      // django-q 1.0.0 renamed its task function `async_task`.
      {"import django_q.tasks\ntask_id = django_q.tasks.async(send_mail, to)\n",
       {{"AF202", 2, 11, 31, FixKind::Safe, "django-q 1.0.0 renamed it `django_q.tasks.async_task`"}},
       "import django_q.tasks\ntask_id = django_q.tasks.async_task(send_mail, to)\n"},
      // Not imported in the file: flagged, the fix is unsafe.
      {"task = asyncio.async(coro())\n",
       {{"AF202", 1, 8, 21, FixKind::Unsafe}},
       "task = asyncio.ensure_future(coro())\n",
       "task = asyncio.async(coro())\n"},
  };
  runRuleTests("AF202", {}, invalid);
}

TEST_CASE("AF202 renamed-async-function: from asyncio import async, and every use", "[rules][AF202]") {
  const std::vector<Invalid> invalid = {
      {"from asyncio import async\ntask = async(coro())\n",
       {{"AF202", 1, 21, 26, FixKind::Safe}, {"AF202", 2, 8, 13}},
       "from asyncio import ensure_future\ntask = ensure_future(coro())\n"},
      {"from asyncio import async\nfs = [async(c) for c in cs]\ng = lambda c: async(c)\ndef h():\n    return async\n",
       {{"AF202", 1, 21, 26}, {"AF202", 2, 7, 12}, {"AF202", 3, 15, 20}, {"AF202", 5, 12, 17}},
       "from asyncio import ensure_future\nfs = [ensure_future(c) for c in cs]\ng = lambda c: ensure_future(c)\n"
       "def h():\n    return ensure_future\n"},
      // Scope-aware: only the function that imports it; `g`'s parameter is another `async` (AF001's).
      {"def f():\n    from asyncio import async\n    return async(c)\n\ndef g(async):\n    return async\n",
       {{"AF202", 2, 25, 30, FixKind::Safe}, {"AF202", 3, 12, 17, FixKind::Safe}},
       "def f():\n    from asyncio import ensure_future\n    return ensure_future(c)\n\ndef g(async):\n    return "
       "async\n"},
      {"from django_q.tasks import async, result\ntask_id = async('math.copysign', 2, -2)\n",
       {{"AF202", 1, 28, 33, FixKind::Safe}, {"AF202", 2, 11, 16, FixKind::Safe}},
       "from django_q.tasks import async_task, result\ntask_id = async_task('math.copysign', 2, -2)\n"},
      // An alias keeps its name; only the imported one changes.
      {"from asyncio import async as spawn\nspawn(c)\n",
       {{"AF202", 1, 21, 26, FixKind::Safe}},
       "from asyncio import ensure_future as spawn\nspawn(c)\n"},
      // The usual compat shim: the fallback import compiles again.
      {"try:\n    from asyncio import ensure_future\nexcept ImportError:\n    from asyncio import async as "
       "ensure_future\n",
       {{"AF202", 4, 25, 30, FixKind::Safe}},
       "try:\n    from asyncio import ensure_future\nexcept ImportError:\n    from asyncio import ensure_future as "
       "ensure_future\n"},
      // Other names in the same import stay.
      {"from asyncio import get_event_loop, async, wait\nasync(c)\n",
       {{"AF202", 1, 37, 42}, {"AF202", 2, 1, 6}},
       "from asyncio import get_event_loop, ensure_future, wait\nensure_future(c)\n"},
      // The new name is taken in this file: the rename is unsafe.
      {"from asyncio import async\nensure_future = None\nasync(c)\n",
       {{"AF202", 1, 21, 26, FixKind::Unsafe, "already used"}, {"AF202", 3, 1, 6, FixKind::Unsafe}},
       "from asyncio import ensure_future\nensure_future = None\nensure_future(c)\n",
       "from asyncio import async\nensure_future = None\nasync(c)\n"},
  };
  runRuleTests("AF202", {}, invalid);
}

TEST_CASE("AF202 renamed-async-function: attributes of library objects", "[rules][AF202]") {
  const std::vector<Invalid> invalid = {
      {"from xml.dom import minidom\ndoc = minidom.parseString(s)\ndoc.async = False\n",
       {{"AF202", 3, 5, 10, FixKind::Safe, "`doc.async`"}},
       "from xml.dom import minidom\ndoc = minidom.parseString(s)\ndoc.async_ = False\n"},
      {"import xml.dom.minidom\ndoc = xml.dom.minidom.Document()\nprint(doc.async)\n",
       {{"AF202", 3, 11, 16, FixKind::Safe}},
       "import xml.dom.minidom\ndoc = xml.dom.minidom.Document()\nprint(doc.async_)\n"},
      {"from xml.dom import minidom\nwith minidom.parse(path) as doc:\n    flag = doc.async\n",
       {{"AF202", 3, 16, 21, FixKind::Safe}},
       "from xml.dom import minidom\nwith minidom.parse(path) as doc:\n    flag = doc.async_\n"},
      {"from xml.dom.xmlbuilder import DocumentLS\nDocumentLS.async\n",
       {{"AF202", 2, 12, 17, FixKind::Safe}},
       "from xml.dom.xmlbuilder import DocumentLS\nDocumentLS.async_\n"},
  };
  runRuleTests("AF202", {}, invalid);
}

TEST_CASE("AF202 fires from py35 on, a warning before Python 3.7", "[rules][AF202]") {
  for (const int minor : {5, 6}) {
    asyncfix::Config config;
    config.target = {3, minor};
    runRuleTests("AF202", {},
                 {{"import asyncio\nasyncio.async(c)\n",
                   {{"AF202", 2, 1, 14, FixKind::Safe, "`asyncio.async` becomes a syntax error in Python 3.7"}},
                   "import asyncio\nasyncio.ensure_future(c)\n"}},
                 config);
  }
}

TEST_CASE("AF202 names an object that spans lines `…`, whatever the line ends", "[rules][AF202][line-ends]") {
  for (const std::string eol : {"\n", "\r\n", "\r"}) {
    const std::string source =
        "import xml.dom.minidom" + eol + "flag = xml.dom.minidom.parseString(" + eol + "    s).async" + eol;
    runRuleTests(
        "AF202", {},
        {{source,
          {{"AF202", 3, 8, 13, FixKind::Safe, "`….async`"}},
          "import xml.dom.minidom" + eol + "flag = xml.dom.minidom.parseString(" + eol + "    s).async_" + eol}});
  }
}

namespace {

/// The Config the project view gives a file that uses `pkg/m.py`'s module-level `async`.
asyncfix::Config userConfig(bool uncertain = false) {
  asyncfix::Config config;
  asyncfix::RenameRow row;
  row.kind = asyncfix::RenameRow::Kind::Function;
  row.library = "this project";
  row.old = "pkg.m.async";
  row.replacement = "pkg.m.async_";
  row.touches = {"pkg/m.py", "pkg/user.py"};
  row.uncertain = uncertain;
  if (uncertain) row.unresolved = "`o.async` in `other.py:3` does not resolve";
  config.renames = {row};
  config.package = "pkg";
  return config;
}

} // namespace

TEST_CASE("AF202 renamed-async-function: the project's module-level name, at its uses", "[rules][AF202][project]") {
  const std::vector<Invalid> invalid = {
      {"from pkg.m import async\nx = async + 1\n",
       {{"AF202", 1, 19, 24, FixKind::Safe, "(with its definition in `pkg/m.py`)"}, {"AF202", 2, 5, 10, FixKind::Safe}},
       "from pkg.m import async_\nx = async_ + 1\n"},
      {"from .m import async as a\nx = a\n",
       {{"AF202", 1, 16, 21, FixKind::Safe, "the project's `pkg/m.py` defines it as `async_`"}},
       "from .m import async_ as a\nx = a\n"},
      {"import pkg.m\nfrom . import m as mm\nx = pkg.m.async, mm.async\n",
       {{"AF202", 3, 5, 16, FixKind::Safe}, {"AF202", 3, 18, 26, FixKind::Safe}},
       "import pkg.m\nfrom . import m as mm\nx = pkg.m.async_, mm.async_\n"},
  };
  runRuleTests("AF202", {"from pkg.other import async\n", "import pkg.m\nx = pkg.m.other\n"}, invalid, userConfig());
  runRuleTests("AF202", {},
               {{"from pkg.m import async\n",
                 {{"AF202", 1, 19, 24, FixKind::Unsafe, "(`o.async` in `other.py:3` does not resolve)"}},
                 "from pkg.m import async_\n",
                 "from pkg.m import async\n"}},
               userConfig(true));
}
