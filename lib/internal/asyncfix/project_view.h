// asyncfix/project_view.h (internal, not installed) — the project view: the one header of
// lib/src/project/, and the door to it.
//
// It owns what spans the files of a run: which module each file is; the project's own modules
// named `async`/`await`, renamed together with every import of them (AF201), and the rule that a
// module is renamed only when every importer of the run is updated in the same fix (else the
// rename is refused, saying where, or made unsafe); the parameters so named of its public
// functions, renamed together with `async=` at every call in other files that resolves to them;
// its module-level names and attributes so named, renamed with every use in other files that
// reaches them; and the one spelling of the run's paths (normalizedPath). Its parts:
// project_view.cpp (the module map, the renames, configure()), import_edits.cpp (what the renames
// do to the importers; audit()), public_names.cpp (asyncfix/public_names.h: what one file holds
// for the names other modules use), reexports.cpp (project/reexports.h: where a path through the
// run's modules leads: `pkg.helper` re-exported from `pkg.impl`), module_strings.cpp
// (asyncfix/module_strings.h: strings that name a renamed module).
//
// It does not own: reading files (a ProjectText gives their sources: the disk's or an editor's),
// the rules (the linter finds the imports, with the rows configure() adds to each file's
// Config), the disk (a run renames the modules: asyncfix/run.h, applyModuleRenames), or how a
// front end shows it (the CLI's --diff: cli/project.h; the language server's workspace edits).
// A run whose paths name no module `async`/`await` and whose files define no such name costs
// one scan of the file names, and every file is linted as before.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "asyncfix/config.h"
#include "asyncfix/diagnostic.h"
#include "asyncfix/module_strings.h"
#include "asyncfix/public_names.h"
#include "asyncfix/settings.h"

namespace asyncfix {

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
  /// Why it cannot be renamed (the target exists, or a package it lies in cannot be renamed); such
  /// a module gets no rows, so its imports are reported without a fix, as before.
  std::optional<std::string> refusal;
  /// With `refusal`: AF201 is not selected for `reportedIn`, or its header opts out, so the
  /// module is left alone and goes unreported (its importers are reported as a refused module's).
  bool ignored = false;
  /// The existing path that takes its new name (with `refusal`; "" when another module's
  /// refusal is the reason).
  std::string taken;
  /// Where its top-level package starts, and the directory of the configuration file that
  /// applies to it ("" for none): absolute, normalized. A run that does not walk both may leave
  /// importers out.
  std::string base, root;
  /// The places that would go on naming the module after its safe fixes (audit()): an import
  /// under `# noqa: AF201` or in a skipped file, a string, a file that cannot be read: "`b.py:3`
  /// would still import it". The rename and its edits are unsafe then.
  std::vector<std::string> leftBehind;

  Applicability applicability() const {
    return uncertain || !leftBehind.empty() ? Applicability::Unsafe : Applicability::Safe;
  }
};

/// A file of the project as the caller has it (an editor's unsaved text, else the disk's).
struct ProjectSource {
  /// UTF-8 (decoded as a check decodes it); a notebook's JSON, or with `readOnly` its code cells
  /// as one Python text (asyncfix::Notebook's virtual text).
  std::string text;
  /// Why a rename cannot edit it ("" when it can): "is open in a notebook editor, whose cells the
  /// rename does not edit". A rename that would edit it, or leave it naming a module, is unsafe.
  std::string readOnly;
};
/// The file's source; nullopt when it cannot be had, with what to say after the file's name in
/// `why` ("cannot be read: permission denied"). An empty text names nothing (a file the caller
/// knows spells no `async`/`await`). Called from several threads at once.
using ProjectText = std::function<std::optional<ProjectSource>(const std::string &file, std::string &why)>;

/// A file whose imports the renames of some modules rewrite: its text before and after.
struct ImportEdit {
  std::string file;
  std::string before, after;
};

/// What renaming some modules does to the other files of the project (ProjectView::importEdits).
struct ImportEdits {
  std::vector<ImportEdit> files; ///< the files that change, in the order they were given
  /// Per module asked for, in that order: the places that would go on naming it (as
  /// ModuleRename::leftBehind); empty when every one is rewritten.
  std::vector<std::vector<std::string>> leftBehind;
};

/// `path` as the project view spells the run's paths: lexically normal, `/` between components
/// ("./pkg//a.py" → "pkg/a.py"). The one normaliser of those paths: ModuleRename's paths, the keys
/// of configure(), and whatever a front end compares with them go through it.
std::string normalizedPath(const std::filesystem::path &path);

/// Is `inner` a module inside the package `outer` (`pkg.async.await` in `pkg.async`)?
bool insideModule(std::string_view inner, std::string_view outer);

/// `renames` in the order they are made on disk, deepest first (`pkg/async/await.py` moves while
/// `pkg/async/` still has its name); stable.
void sortDeepestFirst(std::vector<const ModuleRename *> &renames);

