// walk.cpp — directory walks: recursive, no symlinks, skip caches and virtualenvs
// (asyncfix/walk.h).
#include "asyncfix/walk.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>

#include "asyncfix/platform.h"
#include "asyncfix/source_io.h"

#if defined(_WIN32)
#include <io.h>
#include <windows.h>
#else
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace asyncfix {
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
  return ext == ".py" || ext == ".pyi" || isNotebookFile(path);
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

[[maybe_unused]] std::string errnoReason() { return reasonOf(std::error_code(errno, std::generic_category())); }

#if defined(_WIN32)

// Windows: directories are listed by path (FindFirstFileExW), their entries' kinds come with the
// listing, and no directory is held open for its files' readers (files are opened by path).
// A reparse point (a symlink or a junction) is a link: never followed, as on POSIX.
enum : unsigned char { DT_UNKNOWN = 0, DT_DIR = 4, DT_REG = 8, DT_LNK = 10 };

int maxOpenDirectories() { return 0; }

struct Listing {
  struct Entry {
    std::uint32_t offset, size;
    unsigned char type;
  };
  std::string names;
  std::vector<Entry> entries;
  DirectoryListing holds;
  std::string failure; ///< why read() failed

  std::string_view name(const Entry &e) const { return std::string_view(names).substr(e.offset, e.size); }

  /// Reads the entries of the directory at `path`; false (and `failure`) when it could not.
  bool read(const std::string &path) {
    names.clear();
    entries.clear();
    holds = DirectoryListing::listed();
    WIN32_FIND_DATAW found{};
    HANDLE h = ::FindFirstFileExW(widePath(path + "\\*").c_str(), FindExInfoBasic, &found, FindExSearchNameMatch,
                                  nullptr, FIND_FIRST_EX_LARGE_FETCH);
    if (h == INVALID_HANDLE_VALUE) {
      const DWORD error = ::GetLastError();
      if (error == ERROR_FILE_NOT_FOUND) return true; // nothing in it
      holds = DirectoryListing{};
      failure = error == ERROR_ACCESS_DENIED ? "permission denied"
                : error == ERROR_PATH_NOT_FOUND || error == ERROR_DIRECTORY
                    ? "no such file or directory"
                    : reasonOf(std::error_code(static_cast<int>(error), std::system_category()));
      return false;
    }
    do {
      const std::string name = utf8Text(found.cFileName);
      if (name == "." || name == "..") continue;
      const DWORD a = found.dwFileAttributes;
      const unsigned char type = (a & FILE_ATTRIBUTE_REPARSE_POINT) != 0 ? DT_LNK
                                 : (a & FILE_ATTRIBUTE_DIRECTORY) != 0   ? DT_DIR
                                 : (a & FILE_ATTRIBUTE_DEVICE) != 0      ? DT_UNKNOWN
                                                                         : DT_REG;
      holds.add(name);
      entries.push_back({static_cast<std::uint32_t>(names.size()), static_cast<std::uint32_t>(name.size()), type});
      names.append(name);
    } while (::FindNextFileW(h, &found));
    ::FindClose(h);
    return true;
  }
};

#else

/// How many directories a walk keeps open for their files' readers: 64, fewer when the process
/// may open few files (a quarter of what the limit leaves after 32 for everything else). A walk
/// that runs far ahead of the readers (files that need parsing) lists the later directories and
/// closes them; their files are opened by path.
int maxOpenDirectories() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur == RLIM_INFINITY) return 64;
  return limit.rlim_cur <= 32 ? 0 : static_cast<int>(std::min<rlim_t>(64, (limit.rlim_cur - 32) / 4));
}

/// One directory's entries, read whole before any is looked at (so that its configuration and
/// ignore files are known first). The names are kept in one buffer, reused from directory to
/// directory.
struct Listing {
  struct Entry {
    std::uint32_t offset, size;
    unsigned char type;
  };
  std::vector<char> buffer = std::vector<char>(std::size_t{1} << 15);
  std::string names;
  std::vector<Entry> entries;
  DirectoryListing holds;

