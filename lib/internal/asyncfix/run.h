// asyncfix/run.h (internal, not installed) — a run of asyncfix over files: what `asyncfix check`
// does between parsing its arguments and printing its results.
//
// A run owns: the walk of its roots (asyncfix/walk.h: exclude globs and .gitignore per directory),
// the configuration of each file (one Linter per distinct configuration, resolved once per
// directory), the project view (asyncfix/project_view.h: built from the run's files, audited,
// put into each file's configuration), linting or fixing each file on worker threads (the fixer's
// fixpoint, notebooks through their cells, PEP 263 encodings), writing fixed files atomically and
// renaming modules on disk (--fix), the diff of each file (--diff), and the reports in path order,
// each file once.
//
// A host with files of its own (an editor's unsaved buffers) hands them in (RunOptions::openText:
// read wherever the run reads a file), may collect the fixes instead of writing them
// (FixMode::Collect: each changed file's text before and after; the module renames that apply are
// in the result's project view), and may stop a run (RunOptions::cancelled).
//
// It does not own: arguments, output formats, colours, the progress bar's drawing (RunProgress
// is told how far the run is), stdout or stderr (problems come back as lines in the reports), the
// process's exit code, how a host applies collected fixes. The CLI drives it (cli/check.cpp), and
// so do the language server's workspace fix (lsp/server_workspace.cpp, FixMode::Collect) and the C
// API's asyncfix_run (lib/src/api/c_api.cpp), under the Python package's check_paths.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "asyncfix/diagnostic.h"
#include "asyncfix/notebook.h"
#include "asyncfix/project_view.h"
#include "asyncfix/public_names.h"
#include "asyncfix/settings.h"
#include "asyncfix/source_io.h"
#include "asyncfix/walk.h"

