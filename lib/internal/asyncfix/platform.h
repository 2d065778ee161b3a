// asyncfix/platform.h (internal, not installed) — the few things POSIX and Windows spell
// differently that code outside the platform files needs (docs/windows.md). The file I/O, the
// directory walk, the encodings and the server's input have their Windows side in their own files.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <sys/stat.h>
#if !defined(_WIN32)
#include <cstring>
#include <fnmatch.h>
#endif

namespace asyncfix {

/// Whether `text` holds `needle`. glibc's memmem skips through the text by pairs of bytes, where
/// string_view::find stops at every byte equal to the needle's first; Windows has no memmem.
inline bool containsBytes(std::string_view text, std::string_view needle) {
#if defined(_WIN32)
  return text.find(needle) != std::string_view::npos;
#else
  return ::memmem(text.data(), text.size(), needle.data(), needle.size()) != nullptr;
#endif
}

/// fnmatch(3) with FNM_PATHNAME (`*`, `?` and brackets never match `/`) and FNM_PERIOD (a leading
/// `.` only matches a `.` in the pattern) as asked. Windows has no fnmatch: files/glob_match.cpp
/// does the same there (`*`, `?`, `[...]` with `!`/`^` and ranges, `\` quoting).
enum GlobFlags : int { kGlobPathname = 1, kGlobPeriod = 2 };
#if defined(_WIN32)
bool globMatch(const char *pattern, const char *text, int flags);
#else
inline bool globMatch(const char *pattern, const char *text, int flags) {
  return ::fnmatch(pattern, text,
                   ((flags & kGlobPathname) != 0 ? FNM_PATHNAME : 0) | ((flags & kGlobPeriod) != 0 ? FNM_PERIOD : 0)) ==
         0;
}
#endif

/// A path from its UTF-8 text. On Windows std::filesystem::path holds UTF-16 and reads a
/// std::string in the C library's narrow encoding, not UTF-8; its string() gives UTF-8 back, so
/// only this direction needs saying. On POSIX the bytes are the path.
inline std::filesystem::path pathFromUtf8(std::string_view text) {
#if defined(_WIN32)
  return std::filesystem::path(std::u8string(text.begin(), text.end()));
#else
  return std::filesystem::path(text);
#endif
}

/// A path's UTF-8 text with `/` between its parts (the separator the rest of the code splits at).
inline std::string pathText(const std::filesystem::path &path) {
#if defined(_WIN32)
  return path.generic_string();
#else
  return path.string();
#endif
}

/// stat(2) of a path: what a file is (S_ISDIR, S_ISREG) and its size. On Windows st_ino is always
/// 0: a file's identity comes from fileIdentity() (asyncfix/source_io.h). lstatPath() does not
/// follow a final symlink (on Windows: the same as statPath, links are not told apart here).
#if defined(_WIN32)
using StatBuf = struct _stat64;
inline int statPath(const std::filesystem::path &path, StatBuf &st) { return ::_wstat64(path.c_str(), &st); }
inline int statPath(const std::string &path, StatBuf &st) { return statPath(pathFromUtf8(path), st); }
inline int lstatPath(const std::string &path, StatBuf &st) { return statPath(path, st); }
#else
using StatBuf = struct stat;
inline int statPath(const std::filesystem::path &path, StatBuf &st) { return ::stat(path.c_str(), &st); }
inline int statPath(const std::string &path, StatBuf &st) { return ::stat(path.c_str(), &st); }
inline int lstatPath(const std::string &path, StatBuf &st) { return ::lstat(path.c_str(), &st); }
#endif

} // namespace asyncfix
