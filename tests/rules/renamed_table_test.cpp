// The renames table behind AF201–AF203: the built-in rows, path patterns, the user's rows from
// `[tool.asyncfix.renames]` (parsing, errors naming file:line:key) and rules driven by them.
#include <catch2/catch.hpp>

#include "asyncfix/linter.h"
#include "asyncfix/rules.h"
#include "asyncfix/settings.h"
#include "config/rename_table.h"
#include "rules/rule_tester.h"

using namespace asyncfix;
using namespace asyncfix::testing;
using Kind = RenameRow::Kind;

TEST_CASE("renames table: every built-in row is well-formed and documented", "[renames]") {
  REQUIRE(rules::builtinRenames().size() >= 15);
  for (const RenameRow &r : rules::builtinRenames()) {
    INFO(r.library << " " << r.owner << " " << r.old << " -> " << r.replacement);
    CHECK_FALSE(rules::validateRenameRow(r).has_value());
    CHECK_FALSE(r.library.empty());
    CHECK_FALSE(r.since.empty());
    CHECK(r.source.starts_with("https://"));
    // The rule's documentation lists the row.
    const RuleInfo *rule = findRule(rules::renameRuleCode(r.kind));
    REQUIRE(rule);
    const std::string_view shown = r.kind == Kind::Keyword     ? r.replacement
                                   : r.kind == Kind::Attribute ? r.owner
                                                               : r.old;
    std::string needle(shown.substr(0, shown.find(".*"))); // "xml.dom.minidom.**" → "xml.dom.minidom"
    CHECK(rule->doc.find(needle) != std::string_view::npos);
    CHECK(rule->doc.find(r.since) != std::string_view::npos);
  }
  // The rows the issue asks for.
  const auto has = [](Kind kind, std::string_view owner, std::string_view old, std::string_view replacement) {
    const auto rows = rules::builtinRenames();
    return std::any_of(rows.begin(), rows.end(), [&](const RenameRow &r) {
      return r.kind == kind && r.owner == owner && r.old == old && r.replacement == replacement;
    });
  };
  CHECK(has(Kind::Function, "", "asyncio.async", "asyncio.ensure_future"));
  CHECK(has(Kind::Module, "", "kombu.async", "kombu.asynchronous"));
  CHECK(has(Kind::Module, "", "celery.backends.async", "celery.backends.asynchronous"));
  CHECK(has(Kind::Module, "", "salt.utils.async", "salt.utils.asynchronous"));
  CHECK(has(Kind::Module, "", "pexpect.async", "pexpect._async"));
  CHECK(has(Kind::Keyword, "pexpect.**.expect", "async", "async_"));
  CHECK(has(Kind::Keyword, "pexpect.**.expect_exact", "async", "async_"));
  CHECK(has(Kind::Keyword, "pexpect.**.expect_list", "async", "async_"));
  CHECK(has(Kind::Keyword, "kafka.**.SimpleProducer", "async", "async_send"));
  CHECK(has(Kind::Keyword, "confluent_kafka.**.commit", "async", "asynchronous"));
  CHECK(has(Kind::Attribute, "xml.dom.xmlbuilder.DocumentLS", "async", "async_"));
  // Renames found in real 2016–18 code (issue 15).
  CHECK(has(Kind::Module, "", "gunicorn.workers.async", "gunicorn.workers.base_async"));
  CHECK(has(Kind::Module, "", "pymodbus.client.async", "pymodbus.client.asynchronous"));
  CHECK(has(Kind::Function, "", "django_q.tasks.async", "django_q.tasks.async_task"));
  CHECK(has(Kind::Keyword, "rq.**.Queue", "async", "is_async"));
  CHECK(has(Kind::Keyword, "django_rq.**.get_queue", "async", "is_async"));
  CHECK(has(Kind::Keyword, "flask_rq2.**.RQ", "async", "is_async"));
}

TEST_CASE("renames table: path patterns", "[renames]") {
  CHECK(rules::renamePathMatches("pexpect.**.expect", "pexpect.spawn.expect"));
  CHECK(rules::renamePathMatches("pexpect.**.expect", "pexpect.pxssh.pxssh.expect"));
  CHECK(rules::renamePathMatches("pexpect.**.expect", "pexpect.expect"));
  CHECK_FALSE(rules::renamePathMatches("pexpect.**.expect", "pexpect.spawn.expect_exact"));
  CHECK_FALSE(rules::renamePathMatches("pexpect.**.expect", "other.spawn.expect"));
  CHECK(rules::renamePathMatches("a.*.c", "a.b.c"));
  CHECK_FALSE(rules::renamePathMatches("a.*.c", "a.c"));
  CHECK_FALSE(rules::renamePathMatches("a.*.c", "a.b.b.c"));
  CHECK(rules::renamePathMatches("psycopg2.connect", "psycopg2.connect"));
  CHECK_FALSE(rules::renamePathMatches("psycopg2.connect", "psycopg2.connect.x"));
  CHECK(rules::renamePathMatches("xml.dom.minidom.**", "xml.dom.minidom.parseString"));
}

