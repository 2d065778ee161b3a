// asyncfix/walk.h (internal, not installed) — turning the paths a run is given into the list of
// files to check: directory walks that skip caches and virtualenvs and never follow a symlink.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "asyncfix/directory_listing.h"

namespace asyncfix {

/// A path that could not be used, and why ("no such file or directory").
struct PathError {
  std::string path;
  std::string reason;
};

struct FileList {
  /// Sorted, spelt relative to the inputs, each file once (of several names for one file, such as
  /// a symlink named on the command line and its target, the first in sorted order is kept).
  std::vector<std::string> files;
  std::vector<PathError> errors; ///< in the order they were met
};

/// True for a Jupyter notebook (`.ipynb`), which is checked as notebook JSON rather than Python.
bool isNotebookFile(const std::filesystem::path &path);

/// isNotebookFile() of a path spelt as a string, with no std::filesystem::path made (a run asks
/// it of every file): its last component's extension, as path::extension reads it, is `.ipynb`.
bool isNotebookName(std::string_view path);

/// True for the files a walk collects: `.py`, `.pyi` and `.ipynb`.
bool isPythonPath(const std::filesystem::path &path);

/// A directory a walk has listed, kept open for the files and subdirectories found in it: they
/// are opened relative to it (openat), which spares the kernel a lookup of every component of
/// each one's path. Closed when the last file's job, and the walk of its last subdirectory, let
/// go of it.
class OpenDirectory {
public:
  /// Takes `fd`; `open` counts the walk's open directories (one less when this one closes).
  OpenDirectory(int fd, std::shared_ptr<std::atomic<int>> open);
  ~OpenDirectory();
  OpenDirectory(const OpenDirectory &) = delete;
  OpenDirectory &operator=(const OpenDirectory &) = delete;
  int fd() const { return fd_; }

private:
  int fd_;
  std::shared_ptr<std::atomic<int>> open_;
};

/// What a walk asks of its caller, in the order it meets things (see walkPaths).
class WalkVisitor {
public:
  virtual ~WalkVisitor() = default;
  /// The walk has listed `directory` (as walked: the root as given, then its entries' names);
  /// `listing` tells which configuration and ignore files it holds. excluded() is asked next
  /// about its entries, one after another.
  virtual void enterDirectory(std::filesystem::path directory, const DirectoryListing &listing) = 0;
  /// Whether to skip the entry `name` (a subdirectory or a Python file) of the directory last
  /// entered.
  virtual bool excluded(std::string_view name, bool isDirectory) = 0;
  /// A file to check, spelt as FileList spells it. `named`: given as a path, not met in a walk.
  /// `directory`: the directory it was found in, kept open (walkPaths' `keepOpen`; not for every
  /// directory: a walk far ahead of the files' readers closes the rest); the file is the entry
  /// named by the path's last component.
  virtual void file(std::string path, bool named, std::shared_ptr<const OpenDirectory> directory) = 0;
  virtual void error(PathError error) = 0;
};

/// The walk behind collectFiles, reporting each file as it is found: a directory's files in path
/// order (each directory's entries sorted as their paths sort, a subdirectory walked where its
/// name comes, and the visitor told of a directory again when its files go on after a
/// subdirectory's), the paths one after another, not deduplicated (two paths may name one file,
/// the same spelling may come twice when the paths overlap). Same rules as collectFiles otherwise. `keepOpen`: hand
/// files their open directory (at most 64 directories are open at a time over the whole walk, fewer under a low
/// RLIMIT_NOFILE; none under a root that climbs out of a link, such as `link/..`).
void walkPaths(const std::vector<std::string> &paths, WalkVisitor &visitor, bool keepOpen = false);

/// Sorts `files`, drops repeated spellings and then the later names of one file (same device and
/// inode): FileList's order and uniqueness.
void sortAndRemoveAliases(std::vector<std::string> &files);

/// Collects the files to check. A file named explicitly is checked whatever its extension (a
/// symlink to a file too). A directory is walked recursively for `.py`, `.pyi` and `.ipynb` files,
/// skipping hidden directories, the usual virtualenv/build/cache directories, and every symlink
/// found during the walk (so the walk never leaves the tree and cannot loop). Unreadable
/// directories and missing paths are reported in `errors`; the walk goes on.
/// `excluded` decides, for every directory and file met during a walk, whether to skip it (the
/// configuration's `exclude`): it is given the entry's directory, its name, whether it is a
/// directory, and what the directory's listing holds. Hidden directories are always skipped.
/// `aliases` false: the later names of one file are left in (sorted, each spelling once), for a
/// caller that learns each file's identity as it reads it (no stat per file here).
using WalkFilter = std::function<bool(const std::filesystem::path &directory, std::string_view name, bool isDirectory,
                                      const DirectoryListing &listing)>;
FileList collectFiles(const std::vector<std::string> &paths, const WalkFilter &excluded, bool aliases = true);

} // namespace asyncfix
