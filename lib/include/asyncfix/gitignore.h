// asyncfix/gitignore.h — "does git ignore this path?", answered the way `git check-ignore` does,
// without git or any library: `.gitignore` files at every level (wildmatch patterns, negation,
// anchoring, directory-only patterns; deeper files and later lines win), `.git/info/exclude` and
// core.excludesFile (from the repository's, the global and the system configuration; by default
// $XDG_CONFIG_HOME/git/ignore). Nothing inside an ignored directory can be re-included.
// Repositories are found as git finds them (a `.git` directory, or a `.git` file as in linked
// work trees and submodules; nested repositories; not across filesystems). Not modelled:
// core.ignoreCase, includeIf in configuration files, GIT_DIR/GIT_WORK_TREE, and whether a file
// is tracked (git never ignores a tracked file; this answers as `check-ignore --no-index`).
#pragma once

#include <filesystem>
#include <memory>
#include <string_view>

#include "asyncfix/directory_listing.h"
#include "asyncfix/export.h"

namespace asyncfix {

/// Each directory's rules are read and compiled once, the first time a path in it is asked about,
/// and kept for the instance's life (later edits of ignore files are not seen). Not thread-safe:
/// one instance per thread.
class ASYNCFIX_API GitIgnore {
public:
  GitIgnore();
  ~GitIgnore();
  GitIgnore(const GitIgnore &) = delete;
  GitIgnore &operator=(const GitIgnore &) = delete;

  /// True when `path` (a file or a directory) lies in a git work tree and git ignores it.
  /// Paths outside any repository are never ignored; `.git` itself always is. A relative path is
  /// taken from the current directory.
  bool ignored(const std::filesystem::path &path);

  /// ignored(directory / name) for an entry of `directory` met while listing it, whose type the
  /// caller knows (a symbolic link is no directory). Asking about one directory's entries one after
  /// another normalises the directory's path once, not each entry's.
  bool ignored(const std::filesystem::path &directory, std::string_view name, bool isDirectory);
  /// The same, for a directory the caller has just listed: `listing` tells whether it holds a
  /// `.git` and a `.gitignore`, so the ones it lacks are not looked for when the directory's
  /// rules are first built.
  bool ignored(const std::filesystem::path &directory, std::string_view name, bool isDirectory,
               const DirectoryListing &listing);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace asyncfix
