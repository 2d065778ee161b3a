// cli/files.cpp — directory walks: recursive, no symlinks, skip caches and virtualenvs.
#include "files.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>

#include <dirent.h>
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

/// Whether an entry named `name` is a Python file to walk into: `.py`, `.pyi` or `.ipynb`, as
/// std::filesystem::path::extension reads it (a leading dot starts no extension: `.py` is none).
bool isPythonName(std::string_view name) {
  const std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return false;
  const std::string_view ext = name.substr(dot);
  return ext == ".py" || ext == ".pyi" || ext == ".ipynb";
}

/// `directory` and the entry `name`, joined with one '/'.
std::string joined(std::string_view directory, std::string_view name) {
  std::string out;
  out.reserve(directory.size() + 1 + name.size());
  out.append(directory);
  if (!out.empty() && out.back() != '/') out += '/';
  out.append(name);
  return out;
}

std::string errnoReason() { return reasonOf(std::error_code(errno, std::generic_category())); }

/// Walks `root` (a directory) without recursion on the C++ stack. With readdir and strings:
/// std::filesystem's iterator made and parsed a path object per entry, a tenth of a check of
/// 35 000 files. An entry's displayed path is its directory's (normalized once) and its name.
void walkDirectory(const fs::path &root, WalkVisitor &visitor) {
  struct Pending {
    std::string path, display;
  };
  std::vector<Pending> pending{{root.string(), displayPath(root)}};
  while (!pending.empty()) {
    const Pending dir = std::move(pending.back());
    pending.pop_back();
    DIR *handle = ::opendir(dir.path.c_str());
    if (handle == nullptr) {
      visitor.error({dir.display, errnoReason()});
      continue;
    }
    visitor.enterDirectory(dir.path);
    for (;;) {
      errno = 0;
      const dirent *entry = ::readdir(handle);
      if (entry == nullptr) {
        if (errno != 0) visitor.error({dir.display, errnoReason()});
        break;
      }
      const std::string_view name = entry->d_name;
      if (name == "." || name == "..") continue;
      std::string path = joined(dir.path, name);
      const auto display = [&] { return dir.display == "." ? std::string(name) : joined(dir.display, name); };
      // The entry's type as readdir gave it (no stat per entry where the filesystem reports
      // types, which was a third of a large walk); lstat where it does not.
      unsigned char type = entry->d_type;
      if (type == DT_UNKNOWN) {
        struct stat st {};
        if (::lstat(path.c_str(), &st) != 0) {
          visitor.error({display(), errnoReason()});
          continue;
        }
        type = S_ISLNK(st.st_mode) ? DT_LNK : S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
      }
      if (type == DT_DIR) {
        if (!name.starts_with('.') && !visitor.excluded(name, true)) pending.push_back({std::move(path), display()});
      } else if (type == DT_REG && isPythonName(name) && !visitor.excluded(name, false)) {
        visitor.file(display(), false);
      }
    }
    ::closedir(handle);
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
    fs::path directory;
    explicit Collector(const std::function<bool(const fs::path &)> &f) : filter(f) {}
    void enterDirectory(const fs::path &entered) override { directory = entered; }
    bool excluded(std::string_view name, bool /*isDirectory*/) override { return filter(directory / name); }
    void file(std::string path, bool /*named*/) override { out.files.push_back(std::move(path)); }
    void error(PathError error) override { out.errors.push_back(std::move(error)); }
  } collector(excluded);
  walkPaths(paths, collector);
  sortAndRemoveAliases(collector.out.files);
  return std::move(collector.out);
}

} // namespace asyncfix::cli
