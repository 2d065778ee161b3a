// asyncfix/module_strings.h (internal, not installed) — string literals that name a module the project renames.
//
// A module of the project named `async` is renamed with every import of it (AF201); a string
// that names it (`mock.patch('pkg.async.helper')`, `importlib.import_module('pkg.async')`, an
// entry point `'pkg.async:main'`) would go on naming the old module. Such strings are reported,
// never edited: what a string means is the program's business. Knows nothing about files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "asyncfix/diagnostic.h"

namespace asyncfix {

/// A module the project renames: its dotted path, before and after.
struct RenamedModule {
  std::string old;
  std::string replacement;
};

/// True when `text` holds one of the modules' old paths at all (a substring search; the cheap
/// test before moduleStrings parses anything).
bool mentionsRenamedModule(std::string_view text, const std::vector<RenamedModule> &modules);

/// AF201 diagnostics (no fix; severity `severity`) for each place a string literal of `text`
/// (UTF-8 Python source) names one of `modules`: the old path, not inside a longer name, followed
/// by the end of the string, `.` or `:`. Comments and code are not looked at. Sorted by position.
std::vector<Diagnostic> moduleStrings(std::string_view text, const std::vector<RenamedModule> &modules,
                                      Severity severity);

/// The offsets of the string literals of `text` whose whole content names `module` in a way
/// moduleStrings() does not see: relative (`".async"`, `"..pkg.async"`, as
/// `importlib.import_module(".async", "pkg")` takes it), or with `bare`, its last component alone
/// (`__all__ = ["async"]` in the package that holds it). A cheap substring test comes first.
std::vector<std::size_t> relativeModuleStrings(std::string_view text, std::string_view module, bool bare);

} // namespace asyncfix
