// module_renames.cpp — the project view's module renames on disk, for a run with --fix
// (asyncfix/run.h: applyModuleRenames).
#if defined(_WIN32)
#include <windows.h>

#include "asyncfix/source_io.h"
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "asyncfix/run.h"

namespace asyncfix {

namespace fs = std::filesystem;

namespace {

/// rename(2) that never replaces `to`: atomic with Linux's renameat2 (and Windows's MoveFileExW
/// without MOVEFILE_REPLACE_EXISTING, written through). WebAssembly has no such call (Node's file
/// system neither): `to` is looked at first there, which a file made in between could race.
int renameNoReplace(const char *from, const char *to) {
#if defined(_WIN32)
  if (::MoveFileExW(widePath(from).c_str(), widePath(to).c_str(), MOVEFILE_WRITE_THROUGH)) return 0;
  const DWORD error = ::GetLastError();
  errno = error == ERROR_ALREADY_EXISTS || error == ERROR_FILE_EXISTS ? EEXIST
          : error == ERROR_ACCESS_DENIED                              ? EACCES
                                                                      : ENOENT;
  return -1;
#elif defined(__EMSCRIPTEN__)
  struct stat st {};
  if (::lstat(to, &st) == 0) {
    errno = EEXIST;
    return -1;
  }
  return ::rename(from, to);
#else
  return ::renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
#endif
}

} // namespace

bool moduleRenameApplies(const ModuleRename &r, bool unsafe) {
  return !r.refusal && (unsafe || r.applicability() == Applicability::Safe);
}

std::vector<std::string> applyModuleRenames(const ProjectView &view, bool unsafe, std::vector<bool> &done) {
  const std::vector<ModuleRename> &renames = view.renames();
  std::vector<std::string> problems;
  done.assign(renames.size(), false);
  std::vector<const ModuleRename *> order;
  order.reserve(renames.size());
  for (const ModuleRename &r : renames) order.push_back(&r);
  sortDeepestFirst(order);
  for (const ModuleRename *next : order) {
    const ModuleRename &r = *next;
    const auto i = static_cast<std::size_t>(next - renames.data());
    if (r.refusal) {
      if (!r.ignored) problems.push_back("error: " + r.path.from + ": " + *r.refusal + "; not renamed");
      continue;
    }
    if (!moduleRenameApplies(r, unsafe)) continue;
    // RENAME_NOREPLACE: atomic, and never over a file that appeared since the run began.
    if (renameNoReplace(r.path.from.c_str(), r.path.to.c_str()) != 0) {
      const int error = errno;
      problems.push_back("error: " + r.path.from + ": cannot rename to `" + r.path.to +
                         "`: " + (error == EEXIST ? std::string("it exists") : std::string(std::strerror(error))));
      continue;
    }
    done[i] = true;
#if !defined(_WIN32) // (MoveFileExW wrote through)
    const std::string parent = fs::path(r.path.to).parent_path().string();
    const int fd = ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
      ::fsync(fd); // the rename is on disk before the run says it is done
      ::close(fd);
    }
#endif
  }
  return problems;
}

} // namespace asyncfix
