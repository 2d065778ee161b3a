// source_io_win32.cpp — Windows file I/O for a run: read, check, write atomically
// (asyncfix/source_io.h; source_io.cpp is the POSIX side). Paths are UTF-8 text, opened through
// their UTF-16 form (widePath), so non-ASCII names, spaces and long paths (\\?\) work. Every file
// is read and written in binary: CRLF stays CRLF, byte for byte.
#include "asyncfix/source_io.h"

#include <windows.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <system_error>

#include "asyncfix/platform.h"

namespace asyncfix {
namespace {

std::string describeError(DWORD error) {
  switch (error) {
  case ERROR_ACCESS_DENIED:
  case ERROR_SHARING_VIOLATION:
  case ERROR_LOCK_VIOLATION: return "permission denied";
  case ERROR_FILE_NOT_FOUND:
  case ERROR_PATH_NOT_FOUND:
  case ERROR_INVALID_NAME: return "no such file or directory";
  default: break;
  }
  std::string text = std::system_category().message(static_cast<int>(error));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == '.' || text.back() == ' '))
    text.pop_back();
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z') text[0] = static_cast<char>(text[0] - 'A' + 'a');
  return text;
}

/// A handle closed when it goes out of scope.
class Handle {
public:
  explicit Handle(HANDLE h) : h_(h) {}
  ~Handle() { close(); }
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;
  HANDLE get() const { return h_; }
  bool valid() const { return h_ != INVALID_HANDLE_VALUE; }
  bool close() {
    const bool ok = !valid() || ::CloseHandle(h_) != 0;
    h_ = INVALID_HANDLE_VALUE;
    return ok;
  }

private:
  HANDLE h_;
};

HANDLE openForReading(const std::wstring &path) {
  // BACKUP_SEMANTICS: a directory opens too, and is then refused with a clear message.
  return ::CreateFileW(path.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                       OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);
}

FileStamp stampOf(const BY_HANDLE_FILE_INFORMATION &info) {
  FileStamp stamp;
  stamp.device = info.dwVolumeSerialNumber;
  stamp.inode = (static_cast<std::uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow;
  stamp.size = static_cast<std::int64_t>((static_cast<std::uint64_t>(info.nFileSizeHigh) << 32) | info.nFileSizeLow);
  // 100-nanosecond intervals since 1601
  const std::uint64_t ticks =
      (static_cast<std::uint64_t>(info.ftLastWriteTime.dwHighDateTime) << 32) | info.ftLastWriteTime.dwLowDateTime;
  stamp.mtimeSec = static_cast<std::int64_t>(ticks / 10000000);
  stamp.mtimeNsec = static_cast<std::int64_t>((ticks % 10000000) * 100);
  return stamp;
}

/// Appends everything readable from `h` to `out`; 0 or a Windows error (a closed pipe is the end).
DWORD readAll(HANDLE h, std::string &out) {
  char buffer[1 << 16];
  for (;;) {
    DWORD n = 0;
    if (!::ReadFile(h, buffer, sizeof buffer, &n, nullptr)) {
      const DWORD error = ::GetLastError();
      return error == ERROR_BROKEN_PIPE || error == ERROR_HANDLE_EOF ? 0 : error;
    }
    if (n == 0) return 0;
    out.append(buffer, n);
  }
}

DWORD writeAll(HANDLE h, std::string_view data) {
  while (!data.empty()) {
    const DWORD chunk = static_cast<DWORD>(std::min<std::size_t>(data.size(), 1u << 30));
    DWORD n = 0;
    if (!::WriteFile(h, data.data(), chunk, &n, nullptr)) return ::GetLastError();
    data.remove_prefix(n);
  }
  return 0;
}

/// The file's information, or the error that kept it from us.
DWORD informationOf(const std::wstring &path, BY_HANDLE_FILE_INFORMATION &info) {
  Handle h(openForReading(path));
  if (!h.valid()) return ::GetLastError();
  return ::GetFileInformationByHandle(h.get(), &info) ? 0 : ::GetLastError();
}

std::wstring parentOf(const std::wstring &path) {
  const std::size_t slash = path.find_last_of(L"\\/");
  return slash == std::wstring::npos ? std::wstring(L".") : path.substr(0, slash);
}

std::wstring baseOf(const std::wstring &path) {
  const std::size_t slash = path.find_last_of(L"\\/");
  return slash == std::wstring::npos ? path : path.substr(slash + 1);
}

/// The file `path` names once links are followed (its final path, `\\?\` form): a symlink named
/// on the command line is written through, never over, as on POSIX. Asked of every path, not only
/// of reparse points: wine shows a Unix symlink as a plain file, yet resolves its final path.
/// `path` itself when the final path cannot be had.
std::wstring followedPath(const std::wstring &path) {
  Handle h(openForReading(path));
  if (!h.valid()) return path;
  constexpr DWORD kFlags = FILE_NAME_NORMALIZED | VOLUME_NAME_DOS;
  const DWORD size = ::GetFinalPathNameByHandleW(h.get(), nullptr, 0, kFlags);
  if (size == 0) return path;
  std::wstring out(size, L'\0');
  const DWORD written = ::GetFinalPathNameByHandleW(h.get(), out.data(), size, kFlags);
  if (written == 0 || written >= size) return path;
  out.resize(written);
  return out;
}

} // namespace

