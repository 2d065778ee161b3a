#include <catch2/catch.hpp>

#include "asyncfix/linter.h"
#include "rules/rule_tester.h"

using namespace asyncfix;
using namespace asyncfix::testing;

TEST_CASE("AF201 renamed-async-module: valid code is left alone", "[rules][AF201]") {
  const std::vector<std::string> valid = {
      "import kombu.asynchronous\n",
      "from kombu.asynchronous.hub import Hub\n",
      "import kombu\nhub = kombu.asynchronous.Hub()\n",
      "from celery.backends.asynchronous import AsyncBackendMixin\n",
      "s = 'import kombu.async'\n# from kombu.async import Hub\n",
      "def f():\n    \"\"\"Uses kombu.async.Hub.\"\"\"\n",
      "import asyncio\n\nasync def f():\n    await asyncio.sleep(1)\n",
      // Relative imports name the file's own package, not the library.
      "from .kombu.async import Hub\n",
      "from . import async\n",
      // `kombu` here is not the library: a parameter, an object of the file.
      "def f(kombu):\n    return kombu.async\n",
      "kombu = make()\nkombu.async.start()\n",
      // Other libraries' `async` modules are not in the table (AF001's).
      "import tornado.async\n",
      "from mylib.async import run\n",
      // Functions are AF202's.
      "import asyncio\nasyncio.async(coro())\n",
  };
  runRuleTests("AF201", valid, {});
}

TEST_CASE("AF201 renamed-async-module: imports", "[rules][AF201]") {
  const std::vector<Invalid> invalid = {
      {"import kombu.async\n",
       {{"AF201", 1, 8, 19, FixKind::Safe, "kombu 4.2.0 renamed it `kombu.asynchronous`"}},
       "import kombu.asynchronous\n"},
      {"import kombu.async.hub as hub\n",
       {{"AF201", 1, 8, 19, FixKind::Safe}},
       "import kombu.asynchronous.hub as hub\n"},
      {"import kombu.async as kasync\n", {{"AF201", 1, 8, 19, FixKind::Safe}}, "import kombu.asynchronous as kasync\n"},
      // The module path of a from-import: AF201 on the path, not AF001 on `async`.
      {"from kombu.async.hub import Hub\n",
       {{"AF201", 1, 6, 17, FixKind::Safe}},
       "from kombu.asynchronous.hub import Hub\n"},
      {"from kombu.async import Hub, Timer\n",
       {{"AF201", 1, 6, 17, FixKind::Safe}},
       "from kombu.asynchronous import Hub, Timer\n"},
      {"from kombu.async.hub import (\n    Hub,  # the event loop\n    get_event_loop,\n)\n",
       {{"AF201", 1, 6, 17, FixKind::Safe}},
       "from kombu.asynchronous.hub import (\n    Hub,  # the event loop\n    get_event_loop,\n)\n"},
      {"from celery.backends.async import AsyncBackendMixin\n",
       {{"AF201", 1, 6, 27, FixKind::Safe, "Celery 4.3.0 renamed it `celery.backends.asynchronous`"}},
       "from celery.backends.asynchronous import AsyncBackendMixin\n"},
      {"import salt.utils.async\n", {{"AF201", 1, 8, 24, FixKind::Safe}}, "import salt.utils.asynchronous\n"},
      {"import pexpect.async\n", {{"AF201", 1, 8, 21, FixKind::Safe}}, "import pexpect._async\n"},
      {"from rpyc.core.async import AsyncResult\n",
       {{"AF201", 1, 6, 21, FixKind::Safe}},
       "from rpyc.core.async_ import AsyncResult\n"},
      // gunicorn's worker base module (19.9.0): the import every custom async worker has.
      {"from gunicorn.workers.async import AsyncWorker\n",
       {{"AF201", 1, 6, 28, FixKind::Safe, "gunicorn 19.9.0 renamed it `gunicorn.workers.base_async`"}},
       "from gunicorn.workers.base_async import AsyncWorker\n"},
      {"import gunicorn.workers.async as base\n",
       {{"AF201", 1, 8, 30, FixKind::Safe}},
       "import gunicorn.workers.base_async as base\n"},
      {"from gunicorn.workers import async\nclass W(async.AsyncWorker):\n    pass\n",
       {{"AF201", 1, 30, 35, FixKind::Safe}, {"AF201", 2, 9, 14, FixKind::Safe}},
       "from gunicorn.workers import base_async\nclass W(base_async.AsyncWorker):\n    pass\n"},
      {"from pymodbus.client.async.tcp import AsyncModbusTCPClient\n",
       {{"AF201", 1, 6, 27, FixKind::Safe, "pymodbus 2.2.0 renamed it `pymodbus.client.asynchronous`"}},
       "from pymodbus.client.asynchronous.tcp import AsyncModbusTCPClient\n"},
      // `from kombu import async`: the import and every use of the name, one rename.
      {"from kombu import async\n\nhub = async.Hub()\nloop = async.get_event_loop()\n",
       {{"AF201", 1, 19, 24, FixKind::Safe}, {"AF201", 3, 7, 12, FixKind::Safe}, {"AF201", 4, 8, 13, FixKind::Safe}},
       "from kombu import asynchronous\n\nhub = asynchronous.Hub()\nloop = asynchronous.get_event_loop()\n"},
      {"from kombu import async as kasync\nhub = kasync.Hub()\n",
       {{"AF201", 1, 19, 24, FixKind::Safe}},
       "from kombu import asynchronous as kasync\nhub = kasync.Hub()\n"},
      {"from pexpect import async\n", {{"AF201", 1, 21, 26, FixKind::Safe}}, "from pexpect import _async\n"},
      // The compat import of the old name in an `except ImportError:` branch.
      {"try:\n    from kombu.asynchronous import Hub\nexcept ImportError:\n    from kombu.async import Hub\n",
       {{"AF201", 4, 10, 21, FixKind::Safe}},
       "try:\n    from kombu.asynchronous import Hub\nexcept ImportError:\n    from kombu.asynchronous import Hub\n"},
  };
  runRuleTests("AF201", {}, invalid);
}

