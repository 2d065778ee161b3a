// asyncfix/gitignore.h — "does git ignore this path?", answered by libgit2 the way git does:
// .gitignore files at every level (negation, anchoring, directory-only patterns),
// .git/info/exclude and the user's core.excludesFile.
#pragma once

#include <filesystem>
#include <memory>

#include "asyncfix/export.h"

namespace asyncfix {

/// Not thread-safe: one instance per thread (libgit2 repository handles are not shared).
class ASYNCFIX_API GitIgnore {
public:
  GitIgnore();
  ~GitIgnore();
  GitIgnore(const GitIgnore &) = delete;
  GitIgnore &operator=(const GitIgnore &) = delete;

  /// True when `path` (a file or a directory) lies in a git work tree and git ignores it.
  /// Paths outside any repository are never ignored.
  bool ignored(const std::filesystem::path &path);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace asyncfix
