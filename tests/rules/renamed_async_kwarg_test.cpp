#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix;
using namespace asyncfix::testing;

TEST_CASE("AF203 renamed-async-kwarg: valid code is left alone", "[rules][AF203]") {
  const std::vector<std::string> valid = {
      "import pexpect\nc = pexpect.spawn('x')\nc.expect('a', async_=True)\n",
      "from kafka import SimpleProducer\np = SimpleProducer(c, async_send=True)\n",
      "import pexpect\ns = \"c.expect('a', async=True)\"\n# c.expect('a', async=True)\n",
      // A local function named `expect`, with or without pexpect imported: AF001's.
      "def expect(p, async=False):\n    pass\nexpect(1, async=True)\n",
      "import pexpect\ndef expect(p, async=False):\n    pass\nexpect(1, async=True)\n",
      // NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one snippet over two lines
      "import pexpect\nclass Matcher:\n    def expect(self, p, async=False):\n        pass\nMatcher().expect(1, "
      "async=True)\n",
      // The callee resolves to something else.
      "import requests\nrequests.get(u, async=True)\n",
      "import pexpect\nimport other\nc = other.spawn()\nc.expect(1, async=True)\n",
      "import pexpect\nclass Shell:\n    pass\nShell().expect(1, async=True)\n",
      // Unresolved, and the library is not imported: AF001's.
      "child.expect('x', async=True)\n",
      "def f(child):\n    return child.commit(async=False)\n",
      // PyTorch's is AF101's.
      "import pexpect\nx.cuda(async=True)\n",
      "import pexpect\nc = pexpect.spawn('x')\nc.expect(pattern, **{'async': True})\n",
  };
  runRuleTests("AF203", valid, {});
}

