// The run (asyncfix/run.h): the pipeline that checks files while the walk finds them gives what a
// run over the whole list gives, and checks each file once, also when a project view is active.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "asyncfix/run.h"

namespace fs = std::filesystem;
using namespace asyncfix;

namespace {

/// Counts what a run tells its progress bar.
class Counting final : public RunProgress {
public:
  void start(std::size_t files) override { total = files; }
  void advance() override { ++done; }
  std::size_t total = 0;
  std::atomic<std::size_t> done{0};
};

/// code:start-end:message of each finding, per file.
std::map<std::string, std::vector<std::string>> findings(const RunResult &result) {
  std::map<std::string, std::vector<std::string>> out;
  for (const FileReport &report : result.reports) {
    std::vector<std::string> &lines = out[report.path];
    for (const Diagnostic &d : report.diagnostics)
      lines.push_back(std::string(d.code) + ":" + std::to_string(d.start) + "-" + std::to_string(d.end) + ":" +
                      d.message + (d.fix ? " [fix]" : ""));
  }
  return out;
}

} // namespace

TEST_CASE("a pipelined run checks each file once and agrees with a whole-list run", "[run]") {
  const fs::path root = fs::temp_directory_path() / ("asyncfix-run-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const std::map<std::string, std::string> files = {
      {"pkg/__init__.py", ""},
      {"pkg/async.py", "X = 1\n"},
      // imports the module: changed by the project view
      {"pkg/user.py", "from .async import X\nimport pkg.async\n"},
      // spells it in a string only: linted at once, its string reported once the view is known
      {"plain.py", "import importlib\nm = importlib.import_module('pkg.async')\n"},
      // legacy code: `async` as a name
      {"legacy.py", "def f(t):\n    return t.cuda(async=True)\n"},
      {"clean.py", "print(1)\n"},
  };
  for (const auto &[path, text] : files) {
    fs::create_directories((root / path).parent_path());
    std::ofstream(root / path, std::ios::binary) << text;
  }
  ConfigResolver::Options settings;
  settings.isolated = true;
  const ConfigResolver resolver(std::move(settings));
  RunOptions options;
  options.roots = {root.string()};
  options.jobs = 2;

  for (const FixMode mode : {FixMode::None, FixMode::Diff}) {
    INFO("fix mode " << static_cast<int>(mode));
    options.fixMode = mode;
    options.listFirst = false;
    Counting piped;
    const RunResult pipeline = Run(resolver, options).check(piped);
    options.listFirst = true;
    Counting listed;
    const RunResult whole = Run(resolver, options).check(listed);

    REQUIRE(pipeline.project.active());
    CHECK(pipeline.reports.size() == files.size());
    CHECK(pipeline.checks == files.size());
    CHECK(piped.total == files.size());
    CHECK(piped.done == files.size());
    CHECK(findings(pipeline) == findings(whole));
    const auto plain = findings(pipeline)[(root / "plain.py").string()];
    REQUIRE(plain.size() == 1);
    CHECK(plain.front().starts_with("AF201:"));
    for (std::size_t i = 0; i < pipeline.reports.size(); ++i) CHECK(pipeline.reports[i].diff == whole.reports[i].diff);
  }
  fs::remove_all(root);
}
