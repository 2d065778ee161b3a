// asyncfix/public_names.h (internal, not installed) — what one file holds for the names other
// modules of the project use: parameters named `async`/`await` of functions that callers in other
// files can pass by keyword, and the calls that may reach such a function of another module.
//
// The CLI's project view joins them across the files of a run (cli/project.h): a parameter is
// renamed together with `async=` at every call that resolves to it. Knows nothing about files or
// the module map: paths are as the file's imports write them (relative ones keep their dots).
#pragma once

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

struct PublicNames {
  std::vector<PublicParameter> parameters;
  std::vector<KeywordCall> calls; ///< in source order
  bool empty() const { return parameters.empty() && calls.empty(); }
};

/// The cheap test before findPublicNames() parses anything: a word `async`/`await` in code (not
/// in a string or a comment) followed by `=`, `,`, `)` or `:` (a parameter or a keyword argument;
/// `async def` and `await x` are not). Says "maybe" too often, never "no" wrongly.
bool mayHavePublicNames(std::string_view text);

/// The parameters and calls of `text` (UTF-8 Python source). Calls with `**mapping` are listed
/// only when the file also passes or takes `async`/`await` (the project view asks only files
/// that mayHavePublicNames()). Names inside ERROR regions are left out.
PublicNames findPublicNames(std::string_view text);

/// `relative` (".kfac.Kfac", "..util.f") resolved against `package` ("pkg.sub"; "" for a
/// top-level module); nullopt when it climbs above the top-level package.
std::optional<std::string> resolveRelative(std::string_view relative, std::string_view package);

} // namespace asyncfix
