// asyncfix/line_index.h — the one place where byte offsets and line/column positions meet.
//
// Every other module works in byte offsets into the UTF-8 text. Front ends convert at their edge:
// the CLI to 1-based code-point columns, the language server to the negotiated LSP encoding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "asyncfix/export.h"

namespace asyncfix {

/// The unit a column is counted in. LSP calls these utf-8, utf-16 and utf-32.
enum class PositionEncoding : std::uint8_t { Utf8, Utf16, Utf32 };

/// A 0-based line and a 0-based column counted in some PositionEncoding's units.
struct Position {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  friend bool operator==(const Position &, const Position &) = default;
};

/// Line starts of a text and conversions between byte offsets and positions.
///
/// Lines end at "\n", "\r\n" or a lone "\r" (as in Python and LSP). A UTF-8 byte-order mark at
/// the start of the text is not part of line 0's columns: editors hide it, so offset 3 is column 0.
/// Malformed UTF-8 (see utf8.h) counts one unit per invalid byte, so every offset maps somewhere.
///
/// The index keeps a view of the text: the text must outlive it and must not change under it.
class ASYNCFIX_API LineIndex {
public:
  LineIndex() = default;
  explicit LineIndex(std::string_view text);

  /// Follows an edit of the indexed text: bytes [start, oldEnd) were replaced by
  /// text[start, newEnd), and `text` is the whole text after the edit. Only the lines around the
  /// edit are scanned again; the others move. The result equals LineIndex(text).
  void update(std::string_view text, std::size_t start, std::size_t oldEnd, std::size_t newEnd);

  std::size_t lineCount() const { return starts_.size(); }
  /// Byte offset where `line` starts (after the BOM for line 0); text size when past the end.
  std::size_t lineStart(std::uint32_t line) const;
  /// Byte offset of the end of `line`'s content, before its line terminator.
  std::size_t lineEnd(std::uint32_t line) const;
  /// The line holding byte `offset` (offsets past the end belong to the last line).
  std::uint32_t lineOf(std::size_t offset) const;
  bool hasBom() const { return bom_; }

  /// Position of byte `offset` (clamped to the text). An offset inside a multi-byte character
  /// maps to that character's start.
  Position position(std::size_t offset, PositionEncoding encoding) const;
  /// Byte offset of `pos`. A line past the end gives the text size; a column past the line's end
  /// gives the line's end; a column inside a character (half a surrogate pair) gives its start.
  std::size_t offset(Position pos, PositionEncoding encoding) const;

private:
  std::string_view text_;
  std::vector<std::size_t> starts_{0};
  std::vector<bool> ascii_{true}; ///< per line: only ASCII, so columns are byte counts (fast path)
  bool bom_ = false;
};

} // namespace asyncfix