TEST_CASE("AF201 renamed-async-module: attribute paths resolve through the imports", "[rules][AF201]") {
  const std::vector<Invalid> invalid = {
      {"import kombu\nhub = kombu.async.Hub()\n",
       {{"AF201", 2, 7, 18, FixKind::Safe}},
       "import kombu\nhub = kombu.asynchronous.Hub()\n"},
      {"import kombu as k\nhub = k.async.Hub()\n",
       {{"AF201", 2, 7, 14, FixKind::Safe}},
       "import kombu as k\nhub = k.asynchronous.Hub()\n"},
      {"import kombu.async\nhub = kombu.async.Hub()\n",
       {{"AF201", 1, 8, 19}, {"AF201", 2, 7, 18}},
       "import kombu.asynchronous\nhub = kombu.asynchronous.Hub()\n"},
      {"import gunicorn.workers\nbase = gunicorn.workers.async.AsyncWorker\n",
       {{"AF201", 2, 8, 30, FixKind::Safe}},
       "import gunicorn.workers\nbase = gunicorn.workers.base_async.AsyncWorker\n"},
      {"import celery.backends\nmixin = celery.backends.async.AsyncBackendMixin\n",
       {{"AF201", 2, 9, 30, FixKind::Safe}},
       "import celery.backends\nmixin = celery.backends.asynchronous.AsyncBackendMixin\n"},
      {"from celery import backends\nmixin = backends.async.AsyncBackendMixin\n",
       {{"AF201", 2, 9, 23, FixKind::Safe}},
       "from celery import backends\nmixin = backends.asynchronous.AsyncBackendMixin\n"},
      // Scope-aware: the import inside the function is what `kombu` means there.
      {"def f():\n    import kombu\n    return kombu.async.Hub\n",
       {{"AF201", 3, 12, 23, FixKind::Safe}},
       "def f():\n    import kombu\n    return kombu.asynchronous.Hub\n"},
      // Split over lines.
      {"import kombu\nhub = (kombu\n       .async\n       .Hub())\n",
       {{"AF201", 2, 8, 14, FixKind::Safe}},
       "import kombu\nhub = (kombu\n       .asynchronous\n       .Hub())\n"},
      // Not imported in the file (a star import, a missing import): flagged, the fix is unsafe.
      {"hub = kombu.async.Hub()\n",
       {{"AF201", 1, 7, 18, FixKind::Unsafe, "not imported in this file"}},
       "hub = kombu.asynchronous.Hub()\n",
       "hub = kombu.async.Hub()\n"},
  };
  runRuleTests("AF201", {}, invalid);
}

TEST_CASE("AF201 severity follows the target version", "[rules][AF201]") {
  asyncfix::Config py36;
  py36.target = {3, 6};
  runRuleTests("AF201", {},
               {{"import kombu.async\n",
                 {{"AF201", 1, 8, 19, FixKind::Safe, "becomes a syntax error in Python 3.7"}},
                 "import kombu.asynchronous\n"}},
               py36);
}

