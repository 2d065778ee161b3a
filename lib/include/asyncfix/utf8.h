// asyncfix/utf8.h — UTF-8 validation (RFC 3629), shared by the front ends and LineIndex.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "asyncfix/export.h"

namespace asyncfix {

/// Length (1–4) of the well-formed UTF-8 sequence starting at byte `i` of `text`, or 0 when the
/// bytes there are not one: a stray continuation byte, a truncated sequence, an overlong form, a
/// surrogate (U+D800–DFFF) or a code point above U+10FFFF.
ASYNCFIX_API std::size_t utf8SequenceLength(std::string_view text, std::size_t i);

/// The code point of the well-formed sequence at `i` (U+FFFD when there is none).
ASYNCFIX_API char32_t utf8Decode(std::string_view text, std::size_t i);

/// Offset of the first byte that does not start a well-formed sequence; nullopt for valid UTF-8.
ASYNCFIX_API std::optional<std::size_t> firstInvalidUtf8(std::string_view text);

} // namespace asyncfix