  std::string_view name(const Entry &e) const { return std::string_view(names).substr(e.offset, e.size); }

  /// Reads the entries of the directory open as `fd`; false (and errno) when reading failed
  /// part-way (the entries read before the failure are kept, and `holds` knows nothing then).
  bool read(int fd) {
    names.clear();
    entries.clear();
    holds = DirectoryListing::listed();
    for (;;) {
      // (glibc takes a void *, emscripten's libc a dirent *: the cast suits both)
      const ssize_t n = ::getdents64(fd, reinterpret_cast<dirent64 *>(buffer.data()), buffer.size());
      if (n < 0 && errno == ENOENT) return true; // removed while listed: its end, as readdir has it
      if (n < 0) {
        if (errno == EINTR) continue;
        const int error = errno;
        holds = DirectoryListing{};
        errno = error;
        return false;
      }
      if (n == 0) return true;
      for (ssize_t at = 0; at < n;) {
        dirent64 entry{};
        std::memcpy(&entry, buffer.data() + at, offsetof(dirent64, d_name)); // the buffer is unaligned
        const std::string_view name(buffer.data() + at + offsetof(dirent64, d_name));
        at += entry.d_reclen;
        if (name == "." || name == "..") continue;
        holds.add(name);
        entries.push_back(
            {static_cast<std::uint32_t>(names.size()), static_cast<std::uint32_t>(name.size()), entry.d_type});
        names.append(name);
      }
    }
  }
};

#endif

/// A file descriptor closed when it goes out of scope, unless released.
class UniqueFd {
public:
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  UniqueFd(const UniqueFd &) = delete;
  UniqueFd &operator=(const UniqueFd &) = delete;
  int get() const { return fd_; }
  bool owns() const { return fd_ >= 0; }
  void release() { fd_ = -1; }

private:
  int fd_;
};

/// What one walkPaths() keeps across its roots: the listing buffers, and the directories it holds
/// open for their files' readers (counted over the whole run: at -j 1 every directory's files
/// wait for the end of the walk).
struct WalkState {
  Listing listing;
  std::shared_ptr<std::atomic<int>> open = std::make_shared<std::atomic<int>>(0);
  int maxOpen = 0;
};

/// An entry of a listed directory that the walk visits: a Python file or a subdirectory.
struct Item {
  std::uint32_t offset, size; ///< its name in the directory's Frame::names
  bool directory;
};

/// Whether `a` comes before `b` in path order: as the paths below their directory compare,
/// a directory's name followed by the `/` its entries' paths go on with (`a-b.py` < `a.py` < `a/`
/// < `a0.py`), bytes compared unsigned as std::string compares them.
bool inPathOrder(std::string_view a, bool aDirectory, std::string_view b, bool bDirectory) {
  const std::size_t n = std::min(a.size(), b.size());
  if (const int c = std::memcmp(a.data(), b.data(), n); c != 0 || (a.size() == n && b.size() == n)) return c < 0;
  if (a.size() == n) return !aDirectory || '/' < static_cast<unsigned char>(b[n]); // a, then '/' or its end
  return bDirectory && static_cast<unsigned char>(a[n]) < '/';
}

/// A directory being walked: its entries to visit in path order, and how far the walk is.
struct Frame {
  std::string path, display;
  DirectoryListing holds; ///< what it holds, for the visitor (told again when the walk comes back)
  std::string names;
  std::vector<Item> items;
  std::size_t next = 0;
  /// The directory itself, kept open (a physical walk's, while the walk may keep one more open):
  /// its files and subdirectories are opened relative to it. Null: by path.
  std::shared_ptr<const OpenDirectory> handle;

  std::string_view name(const Item &item) const { return std::string_view(names).substr(item.offset, item.size); }
  std::string displayOf(std::string_view name) const {
    return display == "." ? std::string(name) : joined(display, name);
  }
};