TEST_CASE("AF201-AF203 take precedence over AF001 on the tokens they own", "[rules][AF201][AF001]") {
  asyncfix::Config both;
  both.rules.extendSelect = {"AF2"};
  const std::vector<Invalid> invalid = {
      {"from kombu.async.hub import Hub\n",
       {{"AF201", 1, 6, 17, FixKind::Safe}},
       "from kombu.asynchronous.hub import Hub\n"},
      {"import asyncio\nfrom asyncio import async\nasync(f())\nasyncio.async(f())\n",
       {{"AF202", 2, 21, 26}, {"AF202", 3, 1, 6}, {"AF202", 4, 1, 14}},
       "import asyncio\nfrom asyncio import ensure_future\nensure_future(f())\nasyncio.ensure_future(f())\n"},
      // AF001's rename of every `x.async` attribute leaves `asyncio.async` to AF202.
      {"import asyncio\nclass W:\n    async = False\nw = W()\nw.async = True\nasyncio.async(f())\n",
       {{"AF001", 3, 5, 10, FixKind::Unsafe}, {"AF001", 5, 3, 8, FixKind::Unsafe}, {"AF202", 6, 1, 14, FixKind::Safe}},
       "import asyncio\nclass W:\n    async_ = False\nw = W()\nw.async_ = True\nasyncio.ensure_future(f())\n",
       "import asyncio\nclass W:\n    async = False\nw = W()\nw.async = True\nasyncio.ensure_future(f())\n"},
      // Members of AF001's group that are not plain name chains, or span lines.
      {"from xml.dom import minidom\nclass W:\n    async = 0\nminidom.parseString(s).async = 1\n"
       "import kombu\nhub = (kombu  # the loop\n       .async.Hub)\n",
       {{"AF001", 3, 5, 10, FixKind::Unsafe}, {"AF202", 4, 24, 29, FixKind::Safe}, {"AF201", 6, 8, 14, FixKind::Safe}},
       "from xml.dom import minidom\nclass W:\n    async_ = 0\nminidom.parseString(s).async_ = 1\n"
       "import kombu\nhub = (kombu  # the loop\n       .asynchronous.Hub)\n",
       "from xml.dom import minidom\nclass W:\n    async = 0\nminidom.parseString(s).async_ = 1\n"
       "import kombu\nhub = (kombu  # the loop\n       .asynchronous.Hub)\n"},
      // A local function named `expect` is not pexpect's: AF001 renames its parameter and the
      // keyword at its call sites.
      {"import pexpect\ndef expect(p, async=False):\n    return p\nexpect(1, async=True)\n",
       {{"AF001", 2, 15, 20, FixKind::Unsafe}, {"AF001", 4, 11, 16, FixKind::Unsafe}},
       "import pexpect\ndef expect(p, async_=False):\n    return p\nexpect(1, async_=True)\n",
       "import pexpect\ndef expect(p, async=False):\n    return p\nexpect(1, async=True)\n"},
      {"import pexpect\nchild = pexpect.spawn('sh')\nchild.expect('$', async=True)\nchild.async = 1\n",
       {{"AF203", 3, 19, 24, FixKind::Safe}, {"AF001", 4, 7, 12, FixKind::Unsafe}},
       "import pexpect\nchild = pexpect.spawn('sh')\nchild.expect('$', async_=True)\nchild.async_ = 1\n",
       "import pexpect\nchild = pexpect.spawn('sh')\nchild.expect('$', async_=True)\nchild.async = 1\n"},
  };
  runRuleTests("AF001", {}, invalid, both);
}

namespace {

/// The Config the CLI's project view gives a file of package `pkg` when `pkg/async.py` is renamed.
Config projectConfig(std::optional<std::string> package, bool uncertain = false) {
  Config config;
  RenameRow row;
  row.kind = RenameRow::Kind::Module;
  row.library = "this project";
  row.old = "pkg.async";
  row.replacement = "pkg.asynchronous";
  row.files = {{"pkg/async.py", "pkg/asynchronous.py"}};
  row.uncertain = uncertain;
  config.renames = {row};
  config.package = std::move(package);
  return config;
}

} // namespace

