// asyncfix/config.h — what to check and how to fix: rule selection, target Python, rename style.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "asyncfix/diagnostic.h"

#include "asyncfix/export.h"

namespace asyncfix {

// Plain values: copy and move freely. A Linter copies the Config it is built from.

struct ASYNCFIX_API PythonVersion {
  int major = 3;
  int minor = 8;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 sees a literal 0 in a defaulted <=>
  friend auto operator<=>(const PythonVersion &, const PythonVersion &) = default;
  /// "py38" / "3.8" → {3, 8}; nullopt for anything outside py35…py314.
  static std::optional<PythonVersion> parse(std::string_view text);
  std::string toString() const; ///< "py38"
};

/// Rule selection in the style of Ruff: entries are codes ("AF101"), prefixes ("AF1", "AF") or
/// "ALL". A rule is enabled when the most specific matching entry of select ∪ extend-select is
/// more specific than (or as specific as) the most specific matching ignore entry.
struct ASYNCFIX_API RuleSelection {
  std::vector<std::string> select{"ALL"};
  std::vector<std::string> extendSelect;
  std::vector<std::string> ignore;
  bool enables(std::string_view code) const;
  /// Entries that match no rule code, for a clear usage error.
  std::vector<std::string> unknownEntries() const;
};

/// One row of the table of renames that Python 3.7's reserved `async`/`await` forced on libraries
/// (rules AF201–AF203), or of an API renamed with a 1:1 successor (AF310, kind Api). The built-in
/// rows are compiled into the library; `Config::renames` adds the user's rows
/// (`[tool.asyncfix.renames]`).
struct RenameRow {
  enum class Kind : std::uint8_t {
    Module,    ///< `old`/`replacement` are module paths: "kombu.async" → "kombu.asynchronous" (AF201)
    Function,  ///< `old`/`replacement` are paths: "asyncio.async" → "asyncio.ensure_future" (AF202)
    Keyword,   ///< `old=` → `replacement=` on calls of `owner`, a path pattern (AF203)
    Attribute, ///< `obj.old` → `obj.replacement` on objects of `owner`, a path pattern (AF202)
    /// `old`/`replacement` are paths of an API renamed with a 1:1 successor, no `async` needed:
    /// "torchvision.transforms.Scale" → "torchvision.transforms.Resize" (AF310); or, with
    /// `message` instead of `replacement`, an API removed without one (AF316)
    Api,
  };
  Kind kind = Kind::Module;
  std::string library; ///< who renamed it, for messages: "kombu", "kafka-python", "Python"
  /// Keyword rows: the callable ("pexpect.**.expect"); attribute rows: the class or whatever
  /// makes the objects. Dotted, `*` = one component, `**` = any number. Empty otherwise.
  std::string owner;
  std::string old;         ///< module/function: the full old path; keyword/attribute: the old name
  std::string replacement; ///< module/function: the full new path; keyword/attribute: the new name
  std::string since;       ///< the library version that introduced the new name ("4.2.0"); may be empty
  std::string source;      ///< where the rename is documented (changelog or pull request URL)
  /// Module rows of the project being checked, not of a library (the CLI's project view adds
  /// them): the files or directories that hold the module and their new names. A fix of such a
  /// row carries these renames (Fix::renames).
  std::vector<FileRename> files{};
  /// With `files`: the module's name is not certain (it lies in a namespace package, which an
  /// installed distribution could share), or some place of the project would go on naming it
  /// (`unresolved` says where), so the fixes of the row are unsafe. With `touches`:
  /// some use of the name in the project does not resolve to the owner, or a file it touches
  /// already uses the new name, so the fixes are unsafe.
  bool uncertain = false;
  /// Rows of the project's own names, not of a library (the CLI's project view adds them): the
  /// files the rename edits, the ones that define the name first. A keyword row renames a
  /// parameter of `owner` and `old=` at its calls in the others; a function row (`old` the path
  /// of a module-level name) the name and every import and attribute path reaching it; an
  /// attribute row (no `owner`) the attribute in every file it is given to.
  std::vector<std::string> touches{};
  /// With `files` or `touches`: why the fixes are unsafe, for their titles: for a module, the
  /// places that would still name it ("`b.py:3` would still import it"); the uses that do not resolve
  /// ("`o.async` in `f.py:3`"), the files that already use the new name (a keyword row: those
  /// alone, "" for its unresolved calls).
  std::string unresolved{};
  /// Api rows without a `replacement`: the API was removed with no 1:1 successor, and this says
  /// what to write instead (AF316 reports it, without a fix). Empty otherwise.
  std::string message{};
  friend bool operator==(const RenameRow &, const RenameRow &) = default;
};

struct ASYNCFIX_API Config {
  RuleSelection rules;
  PythonVersion target{3, 8};
  /// How a renamed name is spelt: "{name}" is replaced by the old name. "{name}_" gives PEP 8's
  /// `async_` (the default), "is_{name}" gives `is_async`.
  std::string renameTemplate = "{name}_";
  /// Severity per rule code, replacing the rule's own (`[tool.asyncfix.severity]`).
  std::map<std::string, Severity, std::less<>> severity;
  /// Rows added to the built-in renames table; they win over a built-in row for the same name.
  std::vector<RenameRow> renames;
  /// The dotted package that relative imports in the linted file start from (`pkg` for
  /// `pkg/mod.py` and for `pkg/__init__.py`; "" for a top-level module); nullopt when unknown,
  /// and then relative imports are not resolved. Set by a front end that knows the project's
  /// module map (the CLI's project view).
  std::optional<std::string> package;
  /// The dotted module the linted file is (`pkg.kfac` for `pkg/kfac.py`), set by a front end
  /// that knows the project's module map, for the files that define a name the project renames
  /// together with its uses in other files (RenameRow::touches); nullopt otherwise.
  std::optional<std::string> module;

  /// The policy every rule and the suppression pass follow: `async` and `await` are reserved
  /// keywords from Python 3.7 on, so a name spelt so does not compile on such a target (its
  /// findings are errors, and only a `noqa` naming their code hides them); before 3.7 they are
  /// warnings.
  static constexpr PythonVersion kKeywordsReserved{3, 7};
  /// Whether `target` reserves `async` and `await` (kKeywordsReserved or later).
  bool keywordsReserved() const { return target >= kKeywordsReserved; }

  std::string renamed(std::string_view name) const;
  /// "async_" → "{name}_", "is_async" → "is_{name}", a template stays; nullopt when invalid.
  static std::optional<std::string> renameTemplateFor(std::string_view style);
  /// Validates the template: it must contain "{name}" and produce a valid Python identifier.
  static bool isValidRenameTemplate(std::string_view tmpl);
};

} // namespace asyncfix
