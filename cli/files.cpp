// cli/files.cpp — directory walks: recursive, no symlinks, skip caches and virtualenvs.
#include "files.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>

#include <sys/stat.h>

namespace asyncfix::cli {
namespace fs = std::filesystem;
namespace {

std::string reasonOf(const std::error_code &ec) {
  if (ec == std::errc::permission_denied || ec == std::errc::operation_not_permitted) {
    return "permission denied";
  }
  std::string text = ec.message();
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z') {
    text[0] = static_cast<char>(text[0] - 'A' + 'a');
  }
  return text;
}

bool isPythonFile(const fs::path &path) {
  const auto ext = path.extension();
  return ext == ".py" || ext == ".pyi" || isNotebookPath(path);
}

/// The path as a user would write it: "./a/b.py" → "a/b.py", "src/" + "x.py" → "src/x.py".
std::string displayPath(const fs::path &path) {
  std::string text = path.lexically_normal().generic_string();
  if (text.size() > 1 && text.back() == '/') {
    text.pop_back();
  }
  return text;
}

/// Walks `root` (a directory) without recursion on the C++ stack.
void walkDirectory(const fs::path &root, WalkVisitor &visitor) {
  std::vector<fs::path> pending{root};
  while (!pending.empty()) {
    const fs::path dir = std::move(pending.back());
    pending.pop_back();
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
      visitor.error({displayPath(dir), reasonOf(ec)});
      continue;
    }
    visitor.enterDirectory(dir);
    for (const fs::directory_iterator end; it != end; it.increment(ec)) {
      const fs::directory_entry &entry = *it;
      // The entry's type as readdir gave it (no stat per entry where the filesystem reports
      // types, which was a third of a large walk).
      std::error_code statError;
      const bool symlink = entry.is_symlink(statError);
      const bool directory = !statError && !symlink && entry.is_directory(statError);
      const bool regular = !statError && !symlink && !directory && entry.is_regular_file(statError);
      if (statError) {
        visitor.error({displayPath(entry.path()), reasonOf(statError)});
        continue;
      }
      if (symlink) {
        continue;
      }
      const fs::path &path = entry.path();
      const std::string name = path.filename().string();
      if (directory) {
        if (!name.starts_with('.') && !visitor.excluded(path, name, true)) {
          pending.push_back(path);
        }
      } else if (regular && isPythonFile(path) && !visitor.excluded(path, name, false)) {
        visitor.file(displayPath(path), false);
      }
    }
    if (ec) {
      visitor.error({displayPath(dir), reasonOf(ec)});
    }
  }
}

/// Keeps the first of several names for one file (`a.py` and a link to it named on the command
/// line, or `a.py` and `/abs/a.py`): two workers must never fix the same file.
void removeAliases(std::vector<std::string> &files) {
  std::vector<std::pair<std::pair<dev_t, ino_t>, std::size_t>> ids;
  ids.reserve(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    struct stat st {};
    if (::stat(files[i].c_str(), &st) == 0) {
      ids.push_back({{st.st_dev, st.st_ino}, i});
    }
  }
  std::sort(ids.begin(), ids.end());
  std::vector<bool> drop(files.size(), false);
  for (std::size_t k = 1; k < ids.size(); ++k) {
    if (ids[k].first == ids[k - 1].first) {
      drop[ids[k].second] = true;
    }
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!drop[i]) {
      if (kept != i) {
        files[kept] = std::move(files[i]);
      }
      ++kept;
    }
  }
  files.resize(kept);
}

} // namespace

bool isNotebookPath(const fs::path &path) { return path.extension() == ".ipynb"; }

bool isPythonPath(const fs::path &path) { return isPythonFile(path); }

void walkPaths(const std::vector<std::string> &paths, WalkVisitor &visitor) {
  for (const std::string &given : paths) {
    const fs::path path(given);
    std::error_code ec;
    // Explicit paths are followed: `asyncfix check link.py` checks what the link points to.
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
      visitor.error(
          {given, ec && ec != std::errc::no_such_file_or_directory ? reasonOf(ec) : "no such file or directory"});
      continue;
    }
    if (fs::is_directory(status)) {
      walkDirectory(path, visitor);
    } else {
      visitor.file(displayPath(path), true);
    }
  }
}

void sortAndRemoveAliases(std::vector<std::string> &files) {
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  removeAliases(files);
}

FileList collectFiles(const std::vector<std::string> &paths, const std::function<bool(const fs::path &)> &excluded) {
  struct Collector final : WalkVisitor {
    const std::function<bool(const fs::path &)> &filter;
    FileList out;
    explicit Collector(const std::function<bool(const fs::path &)> &f) : filter(f) {}
    void enterDirectory(const fs::path & /*directory*/) override {}
    bool excluded(const fs::path &entry, std::string_view /*name*/, bool /*isDirectory*/) override {
      return filter(entry);
    }
    void file(std::string path, bool /*named*/) override { out.files.push_back(std::move(path)); }
    void error(PathError error) override { out.errors.push_back(std::move(error)); }
  } collector(excluded);
  walkPaths(paths, collector);
  sortAndRemoveAliases(collector.out.files);
  return std::move(collector.out);
}

} // namespace asyncfix::cli