TEST_CASE("AF203 renamed-async-kwarg: callees resolved through the imports", "[rules][AF203]") {
  const std::vector<Invalid> invalid = {
      {"import pexpect\nchild = pexpect.spawn('ssh h')\nchild.expect('$ ', async=True)\n",
       {{"AF203", 3, 20, 25, FixKind::Safe, "pexpect 4.4 renamed `expect(async=)` to `expect(async_=)`"}},
       "import pexpect\nchild = pexpect.spawn('ssh h')\nchild.expect('$ ', async_=True)\n"},
      {"import pexpect\nchild = pexpect.spawn('ssh h')\nchild.expect_exact(['$ '], timeout=3, async=True)\n",
       {{"AF203", 3, 39, 44, FixKind::Safe}},
       "import pexpect\nchild = pexpect.spawn('ssh h')\nchild.expect_exact(['$ '], timeout=3, async_=True)\n"},
      {"import pexpect\nwith pexpect.spawn('sh') as child:\n    child.expect_list([p], async=True)\n",
       {{"AF203", 3, 28, 33, FixKind::Safe}},
       "import pexpect\nwith pexpect.spawn('sh') as child:\n    child.expect_list([p], async_=True)\n"},
      {"import pexpect\nclass Shell:\n    def __init__(self):\n        self.child = pexpect.spawn('sh')\n\n"
       "    def wait(self):\n        return self.child.expect('$', async=True)\n",
       {{"AF203", 7, 39, 44, FixKind::Safe}},
       "import pexpect\nclass Shell:\n    def __init__(self):\n        self.child = pexpect.spawn('sh')\n\n"
       "    def wait(self):\n        return self.child.expect('$', async_=True)\n"},
      {"from pexpect import pxssh\ns = pxssh.pxssh()\ns.expect('x', async=True)\n",
       {{"AF203", 3, 15, 20, FixKind::Safe}},
       "from pexpect import pxssh\ns = pxssh.pxssh()\ns.expect('x', async_=True)\n"},
      {"import pexpect\npexpect.spawn('x').expect('y', async=True)\n",
       {{"AF203", 2, 32, 37, FixKind::Safe}},
       "import pexpect\npexpect.spawn('x').expect('y', async_=True)\n"},
      // Bound at module level, used in a function.
      {"import pexpect\nchild = pexpect.spawn('x')\ndef f():\n    return child.expect('y', async=True)\n",
       {{"AF203", 4, 30, 35, FixKind::Safe}},
       "import pexpect\nchild = pexpect.spawn('x')\ndef f():\n    return child.expect('y', async_=True)\n"},
      {"from kafka import SimpleProducer\nproducer = SimpleProducer(client, async=True, batch_send_every_n=20)\n",
       {{"AF203", 2, 35, 40, FixKind::Safe, "kafka-python 1.4.3"}},
       "from kafka import SimpleProducer\nproducer = SimpleProducer(client, async_send=True, batch_send_every_n=20)\n"},
      {"from kafka.producer import KeyedProducer\np = KeyedProducer(c, async=False)\n",
       {{"AF203", 2, 22, 27, FixKind::Safe}},
       "from kafka.producer import KeyedProducer\np = KeyedProducer(c, async_send=False)\n"},
      {"import kafka\np = kafka.SimpleProducer(c, async=True)\n",
       {{"AF203", 2, 29, 34, FixKind::Safe}},
       "import kafka\np = kafka.SimpleProducer(c, async_send=True)\n"},
      {"from confluent_kafka import Consumer\nc = Consumer(conf)\nc.commit(async=False)\n",
       {{"AF203", 3, 10, 15, FixKind::Safe, "asynchronous"}},
       "from confluent_kafka import Consumer\nc = Consumer(conf)\nc.commit(asynchronous=False)\n"},
      {"import psycopg2\nconn = psycopg2.connect(dsn, async=True)\n",
       {{"AF203", 2, 30, 35, FixKind::Safe}},
       "import psycopg2\nconn = psycopg2.connect(dsn, async_=True)\n"},
      // RQ, django-rq and Flask-RQ2 (issue 15: renames found in projects' changelogs).
      {"from rq import Queue\nq = Queue(connection=redis, async=False)\n",
       {{"AF203", 2, 29, 34, FixKind::Safe, "rq 0.12.0"}},
       "from rq import Queue\nq = Queue(connection=redis, is_async=False)\n"},
      {"import rq\nq = rq.Queue('low', connection=c, async=False)\n",
       {{"AF203", 2, 35, 40, FixKind::Safe}},
       "import rq\nq = rq.Queue('low', connection=c, is_async=False)\n"},
      {"import django_rq\nq = django_rq.get_queue('default', async=False)\n",
       {{"AF203", 2, 36, 41, FixKind::Safe, "django-rq 1.2.0"}},
       "import django_rq\nq = django_rq.get_queue('default', is_async=False)\n"},
      {"from flask_rq2 import RQ\nrq = RQ(app, async=True)\n",
       {{"AF203", 2, 14, 19, FixKind::Safe, "Flask-RQ2 18.1"}},
       "from flask_rq2 import RQ\nrq = RQ(app, is_async=True)\n"},
      // Over several lines, comments between the arguments: only the keyword changes.
      {"import pexpect\nc = pexpect.spawn('x')\nc.expect(\n    pattern,  # the prompt\n    async=True,  # a "
       "coroutine\n)\n",
       {{"AF203", 5, 5, 10, FixKind::Safe}},
       "import pexpect\nc = pexpect.spawn('x')\nc.expect(\n    pattern,  # the prompt\n    async_=True,  # a "
       "coroutine\n)\n"},
      // Both spellings: the duplicate `async=` goes (unsafe: the values may differ).
      {"import pexpect\nc = pexpect.spawn('x')\nc.expect('a', async=True, async_=False)\n",
       {{"AF203", 3, 15, 20, FixKind::Unsafe, "already passes `async_=`"}},
       "import pexpect\nc = pexpect.spawn('x')\nc.expect('a', async_=False)\n",
       "import pexpect\nc = pexpect.spawn('x')\nc.expect('a', async=True, async_=False)\n"},
  };
  runRuleTests("AF203", {}, invalid);
}

TEST_CASE("AF203 renamed-async-kwarg: unresolved callees get an unsafe fix", "[rules][AF203]") {
  const std::vector<Invalid> invalid = {
      // A parameter: it may hold any object with an `expect`.
      {"import pexpect\ndef run(child):\n    return child.expect('$', async=True)\n",
       {{"AF203", 3, 30, 35, FixKind::Unsafe, "if this `expect` is pexpect's"}},
       "import pexpect\ndef run(child):\n    return child.expect('$', async_=True)\n",
       "import pexpect\ndef run(child):\n    return child.expect('$', async=True)\n"},
      // Bindings that disagree.
      {"import pexpect\nc = pexpect.spawn('x') if a else None\nc = None\nc.expect(1, async=True)\n",
       {{"AF203", 4, 13, 18, FixKind::Unsafe}},
       "import pexpect\nc = pexpect.spawn('x') if a else None\nc = None\nc.expect(1, async_=True)\n",
       "import pexpect\nc = pexpect.spawn('x') if a else None\nc = None\nc.expect(1, async=True)\n"},
      // A star import binds nothing the file can see.
      {"from kafka import *\np = SimpleProducer(c, async=True)\n",
       {{"AF203", 2, 23, 28, FixKind::Unsafe}},
       "from kafka import *\np = SimpleProducer(c, async_send=True)\n",
       "from kafka import *\np = SimpleProducer(c, async=True)\n"},
      {"try:\n    from confluent_kafka import *\nexcept ImportError:\n    pass\nconsumer.commit(async=True)\n",
       {{"AF203", 5, 17, 22, FixKind::Unsafe}},
       "try:\n    from confluent_kafka import *\nexcept ImportError:\n    pass\nconsumer.commit(asynchronous=True)\n",
       "try:\n    from confluent_kafka import *\nexcept ImportError:\n    pass\nconsumer.commit(async=True)\n"},
      // The library spelt out but not imported.
      {"p = kafka.SimpleProducer(c, async=True)\n",
       {{"AF203", 1, 29, 34, FixKind::Unsafe}},
       "p = kafka.SimpleProducer(c, async_send=True)\n",
       "p = kafka.SimpleProducer(c, async=True)\n"},
  };
  runRuleTests("AF203", {}, invalid);
}