TEST_CASE("renames table: user rows are validated", "[renames]") {
  const auto problem = [](const RenameRow &r) {
    const auto p = rules::validateRenameRow(r);
    return p ? p->field : std::string();
  };
  CHECK(problem({Kind::Module, "m", "", "mylib.async", "mylib.aio", "", ""}).empty());
  CHECK(problem({Kind::Module, "m", "", "async", "aio", "", ""}).empty()); // a top-level module
  CHECK(problem({Kind::Function, "m", "", "mylib.await", "mylib.wait_for", "", ""}).empty());
  CHECK(problem({Kind::Module, "m", "", "mylib.asyncio", "mylib.aio", "", ""}) == "old"); // nothing reserved
  CHECK(problem({Kind::Module, "m", "", "mylib..async", "mylib.aio", "", ""}) == "old");
  CHECK(problem({Kind::Module, "m", "", "mylib.async", "mylib.async", "", ""}) == "new");
  CHECK(problem({Kind::Module, "m", "", "mylib.async", "mylib.import", "", ""}) == "new");
  CHECK(problem({Kind::Keyword, "m", "mylib.**.send", "async", "async_", "", ""}).empty());
  CHECK(problem({Kind::Keyword, "m", "mylib.send", "sync", "async_", "", ""}) == "old");
  CHECK(problem({Kind::Keyword, "m", "mylib.send", "async", "2fast", "", ""}) == "new");
  CHECK(problem({Kind::Keyword, "m", "**.send", "async", "async_", "", ""}) == "callable");
  CHECK(problem({Kind::Keyword, "m", "mylib.**", "async", "async_", "", ""}) == "callable");
  CHECK(problem({Kind::Keyword, "m", "", "async", "async_", "", ""}) == "callable");
  CHECK(problem({Kind::Attribute, "m", "mylib.Job", "async", "is_async", "", ""}).empty());
  CHECK(problem({Kind::Attribute, "m", "mylib.**", "async", "is_async", "", ""}).empty());
  // AF310's rows: any dotted paths of two components or more, no `async` needed.
  CHECK(problem({Kind::Api, "m", "", "mylib.old_fn", "mylib.new_fn", "", ""}).empty());
  CHECK(problem({Kind::Api, "m", "", "old_fn", "mylib.new_fn", "", ""}) == "old");
  CHECK(problem({Kind::Api, "m", "", "mylib.old-fn", "mylib.new_fn", "", ""}) == "old");
  CHECK(problem({Kind::Api, "m", "", "mylib.old_fn", "mylib.class", "", ""}) == "new");
}

namespace {

ResolvedConfig parsedOk(const std::string &name, const std::string &text) {
  auto r = parseConfigFile(name, text);
  REQUIRE(r);
  if (auto *e = std::get_if<ConfigError>(&*r)) FAIL(e->toString());
  return std::get<ResolvedConfig>(*r);
}

ConfigError parsedError(const std::string &name, const std::string &text) {
  auto r = parseConfigFile(name, text);
  REQUIRE(r);
  REQUIRE(std::holds_alternative<ConfigError>(*r));
  return std::get<ConfigError>(*r);
}

} // namespace

