// cli/project.h — the project view of a `check` run: which module each file is, and the
// project's own modules named `async`/`await`, which a fix renames together with every import
// of them.
//
// It knows paths and configuration only: it reads no Python file and parses nothing. The imports
// are found by the linter, in the files the prefilter keeps (an import of `pkg.async` holds the
// token `async`), with the rows configure() adds to each file's Config. A run whose paths name no
// module `async`/`await` costs one scan of the file names, and every file is linted as before.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "asyncfix/config.h"
#include "asyncfix/diagnostic.h"
#include "asyncfix/module_strings.h"
#include "asyncfix/settings.h"

namespace asyncfix::cli {

/// One module or package of the project to rename: `pkg/async.py` → `pkg/asynchronous.py`,
/// `pkg/async/` → `pkg/asynchronous/`.
struct ModuleRename {
  std::string module;    ///< "pkg.async"
  std::string newModule; ///< "pkg.asynchronous"
  FileRename path;       ///< as the run spells paths, normalized: "pkg/async.py" → "pkg/asynchronous.py"
  bool directory = false;
  /// Its name is not certain (it lies in a namespace package): the rename and its edits are unsafe.
  bool uncertain = false;
  /// The file of the run whose diagnostic stands for the rename: the module itself, or the
  /// package's `__init__.py` (for a namespace package, its first file in the run).
  std::string reportedIn;
  Severity severity = Severity::Error;
  /// Why it cannot be renamed (the target exists); such a module gets no rows, so its imports are
  /// reported without a fix, as before.
  std::optional<std::string> refusal;

  Applicability applicability() const { return uncertain ? Applicability::Unsafe : Applicability::Safe; }
};

class ModuleMap;

class ProjectView {
public:
  /// The module map of `files` (the run's files, as the walk spelt them), each under the `src`
  /// roots and `module-rename-style` of its own configuration.
  static ProjectView build(const std::vector<std::string> &files, const ConfigResolver &resolver);

  /// True when the run holds a module to rename (else configure() changes nothing).
  bool active() const { return !rows_.empty(); }
  /// Adds to `config` the rows of the modules to rename and the package `file` is in (for its
  /// relative imports). Returns a key that tells the resulting configurations apart ("" when
  /// nothing was added).
  std::string configure(const std::string &file, Config &config) const;

  const std::vector<ModuleRename> &renames() const { return renames_; }
  /// The dotted paths of the modules renamed (not those refused), old and new.
  const std::vector<RenamedModule> &renamedModules() const { return modules_; }

  /// The diagnostic that stands for renaming `r`, in `r.reportedIn` (at its first byte).
  static Diagnostic moduleDiagnostic(const ModuleRename &r);

  /// `path` after the renames that `applies` accepts (unchanged when none moves it).
  std::string movedPath(const std::string &path, bool unsafe) const;

  /// --fix: renames the modules (deepest first) whose applicability `unsafe` allows, each with
  /// rename(2) refusing to replace an existing target. Returns one line per problem
  /// ("error: …"); `done[i]` tells whether renames()[i] happened.
  std::vector<std::string> apply(bool unsafe, std::vector<bool> &done) const;

  /// --diff: the run's output. `diffs` are the files' unified diffs (path → diff, in path order);
  /// each file gets a `diff --git` line, and those a rename moves git's `rename from` / `rename to` (a
  /// moved file with no edit, the header alone), so that `git apply` makes the same tree as --fix.
  std::string renderDiffs(const std::vector<std::pair<std::string, std::string>> &diffs, bool unsafe) const;

private:
  void addModuleRenames(const std::vector<std::string> &files, ModuleMap &map);

  std::vector<std::pair<std::string, std::string>> packages_; ///< file → package, sorted by file
  std::vector<RenameRow> rows_;
  std::vector<ModuleRename> renames_;
  std::vector<RenamedModule> modules_;
};

} // namespace asyncfix::cli
