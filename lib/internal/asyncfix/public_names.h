// asyncfix/public_names.h (internal, not installed) — what one file holds for the names other
// modules of the project use: parameters named `async`/`await` of functions that callers in other
// files can pass by keyword, and the calls that may reach such a function of another module;
// module-level names and attributes so named, and the uses that may reach another module's.
//
// The project view joins them across the files of a run (asyncfix/project_view.h): a parameter is
// renamed together with `async=` at every call that resolves to it, a module-level name with every
// import and attribute path that reaches it, an attribute with every use on an object the project
// knows. Knows nothing about files or the module map: paths are as the file's imports write them
// (relative ones keep their dots).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace asyncfix {

/// A parameter named `async`/`await` of a public function, method or class of the module.
struct PublicParameter {
  /// The callable, from its module: "fetch", "Kfac.step", and for `__init__` the class ("Kfac"),
  /// which is what callers call.
  std::string owner;
  std::string name;         ///< "async" or "await"
  bool constructor = false; ///< it is `__init__`'s (a `super().__init__(async=…)` may reach it)
  friend bool operator==(const PublicParameter &, const PublicParameter &) = default;
};

/// A call passing `async=`/`await=`, or `**mapping` (which may carry either).
struct KeywordCall {
  /// What the callee is through the file's imports: "pkg.kfac.Kfac", "pkg.kfac.Kfac.step" (a
  /// method of an instance the file made), ".kfac.Kfac" (a relative import: as many leading dots
  /// as its level). Empty when it does not resolve.
  std::string callee;
  std::string method;  ///< the callee's last name as written ("Kfac", "step"); "" when none
  std::string keyword; ///< "async" or "await"; "" for a `**mapping` argument
  bool local = false;  ///< the callee is the file's own function or class
  friend bool operator==(const KeywordCall &, const KeywordCall &) = default;
};

/// A use of a name `async`/`await` that may be another module's: through an import
/// (`from pkg.m import async`, `… import async as a`), an attribute of something the imports
/// name (`pkg.m.async`, `m.async` after `from pkg import m`, `C.async` after `from pkg.m import
/// C`), an attribute of an object (`c.async` after `c = C()`, `self.async`), or an attribute or
/// a free name the file cannot tell the origin of.
struct NameReference {
  enum class Kind : std::uint8_t {
    Path,       ///< `path` is what it names: "pkg.m.async", ".m.async" (relative: leading dots)
    Instance,   ///< an attribute of an object made by calling `path` ("pkg.m.C", ".m.C")
    Own,        ///< an attribute of the file's own class or of an instance of it (`self.async`)
    Unresolved, ///< `o.async` with `o` unknown; a free name `async` (a star import may bind it)
  };
  Kind kind = Kind::Unresolved;
  std::string path;
  std::string name;       ///< "async" or "await"
  std::string written;    ///< how the use reads, for messages: "o.async", "async"
  std::uint32_t line = 0; ///< 1-based
  friend bool operator==(const NameReference &, const NameReference &) = default;
};

struct PublicNames {
  std::vector<PublicParameter> parameters;
  std::vector<KeywordCall> calls; ///< in source order
  /// Names `async`/`await` the module binds at its top level (`async = …`, `def async(…)`,
  /// `class await:`, a `for` target, `global async` then an assignment; not a name it imports
  /// unaliased, which is another module's): other modules reach them as `module.async`.
  std::vector<std::string> globals;
  /// Attributes `async`/`await` the module's classes define: `self.async = …` in a method, a
  /// class-level `async = …` or `def async(self)`. The class from the module ("C", "C.Inner")
  /// and the name.
  std::vector<std::pair<std::string, std::string>> attributes;
  /// The module's top-level classes ("C"): what an object of one of the project's classes is.
  std::vector<std::string> classes;
  std::vector<NameReference> references; ///< in source order
  /// The module's other identifiers that contain `async`/`await` (`async_`, `is_async`, a keyword
  /// argument `await_=`), each once: a rename of the project's to one of them
  /// collides with it (every rename style keeps the old name in the new).
  std::vector<std::string> words;
  /// Names `async`/`await` that a string literal of the module spells exactly (`__all__ =
  /// ['async']`, `getattr(m, 'async')`): a rename leaves the string naming the old one.
  std::vector<std::string> quoted;
  /// The module binds `__all__`, which a star import of it follows (the names in it may be
  /// computed, out of reach of `quoted`).
  bool all = false;
  bool empty() const {
    return parameters.empty() && calls.empty() && globals.empty() && attributes.empty() && references.empty();
  }
};

/// The cheap test before findPublicNames() parses anything: a word `async`/`await` in code (not
/// in a string or a comment) that is not the keyword: a parameter, a keyword argument, a name, an
/// attribute (`async def` and `await x` are not). Says "maybe" too often, never "no" wrongly.
bool mayHavePublicNames(std::string_view text);

/// The parameters, calls, definitions and references of `text` (UTF-8 Python source). Calls with
/// `**mapping` are listed only when the file also passes or takes `async`/`await` (the project
/// view asks only files that mayHavePublicNames()). Names inside ERROR regions are left out.
PublicNames findPublicNames(std::string_view text);

/// What the top level of a module binds a name to, as another module that imports the name from
/// it sees it (`from pkg import helper` reads `pkg/__init__.py`).
struct ModuleBinding {
  enum class Kind : std::uint8_t {
    Unbound,   ///< no statement of the module binds it (a star import may)
    Imported,  ///< only imports of one path bind it: `from .impl import helper`, `… import h as helper`
    Defined,   ///< only the module's own `def` or `class` statements bind it
    Uncertain, ///< an assignment binds it (it may hold another module's function), or several
               ///< kinds of statement or imports of several paths, or a function (`global`)
  };
  Kind kind = Kind::Unbound;
  std::string path; ///< Imported: the path the import names (relative ones keep their dots: ".impl.helper")
  std::string why;  ///< Uncertain: what to say after the file's name ("binds `helper` more than once")
};

/// The names a module's top level binds, read on demand: what a re-exporting module (a package's
/// `__init__.py`) hands on to its importers. Parses the text once; knows nothing about files.
class ModuleNames {
public:
  explicit ModuleNames(std::string text);
  ~ModuleNames();
  ModuleNames(const ModuleNames &) = delete;
  ModuleNames &operator=(const ModuleNames &) = delete;

  ModuleBinding lookup(std::string_view name) const;
  /// The modules of its top-level `from M import *` (one level into `if`/`try` too), as written
  /// (".impl"), in source order.
  const std::vector<std::string> &stars() const { return stars_; }
  /// Its `__all__` when it binds one list or tuple of string literals, once; nullopt otherwise.
  const std::optional<std::vector<std::string>> &all() const { return all_; }
  /// It binds `__all__` otherwise (computed, extended, bound twice): a star import of it takes
  /// names no reader can list.
  bool allComputed() const { return allComputed_; }

private:
  struct Parsed;
  std::unique_ptr<Parsed> parsed_;
  std::vector<std::string> stars_;
  std::optional<std::vector<std::string>> all_;
  bool allComputed_ = false;
};

/// `relative` (".kfac.Kfac", "..util.f") resolved against `package` ("pkg.sub"; "" for a
/// top-level module); nullopt when it climbs above the top-level package.
std::optional<std::string> resolveRelative(std::string_view relative, std::string_view package);

} // namespace asyncfix
