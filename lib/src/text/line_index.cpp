#include "asyncfix/line_index.h"

#include <algorithm>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "asyncfix/utf8.h"
#include "text/cpu.h"

#if defined(ASYNCFIX_CPU_AVX2)
#include <immintrin.h>
#endif

namespace asyncfix {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

/// Length of the well-formed UTF-8 sequence at `i` (1 for a malformed byte: one unit each).
std::size_t charLength(std::string_view text, std::size_t i) {
  const std::size_t n = utf8SequenceLength(text, i);
  return n == 0 ? 1 : n;
}

std::uint32_t unitsOf(std::size_t bytes, PositionEncoding encoding) {
  switch (encoding) {
  case PositionEncoding::Utf8: return static_cast<std::uint32_t>(bytes);
  case PositionEncoding::Utf16: return bytes == 4 ? 2 : 1;
  case PositionEncoding::Utf32: return 1;
  }
  return 1;
}

#if defined(ASYNCFIX_CPU_AVX2)
__attribute__((target("avx2"))) std::size_t addAvx2(std::size_t *v, std::size_t n, std::size_t delta) {
  const __m256i d = _mm256_set1_epi64x(static_cast<long long>(delta));
  std::size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    auto *p = reinterpret_cast<__m256i *>(v + k);
    _mm256_storeu_si256(p, _mm256_add_epi64(_mm256_loadu_si256(p), d));
    _mm256_storeu_si256(p + 1, _mm256_add_epi64(_mm256_loadu_si256(p + 1), d));
  }
  return k;
}
#endif

/// Adds `delta` (modulo 2^64: a shrinking edit adds its two's complement) to each of v[0, n).
/// A keystroke moves every line start after it: 20 000 lines are 160 KB to rewrite, four or
/// two at a time, not one.
void addToAll(std::size_t *v, std::size_t n, std::size_t delta) {
  std::size_t k = 0;
#if defined(ASYNCFIX_CPU_AVX2)
  if (cpuHasAvx2()) k = addAvx2(v, n, delta);
#endif
#if defined(__SSE2__)
  const __m128i d = _mm_set1_epi64x(static_cast<long long>(delta));
  for (; k + 2 <= n; k += 2) {
    auto *p = reinterpret_cast<__m128i *>(v + k);
    _mm_storeu_si128(p, _mm_add_epi64(_mm_loadu_si128(p), d));
  }
#endif
  for (; k < n; ++k) v[k] += delta;
}

} // namespace

LineIndex::LineIndex(std::string_view text) : text_(text) {
  bom_ = text.starts_with(kBom);
  starts_.front() = bom_ ? kBom.size() : 0;
  const char *s = text.data();
  const std::size_t n = text.size();
  // The bytes that matter: line breaks and non-ASCII bytes. A "\r\n" is one break, after its "\n".
  const auto visit = [&](std::size_t i) {
    const char c = s[i];
    if (c == '\n' || (c == '\r' && (i + 1 == n || s[i + 1] != '\n'))) {
      starts_.push_back(i + 1);
      ascii_.push_back(true);
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      ascii_.back() = false;
    }
  };
  std::size_t i = starts_.front();
#if defined(__SSE2__)
  // Sixteen bytes at a time: most blocks hold none of those bytes (this index is made for every
  // document, the size of the file).
  const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i));
    auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr)))) |
                static_cast<unsigned>(_mm_movemask_epi8(v)); // the high bit: a non-ASCII byte
    for (; mask != 0; mask &= mask - 1) visit(i + static_cast<std::size_t>(__builtin_ctz(mask)));
  }
#endif
  for (; i < n; ++i) visit(i);
}

