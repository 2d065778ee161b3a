// asyncfix/settings.h — configuration files: discovery, parsing, layering with overrides.
//
// `[tool.asyncfix]` in pyproject.toml, or asyncfix.toml / .asyncfix.toml (same keys at the top
// level). The nearest file above a Python file applies to it, like Ruff; values given on the
// command line or by an editor (ConfigOverrides) win over the file.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "asyncfix/config.h"
#include "asyncfix/directory_listing.h"

#include "asyncfix/export.h"

namespace asyncfix {

/// Settings given by a front end (CLI flags, LSP initializationOptions); they override files.
struct ConfigOverrides {
  std::optional<std::vector<std::string>> select;
  std::vector<std::string> extendSelect;
  std::optional<std::vector<std::string>> ignore;
  std::optional<PythonVersion> target;
  std::optional<std::string> renameTemplate;
  std::optional<bool> unsafeFixes;
  std::optional<bool> respectGitignore;
  std::optional<std::string> docsUrl; ///< --docs-url, the language server's `docsUrl`
};

/// An absolute URL: a scheme, `://`, and something after it ("https://example.org/asyncfix"),
/// what `docs-url` must be wherever it is given (a file, a flag, asyncfix_run(), the editor).
inline bool isAbsoluteUrl(std::string_view url) {
  const std::size_t colon = url.find("://");
  if (colon == 0 || colon == std::string_view::npos || colon + 3 == url.size()) return false;
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (!letter(url[0])) return false;
  for (const char c : url.substr(0, colon))
    if (!letter(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.') return false;
  return true;
}

/// Rule selectors as the front ends take them: blanks around each dropped, empty entries skipped
/// ("AF101, AF0," split at the commas → AF101 AF0).
inline std::vector<std::string> cleanSelectors(const std::vector<std::string> &entries) {
  std::vector<std::string> out;
  for (const std::string &entry : entries) {
    const std::size_t first = entry.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    out.push_back(entry.substr(first, entry.find_last_not_of(" \t") - first + 1));
  }
  return out;
}

/// A problem in a configuration file, with its place: "pyproject.toml:12:1: unknown key `selct`".
struct ASYNCFIX_API ConfigError {
  std::string file;
  unsigned line = 0;   ///< 1-based; 0 when unknown (e.g. the file cannot be read)
  unsigned column = 0; ///< 1-based
  std::string message;
  std::string toString() const;
};

/// The settings that apply to one Python file, and where each came from.
struct ASYNCFIX_API ResolvedConfig {
  Config config; ///< per-file-ignores already folded into config.rules.ignore
  bool unsafeFixes = false;
  std::filesystem::path source; ///< the configuration file used; empty for the defaults
  /// key → "default" | "<file>" | "override": for `check --show-settings`.
  std::map<std::string, std::string> origins;
  /// Directory and file globs not to check: `exclude` (default: kDefaultExcludes) plus
  /// `extend-exclude`. A glob without `/` matches an entry's own name at any depth; one with `/`
  /// matches the path relative to the configuration file's directory (or a directory above it).
  std::vector<std::string> exclude;
  std::vector<std::pair<std::string, std::vector<std::string>>> perFileIgnores; ///< glob → codes
  bool respectGitignore = true;
  /// `src`: the directories that hold top-level modules and packages (Ruff's `src`), as the
  /// configuration writes them: relative to its directory (to the current directory without
  /// one). Kept as written: resolving costs system calls, and a walk resolves every file.
  std::vector<std::string> src{".", "src"};
  /// `module-rename-style`: how a module or package of the project named `async`/`await` is
  /// renamed. "asynchronous" (the default: `async` → `asynchronous`, `await` → `awaitable`) or a
  /// template in which "{name}" stands for the old name ("_{name}").
  std::string moduleRenameStyle = "asynchronous";
  /// `docs-url`: the address of the manual (the repository's docs/) for the links to rule pages
  /// that the front ends print (ruleUrl() in rules.h); empty: defaultDocsUrl().
  std::string docsUrl;

  /// `src` as absolute, normalized directories.
  std::vector<std::filesystem::path> srcRoots() const;
  /// The new name of a module named `name` (`async`/`await`) under moduleRenameStyle.
  std::string renamedModule(std::string_view name) const;

  /// True when `path` (a file or directory) matches `exclude`.
  bool excluded(const std::filesystem::path &path) const;
};

/// ResolvedConfig::excluded() for the entries of one directory, with what does not depend on the
/// entry worked out once per directory: names without wildcards compared as text (no fnmatch),
/// the directory's path relative to the configuration file computed once (not two absolute paths
/// per entry). Keeps a reference to nothing.
class ASYNCFIX_API ExcludeMatcher {
public:
  ExcludeMatcher(const ResolvedConfig &config, const std::filesystem::path &directory);
  /// The answer of config.excluded(directory / name) for a plain file or directory name.
  bool excluded(std::string_view name) const;

private:
  std::vector<std::string> literalNames_; ///< globs without `/` or wildcards
  std::vector<std::string> nameGlobs_;    ///< globs without `/`, with wildcards
  std::vector<std::string> pathGlobs_;    ///< globs with `/`
  std::filesystem::path directory_;       ///< as given
  std::filesystem::path base_;            ///< the configuration's directory ("" for none)
  std::filesystem::path relative_;        ///< directory_ relative to base_ (as excluded() computes it)
  bool atBase_ = false;                   ///< directory_ is base_
  bool exact_ = false;                    ///< base_ lies below directory_: compute each path in full
};

/// What a directory walk skips when no configuration says otherwise.
ASYNCFIX_API extern const std::vector<std::string> kDefaultExcludes;

/// Parses one configuration file's text. `path` names it in errors and decides the layout
/// (pyproject.toml: the [tool.asyncfix] table; otherwise the top level). nullopt when a
/// pyproject.toml has no [tool.asyncfix] table (it does not count as a configuration file).
ASYNCFIX_API std::optional<std::variant<ResolvedConfig, ConfigError>> parseConfigFile(const std::filesystem::path &path,
                                                                                      std::string_view text);

/// Settings given as one JSON object with the configuration file's keys — `select`, `ignore`,
/// `extend-select`, `target-version`, `rename-style`, `unsafe-fixes`, `severity`,
/// `per-file-ignores`, `renames`, … (see docs/configuration.md) — as the C API and the Python
/// bindings take them: `{"select": ["AF1"], "target-version": "py38"}`. `forFile` is matched
/// against `per-file-ignores` as it is given (relative to the current directory). An empty `json`
/// means the defaults. Errors name the key ("options: unknown rule code `AF999` in `select`") or
/// the place of invalid JSON.
ASYNCFIX_API std::variant<ResolvedConfig, ConfigError> parseJsonSettings(std::string_view json,
                                                                         const std::filesystem::path &forFile = {});

/// Finds and caches the configuration of each directory. Thread-safe.
class ASYNCFIX_API ConfigResolver {
public:
  struct Options {
    ConfigOverrides overrides;
    std::optional<std::filesystem::path> configFile; ///< --config: this file for every file
    bool isolated = false;                           ///< --isolated: no files at all
  };
  explicit ConfigResolver(Options options);
  ~ConfigResolver();

  /// The settings for `file` (a file, or a directory met during a walk): the nearest
  /// configuration file in the directory holding it or above, then the overrides; per-file-ignores
  /// matched against the path relative to the configuration file's directory.
  std::variant<ResolvedConfig, ConfigError> forFile(const std::filesystem::path &file) const;
  /// forFile() for an entry of a directory that a walk has just listed: `listing` tells which
  /// configuration files that directory holds, so the ones it lacks are not looked for.
  std::variant<ResolvedConfig, ConfigError> forFile(const std::filesystem::path &file,
                                                    const DirectoryListing &listing) const;
  /// The settings of the entries of `directory`, which a walk has just listed (`listing`): what
  /// forFile() gives each of them, but with no per-file-ignores applied (so the same for every
  /// entry when `perFileIgnores` is empty). Resolved once per configuration file and shared by
  /// every directory under it: a walk asks for each directory, forFile() for each file.
  std::shared_ptr<const std::variant<ResolvedConfig, ConfigError>> forEntriesOf(const std::filesystem::path &directory,
                                                                                const DirectoryListing &listing) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace asyncfix