TEST_CASE("AF201: the project's own module, absolute and relative imports", "[rules][AF201][project]") {
  const std::vector<std::string> valid = {
      "from pkg.asynchronous import helper\n",
      // `..` from `pkg` is the top level: another module `async`, not the project's.
      "from ..async import helper\n",
      "x = 'pkg.async.helper'\n",
  };
  const std::vector<Invalid> invalid = {
      {"from .async import helper\n",
       {{"AF201", 1, 7, 12, FixKind::Safe, "rename the project's module to `pkg.asynchronous`"}},
       "from .asynchronous import helper\n"},
      {"from . import async\nasync.helper()\n",
       {{"AF201", 1, 15, 20, FixKind::Safe}, {"AF201", 2, 1, 6, FixKind::Safe}},
       "from . import asynchronous\nasynchronous.helper()\n"},
      {"from .async.sub import x\n", {{"AF201", 1, 7, 12, FixKind::Safe}}, "from .asynchronous.sub import x\n"},
      {"import pkg.async\n", {{"AF201", 1, 8, 17, FixKind::Safe}}, "import pkg.asynchronous\n"},
      {"import pkg.async as a\n", {{"AF201", 1, 8, 17, FixKind::Safe}}, "import pkg.asynchronous as a\n"},
      {"from pkg.async import x\n", {{"AF201", 1, 6, 15, FixKind::Safe}}, "from pkg.asynchronous import x\n"},
      {"from pkg import async\nasync.x\n",
       {{"AF201", 1, 17, 22, FixKind::Safe}, {"AF201", 2, 1, 6, FixKind::Safe}},
       "from pkg import asynchronous\nasynchronous.x\n"},
      {"import pkg\npkg.async.f()\n", {{"AF201", 2, 1, 10, FixKind::Safe}}, "import pkg\npkg.asynchronous.f()\n"},
  };
  runRuleTests("AF201", valid, invalid, projectConfig("pkg"));
}

TEST_CASE("AF201: a project module's fixes carry its rename; unsafe in a namespace package",
          "[rules][AF201][project]") {
  const std::vector<Diagnostic> safe = Linter(projectConfig("pkg")).lint(std::string_view("from .async import h\n"));
  REQUIRE(safe.size() == 1);
  REQUIRE(safe[0].fix);
  CHECK(safe[0].fix->applicability == Applicability::Safe);
  CHECK(safe[0].fix->renames == std::vector<FileRename>{{"pkg/async.py", "pkg/asynchronous.py"}});

  const std::vector<Diagnostic> unsafe =
      Linter(projectConfig("pkg", true)).lint(std::string_view("from .async import h\n"));
  REQUIRE(unsafe.size() == 1);
  REQUIRE(unsafe[0].fix);
  CHECK(unsafe[0].fix->applicability == Applicability::Unsafe);

  // A library row's fix renames no file (its output stays as it was).
  const std::vector<Diagnostic> library = Linter().lint(std::string_view("import kombu.async\n"));
  REQUIRE(library.size() == 1);
  CHECK(library[0].fix->renames.empty());
}

TEST_CASE("AF201: a top-level module of the project, with the name `import async` binds", "[rules][AF201][project]") {
  Config config;
  RenameRow row;
  row.kind = RenameRow::Kind::Module;
  row.library = "this project";
  row.old = "async";
  row.replacement = "asynchronous";
  row.files = {{"async.py", "asynchronous.py"}};
  config.renames = {row};
  config.package = "";
  const std::vector<Invalid> invalid = {
      {"import async\nasync.f()\n",
       {{"AF201", 1, 8, 13, FixKind::Safe}, {"AF201", 2, 1, 6, FixKind::Safe}},
       "import asynchronous\nasynchronous.f()\n"},
  };
  runRuleTests("AF201", {}, invalid, config);
}

TEST_CASE("AF201: without the project's package, relative imports stay AF001's", "[rules][AF201][project]") {
  // A single file linted alone (an editor, the library): the package is unknown.
  const std::vector<Diagnostic> alone =
      Linter(projectConfig(std::nullopt)).lint(std::string_view("from .async import h\n"));
  REQUIRE(alone.size() == 1);
  CHECK(alone[0].code == "AF001");
  CHECK_FALSE(alone[0].fix);
}

TEST_CASE("AF201: a path with two keyword components is one finding", "[rules][AF201]") {
  Config config;
  RenameRow row;
  row.kind = RenameRow::Kind::Module;
  row.library = "mylib";
  row.old = "mylib.async.await";
  row.replacement = "mylib.aio.waiting";
  config.renames.push_back(row);
  const std::vector<Invalid> invalid = {
      {"import mylib.async.await\n", {{"AF201", 1, 8, 25, FixKind::Safe}}, "import mylib.aio.waiting\n"},
      {"from mylib.async.await import x\n", {{"AF201", 1, 6, 23, FixKind::Safe}}, "from mylib.aio.waiting import x\n"},
  };
  runRuleTests("AF201", {}, invalid, config);
}