class ModuleMap;
struct FileModule;

/// A parameter named `async`/`await` of a public function of the project, renamed with `NAME=`
/// at its calls in other files (one keyword row, RenameRow::touches).
struct PublicRename {
  std::string owner;                ///< the callable: "pkg.kfac.Kfac" (its `__init__`), "pkg.kfac.Kfac.step"
  std::string name;                 ///< "async"
  std::string replacement;          ///< "async_", as the defining file's `rename-style` spells it
  std::vector<std::string> files;   ///< where it is defined (normalized paths)
  std::vector<std::string> callers; ///< the other files whose calls resolve to it
  /// Why a use found in the project may reach it without resolving to it ("" when none does):
  /// its fixes are unsafe then.
  std::string unresolved;
};

/// A module-level name or an attribute named `async`/`await` that other files of the project use,
/// renamed there and at every use (function rows for a module-level name, reached through the
/// imports; attribute rows for an attribute, renamed by AF001/AF002 in the files that use it).
struct NameRename {
  enum class Kind : std::uint8_t { Global, Attribute };
  Kind kind = Kind::Global;
  std::string path;               ///< a module-level name: "pkg.m.async"; an attribute: "async"
  std::string name;               ///< "async"
  std::string replacement;        ///< "async_", as the (first) defining file's `rename-style` spells it
  std::vector<std::string> files; ///< where it is defined (normalized paths)
  std::vector<std::string> users; ///< the other files whose uses reach it
  /// The uses found in the project that may reach it without resolving ("`o.async` in
  /// `f.py:3`"), and the files that already use the new name: its fixes are unsafe then, and
  /// their titles list them.
  std::vector<std::string> unresolved;
};

class ProjectView {
public:
  /// The module map of `files` (the run's files, as the walk spelt them), each under the `src`
  /// roots and `module-rename-style` of its own configuration; and the renames of the public
  /// parameters that `names` (findPublicNames() of some of those files) define, joined with the
  /// calls they list. A file with no configuration file takes the default `src` relative to each
  /// of `defaultBases` (absolute; the language server's workspace folders), or to the current
  /// directory when there is none (the CLI). A module is left alone (ModuleRename::ignored) where
  /// AF201 is off for the file that stands for it, and — read through `text`, when given — where
  /// that file's header opts out: `# asyncfix: skip-file` (an exclusion, as if the run had not
  /// listed it), a blanket `# asyncfix: noqa` or `# asyncfix: noqa: AF201`.
  static ProjectView build(const std::vector<std::string> &files, const ConfigResolver &resolver,
                           const std::vector<std::pair<std::string, PublicNames>> &names = {},
                           const std::vector<std::filesystem::path> &defaultBases = {}, const ProjectText &text = {});

  /// True when the run holds a module, a public parameter, a module-level name or an attribute to
  /// rename (else configure() changes nothing).
  bool active() const { return !rows_.empty() || !memberRows_.empty(); }
  /// Adds to `config` the rows of the modules and parameters to rename, the package `file` is in
  /// (for its relative imports) and, where it defines such a parameter, its module. Returns a key
  /// that tells the resulting configurations apart ("" when nothing was added).
  std::string configure(const std::string &file, Config &config) const;

  const std::vector<ModuleRename> &renames() const { return renames_; }
  /// The dotted paths of the modules renamed (not those refused), old and new.
  const std::vector<RenamedModule> &renamedModules() const { return modules_; }
  /// The public parameters renamed with their calls in other files.
  const std::vector<PublicRename> &publicRenames() const { return publics_; }
  /// The module-level names and attributes renamed with their uses in other files.
  const std::vector<NameRename> &nameRenames() const { return names_; }

  /// The edits that renaming `modules` (of renames(), none refused) makes to `files`: each file is
  /// linted as a run of `asyncfix check` lints it (its own configuration, with configure()), and
  /// the AF201 fixes that carry one of the modules' renames and whose applicability is at most
  /// `applicability` are applied, verified as every fix is. Then each module's leftovers are
  /// looked for in what they give: an import no fix rewrote (a `# noqa: AF201`, a file under
  /// `# asyncfix: skip-file` or whose AF201 is off, an unsafe fix at Safe), a string that names
  /// it, a file that would change but cannot be edited, a file whose text or configuration cannot
  /// be had. `text` gives the files' sources; a file that holds neither an `async`/`await` name
  /// nor a module's path is not linted. Works on `jobs` threads; returns early (what it has) when
  /// `cancelled` says so.
  ImportEdits importEdits(const std::vector<std::string> &files, const std::vector<const ModuleRename *> &modules,
                          const ConfigResolver &resolver, const ProjectText &text, Applicability applicability,
                          const std::function<bool()> &cancelled = {}, unsigned jobs = 1) const;