TEST_CASE("config files: [tool.asyncfix.renames] adds rows", "[renames][settings]") {
  const ResolvedConfig c = parsedOk("pyproject.toml", R"([tool.asyncfix]
select = ["ALL"]

[[tool.asyncfix.renames.module]]
old = "mylib.async"
new = "mylib.aio"
since = "2.0"
source = "https://example.org/mylib/changelog#2.0"

[[tool.asyncfix.renames.module]]
old = "other.async"
new = "other.asynchronous"
library = "Other Lib"

[tool.asyncfix.renames]
function = [{ old = "mylib.util.async", new = "mylib.util.run_async" }]
keyword = [{ callable = "mylib.**.submit", old = "async", new = "async_" }]
attribute = [{ owner = "mylib.Job", old = "async", new = "is_async" }]
api = [{ old = "mylib.models.build_net", new = "mylib.models.make_net" },
       { old = "mylib.ops.old_solve", message = "use `mylib.ops.solve(A, B)`" }]
)");
  REQUIRE(c.config.renames.size() == 7);
  const RenameRow &removal = *std::find_if(c.config.renames.begin(), c.config.renames.end(), [](const RenameRow &r) {
    return !r.message.empty(); // an api row with `message`: AF316's
  });
  CHECK(removal.kind == Kind::Api);
  CHECK(removal.old == "mylib.ops.old_solve");
  CHECK(removal.replacement.empty());
  CHECK(removal.message == "use `mylib.ops.solve(A, B)`");
  const auto find = [&](Kind kind) {
    return *std::find_if(c.config.renames.begin(), c.config.renames.end(),
                         [&](const RenameRow &r) { return r.kind == kind; });
  };
  const auto module = std::find_if(c.config.renames.begin(), c.config.renames.end(),
                                   [](const RenameRow &r) { return r.kind == Kind::Module; });
  REQUIRE(std::distance(module, c.config.renames.end()) >= 2); // the two module rows, in file order
  CHECK(module[0] == RenameRow{Kind::Module, "mylib", "", "mylib.async", "mylib.aio", "2.0",
                               "https://example.org/mylib/changelog#2.0"});
  CHECK(module[1].library == "Other Lib");
  CHECK(find(Kind::Function).replacement == "mylib.util.run_async");
  CHECK(find(Kind::Keyword).owner == "mylib.**.submit");
  CHECK(find(Kind::Keyword).library == "mylib");
  CHECK(find(Kind::Attribute).owner == "mylib.Job");
  CHECK(std::count_if(c.config.renames.begin(), c.config.renames.end(), [](const RenameRow &r) {
          return r.kind == Kind::Api && r.replacement == "mylib.models.make_net";
        }) == 1);
  CHECK(removal.library == "mylib");
  CHECK(c.origins.at("renames") == "pyproject.toml");
  // asyncfix.toml: the same keys at the top level.
  const ResolvedConfig top =
      parsedOk("asyncfix.toml", "[renames]\nmodule = [{ old = \"a.async\", new = \"a.aio\" }]\n");
  REQUIRE(top.config.renames.size() == 1);
  CHECK(top.config.renames[0].old == "a.async");
  CHECK(parsedOk("asyncfix.toml", "select = [\"ALL\"]\n").config.renames.empty());
}

TEST_CASE("config files: errors in [tool.asyncfix.renames] name file, line and key", "[renames][settings]") {
  struct Case {
    std::string text;
    unsigned line;
    std::string contains;
  };
  const std::vector<Case> cases = {
      {"renames = 1\n", 1, "`renames` must be a table"},
      {"[renames]\nmodules = []\n", 2, "unknown key `renames.modules`"},
      {"[renames]\nmodule = { old = \"a.async\", new = \"a.aio\" }\n", 2,
       "`renames.module` must be an array of tables"},
      {"[renames]\nmodule = [\"a.async\"]\n", 2, "`renames.module[0]` must be a table"},
      {"[renames]\nmodule = [\n  { old = \"a.async\", new = \"a.aio\" },\n  { old = \"b.async\", neu = \"b.aio\" "
       "},\n]\n",
       4, "unknown key `renames.module[1].neu`"},
      {"[[renames.module]]\nold = \"a.async\"\n", 1, "`renames.module[0]` needs `new`"},
      {"[[renames.module]]\nold = \"a.async\"\nnew = 3\n", 3, "`renames.module[0].new` must be a string"},
      {"[[renames.module]]\nold = \"a.sync\"\nnew = \"a.aio\"\n", 2,
       "`renames.module[0].old` must have a component `async`"},
      {"[[renames.function]]\nold = \"a.async\"\nnew = \"a.lambda\"\n", 3,
       "`renames.function[0].new` must not contain a Python keyword"},
      {"[[renames.keyword]]\nold = \"async\"\nnew = \"async_\"\n", 1, "`renames.keyword[0]` needs `callable`"},
      {"[[renames.api]]\nold = \"Scale\"\nnew = \"a.Resize\"\n", 2, "`renames.api[0].old` must be a dotted path"},
      {"[[renames.api]]\nold = \"a.old\"\nnew = \"a.new\"\nmessage = \"gone\"\n", 4, "has `new` and `message`"},
      {"[[renames.api]]\nold = \"a.old\"\n", 1, "`renames.api[0]` needs `new`"},
      {"[[renames.api]]\nold = \"a-b.old\"\nmessage = \"gone\"\n", 2, "`renames.api[0].old` must be a dotted path"},
      {"[[renames.module]]\nold = \"a.async\"\nnew = \"a.aio\"\nmessage = \"x\"\n", 4,
       "unknown key `renames.module[0].message`"},
      {"[[renames.keyword]]\ncallable = \"*.send\"\nold = \"async\"\nnew = \"async_\"\n", 2,
       "`renames.keyword[0].callable` must start with the package name"},
      {"[[renames.keyword]]\ncallable = \"m.send\"\nold = \"async\"\nnew = \"async_\"\nowner = \"m\"\n", 5,
       "unknown key `renames.keyword[0].owner`"},
      {"[[renames.attribute]]\nowner = \"m.Job\"\nold = \"asynchronous\"\nnew = \"x\"\n", 3,
       "`renames.attribute[0].old` must be \"async\" or \"await\""},
  };
  for (const Case &c : cases) {
    INFO(c.text);
    const ConfigError e = parsedError("asyncfix.toml", c.text);
    CHECK(e.file == "asyncfix.toml");
    CHECK(e.line == c.line);
    CHECK(e.column >= 1);
    CHECK(e.message.find(c.contains) != std::string::npos);
    CHECK(e.toString().starts_with("asyncfix.toml:" + std::to_string(c.line) + ":"));
  }
  const ConfigError e = parsedError(
      "pyproject.toml", "[tool.asyncfix]\n\n[[tool.asyncfix.renames.module]]\nold = \"m.async\"\nnew = \"m.await\"\n");
  CHECK(e.line == 5);
  CHECK(e.message.find("`renames.module[0].new`") != std::string::npos);
}

