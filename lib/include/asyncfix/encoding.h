// asyncfix/encoding.h — a Python file's bytes as the UTF-8 text the library lints (PEP 263).
//
// Python reads a source file as UTF-8 unless its first or second line declares another encoding
// (`# -*- coding: latin-1 -*-`). Legacy code does. The Linter takes UTF-8 text: a front end that
// reads files (the CLI, the language server) decodes them here first (through the C library's
// iconv) and encodes fixed text back, so that every byte outside the edits stays as it was. A file
// whose bytes do not decode in its declared encoding, whose encoding does not read ASCII as ASCII,
// or whose bytes do not come back unchanged when encoded again, is not linted: its error says why.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "asyncfix/export.h"

namespace asyncfix {

/// A source file's text as UTF-8, and how to turn it back into the file's bytes.
struct SourceText {
  std::string text;     ///< UTF-8; the bytes themselves when the file is UTF-8
  std::string encoding; ///< the declared encoding as the file spells it ("latin-1"); empty for UTF-8
  /// Why the bytes cannot be linted: a NUL byte, invalid UTF-8, an unknown or non-ASCII-compatible
  /// declared encoding, or bytes that do not decode in it. `text` is empty then.
  std::optional<std::string> error;
};

/// The encoding that a PEP 263 declaration on line 1 (or on line 2 when line 1 is blank or a
/// comment) names, as spelled there; nullopt when there is none or it names UTF-8.
ASYNCFIX_API std::optional<std::string> declaredEncoding(std::string_view bytes);

/// `bytes` as UTF-8 text: checked and kept when the file is UTF-8 (checkSourceText), decoded when
/// it declares another encoding (and checked to encode back to exactly `bytes`). An all-ASCII file
/// is the same text in any declared encoding and needs no conversion.
ASYNCFIX_API SourceText decodeSource(std::string_view bytes);

/// decodeSource(bytes) without a copy of a UTF-8 file: when the bytes are kept as they are, `text`
/// takes them over and `bytes` is left empty; otherwise (decoded, or an error) `bytes` stays as it
/// was.
ASYNCFIX_API SourceText decodeSourceFrom(std::string &bytes);

/// UTF-8 `text` in `encoding` (as SourceText::encoding names it; empty: UTF-8, `text` itself).
/// nullopt when a character of `text` has no exact representation there.
ASYNCFIX_API std::optional<std::string> encodeSource(std::string_view text, std::string_view encoding);

} // namespace asyncfix
