// The run (asyncfix/run.h): the pipeline that checks files while the walk finds them gives what a
// run over the whole list gives, and checks each file once, also when a project view is active.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
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

namespace {

/// A project on disk for a test, removed when it ends.
struct Project {
  explicit Project(const std::map<std::string, std::string> &files)
      : root(fs::temp_directory_path() / ("asyncfix-run-host-" + std::to_string(::getpid()))) {
    fs::remove_all(root);
    for (const auto &[path, text] : files) {
      fs::create_directories((root / path).parent_path());
      std::ofstream(root / path, std::ios::binary) << text;
    }
  }
  ~Project() { fs::remove_all(root); }
  Project(const Project &) = delete;
  Project &operator=(const Project &) = delete;
  std::string read(const std::string &path) const {
    std::ifstream in(root / path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::string path(const std::string &name) const { return (root / name).string(); }
  fs::path root;
};

const FileReport *reportOf(const RunResult &result, const std::string &path) {
  for (const FileReport &report : result.reports)
    if (report.path == path) return &report;
  return nullptr;
}

const std::map<std::string, std::string> kHostFiles = {
    {"pkg/__init__.py", ""},
    {"pkg/async.py", "def helper(x):\n    return x.cuda(async=True)\n"},
    {"pkg/user.py", "from .async import helper\n"},
    {"lib.py", "def load(x):\n    return x\n"},
};

} // namespace

TEST_CASE("a host's run collects the fixes, reads its own texts and writes nothing", "[run]") {
  const Project project(kHostFiles);
  ConfigResolver::Options settings;
  settings.isolated = true;
  const ConfigResolver resolver(std::move(settings));
  RunOptions options;
  options.roots = {project.root.string()};
  options.fixMode = FixMode::Collect;
  options.jobs = 2;
  options.defaultBases = {project.root};
  // lib.py as an editor has it, unsaved: a legacy call, and a parameter the disk does not have.
  const std::string unsaved = "def load(x, y):\n    return x.cuda(async=y)\n";
  std::atomic<int> asked{0};
  options.openText = [&](const std::string &path) -> std::optional<ProjectSource> {
    ++asked;
    if (normalizedPath(path) == normalizedPath(project.path("lib.py"))) return ProjectSource{unsaved, {}};
    return std::nullopt;
  };
  Counting progress;
  const RunResult result = Run(resolver, options).check(progress);

  CHECK_FALSE(result.cancelled);
  CHECK(asked > 0);
  for (const auto &[name, text] : kHostFiles) CHECK(project.read(name) == text); // nothing written or renamed
  const FileReport *lib = reportOf(result, project.path("lib.py"));
  REQUIRE(lib != nullptr);
  CHECK(lib->changed);
  CHECK(lib->before == unsaved);
  CHECK(lib->after == "def load(x, y):\n    return x.cuda(non_blocking=y)\n");
  const FileReport *user = reportOf(result, project.path("pkg/user.py"));
  REQUIRE(user != nullptr);
  CHECK(user->after == "from .asynchronous import helper\n");
  // The module's rename is in the project view, for the host to make; its file's report counts it.
  REQUIRE(result.project.renames().size() == 1);
  CHECK(moduleRenameApplies(result.project.renames().front(), result.unsafe));
  const FileReport *module = reportOf(result, project.path("pkg/async.py"));
  REQUIRE(module != nullptr);
  CHECK(module->changed);
  CHECK(module->fixed == 2); // its AF101, and the rename
}

TEST_CASE("a fixing run reads each file once, and twice only those that may change", "[run]") {
  const Project project({
      {"legacy.py", "def f(t):\n    return t.cuda(async=True)\n"},
      {"clean.py", "print(1)\n"},
      {"modern.py", "async def f(t):\n    await g(t)\n"},
      {"pkg/__init__.py", ""},
  });
  ConfigResolver::Options settings;
  settings.isolated = true;
  const ConfigResolver resolver(std::move(settings));
  RunOptions options;
  options.roots = {project.root.string()};
  options.fixMode = FixMode::Apply;
  options.jobs = 2;
  // The host has no text of its own: each time it is asked, the file is read from the disk.
  std::mutex mutex;
  std::map<std::string, int> asked;
  options.openText = [&](const std::string &path) -> std::optional<ProjectSource> {
    const std::lock_guard lock(mutex);
    ++asked[fs::path(path).lexically_relative(project.root).generic_string()];
    return std::nullopt;
  };
  Counting progress;
  const RunResult result = Run(resolver, options).check(progress);

  // A file that cannot change is read once (the run read every file twice: once for the project
  // view's names, once to check it); one the prefilter keeps is fixed against its first read.
  CHECK(asked["clean.py"] == 1);
  CHECK(asked["modern.py"] == 1);
  CHECK(asked["pkg/__init__.py"] == 1);
  CHECK(asked["legacy.py"] == 2);
  CHECK(progress.total == 4);
  CHECK(progress.done == 4);
  CHECK(result.checks == 4);
  CHECK(project.read("legacy.py") == "def f(t):\n    return t.cuda(non_blocking=True)\n");
  CHECK(project.read("clean.py") == "print(1)\n");
  const FileReport *legacy = reportOf(result, project.path("legacy.py"));
  REQUIRE(legacy != nullptr);
  CHECK(legacy->changed);
  CHECK(legacy->fixed == 1);
}

TEST_CASE("a run whose host cannot rename files leaves the modules named async and their imports", "[run]") {
  const Project project(kHostFiles);
  ConfigResolver::Options settings;
  settings.isolated = true;
  const ConfigResolver resolver(std::move(settings));
  RunOptions options;
  options.roots = {project.root.string()};
  options.fixMode = FixMode::Collect;
  options.defaultBases = {project.root};
  options.renameModules = false;
  Counting progress;
  const RunResult result = Run(resolver, options).check(progress);
  CHECK(result.project.renames().empty());
  CHECK(result.keptModules == std::vector<std::string>{"pkg.async"});
  const FileReport *user = reportOf(result, project.path("pkg/user.py"));
  REQUIRE(user != nullptr);
  CHECK_FALSE(user->changed);
  const FileReport *module = reportOf(result, project.path("pkg/async.py"));
  REQUIRE(module != nullptr);
  CHECK(module->after == "def helper(x):\n    return x.cuda(non_blocking=True)\n");
}

TEST_CASE("a cancelled run checks no more files and renames no module", "[run]") {
  const Project project(kHostFiles);
  ConfigResolver::Options settings;
  settings.isolated = true;
  const ConfigResolver resolver(std::move(settings));
  RunOptions options;
  options.roots = {project.root.string()};
  options.jobs = 1;
  options.defaultBases = {project.root};
  for (const FixMode mode : {FixMode::Apply, FixMode::Collect}) {
    INFO("fix mode " << static_cast<int>(mode));
    options.fixMode = mode;
    // Cancelled after the first file (the run asks once before its first pass; lib.py, first in
    // path order, is read by it and can need no fix: finished there).
    std::atomic<int> asked{0};
    options.cancelled = [&] { return ++asked > 2; };
    Counting progress;
    const RunResult result = Run(resolver, options).check(progress);
    CHECK(result.cancelled);
    REQUIRE(result.reports.size() == 1);
    CHECK(result.reports.front().path == project.path("lib.py"));
    CHECK(progress.done == 1);
    CHECK(fs::exists(project.root / "pkg/async.py"));
    for (const auto &[name, text] : kHostFiles) CHECK(project.read(name) == text);
  }
}

TEST_CASE("isNotebookName reads a path's extension as isNotebookFile does", "[run]") {
  for (const char *path :
       {"a.ipynb", "dir/b.ipynb", "/abs/c.ipynb", ".ipynb", "dir/.ipynb", "..ipynb", "dir/..ipynb", "x.ipynb.py",
        "x.py", "dir.ipynb/x.py", "x.ipynb/", "x.IPYNB", "ipynb", "x.", "", "/", ".", "a.b.ipynb", "x.ipynbx"}) {
    INFO(path);
    CHECK(isNotebookName(path) == isNotebookFile(path));
  }
  CHECK(isNotebookName("notebooks/train.ipynb"));
  CHECK_FALSE(isNotebookName("notebooks/.ipynb"));
}

TEST_CASE("a pipelined run finds a package named async by its path alone, past many directories", "[run]") {
  // Nothing imports the package and no file spells `async`: only the walk's paths tell the run
  // that a project view is needed. 300 directories of files come first (the walk runs ahead of
  // the workers there, and checks files itself), each file reported once, in path order.
  std::map<std::string, std::string> files = {{"zz/__init__.py", ""}, {"zz/async/x.py", "y = 1\n"}};
  for (int d = 0; d < 300; ++d)
    for (int f = 0; f < 3; ++f) files["a" + std::to_string(d) + "/m" + std::to_string(f) + ".py"] = "print(1)\n";
  const Project project(files);
  ConfigResolver::Options settings;
  settings.isolated = true;
  const ConfigResolver resolver(std::move(settings));
  RunOptions options;
  options.roots = {project.root.string()};
  options.defaultBases = {project.root};
  for (const unsigned jobs : {1U, 2U}) {
    INFO("jobs " << jobs);
    options.jobs = jobs;
    Counting progress;
    const RunResult result = Run(resolver, options).check(progress);
    REQUIRE(result.reports.size() == files.size());
    CHECK(progress.done == files.size());
    CHECK(std::is_sorted(result.reports.begin(), result.reports.end(),
                         [](const FileReport &a, const FileReport &b) { return a.path < b.path; }));
    const FileReport *x = reportOf(result, project.path("zz/async/x.py"));
    REQUIRE(x != nullptr);
    REQUIRE(x->diagnostics.size() == 1);
    CHECK(x->diagnostics.front().code == std::string_view("AF201"));
  }
}

TEST_CASE("a walk gives each directory's files in path order, told of their directory", "[run]") {
  // Names that sort apart from their paths: `a-b.py` < `a.py` < `a/…` < `a0.py` as paths, while
  // `a` < `a-b.py` < `a.py` < `a0.py` as names. A file that comes after a subdirectory's files is
  // reported with its own directory entered again.
  const fs::path root = fs::temp_directory_path() / ("asyncfix-walk-order-" + std::to_string(::getpid()));
  fs::remove_all(root);
  for (const char *file : {"a-b.py", "a.py", "a/x.py", "a/b/y.py", "a/b.py", "a/c.pyi", "a0.py", "b/z.py", "b/sub/q.py",
                           "b/w.py", "_c.py", "Z.py", "\xC3\xA9.py", "e/\xC3\xA9/f.py", "e/g.py"}) {
    fs::create_directories((root / file).parent_path());
    std::ofstream(root / file) << "x = 1\n";
  }
  struct Recorder final : WalkVisitor {
    std::string directory;
    std::vector<std::string> files;
    bool inDirectory = true;
    void enterDirectory(fs::path entered, const DirectoryListing &) override { directory = entered.string(); }
    bool excluded(std::string_view, bool) override { return false; }
    void file(std::string path, bool, std::shared_ptr<const OpenDirectory>) override {
      inDirectory = inDirectory && fs::path(path).parent_path().string() == directory;
      files.push_back(std::move(path));
    }
    void error(PathError) override {}
  } recorder;
  walkPaths({root.string()}, recorder, /*keepOpen=*/true);
  fs::remove_all(root);
  REQUIRE(recorder.files.size() == 15);
  CHECK(std::is_sorted(recorder.files.begin(), recorder.files.end()));
  CHECK(recorder.inDirectory);
}

TEST_CASE("a worker's read buffer gives each file's bytes, whatever came before", "[run]") {
  // One buffer for one file after another, larger and smaller, empty, and a file that says it
  // is empty and holds text (procfs): each read gives exactly that file's bytes.
  const fs::path root = fs::temp_directory_path() / ("asyncfix-read-buffer-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  const std::vector<std::string> texts = {std::string(100000, 'a'), "small\n", "", std::string(300000, 'b') + "end",
                                          "x = 1\r\n"};
  ReadBuffer buffer;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::string path = (root / (std::to_string(i) + ".py")).string();
    std::ofstream(path, std::ios::binary) << texts[i];
    std::size_t size = 99;
    const ReadResult read = readSourceFileInto(path, buffer, size);
    REQUIRE_FALSE(read.error);
    CHECK(std::string_view(buffer.data.get(), size) == texts[i]);
    CHECK(read.stamp.size == static_cast<std::int64_t>(texts[i].size()));
    CHECK(read.bytes.empty());
  }
  std::size_t size = 0;
  CHECK(readSourceFileInto((root / "missing.py").string(), buffer, size).error == "no such file or directory");
  CHECK(readSourceFileInto(root.string(), buffer, size).error == "is a directory");
  fs::remove_all(root);
#if defined(__linux__)
  const ReadResult status = readSourceFileInto("/proc/self/status", buffer, size);
  REQUIRE_FALSE(status.error);
  CHECK(status.stamp.size == 0);
  CHECK(std::string_view(buffer.data.get(), size).starts_with("Name:"));
#endif
}
