// source_io.cpp — POSIX file I/O for a run: read, check, write atomically (asyncfix/source_io.h).
#include "asyncfix/source_io.h"

#include "asyncfix/utf8.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "asyncfix/line_index.h"

namespace asyncfix {
namespace {

std::string describeErrno(int error) {
  if (error == EACCES || error == EPERM) {
    return "permission denied";
  }
  std::string text = std::generic_category().message(error);
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z') {
    text[0] = static_cast<char>(text[0] - 'A' + 'a');
  }
  return text;
}

FileStamp stampOf(const struct stat &st) {
  FileStamp stamp;
  stamp.device = static_cast<std::uint64_t>(st.st_dev);
  stamp.inode = static_cast<std::uint64_t>(st.st_ino);
  stamp.size = static_cast<std::int64_t>(st.st_size);
  stamp.mtimeSec = static_cast<std::int64_t>(st.st_mtim.tv_sec);
  stamp.mtimeNsec = static_cast<std::int64_t>(st.st_mtim.tv_nsec);
  return stamp;
}

/// Closes a file descriptor when it goes out of scope.
class FdGuard {
public:
  explicit FdGuard(int fd) : fd_(fd) {}
  ~FdGuard() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  FdGuard(const FdGuard &) = delete;
  FdGuard &operator=(const FdGuard &) = delete;
  int get() const { return fd_; }
  /// Closes now and reports the result (close can report a delayed write error).
  int close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

private:
  int fd_;
};

/// Appends everything readable from `fd` to `out`; returns 0 or an errno value.
int readAll(int fd, std::string &out) {
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return errno;
    }
    if (n == 0) {
      return 0;
    }
    out.append(buffer, static_cast<std::size_t>(n));
  }
}

/// readAll() for a file whose size is known: straight into `out` (no bounce through a buffer on
/// the stack), then whatever it grew by since. It asks for one byte more than the size: a read
/// that ends exactly at the size is the end of the file, and needs no second read to learn it.
/// `out` may hold bytes of an earlier read (a worker's last file): they are read over, not
/// cleared first, so that its resize() fills with zeros only what it grows by (std::string has no
/// way to grow without filling before C++23's resize_and_overwrite, which g++ 10 lacks).
int readSized(int fd, std::size_t size, std::string &out) {
  if (size == 0) { // procfs and sysfs files say 0 and hold text
    out.clear();
    return readAll(fd, out);
  }
  out.resize(size + 1);
  std::size_t done = 0;
  while (done <= size) {
    const ssize_t n = ::read(fd, out.data() + done, size + 1 - done);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return errno;
    }
    done += static_cast<std::size_t>(n);
    if (n == 0 || done == size) { // the end (it shrank while we read, if before the size)
      out.resize(done);
      return 0;
    }
  }
  return readAll(fd, out); // grew while we read
}

/// readSized() into `buffer` (which holds the file's bytes at [0, `size`) after it).
int readInto(int fd, std::size_t expected, ReadBuffer &buffer, std::size_t &size) {
  size = 0;
  std::string rest; // what a file said to be empty holds, or what it grew by while we read
  if (expected > 0) {
    char *const data = buffer.room(expected + 1);
    while (size <= expected) {
      const ssize_t n = ::read(fd, data + size, expected + 1 - size);
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno;
      }
      size += static_cast<std::size_t>(n);
      if (n == 0 || size == expected) return 0; // the end (it shrank while we read, if before the size)
    }
  }
  const int error = readAll(fd, rest); // procfs and sysfs files say 0 and hold text; or it grew
  if (!rest.empty()) std::memcpy(buffer.room(size + rest.size(), size) + size, rest.data(), rest.size());
  size += rest.size();
  return error;
}

int writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return errno;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

std::string parentDirectory(const std::string &path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) {
    return ".";
  }
  if (slash == 0) {
    return "/";
  }
  return path.substr(0, slash);
}

std::string baseName(const std::string &path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// Opens the entry `name` of `directory` for reading when it is a regular file, filling `result`'s
/// stamp and links; -1 (and `result.error`) when it is not one or cannot be opened.
int openRegular(int directory, const char *name, ReadResult &result) {
  // O_NONBLOCK: a FIFO named on the command line must not hang the run (it is rejected below).
  const int fd = ::openat(directory, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    result.error = describeErrno(errno);
    return -1;
  }
  struct stat st {};
  const char *refused = nullptr;
  if (::fstat(fd, &st) != 0) {
    result.error = describeErrno(errno);
  } else if (S_ISDIR(st.st_mode)) {
    refused = "is a directory";
  } else if (!S_ISREG(st.st_mode)) {
    refused = "not a regular file, skipped";
  }
  if (refused != nullptr) result.error = refused;
  if (result.error) {
    ::close(fd);
    return -1;
  }
  result.stamp = stampOf(st);
  result.links = static_cast<std::uint64_t>(st.st_nlink);
  return fd;
}

} // namespace