namespace asyncfix {

/// What a run does to each file besides linting it: nothing, fix it on disk, show the fixes as a
/// diff, or fix it without writing (each changed file's report keeps its text before and after;
/// no module is renamed on disk).
enum class FixMode : std::uint8_t { None, Apply, Diff, Collect };

struct RunOptions {
  std::vector<std::string> roots; ///< files and directories to check (walked as walkPaths walks)
  FixMode fixMode = FixMode::None;
  bool addNoqa = false; ///< add a `# noqa` comment to every line with a finding instead
  /// Only the files it accepts are checked (`--shard`); the file list is then made whole first.
  std::function<bool(const std::string &file)> keep;
  /// The files are a share of the roots' (a shard): importers elsewhere keep a module's old name.
  bool partial = false;
  /// The file list whole before any file is checked (--show-files, a shard); a run that writes
  /// always makes it.
  bool listFirst = false;
  /// `--unsafe-fixes` / `--no-unsafe-fixes`: wins over every file's own `unsafe-fixes`.
  std::optional<bool> unsafeFixes;
  unsigned jobs = 0; ///< worker threads; 0: one per hardware thread
  /// The host's own text of a file (an editor's unsaved buffer), consulted before the disk wherever
  /// the run reads `path` (as the run spells it; a host compares normalizedPath()): UTF-8, already
  /// decoded. With `readOnly` (a notebook open in a notebook editor: its code cells' virtual text)
  /// the file is not checked, and the project view counts it as a place a rename cannot edit.
  /// Called from several threads at once. Null: the disk only.
  std::function<std::optional<ProjectSource>(const std::string &path)> openText;
  /// Asked by the workers before each file (and between the run's phases): once true, no other
  /// file is checked and the result says `cancelled`. Called from several threads at once.
  std::function<bool()> cancelled;
  /// Where a file under no configuration file finds its default `src` (absolute: a language
  /// server's workspace folders); empty: the current directory (ProjectView::build).
  std::vector<std::filesystem::path> defaultBases;
  /// False for a host that cannot rename files: the project's modules named `async`/`await` are
  /// not the project view's modules, so their imports are reported unfixed, as when the run does
  /// not hold them, and RunResult::keptModules names them.
  bool renameModules = true;
};

/// How far a run is, for a progress bar. advance() is called from worker threads.
class RunProgress {
public:
  virtual ~RunProgress() = default;
  /// The number of files is known (once per run, maybe after some advance()).
  virtual void start(std::size_t files) { (void)files; }
  /// One more file done.
  virtual void advance() {}
};

/// What checking one file produced; filled by a worker thread, read by the caller. A field added
/// here must also be asked of in run.cpp's BareReport::of (a report that says nothing else is held
/// there as its path, identity and unsafe-fixes flag only).
struct FileReport {
  std::string path;
  std::string text; ///< the text `diagnostics` refer to (kept only when there are some)
  std::vector<Diagnostic> diagnostics;
  /// A notebook with diagnostics: they refer to its virtual text (and `text` is empty). (By
  /// pointer, as `names` and `read`.)
  std::unique_ptr<Notebook> notebook;
  std::string diff;        ///< --diff: the unified diff
  std::string fixedSource; ///< --fix on stdin: what to print (the input when nothing changed)
  /// FixMode::Collect, a file whose text changed: its text before and after the fixes, UTF-8 as an
  /// editor shows it (a notebook's JSON).
  std::string before, after;
  std::size_t fixed = 0;             ///< diagnostics fixed (or that --diff would fix)
  bool changed = false;              ///< the text changed (written with --fix, diffed with --diff)
  bool failed = false;               ///< could not be read, decoded or written
  bool unsafeFixes = false;          ///< the file's settings enable unsafe fixes
  std::vector<std::string> messages; ///< complete "error: ..." / "warning: ..." lines for stderr
  /// The file's device and inode (when it could be stat'ed): of several names for one file, only
  /// the first in path order is reported.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> identity;
  bool skipped = false; ///< another name of the same file is being fixed: not checked, not reported
  /// The file's public parameters and calls named `async`/`await`, for the project view (null
  /// when mayHavePublicNames() ruled them out, or when the run did not ask). This and `read` are
  /// held by pointer: most reports have neither, and a run makes one per file (and moves it).
  std::unique_ptr<PublicNames> names;
  /// Between the two passes of a pipelined run (asyncfix::Run::check): not checked yet, as the
  /// project view may change its findings.
  bool deferred = false;
  /// A deferred file of a run that lists its files first (one that may write): the file as its
  /// first pass read it, checked and written against these bytes and this stamp in the second
  /// pass, not read again (null when it came from the host, or past the run's budget).
  std::unique_ptr<ReadResult> read;
};

/// What a run produced.
struct RunResult {
  std::vector<PathError> pathErrors;      ///< roots that could not be used, in the order met
  std::vector<FileReport> reports;        ///< in path order, each file once
  ProjectView project;                    ///< the run's modules and names; empty for stdin
  std::vector<std::string> projectErrors; ///< "error: …" lines of the module renames on disk
  /// The unsafe fixes apply: RunOptions::unsafeFixes, else every file's own setting.
  bool unsafe = false;
  /// Files checked (linted, fixed or given a `# noqa`): each file of the run once.
  std::size_t checks = 0;
  /// RunOptions::cancelled said so: some files were not checked, and no module was renamed.
  bool cancelled = false;
  /// RunOptions::renameModules false: the modules named `async`/`await` left out of the project
  /// view ("pkg.async"), in the order the view found them.
  std::vector<std::string> keptModules;
};

/// One run of the engine over files, under `resolver`'s configuration.
class Run {
public:
  Run(const ConfigResolver &resolver, RunOptions options);
  ~Run();
  Run(const Run &) = delete;
  Run &operator=(const Run &) = delete;

  /// The files of the roots as the run would check them (walked, deduplicated, sorted, `keep`
  /// applied), and the roots that could not be used.
  FileList files() const;
  /// Checks the files of the roots.
  RunResult check(RunProgress &progress);
  /// Checks one text read elsewhere (standard input) as the file `name`; nothing is written.
  RunResult checkSource(const std::string &name, ReadResult read);

private:
  /// files(); `aliases` false: the later names of one file are left in (collectFiles()), unless
  /// RunOptions::keep is set (it chooses among the deduplicated files).
  FileList files(bool aliases) const;
  /// The run's unsafe setting and, with a project view, each module rename's diagnostic in its
  /// file's report and, with --fix, the renames on disk (the imports are written by now).
  void finish(RunResult &result) const;

  const ConfigResolver &resolver_;
  RunOptions options_;
};

/// One worker per hardware thread (at least one).
unsigned defaultJobs();

/// Whether the module rename `r` is made under the run's unsafe setting: not refused, and safe
/// unless `unsafe`.
bool moduleRenameApplies(const ModuleRename &r, bool unsafe);

/// --fix: renames the modules of `view` (deepest first) whose applicability `unsafe` allows, each
/// with rename(2) refusing to replace an existing target. Returns one line per problem
/// ("error: …"); `done[i]` tells whether view.renames()[i] happened.
std::vector<std::string> applyModuleRenames(const ProjectView &view, bool unsafe, std::vector<bool> &done);

} // namespace asyncfix