void LineIndex::update(std::string_view text, std::size_t start, std::size_t oldEnd, std::size_t newEnd) {
  const std::size_t oldSize = text_.size();
  // Near a byte-order mark, or when the edit does not describe the texts, index from scratch.
  if (start <= kBom.size() || start > oldEnd || oldEnd > oldSize || newEnd < start ||
      oldSize - (oldEnd - start) + (newEnd - start) != text.size()) {
    *this = LineIndex(text);
    return;
  }
  text_ = text;
  // From the start of the line holding the byte before the edit (a '\r' there joins a '\n'
  // inserted after it) through the edit and the byte after it (a '\r' at its end joins a '\n'
  // after it), the line starts are found again. Old starts past that move by the edit's length.
  const std::uint32_t first = lineOf(start - 1);
  std::vector<std::size_t> middle;
  for (std::size_t i = starts_[first]; i <= newEnd && i < text.size(); ++i) {
    if (text[i] == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
      middle.push_back(i + 1);
    } else if (text[i] == '\n') {
      middle.push_back(i + 1);
    }
  }
  // Old starts of lines that begin after oldEnd + 1 lie wholly in unchanged text: they move.
  const auto tailIndex =
      static_cast<std::size_t>(std::upper_bound(starts_.begin() + first, starts_.end(), oldEnd + 1) - starts_.begin());
  addToAll(starts_.data() + tailIndex, starts_.size() - tailIndex, newEnd - oldEnd);
  // A tail start may equal the last one found again (a "\r\n" right after the edit).
  const std::size_t skip = !middle.empty() && tailIndex < starts_.size() && starts_[tailIndex] <= middle.back() ? 1 : 0;
  // Lines first + 1 .. tailIndex + skip give way to `middle`'s: in place when as many lines come
  // as go (typing within a line), so a keystroke costs the shift above, not a reallocation.
  const std::size_t from = first + 1, removed = tailIndex + skip - from, added = middle.size();
  const auto at = [](auto &v, std::size_t i) { return v.begin() + static_cast<std::ptrdiff_t>(i); };
  if (removed > added) {
    starts_.erase(at(starts_, from + added), at(starts_, from + removed));
    ascii_.erase(at(ascii_, from + added), at(ascii_, from + removed));
  } else if (removed < added) {
    starts_.insert(at(starts_, from + removed), added - removed, 0);
    ascii_.insert(at(ascii_, from + removed), added - removed, true);
  }
  std::copy(middle.begin(), middle.end(), at(starts_, from));
  // Lines `first` .. first + added were scanned (the last one up to the next old start); the
  // tail lines keep their ASCII flags.
  for (std::size_t line = first; line <= first + added; ++line) {
    const std::size_t begin = starts_[line], end = line + 1 < starts_.size() ? starts_[line + 1] : text.size();
    bool ascii = true;
    for (std::size_t i = begin; i < end && ascii; ++i) ascii = static_cast<unsigned char>(text[i]) < 0x80;
    ascii_[line] = ascii;
  }
}

std::size_t LineIndex::lineStart(std::uint32_t line) const {
  return line < starts_.size() ? starts_[line] : text_.size();
}

std::size_t LineIndex::lineEnd(std::uint32_t line) const {
  if (line >= starts_.size()) return text_.size();
  std::size_t end = line + 1 < starts_.size() ? starts_[line + 1] : text_.size();
  if (end > starts_[line] && text_[end - 1] == '\n') --end;
  if (end > starts_[line] && text_[end - 1] == '\r') --end;
  return end;
}

std::uint32_t LineIndex::lineOf(std::size_t offset) const {
  const auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  if (it == starts_.begin()) return 0;
  return static_cast<std::uint32_t>(it - starts_.begin() - 1);
}

Position LineIndex::position(std::size_t offset, PositionEncoding encoding) const {
  offset = std::min(offset, text_.size());
  const std::uint32_t line = lineOf(offset);
  const std::size_t start = starts_[line];
  // One unit per byte on an ASCII line, in every encoding: no walk (a long line with many
  // findings would otherwise cost a walk per finding).
  if (offset <= start) return {line, 0}; // inside a leading BOM
  if (ascii_[line]) return {line, static_cast<std::uint32_t>(offset - start)};
  std::uint32_t column = 0;
  for (std::size_t i = start; i < offset;) {
    const std::size_t n = charLength(text_, i);
    if (i + n > offset) break; // offset inside a character: its start
    column += unitsOf(n, encoding);
    i += n;
  }
  return {line, column};
}

std::size_t LineIndex::offset(Position pos, PositionEncoding encoding) const {
  if (pos.line >= starts_.size()) return text_.size();
  const std::size_t end = lineEnd(pos.line);
  if (ascii_[pos.line]) return std::min(end, starts_[pos.line] + pos.column);
  std::size_t i = starts_[pos.line];
  std::uint32_t column = 0;
  while (i < end && column < pos.column) {
    const std::size_t n = charLength(text_, i);
    const std::uint32_t units = unitsOf(n, encoding);
    if (column + units > pos.column) break; // inside a character (half a surrogate pair)
    column += units;
    i += n;
  }
  return i;
}

} // namespace asyncfix