/// Lists the directory `frame` names (opened relative to `parent` when that is open) into
/// `frame`: tells the visitor, asks it which entries to skip, and sorts the others into path
/// order. False when it could not be opened (reported).
bool listInto(Frame &frame, const OpenDirectory *parent, WalkVisitor &visitor, WalkState &state, bool physical) {
  Listing &listing = state.listing;
#if defined(_WIN32)
  (void)parent;
  UniqueFd fd(-1); // nothing held open on Windows
  if (!listing.read(frame.path)) {
    visitor.error({frame.display, listing.failure});
    return false;
  }
#else
  constexpr int kFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
  UniqueFd fd(parent != nullptr ? ::openat(parent->fd(), frame.path.c_str() + frame.path.rfind('/') + 1, kFlags)
                                : ::open(frame.path.c_str(), kFlags));
  if (!fd.owns()) {
    visitor.error({frame.display, errnoReason()});
    return false;
  }
  if (!listing.read(fd.get())) visitor.error({frame.display, errnoReason()});
#endif
  frame.holds = physical ? listing.holds : DirectoryListing{};
  visitor.enterDirectory(pathFromUtf8(frame.path), frame.holds);
  frame.names.clear();
  frame.items.clear();
  frame.next = 0;
  for (const Listing::Entry &e : listing.entries) {
    const std::string_view name = listing.name(e);
    // The entry's type as the listing gave it (no stat per entry where the filesystem reports
    // types, which was a third of a large walk); lstat where it does not.
    unsigned char type = e.type;
#if !defined(_WIN32) // (Windows's listing always has the kind)
    if (type == DT_UNKNOWN) {
      struct stat st {};
      if (::fstatat(fd.get(), std::string(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        visitor.error({frame.displayOf(name), errnoReason()});
        continue;
      }
      type = S_ISLNK(st.st_mode) ? DT_LNK : S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
    }
#endif
    const bool directory = type == DT_DIR;
    if (directory ? name.starts_with('.') || visitor.excluded(name, true)
                  : type != DT_REG || !isPythonName(name) || visitor.excluded(name, false))
      continue;
    frame.items.push_back(
        {static_cast<std::uint32_t>(frame.names.size()), static_cast<std::uint32_t>(name.size()), directory});
    frame.names.append(name);
  }
  std::sort(frame.items.begin(), frame.items.end(), [&](const Item &a, const Item &b) {
    return inPathOrder(frame.name(a), a.directory, frame.name(b), b.directory);
  });
  frame.handle.reset();
  if (physical && fd.owns() && !frame.items.empty() && state.open->load() < state.maxOpen) {
    frame.handle = std::make_shared<const OpenDirectory>(fd.get(), state.open);
    fd.release(); // the handle closes it
  }
  return true;
}

/// Walks `root` (a directory) without recursion on the C++ stack, its files in path order: each
/// directory's entries sorted as their paths sort (inPathOrder()), a subdirectory walked where
/// its name comes, so that the files come as a sort of their paths would put them. With
/// getdents64 and strings: std::filesystem's iterator made and parsed a path object per entry, a
/// tenth of a check of 35 000 files. An entry's displayed path is its directory's (normalized
/// once) and its name. `physical`: the displayed paths name the directories listed. Not so under
/// a root such as `link/..`, which the kernel resolves through the link and the displayed path
/// does not: there the listings are not trusted for the displayed directories' files, and files
/// are opened by their displayed path.
void walkDirectory(const fs::path &root, WalkVisitor &visitor, WalkState &state, bool physical) {
  std::vector<Frame> frames(1); // the directories being walked, the root first (reused by depth)
  std::size_t depth = 1;
  frames[0].path = root.string();
  frames[0].display = displayPath(root);
  if (!listInto(frames[0], nullptr, visitor, state, physical)) return;
  std::size_t entered = 0; // the frame the visitor was told of last
  while (depth > 0) {
    Frame &frame = frames[depth - 1];
    if (frame.next == frame.items.size()) {
      frame.handle.reset(); // its files' jobs hold it as long as they need it
      --depth;
      continue;
    }
    const Item item = frame.items[frame.next++];
    if (!item.directory) {
      if (entered != depth - 1) visitor.enterDirectory(pathFromUtf8(frame.path), frame.holds); // back from below
      entered = depth - 1;
      visitor.file(frame.displayOf(frame.name(item)), false, frame.handle);
      continue;
    }
    std::string path = joined(frame.path, frame.name(item)), display = frame.displayOf(frame.name(item));
    if (frames.size() == depth) frames.emplace_back(); // (moves the frames: `frame` is not used below)
    Frame &below = frames[depth];
    below.path = std::move(path);
    below.display = std::move(display);
    if (listInto(below, frames[depth - 1].handle.get(), visitor, state, physical)) {
      entered = depth;
      ++depth;
    }
  }
}

/// Keeps the first of several names for one file (`a.py` and a link to it named on the command
/// line, or `a.py` and `/abs/a.py`): two workers must never fix the same file.
void removeAliases(std::vector<std::string> &files) {
  std::vector<std::pair<std::pair<std::uint64_t, std::uint64_t>, std::size_t>> ids;
  ids.reserve(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (const auto id = fileIdentity(files[i])) ids.push_back({*id, i});
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

OpenDirectory::OpenDirectory(int fd, std::shared_ptr<std::atomic<int>> open) : fd_(fd), open_(std::move(open)) {
  ++*open_;
}

OpenDirectory::~OpenDirectory() {
#if !defined(_WIN32) // never made on Windows
  ::close(fd_);
#endif
  --*open_;
}

bool isNotebookFile(const fs::path &path) { return path.extension() == ".ipynb"; }

bool isNotebookName(std::string_view path) {
#if defined(_WIN32)
  const std::size_t slash = path.find_last_of("/\\:");
#else
  const std::size_t slash = path.rfind('/');
#endif
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const std::size_t dot = name.rfind('.');
  return dot != std::string_view::npos && dot != 0 && name.substr(dot) == ".ipynb";
}

bool isPythonPath(const fs::path &path) { return isPythonFile(path); }

void walkPaths(const std::vector<std::string> &paths, WalkVisitor &visitor, bool keepOpen) {
  WalkState state;
  state.maxOpen = keepOpen ? maxOpenDirectories() : 0;
  for (const std::string &given : paths) {
    const fs::path path = pathFromUtf8(given);
    std::error_code ec;
    // Explicit paths are followed: `asyncfix check link.py` checks what the link points to.
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
      visitor.error(
          {given, ec && ec != std::errc::no_such_file_or_directory ? reasonOf(ec) : "no such file or directory"});
      continue;
    }
    if (fs::is_directory(status)) {
      const bool physical = std::none_of(path.begin(), path.end(), [](const fs::path &part) { return part == ".."; });
      walkDirectory(path, visitor, state, physical);
    } else {
      visitor.file(displayPath(path), true, nullptr);
    }
  }
}

void sortAndRemoveAliases(std::vector<std::string> &files) {
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  removeAliases(files);
}

FileList collectFiles(const std::vector<std::string> &paths, const WalkFilter &excluded, bool aliases) {
  struct Collector final : WalkVisitor {
    const WalkFilter &filter;
    FileList out;
    fs::path directory;
    DirectoryListing listing;
    explicit Collector(const WalkFilter &f) : filter(f) {}
    void enterDirectory(fs::path entered, const DirectoryListing &holds) override {
      directory = std::move(entered);
      listing = holds;
    }
    bool excluded(std::string_view name, bool isDirectory) override {
      return filter(directory, name, isDirectory, listing);
    }
    void file(std::string path, bool /*named*/, std::shared_ptr<const OpenDirectory> /*directory*/) override {
      out.files.push_back(std::move(path));
    }
    void error(PathError error) override { out.errors.push_back(std::move(error)); }
  } collector(excluded);
  walkPaths(paths, collector);
  std::vector<std::string> &files = collector.out.files;
  if (aliases) {
    sortAndRemoveAliases(files);
  } else {
    std::sort(files.begin(), files.end());
    files.erase(std::unique(files.begin(), files.end()), files.end());
  }
  return std::move(collector.out);
}

} // namespace asyncfix
