#include "config/rename_table.h"

#include <algorithm>
#include <array>

namespace asyncfix::rules {

using Kind = RenameRow::Kind;

namespace {

RenameRow makeRow(Kind kind, std::string library, std::string owner, std::string old, std::string replacement,
                  std::string since, std::string source) {
  return {kind,
          std::move(library),
          std::move(owner),
          std::move(old),
          std::move(replacement),
          std::move(since),
          std::move(source)};
}

} // namespace

std::span<const RenameRow> builtinRenames() {
  // Each row: kind, library, owner (keyword/attribute rows), old, new, the release that brought
  // the new name, and where that is documented. Rule docs (renamed_async_*.cpp) list them too.
  static const std::vector<RenameRow> rows{
      // --- modules (AF201) ---
      makeRow(Kind::Module, "kombu", "", "kombu.async", "kombu.asynchronous", "4.2.0",
              "https://github.com/celery/kombu/pull/839"),
      makeRow(Kind::Module, "Celery", "", "celery.backends.async", "celery.backends.asynchronous", "4.3.0",
              "https://github.com/celery/celery/pull/4852"),
      makeRow(Kind::Module, "Salt", "", "salt.utils.async", "salt.utils.asynchronous", "2019.2.0",
              "https://github.com/saltstack/salt/pull/48705"),
      makeRow(Kind::Module, "pexpect", "", "pexpect.async", "pexpect._async", "4.4",
              "https://pexpect.readthedocs.io/en/stable/history.html#version-4-4"),
      makeRow(Kind::Module, "RPyC", "", "rpyc.core.async", "rpyc.core.async_", "4.0.0",
              "https://github.com/tomerfiliba-org/rpyc/issues/253"),
      // The changelog lists it under 19.9.0 (2018-07-03), the release that merged the PR.
      makeRow(Kind::Module, "gunicorn", "", "gunicorn.workers.async", "gunicorn.workers.base_async", "19.9.0",
              "https://github.com/benoitc/gunicorn/pull/1796"),
      makeRow(Kind::Module, "pymodbus", "", "pymodbus.client.async", "pymodbus.client.asynchronous", "2.2.0",
              "https://github.com/pymodbus-dev/pymodbus/blob/dev/CHANGELOG.rst"),
      // --- functions and attributes (AF202) ---
      makeRow(Kind::Function, "Python", "", "asyncio.async", "asyncio.ensure_future", "3.4.4",
              "https://docs.python.org/3.6/library/asyncio-task.html#asyncio.async"),
      makeRow(Kind::Function, "Pyro4", "", "Pyro4.async", "Pyro4.asyncproxy", "4.70",
              "https://pyro4.readthedocs.io/en/stable/changelog.html"),
      makeRow(Kind::Function, "Pyro4", "", "Pyro4.core.async", "Pyro4.core.asyncproxy", "4.70",
              "https://pyro4.readthedocs.io/en/stable/changelog.html"),
      makeRow(Kind::Function, "RPyC", "", "rpyc.async", "rpyc.async_", "4.0.0",
              "https://github.com/tomerfiliba-org/rpyc/issues/253"),
      makeRow(Kind::Function, "RPyC", "", "rpyc.utils.helpers.async", "rpyc.utils.helpers.async_", "4.0.0",
              "https://github.com/tomerfiliba-org/rpyc/issues/253"),
      makeRow(Kind::Function, "django-q", "", "django_q.tasks.async", "django_q.tasks.async_task", "1.0.0",
              "https://github.com/Koed00/django-q/releases/tag/v1.0.0"),
      makeRow(Kind::Attribute, "Python", "xml.dom.xmlbuilder.DocumentLS", "async", "async_", "3.5",
              "https://peps.python.org/pep-0492/#deprecation-plans"),
      // minidom's Document derives from DocumentLS: whatever minidom makes (parse, parseString,
      // Document(), getDOMImplementation().createDocument(…)).
      makeRow(Kind::Attribute, "Python", "xml.dom.minidom.**", "async", "async_", "3.5",
              "https://peps.python.org/pep-0492/#deprecation-plans"),
      // --- keyword arguments (AF203) ---
      makeRow(Kind::Keyword, "pexpect", "pexpect.**.expect", "async", "async_", "4.4",
              "https://pexpect.readthedocs.io/en/stable/history.html#version-4-4"),
      makeRow(Kind::Keyword, "pexpect", "pexpect.**.expect_exact", "async", "async_", "4.4",
              "https://pexpect.readthedocs.io/en/stable/history.html#version-4-4"),
      makeRow(Kind::Keyword, "pexpect", "pexpect.**.expect_list", "async", "async_", "4.4",
              "https://pexpect.readthedocs.io/en/stable/history.html#version-4-4"),
      makeRow(Kind::Keyword, "kafka-python", "kafka.**.SimpleProducer", "async", "async_send", "1.4.3",
              "https://github.com/dpkp/kafka-python/pull/1454"),
      makeRow(Kind::Keyword, "kafka-python", "kafka.**.KeyedProducer", "async", "async_send", "1.4.3",
              "https://github.com/dpkp/kafka-python/pull/1454"),
      makeRow(Kind::Keyword, "confluent-kafka", "confluent_kafka.**.commit", "async", "asynchronous", "0.11.4",
              "https://github.com/confluentinc/confluent-kafka-python/pull/319"),
      makeRow(Kind::Keyword, "psycopg2", "psycopg2.connect", "async", "async_", "2.7",
              "https://www.psycopg.org/docs/module.html#psycopg2.connect"),
      // RQ and its Django and Flask integrations: a queue that runs jobs in the caller.
      makeRow(Kind::Keyword, "rq", "rq.**.Queue", "async", "is_async", "0.12.0", "https://github.com/rq/rq/pull/977"),
      makeRow(Kind::Keyword, "django-rq", "django_rq.**.get_queue", "async", "is_async", "1.2.0",
              "https://github.com/rq/django-rq/pull/297"),
      makeRow(Kind::Keyword, "Flask-RQ2", "flask_rq2.**.RQ", "async", "is_async", "18.1",
              "https://github.com/rq/Flask-RQ2/blob/master/CHANGELOG.rst"),
  };
  return rows;
}

std::string_view renameRuleCode(Kind kind) {
  switch (kind) {
  case Kind::Module: return "AF201";
  case Kind::Function:
  case Kind::Attribute: return "AF202";
  case Kind::Keyword: return "AF203";
  case Kind::Api: return "AF310";
  }
  return "AF201";
}

bool isAsyncOrAwait(std::string_view s) { return s == "async" || s == "await"; }

RenamePath splitRenamePath(std::string_view path) {
  RenamePath out;
  for (std::size_t start = 0;;) {
    const std::size_t dot = path.find('.', start);
    out.push_back(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) return out;
    start = dot + 1;
  }
}

bool renamePathMatches(std::span<const std::string_view> pattern, std::span<const std::string_view> path) {
  if (pattern.empty()) return path.empty();
  if (pattern[0] == "**") {
    for (std::size_t i = 0; i <= path.size(); ++i)
      if (renamePathMatches(pattern.subspan(1), path.subspan(i))) return true;
    return false;
  }
  if (path.empty() || (pattern[0] != "*" && pattern[0] != path[0])) return false;
  return renamePathMatches(pattern.subspan(1), path.subspan(1));
}

bool renamePathMatches(std::string_view pattern, std::string_view path) {
  const RenamePath p = splitRenamePath(pattern), q = splitRenamePath(path);
  return renamePathMatches(p, q);
}

// ---- validation of the user's rows ----

namespace {

constexpr std::array<std::string_view, 35> kPythonKeywords{
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

bool isPythonKeyword(std::string_view s) {
  return std::find(kPythonKeywords.begin(), kPythonKeywords.end(), s) != kPythonKeywords.end();
}

bool isIdentifierText(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

/// A dotted path of identifiers; `wildcards` also allows `*` and `**` components.
bool isDottedPath(std::string_view path, bool wildcards) {
  if (path.empty()) return false;
  for (std::string_view part : splitRenamePath(path))
    if (!isIdentifierText(part) && !(wildcards && (part == "*" || part == "**"))) return false;
  return true;
}

/// A new name: an identifier that compiles everywhere.
bool isUsableName(std::string_view s) { return isIdentifierText(s) && !isPythonKeyword(s); }

} // namespace

std::optional<RenameRowProblem> validateRenameRow(const RenameRow &r) {
  if (r.kind == Kind::Api) {
    if (!isDottedPath(r.old, false) || splitRenamePath(r.old).size() < 2)
      return RenameRowProblem{"old", "must be a dotted path such as \"torchvision.transforms.Scale\""};
    const RenamePath old = splitRenamePath(r.old);
    if (!std::all_of(old.begin(), old.end(), isUsableName))
      return RenameRowProblem{"old", "must not contain a Python keyword"};
    if (r.replacement.empty() && !r.message.empty()) return std::nullopt; // a removal (AF316)
    if (!isDottedPath(r.replacement, false) || splitRenamePath(r.replacement).size() < 2)
      return RenameRowProblem{"new", "must be a dotted path such as \"torchvision.transforms.Resize\""};
    const RenamePath replacement = splitRenamePath(r.replacement);
    if (!std::all_of(replacement.begin(), replacement.end(), isUsableName))
      return RenameRowProblem{"new", "must not contain a Python keyword"};
    return std::nullopt;
  }
  const bool pathRow = r.kind == Kind::Module || r.kind == Kind::Function;
  if (pathRow) {
    if (!isDottedPath(r.old, false)) return RenameRowProblem{"old", "must be a dotted path such as \"mylib.async\""};
    const RenamePath old = splitRenamePath(r.old);
    if (std::none_of(old.begin(), old.end(), isAsyncOrAwait))
      return RenameRowProblem{"old", "must have a component `async` or `await` (the names Python 3.7 reserved)"};
    if (!isDottedPath(r.replacement, false))
      return RenameRowProblem{"new", "must be a dotted path such as \"mylib.aio\""};
    const RenamePath replacement = splitRenamePath(r.replacement);
    if (!std::all_of(replacement.begin(), replacement.end(), isUsableName))
      return RenameRowProblem{"new", "must not contain a Python keyword"};
    return std::nullopt;
  }
  const std::string ownerKey = r.kind == Kind::Keyword ? "callable" : "owner";
  if (!isAsyncOrAwait(r.old)) return RenameRowProblem{"old", "must be \"async\" or \"await\""};
  if (!isUsableName(r.replacement)) return RenameRowProblem{"new", "must be a Python identifier that is not a keyword"};
  if (!isDottedPath(r.owner, true))
    return RenameRowProblem{ownerKey, "must be a dotted path such as \"mylib.Client.send\" (`*` matches one "
                                      "component, `**` any number)"};
  const RenamePath owner = splitRenamePath(r.owner);
  if (!isIdentifierText(owner.front()))
    return RenameRowProblem{ownerKey, "must start with the package name, not a wildcard"};
  if (r.kind == Kind::Keyword && !isIdentifierText(owner.back()))
    return RenameRowProblem{ownerKey, "must end with the callable's own name, not a wildcard"};
  if (std::count(owner.begin(), owner.end(), "**") > 2) return RenameRowProblem{ownerKey, "may use `**` at most twice"};
  return std::nullopt;
}

} // namespace asyncfix::rules