TEST_CASE("user rows drive AF201-AF203", "[renames][rules]") {
  Config config;
  config.renames = {
      {Kind::Module, "mylib", "", "mylib.async", "mylib.aio", "2.0", ""},
      {Kind::Module, "foo", "", "foo.async", "bar.aio", "", ""},
      {Kind::Module, "kombu fork", "", "kombu.async", "kombu.aio", "", ""}, // wins over the built-in row
      {Kind::Function, "mylib", "", "mylib.util.async", "mylib.util.run_async", "", ""},
      {Kind::Function, "mylib", "", "mylib.await", "mylib.wait_for", "", ""},
      {Kind::Keyword, "mylib", "mylib.**.submit", "async", "background", "", ""},
      {Kind::Attribute, "mylib", "mylib.Job", "async", "is_async", "", ""},
  };
  runRuleTests(
      "AF201", {"import mylib.aio\n"},
      {
          {"import mylib.async\n",
           {{"AF201", 1, 8, 19, FixKind::Safe, "mylib 2.0 renamed it `mylib.aio`"}},
           "import mylib.aio\n"},
          {"from mylib.async.x import y\n", {{"AF201", 1, 6, 17, FixKind::Safe}}, "from mylib.aio.x import y\n"},
          // Another package: `import foo.async` would then bind `bar`, not `foo`.
          {"import foo.async\n",
           {{"AF201", 1, 8, 17, FixKind::Unsafe, "binds `bar`"}},
           "import bar.aio\n",
           "import foo.async\n"},
          {"import foo.async as fa\n", {{"AF201", 1, 8, 17, FixKind::Safe}}, "import bar.aio as fa\n"},
          // A from-import of the module itself from another package: the statement moves.
          {"from foo import async\nasync.run()\n",
           {{"AF201", 1, 17, 22}, {"AF201", 2, 1, 6}},
           "from bar import aio\naio.run()\n"},
          {"import kombu.async\n", {{"AF201", 1, 8, 19, FixKind::Safe, "kombu.aio"}}, "import kombu.aio\n"},
      },
      config);
  runRuleTests(
      "AF202", {},
      {
          {"from mylib import util\nutil.async(f)\n",
           {{"AF202", 2, 1, 11, FixKind::Safe}},
           "from mylib import util\nutil.run_async(f)\n"},
          {"import mylib\nmylib.await(x)\n", {{"AF202", 2, 1, 12, FixKind::Safe}}, "import mylib\nmylib.wait_for(x)\n"},
          // `await(x)` outside a coroutine is the name `await`, imported from mylib.
          {"from mylib import await\nawait(x)\n",
           {{"AF202", 1, 19, 24}, {"AF202", 2, 1, 6}},
           "from mylib import wait_for\nwait_for(x)\n"},
          {"from mylib import Job\njob = Job()\njob.async = True\n",
           {{"AF202", 3, 5, 10, FixKind::Safe}},
           "from mylib import Job\njob = Job()\njob.is_async = True\n"},
      },
      config);
  // With AF002 on as well: the `await` tokens the table owns are AF202's alone.
  Config withAwait = config;
  withAwait.rules.extendSelect = {"AF202"};
  runRuleTests("AF002", {},
               {{"from mylib import await\nawait(x)\nmylib_await = await\n",
                 {{"AF202", 1, 19, 24}, {"AF202", 2, 1, 6}, {"AF202", 3, 15, 20}},
                 "from mylib import wait_for\nwait_for(x)\nmylib_await = wait_for\n"}},
               withAwait);
  runRuleTests("AF203", {"import mylib\nmylib.send(async=True)\n"},
               {
                   {"import mylib\nc = mylib.Client()\nc.submit(job, async=True)\n",
                    {{"AF203", 3, 15, 20, FixKind::Safe}},
                    "import mylib\nc = mylib.Client()\nc.submit(job, background=True)\n"},
               },
               config);
}