std::wstring widePath(std::string_view utf8) {
  std::wstring wide;
  if (!utf8.empty()) {
    const int n = ::MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
    wide.resize(static_cast<std::size_t>(std::max(n, 0)));
    ::MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), wide.data(), n);
  }
  // Past MAX_PATH only the \\?\ form of an absolute path opens (no `.`/`..`, `\` only: the full
  // path from GetFullPathNameW has both sorted out).
  if (wide.size() < 240 || wide.starts_with(L"\\\\?\\")) return wide;
  const DWORD size = ::GetFullPathNameW(wide.c_str(), 0, nullptr, nullptr);
  if (size == 0) return wide;
  std::wstring full(size, L'\0');
  const DWORD written = ::GetFullPathNameW(wide.c_str(), size, full.data(), nullptr);
  full.resize(written);
  if (full.starts_with(L"\\\\")) return L"\\\\?\\UNC\\" + full.substr(2);
  return L"\\\\?\\" + full;
}

std::string utf8Text(std::wstring_view wide) {
  std::string out;
  if (wide.empty()) return out;
  const int n =
      ::WideCharToMultiByte(CP_UTF8, 0, wide.data(), static_cast<int>(wide.size()), nullptr, 0, nullptr, nullptr);
  out.resize(static_cast<std::size_t>(std::max(n, 0)));
  ::WideCharToMultiByte(CP_UTF8, 0, wide.data(), static_cast<int>(wide.size()), out.data(), n, nullptr, nullptr);
  return out;
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> fileIdentity(const std::string &path) {
  BY_HANDLE_FILE_INFORMATION info{};
  if (informationOf(widePath(path), info) != 0) return std::nullopt;
  const FileStamp stamp = stampOf(info);
  return std::make_pair(stamp.device, stamp.inode);
}

ReadResult readSourceFile(const std::string &path, std::string /*spare*/) {
  ReadResult result;
  Handle h(openForReading(widePath(path)));
  if (!h.valid()) {
    result.error = describeError(::GetLastError());
    return result;
  }
  BY_HANDLE_FILE_INFORMATION info{};
  if (!::GetFileInformationByHandle(h.get(), &info)) {
    result.error = describeError(::GetLastError());
    return result;
  }
  if ((info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0) {
    result.error = "is a directory";
    return result;
  }
  if (::GetFileType(h.get()) != FILE_TYPE_DISK) {
    result.error = "not a regular file, skipped";
    return result;
  }
  result.stamp = stampOf(info);
  result.links = info.nNumberOfLinks;
  result.bytes.reserve(static_cast<std::size_t>(std::max<std::int64_t>(result.stamp.size, 0)));
  if (const DWORD error = readAll(h.get(), result.bytes); error != 0) {
    result.bytes.clear();
    result.error = describeError(error);
  }
  return result;
}

ReadResult readSourceFileAt(int /*directory*/, const char *name, std::string /*spare*/) {
  return readSourceFile(name); // no directory handles on Windows (walk.cpp): `name` is a path
}

ReadResult readSourceFileInto(int directory, const char *name, ReadBuffer &buffer, std::size_t &size) {
  ReadResult result = readSourceFileAt(directory, name);
  size = result.bytes.size();
  if (size > 0) std::memcpy(buffer.room(size), result.bytes.data(), size);
  result.bytes.clear();
  return result;
}

ReadResult readSourceFileInto(const std::string &path, ReadBuffer &buffer, std::size_t &size) {
  return readSourceFileInto(0, path.c_str(), buffer, size);
}

ReadResult readStdin() {
  ReadResult result;
  if (const DWORD error = readAll(::GetStdHandle(STD_INPUT_HANDLE), result.bytes); error != 0) {
    result.error = "cannot read standard input: " + describeError(error);
  }
  return result;
}

ReadResult readInputFile(const std::string &path) {
  ReadResult result;
  Handle h(openForReading(widePath(path)));
  if (!h.valid()) {
    result.error = describeError(::GetLastError());
    return result;
  }
  BY_HANDLE_FILE_INFORMATION info{};
  if (::GetFileInformationByHandle(h.get(), &info) && (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0) {
    result.error = "is a directory";
    return result;
  }
  if (const DWORD error = readAll(h.get(), result.bytes); error != 0) {
    result.bytes.clear();
    result.error = describeError(error);
  }
  return result;
}

std::optional<std::string> writeFileAtomically(const std::string &path, std::string_view content,
                                               const FileStamp &stamp) {
  const std::wstring target = followedPath(widePath(path));
  BY_HANDLE_FILE_INFORMATION info{};
  if (const DWORD error = informationOf(target, info); error != 0) return describeError(error);
  if (stampOf(info) != stamp) return "file changed while it was being checked, not written";
  if (info.nNumberOfLinks > 1) {
    return "has " + std::to_string(info.nNumberOfLinks) +
           " hard links, not written (replacing it would leave the other links with the old text)";
  }
  // A read-only file would be replaced all the same by a rename: refuse, as on POSIX.
  if ((info.dwFileAttributes & FILE_ATTRIBUTE_READONLY) != 0) return std::string("permission denied");

  // The temporary file beside the target: `.NAME.asyncfix-XXXXXX`, hidden, created exclusively.
  static std::atomic<unsigned> counter{0};
  const std::wstring prefix = parentOf(target) + L"\\." + baseOf(target) + L".asyncfix-";
  std::wstring tmpPath;
  HANDLE created = INVALID_HANDLE_VALUE;
  for (int attempt = 0; attempt < 100 && created == INVALID_HANDLE_VALUE; ++attempt) {
    const auto seed = static_cast<unsigned>(::GetCurrentProcessId()) * 2654435761u ^
                      static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                      (counter++ * 40503u);
    wchar_t suffix[7];
    const wchar_t *digits = L"abcdefghijklmnopqrstuvwxyz0123456789";
    unsigned v = seed;
    for (wchar_t &c : suffix) {
      c = digits[v % 36];
      v = v / 36 + 7919u * static_cast<unsigned>(attempt + 1);
    }
    suffix[6] = L'\0';
    tmpPath = prefix + suffix;
    created = ::CreateFileW(tmpPath.c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                            FILE_ATTRIBUTE_HIDDEN | FILE_ATTRIBUTE_NORMAL, nullptr);
    if (created == INVALID_HANDLE_VALUE && ::GetLastError() != ERROR_FILE_EXISTS) break;
  }
  if (created == INVALID_HANDLE_VALUE) return "cannot create a temporary file: " + describeError(::GetLastError());
  Handle tmp(created);
  const auto fail = [&](const std::string &what, DWORD error) -> std::optional<std::string> {
    tmp.close();
    ::DeleteFileW(tmpPath.c_str());
    return what + ": " + describeError(error);
  };
  if (const DWORD error = writeAll(tmp.get(), content); error != 0) return fail("cannot write", error);
  if (!::FlushFileBuffers(tmp.get())) return fail("cannot sync", ::GetLastError());
  if (!tmp.close()) return fail("cannot write", ::GetLastError());
  // Look again just before the replace: an editor may have saved while we wrote.
  BY_HANDLE_FILE_INFORMATION now{};
  if (const DWORD error = informationOf(target, now); error != 0) return fail("cannot replace the file", error);
  if (stampOf(now) != stamp) {
    ::DeleteFileW(tmpPath.c_str());
    return "file changed while it was being checked, not written";
  }
  // ReplaceFileW keeps the original's attributes, security and streams; it gives the new text to
  // the name in one step (the original stays whole until then). Where it is refused (some file
  // systems), a move that replaces, written through.
  if (!::ReplaceFileW(target.c_str(), tmpPath.c_str(), nullptr, REPLACEFILE_IGNORE_MERGE_ERRORS, nullptr, nullptr) &&
      !::MoveFileExW(tmpPath.c_str(), target.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
    const DWORD error = ::GetLastError();
    // ReplaceFileW may have taken the original away before it failed (ERROR_UNABLE_TO_MOVE_REPLACEMENT):
    // then the temporary file holds the only text there is, and stays.
    if (::GetFileAttributesW(target.c_str()) == INVALID_FILE_ATTRIBUTES)
      return "cannot replace the file: " + describeError(error) + "; the fixed text is in " + utf8Text(tmpPath);
    return fail("cannot replace the file", error);
  }
  // The temporary file was hidden; the replaced file keeps the original's attributes.
  return std::nullopt;
}

} // namespace asyncfix