  /// Whether the directories `walked` (absolute, normalized) hold the module's base and root
  /// (ModuleRename::base, root); if not, the place to say so ("the run does not walk `..`, …"; the
  /// path relative to the current directory with `relative`, else absolute).
  static std::optional<std::string> uncovered(const ModuleRename &r, const std::vector<std::filesystem::path> &walked,
                                              std::string_view who, bool relative);

  /// The safety of the renames: a module that importEdits() at Safe would leave named somewhere,
  /// or whose base and root lie outside every one of `roots` (the directories the run walked
  /// whole: none for a shard; a file named alone covers nothing: importers outside the run keep
  /// the old name), gets
  /// those places (ModuleRename::leftBehind), so that its rename and every fix of its imports
  /// become unsafe and say why; so do the modules inside it (their new paths spell its new name) —
  /// again until none changes. A module is renamed only when every importer of the run is
  /// updated with it: one that no fix can rewrite — a file of the run that is no module (its name
  /// is no identifier: `rpc@v2.py`) whose relative import names it — refuses the rename
  /// (ModuleRename::refusal, saying where), and with it the module's other roots and the modules
  /// inside it. Reads the files of `files` through `text`, on `jobs` threads; does
  /// nothing when renames() is empty.
  void audit(const std::vector<std::string> &files, const std::vector<std::string> &roots,
             const ConfigResolver &resolver, const ProjectText &text, unsigned jobs = 1);
  /// audit()'s first step alone, for a host that finds the importers left behind itself (the
  /// language server, per rename, with its open documents' text): refuses each module that an
  /// importer no fix can rewrite names. Does nothing when renames() is empty.
  void refuseStranded(const ConfigResolver &resolver, const ProjectText &text, unsigned jobs = 1);

  /// Does any component of `path` (a file's extension dropped; `/` separates them) read `async`
  /// or `await`? The cheap test that spares a run with nothing to rename everything else.
  static bool mentionsKeywordModule(std::string_view path);

  /// Places for a title (ModuleRename::leftBehind, NameRename::unresolved): the first three, and
  /// how many more.
  static std::string placesSummary(const std::vector<std::string> &places);

  /// The diagnostic that stands for renaming `r`, in `r.reportedIn` (at its first byte).
  static Diagnostic moduleDiagnostic(const ModuleRename &r);

  /// `path` after the renames that `applies` accepts (unchanged when none moves it).
  std::string movedPath(const std::string &path, bool unsafe) const;

private:
  void addModuleRenames(const std::vector<std::string> &files, ModuleMap &map, const ProjectText &text);
  /// The module of each file of `names` that lists something (nullopt for the others, and for a
  /// file that is no module), mapped once; each such file goes into packages_ and named_.
  std::vector<std::optional<FileModule>> mapNamed(const std::vector<std::pair<std::string, PublicNames>> &names,
                                                  ModuleMap &map);
  /// `modules`: mapNamed(names). A call that reaches a parameter through re-exports of the run's
  /// `files` (read through `text`; project/reexports.h) is tied to it as a call that names it.
  void addPublicNames(const std::vector<std::pair<std::string, PublicNames>> &names,
                      const std::vector<std::optional<FileModule>> &modules, const std::vector<std::string> &files,
                      ModuleMap &map, const ProjectText &text);
  void addNameRenames(const std::vector<std::pair<std::string, PublicNames>> &names,
                      const std::vector<std::optional<FileModule>> &modules);

  /// The refusals audit() adds: each module that `refuse(r)` names gets `why(r)`, and so do its
  /// twins in other roots and the modules inside it; their rows go.
  void refuseModules(const std::function<std::optional<std::string>(const ModuleRename &)> &why);
  /// Per module of renames() (none for a refused one): the places of the run's strays whose
  /// relative imports name it (audit()).
  std::vector<std::vector<std::string>> strandedImporters(const ConfigResolver &resolver, const ProjectText &text,
                                                          unsigned jobs) const;

  std::vector<std::pair<std::string, std::string>> packages_; ///< file → package, sorted by file
  /// The run's Python files that are no module (their name is no identifier) in a directory that
  /// is a package: file → that package. Their relative imports cannot be rewritten.
  std::vector<std::pair<std::string, std::string>> strays_;
  std::vector<RenameRow> rows_;
  std::vector<ModuleRename> renames_;
  std::vector<RenamedModule> modules_;
  std::vector<PublicRename> publics_;
  std::vector<NameRename> names_;
  /// The attribute rows, each with the files it goes to (only those that use the attribute with
  /// an object the project knows: in the others `x.async` is renamed file by file, as before).
  std::vector<RenameRow> memberRows_;
  /// The files findPublicNames() listed something in (they get their package) → the module of
  /// those that define a renamed parameter or module-level name, or use a renamed attribute
  /// ("" for the others). Sorted by file.
  std::vector<std::pair<std::string, std::string>> named_;
};

} // namespace asyncfix