std::optional<std::pair<std::uint64_t, std::uint64_t>> fileIdentity(const std::string &path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::make_pair(static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino));
}

ReadResult readSourceFile(const std::string &path, std::string spare) {
  return readSourceFileAt(AT_FDCWD, path.c_str(), std::move(spare));
}

ReadResult readSourceFileAt(int directory, const char *name, std::string spare) {
  ReadResult result;
  const FdGuard guard(openRegular(directory, name, result));
  if (guard.get() < 0) return result;
  result.bytes = std::move(spare); // its memory, and its bytes (readSized reads over them)
  if (const int error =
          readSized(guard.get(), static_cast<std::size_t>(std::max<std::int64_t>(result.stamp.size, 0)), result.bytes);
      error != 0) {
    result.bytes.clear();
    result.error = describeErrno(error);
  }
  return result;
}

ReadResult readSourceFileInto(int directory, const char *name, ReadBuffer &buffer, std::size_t &size) {
  ReadResult result;
  size = 0;
  const FdGuard guard(openRegular(directory, name, result));
  if (guard.get() < 0) return result;
  const auto expected = static_cast<std::size_t>(std::max<std::int64_t>(result.stamp.size, 0));
  if (const int error = readInto(guard.get(), expected, buffer, size); error != 0) {
    size = 0;
    result.error = describeErrno(error);
  }
  return result;
}

ReadResult readSourceFileInto(const std::string &path, ReadBuffer &buffer, std::size_t &size) {
  return readSourceFileInto(AT_FDCWD, path.c_str(), buffer, size);
}

ReadResult readStdin() {
  ReadResult result;
  if (const int error = readAll(STDIN_FILENO, result.bytes); error != 0) {
    result.error = "cannot read standard input: " + describeErrno(error);
  }
  return result;
}

ReadResult readInputFile(const std::string &path) {
  ReadResult result;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    result.error = describeErrno(errno);
    return result;
  }
  FdGuard guard(fd);
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    result.error = "is a directory";
    return result;
  }
  if (const int error = readAll(fd, result.bytes); error != 0) {
    result.bytes.clear();
    result.error = describeErrno(error);
  }
  return result;
}

std::optional<std::string> writeFileAtomically(const std::string &path, std::string_view content,
                                               const FileStamp &stamp) {
  // Write through a symlink named on the command line, never over it.
  std::string target = path;
  if (char *resolved = ::realpath(path.c_str(), nullptr)) {
    target = resolved;
    std::free(resolved);
  }
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) {
    return describeErrno(errno);
  }
  if (stampOf(st) != stamp) {
    return "file changed while it was being checked, not written";
  }
  // rename() gives the path a new inode: the file's other hard links would keep the old text.
  if (st.st_nlink > 1) {
    return "has " + std::to_string(st.st_nlink) +
           " hard links, not written (replacing it would leave the other links with the old text)";
  }
  // rename() would happily replace a read-only file in a writable directory: ask first.
  if (::access(target.c_str(), W_OK) != 0) {
    return describeErrno(errno);
  }

  std::string tmpl = parentDirectory(target) + "/." + baseName(target) + ".asyncfix-XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) {
    return "cannot create a temporary file: " + describeErrno(errno);
  }
  const std::string tmpPath(name.data());
  FdGuard guard(fd);
  const auto fail = [&](const std::string &what, int error) -> std::optional<std::string> {
    ::unlink(tmpPath.c_str());
    return what + ": " + describeErrno(error);
  };
  if (const int error = writeAll(fd, content); error != 0) {
    return fail("cannot write", error);
  }
  // Keep the owner when we may (root fixing someone's file), else at least the group if we may;
  // then the mode (after chown, which may clear set-id bits).
  if (::fchown(fd, st.st_uid, st.st_gid) != 0 && ::fchown(fd, static_cast<uid_t>(-1), st.st_gid) != 0) {
    // Not permitted: the new file keeps our own owner and group.
  }
  if (::fchmod(fd, st.st_mode & 07777) != 0) {
    return fail("cannot set the file mode", errno);
  }
  if (::fsync(fd) != 0) {
    return fail("cannot sync", errno);
  }
  if (guard.close() != 0) {
    return fail("cannot write", errno);
  }
  // Look again just before the replace: an editor may have saved while we wrote.
  struct stat now {};
  if (::stat(target.c_str(), &now) != 0) {
    return fail("cannot replace the file", errno);
  }
  if (stampOf(now) != stamp) {
    ::unlink(tmpPath.c_str());
    return "file changed while it was being checked, not written";
  }
  if (::rename(tmpPath.c_str(), target.c_str()) != 0) {
    return fail("cannot replace the file", errno);
  }
  // Make the rename itself durable; failing to sync the directory is not worth an error.
  const int dirFd = ::open(parentDirectory(target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd >= 0) {
    if (::fsync(dirFd) != 0) {
      // The file itself is already synced and in place.
    }
    ::close(dirFd);
  }
  return std::nullopt;
}

} // namespace asyncfix