TEST_CASE("AF203 severity follows the target version", "[rules][AF203]") {
  asyncfix::Config py36;
  py36.target = {3, 6};
  runRuleTests("AF203", {},
               {{"import psycopg2\npsycopg2.connect(dsn, async=True)\n",
                 {{"AF203", 2, 23, 28, FixKind::Safe, "becomes a syntax error"}},
                 "import psycopg2\npsycopg2.connect(dsn, async_=True)\n"}},
               py36);
}

namespace {

/// The Config the CLI's project view gives a file that calls the project's `pkg.kfac.Kfac` (and
/// its method `step`), whose parameter `async` it renames `async_`.
Config callerConfig(std::optional<std::string> package, bool uncertain = false) {
  Config config;
  for (const char *owner : {"pkg.kfac.Kfac", "pkg.kfac.Kfac.step"}) {
    RenameRow row;
    row.kind = RenameRow::Kind::Keyword;
    row.library = "this project";
    row.owner = owner;
    row.old = "async";
    row.replacement = "async_";
    row.touches = {"pkg/kfac.py", "train.py"};
    row.uncertain = uncertain;
    config.renames.push_back(row);
  }
  config.package = std::move(package);
  return config;
}

} // namespace

TEST_CASE("AF203: calls of the project's own functions, resolved through the imports", "[rules][AF203][project]") {
  const std::vector<std::string> valid = {
      "from pkg.kfac import Kfac\nopt = Kfac(0.1, async_=True)\n",
      // Another function of that name: the file's own, or another module's.
      "class Kfac:\n    def __init__(self, async=False):\n        pass\nKfac(async=True)\n",
      "from other import Kfac\nKfac(async=True)\n",
      // `..` from the top-level package `pkg` climbs out of the project.
      "from ..kfac import Kfac\nKfac(async=True)\n",
  };
  const std::vector<Invalid> invalid = {
      {"from pkg.kfac import Kfac\nopt = Kfac(0.1, async=True)\n",
       {{"AF203", 2, 17, 22, FixKind::Safe,
         "the project's `pkg.kfac.Kfac` takes it as `async_=` once its parameter in `pkg/kfac.py` is renamed"}},
       "from pkg.kfac import Kfac\nopt = Kfac(0.1, async_=True)\n"},
      {"from .kfac import Kfac\nKfac(1, async=True)\n",
       {{"AF203", 2, 9, 14, FixKind::Safe}},
       "from .kfac import Kfac\nKfac(1, async_=True)\n"},
      {"from . import kfac\nkfac.Kfac(1, async=True)\n",
       {{"AF203", 2, 14, 19, FixKind::Safe}},
       "from . import kfac\nkfac.Kfac(1, async_=True)\n"},
      {"import pkg.kfac as k\nk.Kfac(1, async=True)\n",
       {{"AF203", 2, 11, 16, FixKind::Safe}},
       "import pkg.kfac as k\nk.Kfac(1, async_=True)\n"},
      // A method of an instance the file made.
      {"from pkg.kfac import Kfac\nopt = Kfac(1)\nopt.step(async=True)\n",
       {{"AF203", 3, 10, 15, FixKind::Safe, "with the parameter of `pkg.kfac.Kfac.step` in `pkg/kfac.py`"}},
       "from pkg.kfac import Kfac\nopt = Kfac(1)\nopt.step(async_=True)\n"},
  };
  runRuleTests("AF203", valid, invalid, callerConfig("pkg"));
  // A use elsewhere in the project does not resolve: unsafe.
  runRuleTests("AF203", {},
               {{"from pkg.kfac import Kfac\nKfac(1, async=True)\n",
                 {{"AF203", 2, 9, 14, FixKind::Unsafe, "may pass it without resolving"}},
                 "from pkg.kfac import Kfac\nKfac(1, async_=True)\n",
                 "from pkg.kfac import Kfac\nKfac(1, async=True)\n"}},
               callerConfig("pkg", true));
  // Without the file's package, a relative import does not resolve: AF001's, as before.
  runRuleTests("AF203", {"from .kfac import Kfac\nKfac(1, async=True)\n"}, {}, callerConfig(std::nullopt));
}
