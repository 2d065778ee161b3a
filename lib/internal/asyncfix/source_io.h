// asyncfix/source_io.h (internal, not installed) — reading source files and stdin, checking that they are text, writing
// fixes back atomically.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace asyncfix {

/// What a file looked like when it was read; a write refuses to replace a file that changed since.
struct FileStamp {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::int64_t size = 0;
  std::int64_t mtimeSec = 0;
  std::int64_t mtimeNsec = 0;
  friend bool operator==(const FileStamp &, const FileStamp &) = default;
};

/// The bytes of a file, or why they could not be read.
struct ReadResult {
  std::string bytes;
  FileStamp stamp;
  std::uint64_t links = 0;          ///< the file's hard links (readSourceFile)
  std::optional<std::string> error; ///< a lower-case reason ("permission denied"), no path
};

/// The (device, inode) of the file at `path`, following links (on Windows: the volume's serial
/// number and the file's index); nullopt when it cannot be looked at.
std::optional<std::pair<std::uint64_t, std::uint64_t>> fileIdentity(const std::string &path);

#if defined(_WIN32)
/// The UTF-16 path Windows opens for the UTF-8 path `utf8` (\\?\ in front when it is long).
std::wstring widePath(std::string_view utf8);
/// UTF-16 text (a path from Windows) as UTF-8.
std::string utf8Text(std::wstring_view wide);
#endif

/// Reads a whole regular file (following a symlink named explicitly).
/// `spare`: a string whose memory the bytes may take (a run's worker reads one file after another
/// into the same memory, instead of a fresh allocation per file).
ReadResult readSourceFile(const std::string &path, std::string spare = {});
/// readSourceFile() of the entry `name` of the directory open as `directory` (AT_FDCWD: `name`
/// is a path).
ReadResult readSourceFileAt(int directory, const char *name, std::string spare = {});
/// Memory that one file after another is read into (a run's worker's): it grows, to twice what
/// it had at least, when a file does not fit, and is never filled before a read (a std::string
/// cannot grow without filling it with zeros before C++23's resize_and_overwrite, which g++ 10
/// lacks).
struct ReadBuffer {
  std::unique_ptr<char[]> data;
  std::size_t capacity = 0;
  /// Room for `size` bytes, keeping the first `keep` bytes held now.
  char *room(std::size_t size, std::size_t keep = 0) {
    if (size > capacity) {
      const std::size_t grown = std::max(size, 2 * capacity);
      std::unique_ptr<char[]> more(new char[grown]); // (not filled: make_unique would)
      if (keep > 0) std::memcpy(more.get(), data.get(), keep);
      data = std::move(more);
      capacity = grown;
    }
    return data.get();
  }
};

/// readSourceFileAt() into `buffer`: the bytes are buffer.data[0, `size`) (the result's `bytes`
/// stay empty).
ReadResult readSourceFileInto(int directory, const char *name, ReadBuffer &buffer, std::size_t &size);
/// readSourceFileInto() of the file at `path`.
ReadResult readSourceFileInto(const std::string &path, ReadBuffer &buffer, std::size_t &size);
/// Reads all of standard input, binary-safe.
ReadResult readStdin();
/// Reads a whole file that is not a source (a `--files-from` list, a report to merge): unlike
/// readSourceFile, a FIFO is read to its end (`--files-from <(git diff --name-only)`); a
/// directory is an error. No stamp.
ReadResult readInputFile(const std::string &path);

/// Replaces the file at `path` with `content` atomically: a temporary file in the same
/// directory is written, fsynced, given the original mode (and owner, where permitted) and
/// renamed over the original. A symlink is resolved first, so the link stays a link. Refuses to
/// write when the file is not writable by us, has other hard links (the replace would split
/// them), or changed since it was read (`stamp`; compared again just before the rename). On
/// failure the temporary file is removed and the reason is returned. A process killed between
/// the temporary file's creation and the rename leaves it behind (`.NAME.asyncfix-XXXXXX`,
/// hidden, beside the intact original).
std::optional<std::string> writeFileAtomically(const std::string &path, std::string_view content,
                                               const FileStamp &stamp);

} // namespace asyncfix
