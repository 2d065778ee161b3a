#include "text/prefilter.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "config/torch_rename_table.h"
#include "rules/torch_rule_data.h"
#include "text/cpu.h"
#include "text/prefilter_words.h"
#include "text/torch_words.h"

namespace asyncfix {
namespace {

/// Which bytes isWordByte() accepts, as a table: the judgements ask it of every byte of the words
/// they read, and one load is fewer instructions and branches than the five ranges.
constexpr std::array<bool, 256> kWordBytes = [] {
  std::array<bool, 256> table{};
  for (unsigned c = 0; c < 256; ++c)
    table[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
  return table;
}();

bool isWordByte(unsigned char c) { return kWordBytes[c]; }

/// The identifier-like word starting at `i` (empty when none). Inlined: the judgements ask it of
/// every word of a `.to(` call's arguments, where a call costs as much as the loop.
[[gnu::always_inline]] inline std::string_view wordAt(std::string_view text, std::size_t i) {
  std::size_t j = i;
  while (j < text.size() && isWordByte(static_cast<unsigned char>(text[j]))) ++j;
  return text.substr(i, j - i);
}

/// The number of `sizeof(W)` bytes at `p`, loaded with memcpy of a constant size, which
/// the compiler inlines as one load into a register.
template <class W> [[gnu::always_inline]] inline W loadNumber(const char *p) {
  W v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// Whether the `n` bytes at `a` and `b` are equal, `n` from 1 to 16 known to the compiler: two
/// loads of a size that covers them (the first and the last bytes, overlapping) from each side.
/// Never a memcpy of 3, 5, 6 or 7 bytes into a wider number: GCC makes that of narrow stores to
/// the stack and one wide load, which stalls on the stores (store forwarding fails): most of the
/// cost of a judgement's word comparisons.
template <std::size_t n> [[gnu::always_inline]] inline bool sameBytes(const char *a, const char *b) {
  static_assert(n >= 1 && n <= 16, "1 to 16 bytes");
  if constexpr (n == 1) {
    return *a == *b;
  } else {
    // The widest number no longer than the bytes, loaded at their start and at their end (the
    // same load twice when it covers them all, which the compiler folds).
    using W = std::conditional_t<n >= 8, std::uint64_t, std::conditional_t<n >= 4, std::uint32_t, std::uint16_t>>;
    constexpr std::size_t last = n - sizeof(W);
    return loadNumber<W>(a) == loadNumber<W>(b) && loadNumber<W>(a + last) == loadNumber<W>(b + last);
  }
}

/// Whether `w` is the literal `lit`: a length the compiler knows, so the comparison is a few loads
/// of numbers (sameBytes; the literal's fold to constants), where `==` on two views calls memcmp —
/// as does a memcmp of 3, 5 or 6 bytes (the judgements compare every word they read).
template <std::size_t N> [[gnu::always_inline]] inline bool is(std::string_view w, const char (&lit)[N]) {
  constexpr std::size_t n = N - 1;
  static_assert(n >= 1 && n <= 16, "a literal of 1 to 16 bytes");
  return w.size() == n && sameBytes<n>(w.data(), lit);
}

std::size_t skipBlanks(std::string_view text, std::size_t i) {
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\f')) ++i;
  return i;
}

/// skipBlanks() backwards: the start of the run of blanks that ends at `i`.
std::size_t skipBlanksBack(std::string_view text, std::size_t i) {
  while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\f')) --i;
  return i;
}

/// A byte that may stand between two tokens inside brackets, where line breaks are no statement's
/// end: a blank, a line break, or the backslash of a line continuation (comments are the lexer's).
bool isGap(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\n' || c == '\r' || c == '\\'; }

/// Keywords after which an expression is expected (so `async`/`await` there is a name) or that
/// can follow an expression (so a name before them is a name).
constexpr std::array<std::string_view, 24> kKeywords{
    "and",    "as", "assert", "async",  "await", "del", "elif",  "else",  "exec",   "for",   "from", "if",
    "import", "in", "is",     "lambda", "not",   "or",  "print", "raise", "return", "while", "with", "yield"};

bool isKeyword(std::string_view w) { return std::find(kKeywords.begin(), kKeywords.end(), w) != kKeywords.end(); }

/// The word ending just before `i`, skipping blanks (empty when the previous token is not a word).
std::string_view previousWord(std::string_view text, std::size_t i) {
  while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t')) --i;
  std::size_t j = i;
  while (j > 0 && isWordByte(static_cast<unsigned char>(text[j - 1]))) --j;
  return text.substr(j, i - j);
}

/// True when only blanks stand between the start of the line and `i`.
bool startsLine(std::string_view text, std::size_t i) {
  i = skipBlanksBack(text, i);
  return i == 0 || text[i - 1] == '\n' || text[i - 1] == '\r' || text[i - 1] == ';' ||
         (i == 3 && text.starts_with("\xEF\xBB\xBF"));
}

/// Is the `async` at `i` (a whole word) certainly the keyword?
bool asyncIsKeyword(std::string_view text, std::size_t i) {
  const std::string_view next = wordAt(text, skipBlanks(text, i + 5));
  if (is(next, "def") || is(next, "with")) return startsLine(text, i);
  if (!is(next, "for")) return false;
  if (startsLine(text, i)) return true;
  // Comprehension `x async for`: the word before must end an expression, not expect one.
  std::size_t k = i;
  while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == '\t')) --k;
  if (k == 0) return false;
  const char c = text[k - 1];
  if (c == ')' || c == ']' || c == '}' || c == '"' || c == '\'') return true;
  const std::string_view prev = previousWord(text, i);
  return !prev.empty() && !isKeyword(prev);
}

/// Is the `await` at `i` (a whole word) certainly the keyword?
bool awaitIsKeyword(std::string_view text, std::size_t i) {
  const std::size_t j = skipBlanks(text, i + 5);
  if (j >= text.size()) return false;
  const auto c = static_cast<unsigned char>(text[j]);
  if (c == '"' || c == '\'' || c == '{' || c == '~') return true;
  if (!isWordByte(c)) return false; // `(`, `[`, `+`, `-`, `=`, `,`, `.`, newline…: may be a name
  return !isKeyword(wordAt(text, j));
}

/// The `await` at `i` (no keyword by its neighbours) is followed by what makes tree-sitter read
/// an await expression that the semantic model takes for the name `await` outside a coroutine
/// (`(`, `[`, `+`, `-`; not `*`, which an ERROR region reports), and stands where a keyword can:
/// not after `.` nor a word that makes it a name being defined or imported.
bool awaitOperandMakesAName(std::string_view text, std::size_t i) {
  const std::size_t j = skipBlanks(text, i + 5);
  if (j >= text.size() || (text[j] != '(' && text[j] != '[' && text[j] != '+' && text[j] != '-')) return false;
  std::size_t k = i;
  while (k > 0 && isGap(text[k - 1])) --k;
  if (k > 0 && text[k - 1] == '.') return false;
  const std::string_view prev = previousWord(text, i);
  return prev != "def" && prev != "class" && prev != "import" && prev != "from" && prev != "as" && prev != "global" &&
         prev != "nonlocal";
}

bool isWholeWord(std::string_view text, std::size_t i, std::size_t len) {
  const bool afterBom = i == 3 && text.starts_with("\xEF\xBB\xBF"); // U+FEFF is not part of a name
  return (i == 0 || afterBom || !isWordByte(static_cast<unsigned char>(text[i - 1]))) &&
         (i + len >= text.size() || !isWordByte(static_cast<unsigned char>(text[i + len])));
}

/// A byte that opens a string to tree-sitter-python: both quotes, and the backquote (Python 2's
/// repr), which its scanner still reads as one.
bool isQuote(char c) { return c == '"' || c == '\'' || c == '`'; }

/// Whether a word the scan looks for may stand alone at `i`, for tree-sitter: no ASCII identifier
/// byte next to it. A byte of another character next to it may belong to one that tree-sitter
/// reads as a blank (U+00A0, U+FEFF anywhere, U+200B, U+2060: the grammar's extras) or to none
/// (invalid UTF-8), where `await` is a name of its own; the scan keeps such a word (at worst a
/// file parsed for nothing, where `éawait` is one name). Nor does a digit before it.
bool mayStandAlone(std::string_view text, std::size_t i, std::size_t len) {
  // Before it, the identifier bytes up to it make it part of a name, unless they start with a
  // digit: a number ends there (`0await` is `0` and the name `await` to tree-sitter).
  std::size_t run = i;
  while (run > 0 && isAsciiWordByte(static_cast<unsigned char>(text[run - 1]))) --run;
  return (run == i || (text[run] >= '0' && text[run] <= '9')) &&
         (i + len >= text.size() || !isAsciiWordByte(static_cast<unsigned char>(text[i + len])));
}

/// How the string whose quote is at `q` opens, as tree-sitter-python's scanner reads it: its
/// prefix is the run of the letters f, r, b and u (any case, any number, any order) right before
/// the quote where a token starts (no identifier byte before the run); an `f` makes it an
/// f-string, an `r` raw, a `b` bytes. `known` is false where that depends on how the token
/// before ends, which the lexer does not follow: the letters after a number (`1f'…'`: the number
/// ends before them) or after a byte of another character (a blank to tree-sitter, or none).
struct Opening {
  std::size_t begin = 0; ///< where the string's token starts (its prefix, else its quote)
  bool known = true, format = false, raw = false, bytes = false;
};

bool isPrefixLetter(char c) {
  switch (c | 0x20) {
  case 'f':
  case 'r':
  case 'b':
  case 'u': return true;
  default: return false;
  }
}

Opening opening(std::string_view t, std::size_t q) {
  std::size_t r = q;
  while (r > 0 && isPrefixLetter(t[r - 1])) --r;
  if (r == q) return {q};
  std::size_t w = r;
  while (w > 0 && isAsciiWordByte(static_cast<unsigned char>(t[w - 1]))) --w;
  // An identifier that the letters end (`xf'…'`) is a token of its own, the quote starts the
  // string; after a number, the lexer does not know where the number ends.
  if (w < r) return {q, t[w] < '0' || t[w] > '9'};
  if (w > 0 && static_cast<unsigned char>(t[w - 1]) >= 0x80 && !(w == 3 && t.starts_with("\xEF\xBB\xBF")))
    return {q, false};
  Opening o{r};
  for (std::size_t k = r; k < q; ++k) {
    const char c = static_cast<char>(t[k] | 0x20);
    o.format = o.format || c == 'f';
    o.raw = o.raw || c == 'r';
    o.bytes = o.bytes || c == 'b';
  }
  return o;
}

/// How the lexer's searches go, chosen once per lexer: one byte at a time (the reference path),
/// or 16 (SSE2), 32 (AVX2) or 64 (AVX-512) bytes at a time.
enum class Search : unsigned char { kBytewise, kSse2, kAvx2, kAvx512 };

Search searchFor([[maybe_unused]] bool bytewise) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (bytewise) return Search::kBytewise;
  if (cpuHasAvx512Vbmi()) return Search::kAvx512;
  return cpuHasAvx2() ? Search::kAvx2 : Search::kSse2;
#elif defined(__SSE2__)
  return bytewise ? Search::kBytewise : Search::kSse2;
#else
  return Search::kBytewise;
#endif
}

/// Whether `c` is one of `set`.
template <class... C> bool isAnyOf(char c, C... set) { return ((c == set) || ...); }

/// A set of bytes (known when compiling) tested against a vector of bytes at once by byte
/// shuffles of 16-byte tables and compares: a table holds, at each low nibble, a member with it,
/// else a byte with the high bit set, which no byte the shuffle is asked about equals (the shuffle
/// gives 0 for a byte with the high bit, and 0 has it clear). One table when the members' low
/// nibbles differ; a second for the members whose nibble the first has taken (`}` beside `\r`,
/// the backquote beside NUL); no nibble three times.
template <char... Set> constexpr int nibbleTables() {
  int count[16] = {}, most = 0;
  for (const char c : {Set...}) most = std::max(most, ++count[static_cast<unsigned char>(c) & 15]);
  return most;
}

template <char... Set> constexpr std::array<char, 128> nibbleTableBytes() {
  std::array<char, 128> t{};
  for (unsigned k = 0; k < 128; ++k) t[k] = static_cast<char>(0x80 | (k & 15));
  bool taken[16] = {};
  for (const char c : {Set...}) {
    const unsigned l = static_cast<unsigned char>(c) & 15;
    const unsigned table = taken[l] ? 64 : 0;
    taken[l] = true;
    for (unsigned lane = 0; lane < 64; lane += 16) t[table + lane + l] = c;
  }
  return t;
}

template <char... Set> struct NibbleSet {
  static constexpr bool two = nibbleTables<Set...>() == 2;
  static_assert(nibbleTables<Set...>() <= 2, "three bytes of the set share their low nibble");
  /// The tables, each once for each 16-byte lane of a 64-byte vector: the first at 0, the
  /// second (if any) at 64.
  alignas(64) static constexpr std::array<char, 128> bytes = nibbleTableBytes<Set...>();
};

#if defined(__x86_64__) && defined(__GNUC__)
#define ASYNCFIX_FIND_AVX2 1

/// findSet()'s test of 32 bytes: a byte's bit set where it is one of the set.
template <char... Set>
__attribute__((target("avx2"))) inline __m256i setBytesAvx2(__m256i x, __m256i first, __m256i second) {
  const __m256i m = _mm256_cmpeq_epi8(_mm256_shuffle_epi8(first, x), x);
  if constexpr (NibbleSet<Set...>::two) return _mm256_or_si256(m, _mm256_cmpeq_epi8(_mm256_shuffle_epi8(second, x), x));
  return m;
}

/// findSet()'s search 64 bytes, then 32 at a time from `i`, as far as the loads stay in the text:
/// the position found, or `i` left at the first position not searched and n returned. In a
/// function of its own for the target.
template <char... Set>
__attribute__((target("avx2"))) std::size_t findSetAvx2(const char *s, std::size_t &i, std::size_t n) {
  const char *tables = NibbleSet<Set...>::bytes.data();
  const __m256i first = _mm256_load_si256(reinterpret_cast<const __m256i *>(tables));
  const __m256i second = _mm256_load_si256(reinterpret_cast<const __m256i *>(tables + 64));
  for (; i + 64 <= n; i += 64) {
    const __m256i mx =
        setBytesAvx2<Set...>(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i)), first, second);
    const __m256i my =
        setBytesAvx2<Set...>(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 32)), first, second);
    if (const __m256i m = _mm256_or_si256(mx, my); _mm256_testz_si256(m, m) == 0) {
      const std::uint64_t mask = static_cast<std::uint32_t>(_mm256_movemask_epi8(mx)) |
                                 std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(my))} << 32;
      return i + static_cast<std::size_t>(__builtin_ctzll(mask));
    }
  }
  for (; i + 32 <= n; i += 32) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i));
    if (const auto mask = static_cast<unsigned>(_mm256_movemask_epi8(setBytesAvx2<Set...>(x, first, second)));
        mask != 0)
      return i + static_cast<std::size_t>(__builtin_ctz(mask));
  }
  return n;
}

/// findSet()'s test of 64 bytes: a byte's bit set where it is one of the set.
template <char... Set>
__attribute__((target("avx512f,avx512bw"))) inline __mmask64 setMaskAvx512(__m512i x, __m512i first, __m512i second) {
  const __mmask64 m = _mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(first, x), x);
  if constexpr (NibbleSet<Set...>::two) return m | _mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(second, x), x);
  return m;
}

/// findSet()'s search 64 bytes at a time from `from` to the end of the text: the whole blocks
/// loaded plainly, the last one's load masked to the text (AVX-512: no byte past it is read, and
/// no scalar tail).
template <char... Set>
__attribute__((target("avx512f,avx512bw"))) std::size_t findSetAvx512(const char *s, std::size_t from, std::size_t n) {
  const __m512i first = _mm512_load_si512(NibbleSet<Set...>::bytes.data());
  const __m512i second = _mm512_load_si512(NibbleSet<Set...>::bytes.data() + 64);
  std::size_t i = from;
  for (; i + 64 <= n; i += 64) {
    if (const __mmask64 m = setMaskAvx512<Set...>(_mm512_loadu_si512(s + i), first, second); m != 0)
      return i + static_cast<std::size_t>(__builtin_ctzll(m));
  }
  if (i < n) {
    const __mmask64 inside = (__mmask64{1} << (n - i)) - 1;
    const __mmask64 m = setMaskAvx512<Set...>(_mm512_maskz_loadu_epi8(inside, s + i), first, second) & inside;
    if (m != 0) return i + static_cast<std::size_t>(__builtin_ctzll(m));
  }
  return n;
}
#endif

/// findSet()'s paths without the shuffles: 16 bytes at a time with SSE2, one compare a byte of the
/// set, the rest one at a time; one at a time throughout on the reference path.
template <class... C> std::size_t findAny(std::string_view text, std::size_t from, Search how, C... set) {
  const std::size_t n = text.size();
  const char *s = text.data();
  std::size_t i = from;
#if defined(__SSE2__)
  for (; how != Search::kBytewise && i + 16 <= n; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i));
    __m128i m = _mm_setzero_si128();
    ((m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8(set)))), ...);
    if (const auto mask = static_cast<unsigned>(_mm_movemask_epi8(m)); mask != 0)
      return i + static_cast<std::size_t>(__builtin_ctz(mask));
  }
#endif
  for (; i < n; ++i)
    if (isAnyOf(s[i], set...)) return i;
  return n;
}

/// The first position at or after `from` holding one of the bytes of `Set`; text.size() when
/// there is none. As `how` says: 64 bytes at a time with AVX-512; 64, then 32 with AVX2, then 16
/// with SSE2 (and with SSE2 alone), the rest one at a time; one at a time throughout on the
/// reference path. The lexer searches once per string or comment, and once per literal piece of
/// an f-string: a NUL byte, which ends both for tree-sitter, is one of the bytes searched for.
template <char... Set> std::size_t findSet(std::string_view text, std::size_t from, Search how) {
#if defined(ASYNCFIX_FIND_AVX2)
  const std::size_t n = text.size();
  if (how == Search::kAvx512) return from >= n ? n : findSetAvx512<Set...>(text.data(), from, n);
  if (how == Search::kAvx2) {
    std::size_t i = from;
    if (const std::size_t found = findSetAvx2<Set...>(text.data(), i, n); found != n) return found;
    return findAny(text, i, Search::kSse2, Set...);
  }
#endif
  return findAny(text, from, how, Set...);
}

/// Where tree-sitter-python sees strings and comments: sorted, disjoint [begin, end) spans, found
/// by one forward pass that goes only as far as the questions asked of it (each question about a
/// later offset goes on from where the last one stopped; one about an earlier offset is answered
/// from the spans already found). The pass jumps from one quote (`'`, `"`, and the backquote the
/// grammar still reads as one) or `#` to the next, and reads a string as the grammar's scanner
/// does: its prefix (opening()), its escapes (`\N{…}` holds any byte but `}`), its end. An
/// f-string's literal pieces are spans and its replacement fields are code (the strings nested in
/// them are spans again, f-strings too), as tree-sitter reads them.
///
/// What the pass does not follow — a string left unterminated (a line break in a single-quoted
/// one, a NUL byte, the end of the text), a prefix it cannot read, an f-string's field with a
/// comment, a backslash or a line break in it, a lone `}`, a backslash in a backquote string or
/// in code but a line continuation's — ends it: from there on everything is
/// code. tree-sitter's error recovery may pair such a quote with any later one (an `async` in a
/// later `'''…'''` is then code to it), so no later span can be trusted.
class Lexer {
public:
  /// With `bytewise` (the reference path), its searches and those of the scans that read its
  /// spans go one byte at a time, no SIMD: the differential tests compare the two.
  explicit Lexer(std::string_view text, bool bytewise = false) : text_(text), search_(searchFor(bytewise)) {}

  bool bytewise() const { return search_ == Search::kBytewise; }

  /// True unless `offset` lies inside a string literal or a comment.
  [[gnu::always_inline]] bool inCode(std::size_t offset) { return spanAt(offset) == nullptr; }
  /// Whether the pass met what it does not follow (see the class's comment), as far as it went:
  /// tree-sitter's error recovery from there on gives shapes no judgement reads.
  bool lost() const { return lost_; }
  /// The end of the string or comment around `offset` (offset itself when in code): for a piece
  /// of an f-string, the end of the whole f-string, which a scan of code steps over as one token.
  std::size_t skip(std::size_t offset) {
    const Span *s = spanAt(offset);
    return s ? s->outerEnd : offset;
  }
  /// The start of the string or comment around `offset` (npos when in code; for a piece of an
  /// f-string, the start of the whole f-string), for a scan that goes backwards from where the
  /// lexer has been.
  std::size_t spanBegin(std::size_t offset) {
    const Span *s = spanAt(offset);
    return s ? s->outerBegin : std::string_view::npos;
  }

private:
  static constexpr std::size_t npos = std::string_view::npos;

  struct Span {
    std::size_t begin = 0, end = 0;
    std::size_t outerBegin = begin, outerEnd = end; ///< the whole f-string a piece belongs to
  };

  /// The span around `offset`, nullptr in code. Inline for the usual question, whose answer is
  /// the last span or the code on either side of it (the pass stops at the end of the string
  /// after the offset asked, and the next question is mostly in the code before that string).
  [[gnu::always_inline]] const Span *spanAt(std::size_t offset) {
    if (pos_ <= offset && pos_ < text_.size()) lexPast(offset);
    if (offset >= lastGap_) {
      if (spans_.empty()) return nullptr;
      const Span &last = spans_.back();
      return offset >= last.begin && offset < last.end ? &last : nullptr;
    }
    return spanBefore(offset);
  }

  /// Lexes on until pos_ is past `offset` (or at the end of the text).
  [[gnu::noinline]] void lexPast(std::size_t offset) {
    // Room for the spans of a text dense with strings, from the first step on (the vector grows
    // past it as usual; bounded, for a huge text the scan may leave early).
    if (spans_.capacity() == 0) spans_.reserve(std::min<std::size_t>(text_.size() / 128, 16384) + 8);
    do step();
    while (pos_ <= offset && pos_ < text_.size());
    lastGap_ = spans_.size() < 2 ? 0 : spans_[spans_.size() - 2].end;
  }

  /// spanAt() for an offset before the end of the span before the last.
  [[gnu::noinline]] const Span *spanBefore(std::size_t offset) {
    // The last span that begins at or before `offset`: the questions mostly go forwards, so the
    // search starts from the last answer's span and steps on a few spans; else a binary search
    // on the side of it where the answer is.
    const auto after = [](std::size_t o, const Span &s) { return o < s.begin; };
    std::size_t k = std::min(hint_, spans_.size() - 1);
    if (spans_[k].begin <= offset) {
      // The last span begins after `offset`: the steps stay in the vector.
      for (int step = 0; step < 4 && spans_[k + 1].begin <= offset; ++step) ++k;
      if (spans_[k + 1].begin <= offset)
        k = static_cast<std::size_t>(
                std::upper_bound(spans_.begin() + static_cast<std::ptrdiff_t>(k + 1), spans_.end(), offset, after) -
                spans_.begin()) -
            1;
    } else {
      const auto it = std::upper_bound(spans_.begin(), spans_.begin() + static_cast<std::ptrdiff_t>(k), offset, after);
      if (it == spans_.begin()) return nullptr;
      k = static_cast<std::size_t>(it - spans_.begin()) - 1;
    }
    hint_ = k;
    return offset < spans_[k].end ? &spans_[k] : nullptr;
  }

  /// Lexes from pos_ to the end of the next string or comment (or of the text).
  void step() {
    const std::string_view t = text_;
    const std::size_t i = findSet<'#', '"', '\'', '`', '\\'>(t, pos_, search_);
    if (i >= t.size()) {
      pos_ = t.size();
      return;
    }
    if (t[i] == '\\') {
      // A line continuation; any other backslash in code is a syntax error whose recovery
      // tree-sitter may read as an escape token (`\N{#}`, `\"`): a `#` or quote in it opens
      // nothing there. Not followed: the rest is code (see the class's comment).
      if (i + 1 < t.size() && t[i + 1] == '\n') {
        pos_ = i + 2;
        return;
      }
      if (i + 2 < t.size() && t[i + 1] == '\r' && t[i + 2] == '\n') {
        pos_ = i + 3;
        return;
      }
      pos_ = t.size();
      lost_ = true;
      return;
    }
    if (t[i] == '#') {
      // A comment ends at a line end, and at a NUL byte, which tree-sitter's lexer reads as the
      // end of the input there: what follows is code to it.
      const std::size_t e = findSet<'\n', '\r', '\0'>(t, i, search_);
      spans_.push_back({i, e});
      pos_ = e;
      return;
    }
    const Opening o = opening(t, i);
    const std::size_t mark = spans_.size();
    const std::size_t end = !o.known ? npos : o.format ? formatted(o, i, 0) : string(o, i);
    if (end == npos) {
      spans_.resize(mark);
      pos_ = t.size(); // the rest is code: see the class's comment
      lost_ = true;
      return;
    }
    pos_ = end;
  }

  /// Where the escape whose backslash is at `k` ends in a string opened by `o` with `quote`, as
  /// the scanner and the grammar's escape tokens read it: a raw string's backslash keeps the
  /// quote or backslash after it and a line break in the string; elsewhere `\N{…}` (not in
  /// bytes) runs to the first `}`, whatever stands between, and the other escapes hold no quote
  /// past their second byte (a line break after them is the caller's to judge).
  std::size_t escapeEnd(const Opening &o, std::size_t k) const {
    const std::string_view t = text_;
    if (!o.raw && !o.bytes && k + 3 < t.size() && t[k + 1] == 'N' && t[k + 2] == '{') {
      const std::size_t close = t.find('}', k + 3);
      if (close != npos && close > k + 3) return close + 1;
    }
    return k + 2;
  }

  /// The string (no f-string) opened by `o` with its quote at `q`: its span is recorded and its
  /// end returned; npos when it is unterminated (a line break in a single-quoted one, a NUL byte
  /// in it, the end of the text).
  std::size_t string(const Opening &o, std::size_t q) {
    const std::string_view t = text_;
    const char quote = t[q];
    const bool triple = quote != '`' && q + 2 < t.size() && t[q + 1] == quote && t[q + 2] == quote;
    for (std::size_t k = q + (triple ? 3 : 1); k < t.size();) {
      k = stringStop(k, quote, triple);
      if (k >= t.size()) break;
      const char ch = t[k];
      if (ch == '\\') {
        // A backquote string's backslash escapes nothing to tree-sitter (`\`` ends the string):
        // not followed here.
        if (quote == '`') return npos;
        const std::size_t e = escapeEnd(o, k);
        for (std::size_t b = k + 1; b < std::min(e, t.size()); ++b) // the escape's bytes, not searched
          if (t[b] == '\0') return npos;
        k = e;
      } else if (ch == '\0' || (!triple && (ch == '\n' || ch == '\r'))) {
        return npos;
      } else if (ch == quote && (!triple || (k + 2 < t.size() && t[k + 1] == quote && t[k + 2] == quote))) {
        const std::size_t end = k + (triple ? 3 : 1);
        spans_.push_back({o.begin, end});
        return end;
      } else {
        ++k;
      }
    }
    return npos;
  }

  /// The f-string opened by `o` with its quote at `q`: its literal pieces become spans (the `{`
  /// and `}` of its fields with them), its replacement fields stay code, the strings nested in
  /// them become spans. Returns its end; npos for what the pass does not follow (the caller
  /// drops the spans recorded since).
  std::size_t formatted(const Opening &o, std::size_t q, int nesting) {
    const std::string_view t = text_;
    if (nesting > 2) return npos;
    const char quote = t[q];
    const bool triple = quote != '`' && q + 2 < t.size() && t[q + 1] == quote && t[q + 2] == quote;
    const std::size_t mark = spans_.size();
    std::size_t piece = o.begin; // where the current literal piece starts
    for (std::size_t k = q + (triple ? 3 : 1); k < t.size();) {
      // The next byte that is more than literal text (the other bytes need no step of their own).
      k = pieceEnd(k, quote, triple);
      if (k >= t.size()) break;
      const char ch = t[k];
      if (ch == '\\') {
        // An escape; `\{` leaves the brace to open a field.
        k = k + 1 < t.size() && t[k + 1] == '{' ? k + 1 : escapeEnd(o, k);
      } else if ((ch == '{' || ch == '}') && k + 1 < t.size() && t[k + 1] == ch) {
        k += 2; // `{{`, `}}`: a brace in the text
      } else if (ch == '}' || ch == '\0' || (!triple && (ch == '\n' || ch == '\r'))) {
        return npos; // unterminated (a NUL ends it too), or a lone `}`: a syntax error
      } else if (ch == quote && (!triple || (k + 2 < t.size() && t[k + 1] == quote && t[k + 2] == quote))) {
        const std::size_t end = k + (triple ? 3 : 1);
        spans_.push_back({piece, end, o.begin, end});
        for (std::size_t s = mark; s < spans_.size(); ++s)
          if (spans_[s].outerBegin == o.begin) spans_[s].outerEnd = end; // the pieces, not the nested strings
        return end;
      } else if (ch == '{') {
        spans_.push_back({piece, k + 1, o.begin, 0});
        const std::size_t close = field(k + 1, quote, triple, nesting);
        if (close == npos || close == k + 1) return npos; // or an empty field
        piece = close;                                    // the `}` starts the next piece
        k = close + 1;
      } else {
        ++k;
      }
    }
    return npos; // unterminated at the end of the text
  }

  /// The first byte at or after `k` in a string (no f-string) quoted by `quote` that is more than
  /// its text: one search finds the end, an escape, and what leaves the string unterminated (a NUL
  /// byte ends a string's content for tree-sitter, as a comment's, anywhere before its end).
  std::size_t stringStop(std::size_t k, char quote, bool triple) const {
    const std::string_view t = text_;
    switch (quote) {
    case '"':
      return triple ? findSet<'"', '\\', '\0'>(t, k, search_) : findSet<'"', '\\', '\n', '\r', '\0'>(t, k, search_);
    case '\'':
      return triple ? findSet<'\'', '\\', '\0'>(t, k, search_) : findSet<'\'', '\\', '\n', '\r', '\0'>(t, k, search_);
    default: return findSet<'`', '\\', '\n', '\r', '\0'>(t, k, search_); // a backquote is never tripled
    }
  }

  /// The first byte at or after `k` in an f-string quoted by `quote` that is more than literal text.
  std::size_t pieceEnd(std::size_t k, char quote, bool triple) const {
    const std::string_view t = text_;
    switch (quote) {
    case '"':
      return triple ? findSet<'"', '\\', '{', '}', '\0'>(t, k, search_)
                    : findSet<'"', '\\', '{', '}', '\0', '\n', '\r'>(t, k, search_);
    case '\'':
      return triple ? findSet<'\'', '\\', '{', '}', '\0'>(t, k, search_)
                    : findSet<'\'', '\\', '{', '}', '\0', '\n', '\r'>(t, k, search_);
    default: return findSet<'`', '\\', '{', '}', '\0', '\n', '\r'>(t, k, search_); // never tripled
    }
  }

  /// The replacement field whose code starts at `k` in an f-string quoted by `quote`: where its
  /// closing `}` is, npos for what the pass does not follow. Strings nested in it become spans
  /// (each its own outer string; an f-string's pieces too); a format spec after a top-level `:`
  /// is taken for code, with its own nested fields.
  std::size_t field(std::size_t k, char quote, bool triple, int nesting) {
    const std::string_view t = text_;
    if (nesting > 2) return npos;
    int depth = 0;
    bool spec = false;
    while (k < t.size()) {
      if (!kFieldBytes[static_cast<unsigned char>(t[k])]) {
        ++k; // a byte every branch below steps over
        continue;
      }
      const char ch = t[k];
      if (ch == '\\' || ch == '\0' || (!triple && (ch == '\n' || ch == '\r'))) return npos;
      if (spec) {
        if (ch == quote) return npos;
        if (ch == '}') return k;
        if (ch == '{') {
          const std::size_t close = field(k + 1, quote, triple, nesting + 1);
          if (close == npos) return close;
          k = close;
        }
        ++k;
        continue;
      }
      if (ch == '#') return npos;
      if (isQuote(ch)) {
        const Opening o = opening(t, k);
        if (!o.known) return npos;
        k = o.format ? formatted(o, k, nesting + 1) : string(o, k);
        if (k == npos) return npos;
        continue;
      }
      if (ch == '(' || ch == '[' || ch == '{') {
        ++depth;
      } else if (ch == ')' || ch == ']' || (ch == '}' && depth > 0)) {
        if (--depth < 0) return npos;
      } else if (ch == '}') {
        return k;
      } else if (ch == ':' && depth == 0) {
        spec = true;
      }
      ++k;
    }
    return npos;
  }

  /// The bytes a replacement field's scan stops at (field() steps over the others).
  static constexpr std::array<bool, 256> kFieldBytes = [] {
    std::array<bool, 256> table{};
    for (const char c : {'\\', '\0', '\n', '\r', '\'', '"', '`', '#', '(', '[', '{', ')', ']', '}', ':'})
      table[static_cast<unsigned char>(c)] = true;
    return table;
  }();

  std::string_view text_;
  std::vector<Span> spans_;
  std::size_t pos_ = 0;     ///< everything before it is lexed
  std::size_t lastGap_ = 0; ///< the end of the span before the last (0 if none): code to the last
  std::size_t hint_ = 0;    ///< the span spanAt() found last (an index into spans_, maybe stale)
  Search search_;
  bool lost_ = false;
};

/// Which function the code at an offset is in, as tree-sitter's indentation reads the blocks: one
/// forward pass over logical lines (their brackets, strings and comments known through the
/// lexer), keeping the open blocks as a stack of body indentations, each with whether its header
/// is a `def` or an `async def`. Offsets are asked in increasing order; the pass goes on from
/// where it stopped. Conservative: it answers "no coroutine" for the rest of the text once a line
/// is beyond it (a form feed or a lone carriage return in an indentation, an unterminated string)
/// or shows a syntax error (in the indentation or the brackets), whose recovery it cannot follow.
class Blocks {
public:
  Blocks(std::string_view text, Lexer &lexer) : text_(text), lexer_(lexer) {
    if (text.starts_with("\xEF\xBB\xBF")) line_ = 3;
    // tree-sitter ends lines at "\n" only: a lone "\r" makes lines this pass does not read.
    for (std::size_t r = text.find('\r'); r != std::string_view::npos && !lost_; r = text.find('\r', r + 1))
      lost_ = r + 1 >= text.size() || text[r + 1] != '\n';
  }

  /// True when the code at `offset` is, for the semantic model, in the body of an `async def`:
  /// the innermost function around it is one (classes, loops and the like are no functions),
  /// its logical line is no `def`, `class` or decorator line of its own and holds no `lambda`
  /// before it.
  bool inCoroutine(std::size_t offset) {
    while (!lost_ && line_ < text_.size()) {
      Line l;
      if (!read(l)) break;
      if (l.blank) {
        line_ = l.end;
        continue;
      }
      // Indentation that is a syntax error (a header without its indented body, an unexpected
      // indent, a dedent to no open block's indentation) leaves the blocks to tree-sitter's error
      // recovery, which this pass does not follow.
      const std::size_t current = stack_.empty() ? 0 : stack_.back().indent;
      if (pending_) {
        // The first line after a block's header opens its body, indented deeper (an INDENT).
        if (l.indent <= current) break;
        stack_.push_back({l.indent, *pending_});
        pending_.reset();
      } else if (l.indent > current) {
        break;
      }
      // Else tree-sitter closes every body indented deeper than the line (DEDENTs).
      while (!stack_.empty() && stack_.back().indent > l.indent) stack_.pop_back();
      if (l.indent != (stack_.empty() ? 0 : stack_.back().indent)) break;
      if (offset < l.end) {
        if (offset < l.first || l.kind != Kind::Other || l.ownScope || hasLambdaBefore(l.first, offset) ||
            followsOperand(l.first, offset))
          return false;
        for (auto it = stack_.rbegin(); it != stack_.rend(); ++it)
          if (it->kind != Kind::Other) return it->kind == Kind::Async;
        return false;
      }
      if (l.header) pending_ = l.kind;
      line_ = l.end;
    }
    lost_ = lost_ || line_ < text_.size(); // left by a break
    return false;
  }

  /// Whether the token before `offset` (code, asked in increasing order of offsets, of a Blocks
  /// asked nothing else) may make an expression that starts there a syntax error, as
  /// followsOperand() reads it in its logical line; true too where the lines cannot be read as
  /// tree-sitter reads them. After such a token tree-sitter's recovery may join the two into an
  /// expression the bytes from `offset` do not spell (`None)n.o.volatile`: an attribute of `None`).
  bool mayFollowOperand(std::size_t offset) {
    if (lost_) return true;
    if (offset < last_.end) return offset < last_.first || followsOperand(last_.first, offset);
    while (line_ < text_.size()) {
      Line l;
      if (!read(l)) break;
      line_ = l.end;
      if (l.blank) continue;
      last_ = l;
      if (offset < l.end) return offset < l.first || followsOperand(l.first, offset);
    }
    lost_ = true;
    return true;
  }

private:
  enum class Kind { Other, Def, Async };
  struct Open {
    std::size_t indent;
    Kind kind;
  };
  struct Line {
    std::size_t first = 0, end = 0, indent = 0;           ///< first code byte, end (after its break)
    bool blank = false, header = false, ownScope = false; ///< ownScope: a decorator or `class` line
    Kind kind = Kind::Other;
  };

  /// The logical line at line_: false when it cannot be read as tree-sitter would.
  bool read(Line &l) {
    const std::string_view t = text_;
    std::size_t k = line_;
    for (; k < t.size() && (t[k] == ' ' || t[k] == '\t'); ++k) l.indent += t[k] == '\t' ? 8 : 1;
    if (k < t.size() && (t[k] == '\f' || (t[k] == '\r' && (k + 1 >= t.size() || t[k + 1] != '\n')))) return false;
    l.first = k;
    if (k >= t.size() || t[k] == '\n' || t[k] == '\r' || t[k] == '#') {
      l.blank = true;
      l.end = std::min(t.find('\n', k), t.size());
      l.end += l.end < t.size() ? 1 : 0;
      return true;
    }
    const std::string_view w = wordAt(t, k);
    if (w == "def" || w == "class") l.kind = w == "def" ? Kind::Def : Kind::Other;
    if (w == "async" && wordAt(t, skipBlanks(t, k + 5)) == "def") l.kind = Kind::Async;
    l.ownScope = t[k] == '@' || w == "class";
    int depth = 0;
    char last = 0; // the last code byte before the line's end, comments left out
    while (k < t.size()) {
      const char c = t[k];
      if (isQuote(c) || c == '#') {
        const std::size_t e = lexer_.skip(k);
        if (e <= k) return false; // a string the lexer leaves as code
        if (c != '#') last = c;
        k = e;
        continue;
      }
      if (c == '\\' && k + 1 < t.size() && (t[k + 1] == '\n' || t[k + 1] == '\r')) {
        k += t[k + 1] == '\r' && k + 2 < t.size() && t[k + 2] == '\n' ? 3 : 2;
        continue;
      }
      if (c == '\n' || c == '\r') {
        if (c == '\r' && (k + 1 >= t.size() || t[k + 1] != '\n'))
          return false; // a lone CR: no line end for tree-sitter
        if (depth == 0) {
          l.end = k + (c == '\r' ? 2 : 1);
          l.header = last == ':';
          return true;
        }
      } else if (c == '(' || c == '[' || c == '{') {
        ++depth;
      } else if (c == ')' || c == ']' || c == '}') {
        if (depth == 0) return false; // a stray closing bracket: a syntax error
        --depth;
      }
      if (c != ' ' && c != '\t' && c != '\f' && c != '\n' && c != '\r') last = c;
      ++k;
    }
    l.end = t.size();
    return depth == 0; // else an unclosed bracket: a syntax error
  }

  /// Whether the token before `offset` in its logical line (from `from`; over blanks, line
  /// breaks, continuations and comments) may make an `await` there a syntax error: anything but an
  /// operator other than `*`, an opening bracket, a comma, a colon, a keyword inside an expression
  /// (`in`, `not`, …) or one that may start the line's statement before an expression (`return`,
  /// `if`, …). Not `print` nor `exec` (names in Python 3), nor an attribute `x.return`, nor a `*`
  /// (`x = y, *await (g)` is valid Python that tree-sitter reads otherwise). After such a token,
  /// tree-sitter's recovery may drop the coroutine around the `await` and read a call of the name
  /// `await` outside any coroutine (AF002), wherever the two tokens stand.
  bool followsOperand(std::size_t from, std::size_t offset) {
    std::size_t k = offset;
    while (k > from) {
      const char c = text_[k - 1];
      if (isGap(c)) {
        --k;
        continue;
      }
      if (const std::size_t span = lexer_.spanBegin(k - 1); span != std::string_view::npos) {
        if (text_[span] != '#') return true; // a string ends there
        k = span;                            // a comment: the token before it
        continue;
      }
      if (!isWordByte(static_cast<unsigned char>(c))) return c == ')' || c == ']' || c == '}' || c == '*';
      std::size_t start = k - 1;
      while (start > from && isWordByte(static_cast<unsigned char>(text_[start - 1]))) --start;
      std::size_t before = start;
      while (before > from && isGap(text_[before - 1])) --before;
      if (before > from && text_[before - 1] == '.') return true; // an attribute
      // The keywords after which an expression may follow: inside one, or where the statement
      // starts (`in await x` is a syntax error there; `f(return` anywhere else; `elif` after no
      // `if`, which this pass does not follow).
      static constexpr std::array<std::string_view, 9> kInExpression{"and", "await", "else", "if",   "in",
                                                                     "is",  "not",   "or",   "yield"};
      static constexpr std::array<std::string_view, 9> kStartingStatement{"assert", "await", "if",   "not",  "raise",
                                                                          "return", "while", "with", "yield"};
      const std::string_view word = text_.substr(start, k - start);
      return start == from
                 ? std::find(kStartingStatement.begin(), kStartingStatement.end(), word) == kStartingStatement.end()
                 : std::find(kInExpression.begin(), kInExpression.end(), word) == kInExpression.end();
    }
    return false;
  }

  bool hasLambdaBefore(std::size_t from, std::size_t offset) {
    for (std::size_t k = text_.find("lambda", from); k < offset; k = text_.find("lambda", k + 1))
      if (isWholeWord(text_, k, 6) && lexer_.inCode(k)) return true;
    return false;
  }

  std::string_view text_;
  Lexer &lexer_;
  Line last_; // the logical line mayFollowOperand() read last
  std::vector<Open> stack_;
  std::optional<Kind> pending_; ///< the kind of the header whose body the next line may open
  std::size_t line_ = 0;        ///< the start of the next logical line to read
  bool lost_ = false;
};

/// Skips blanks, line breaks, backslash continuations and comments from `k`; returns where the
/// next token starts (text.size() at the end).
std::size_t nextToken(std::string_view text, std::size_t k, Lexer &lexer) {
  while (k < text.size()) {
    const char c = text[k];
    if (c == ' ' || c == '\t' || c == '\f' || c == '\n' || c == '\r' || c == '\\') {
      ++k;
    } else if (c == '#') {
      const std::size_t e = lexer.skip(k);
      if (e <= k) return k;
      k = e;
    } else {
      return k;
    }
  }
  return k;
}

/// What a scan of a `.to(` call's arguments saw, for the `non_blocking=` among them: the text
/// of the arguments (`(` to `)`) and where each keyword argument's name starts.
struct ToCallArguments {
  std::string_view text;
  std::vector<std::size_t> keywords; ///< sorted
  std::vector<std::size_t> scratch;  ///< the next list's keywords while it is scanned (its capacity kept)
  /// Whether `text` holds the whole word `cpu` (AF106's device), where the scan knew: -1 when not.
  int cpu = -1;
  /// Where the list's first keyword `non_blocking` stands, where the scan read the list flat
  /// (flatArguments(): all of it code, the keyword a whole word followed by `=`): npos when not.
  std::size_t nonBlocking = std::string_view::npos;
  bool nonBlockingTrue = false; ///< whether its value is `True` (nonBlockingValueMayBeTrue())
};

#if defined(__x86_64__) && defined(__GNUC__)
/// The classes flatArguments() reads of the 64 bytes from `p`, one bit per byte: `stop` where a
/// byte ends what it can read (`)`, and what only the token-by-token scan follows: quotes, `#`,
/// line breaks, `\`, the other brackets, `:`, bytes of 0x80 and above), `word` the ASCII
/// identifier bytes, `blank` spaces, tabs and form feeds, `comma` the commas.
struct FlatClasses {
  std::uint64_t stop = 0, word = 0, blank = 0, comma = 0;
  std::uint64_t lc = 0; ///< `l` and `c`, the first bytes of `lambda` and `cpu`
};

/// The bytes of `m` with their high bit set, as the low 32 bits of a mask (no lambda: GCC does not
/// give them the function's target).
__attribute__((target("avx2"))) inline std::uint64_t bits(__m256i m) {
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(m));
}

/// The classes of the 32 bytes at `p`, by the halves of each byte (a table for each half; a byte
/// is in a class where both halves' entries hold its bit) and by equality.
__attribute__((target("avx2"))) inline void flatClasses32(const char *p, int shift, FlatClasses &c) {
  // stop: bit 0 `\n` `\r`; 1 `"` `#` `'` `(` `)`; 2 `:`; 3 `[` `\` `]`; 4 '`'; 5 `{` `}`; 6 0x80 and above.
  const __m256i stopLow =
      _mm256_setr_epi8(0x50, 0x40, 0x42, 0x42, 0x40, 0x40, 0x40, 0x42, 0x42, 0x42, 0x45, 0x68, 0x48, 0x69, 0x40, 0x40,
                       0x50, 0x40, 0x42, 0x42, 0x40, 0x40, 0x40, 0x42, 0x42, 0x42, 0x45, 0x68, 0x48, 0x69, 0x40, 0x40);
  const __m256i stopHigh =
      _mm256_setr_epi8(0x01, 0, 0x02, 0x04, 0, 0x08, 0x10, 0x20, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x01,
                       0, 0x02, 0x04, 0, 0x08, 0x10, 0x20, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40);
  // word: bit 0 `A`-`O`, `a`-`o` (not `@`, '`'); 1 `P`-`Z`, `p`-`z`; 2 digits; 3 `_`.
  const __m256i wordLow =
      _mm256_setr_epi8(0x06, 0x07, 0x07, 0x07, 0x07, 0x07, 0x07, 0x07, 0x07, 0x07, 0x03, 0x01, 0x01, 0x01, 0x01, 0x09,
                       0x06, 0x07, 0x07, 0x07, 0x07, 0x07, 0x07, 0x07, 0x07, 0x07, 0x03, 0x01, 0x01, 0x01, 0x01, 0x09);
  const __m256i wordHigh = _mm256_setr_epi8(0, 0, 0, 0x04, 0x01, 0x0a, 0x01, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                            0x04, 0x01, 0x0a, 0x01, 0x02, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  const __m256i low = _mm256_and_si256(v, nibble), high = _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i stop = _mm256_and_si256(_mm256_shuffle_epi8(stopLow, low), _mm256_shuffle_epi8(stopHigh, high));
  const __m256i word = _mm256_and_si256(_mm256_shuffle_epi8(wordLow, low), _mm256_shuffle_epi8(wordHigh, high));
  c.stop |= (~bits(_mm256_cmpeq_epi8(stop, zero)) & 0xffffffffU) << shift;
  c.word |= (~bits(_mm256_cmpeq_epi8(word, zero)) & 0xffffffffU) << shift;
  c.blank |= bits(_mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(' ')),
                                                  _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\t'))),
                                  _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\f'))))
             << shift;
  c.comma |= bits(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(','))) << shift;
  c.lc |=
      bits(_mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('l')), _mm256_cmpeq_epi8(v, _mm256_set1_epi8('c'))))
      << shift;
}

/// flatClasses32()'s classes as one 128-entry table for AVX-512's byte permute, by a byte's low
/// seven bits (bit 0 stop, 1 word, 2 blank, 3 comma); a byte of 0x80 and above is a stop whatever
/// its twin's entry says.
constexpr std::array<std::uint8_t, 128> kFlatClassTable = [] {
  std::array<std::uint8_t, 128> t{};
  for (unsigned c = 0; c < 128; ++c) {
    const auto in = [c](std::string_view set) { return set.find(static_cast<char>(c)) != std::string_view::npos; };
    t[c] = static_cast<std::uint8_t>((in("\n\r\"#'():[\\]`{}") ? 1U : 0U) |
                                     (isAsciiWordByte(static_cast<unsigned char>(c)) ? 2U : 0U) |
                                     (in(" \t\f") ? 4U : 0U) | (c == ',' ? 8U : 0U) | (in("lc") ? 16U : 0U));
  }
  return t;
}();

/// The classes of the 64 bytes at `p` by one byte permute (no lambda: GCC does not give them the
/// function's target).
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) inline FlatClasses flatClasses64(const char *p) {
  const __m512i v = _mm512_loadu_si512(p);
  const __m512i k = _mm512_permutex2var_epi8(_mm512_loadu_si512(kFlatClassTable.data()), v,
                                             _mm512_loadu_si512(kFlatClassTable.data() + 64));
  const std::uint64_t high = _mm512_movepi8_mask(v), ascii = ~high;
  FlatClasses c;
  c.stop = _mm512_test_epi8_mask(k, _mm512_set1_epi8(1)) | high;
  c.word = _mm512_test_epi8_mask(k, _mm512_set1_epi8(2)) & ascii;
  c.blank = _mm512_test_epi8_mask(k, _mm512_set1_epi8(4)) & ascii;
  c.comma = _mm512_test_epi8_mask(k, _mm512_set1_epi8(8)) & ascii;
  c.lc = _mm512_test_epi8_mask(k, _mm512_set1_epi8(16)) & ascii;
  return c;
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
/// flatArguments() from the classes `c` of the 64 bytes after the `(` at `open`. Inlined into each
/// path's function below, which the classes' code is compiled for (a function of another target
/// is a call: the classes would go through memory).
[[gnu::always_inline]] inline std::optional<bool> readFlatArguments(std::string_view text, std::size_t open,
                                                                    ToCallArguments *seen, const FlatClasses &c) {
  const char *p = text.data() + open + 1;
  if (c.stop == 0) return std::nullopt;
  const auto len = static_cast<std::size_t>(__builtin_ctzll(c.stop));
  if (p[len] != ')') return std::nullopt;
  const std::string_view list(p, len);
  const std::uint64_t inside = (std::uint64_t{1} << len) - 1;
  // The word that starts at `q` (an identifier byte there; the `)` ends the last).
  const auto wordFrom = [&](std::size_t q) {
    return list.substr(q, static_cast<std::size_t>(__builtin_ctzll(~(c.word >> q))));
  };
  // Its words (a byte before a word's start is none of its, nor the `)` after its end): a
  // `lambda` makes the keywords something else (the token-by-token scan says which); the word
  // `cpu` is AF106's device.
  int cpu = 0;
  for (std::uint64_t starts = c.word & ~(c.word << 1) & c.lc & inside; starts != 0; starts &= starts - 1) {
    const std::string_view w = wordFrom(static_cast<std::size_t>(__builtin_ctzll(starts)));
    if (is(w, "lambda")) return std::nullopt;
    if (is(w, "cpu")) cpu = 1;
  }
  const std::uint64_t solid = ~c.blank & inside; // where tokens are (`)` at len is beyond)
  // The first solid byte at or after `from` (len: the `)`).
  const auto next = [&](std::size_t from) {
    const std::uint64_t rest = from >= 64 ? 0 : solid & (~std::uint64_t{0} << from);
    return rest == 0 ? len : static_cast<std::size_t>(__builtin_ctzll(rest));
  };
  std::size_t nonBlocking = std::string_view::npos;
  bool nonBlockingTrue = false;
  if (seen) seen->scratch.clear();
  // Each argument: after `(` (start 0) or after a comma.
  std::uint64_t commas = c.comma & inside;
  for (std::size_t start = 0;;) {
    const std::size_t q = next(start);
    if (q < len && (c.word >> q & 1U) != 0) {
      const std::string_view w = wordFrom(q);
      const std::size_t after = next(q + w.size());
      if (start > 0 && (is(w, "True") || is(w, "False")) && (after == len || p[after] == ',')) return true;
      if (seen && after < len && p[after] == '=' && p[after + 1] != '=') {
        seen->scratch.push_back(open + 1 + q);
        if (nonBlocking == std::string_view::npos && is(w, "non_blocking")) {
          // Its value: nonBlockingValueMayBeTrue() on a list that holds no line break nor comment.
          const std::size_t value = next(after + 1);
          nonBlocking = open + 1 + q;
          nonBlockingTrue = value < len && (c.word >> value & 1U) != 0 && is(wordFrom(value), "True");
        }
      }
    }
    if (commas == 0) break;
    start = static_cast<std::size_t>(__builtin_ctzll(commas)) + 1;
    commas &= commas - 1;
  }
  if (seen) {
    seen->text = text.substr(open, len + 2);
    seen->keywords.swap(seen->scratch);
    seen->cpu = cpu;
    seen->nonBlocking = nonBlocking;
    seen->nonBlockingTrue = nonBlockingTrue;
  }
  return false;
}

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) std::optional<bool>
flatArgumentsAvx512(std::string_view text, std::size_t open, ToCallArguments *seen) {
  return readFlatArguments(text, open, seen, flatClasses64(text.data() + open + 1));
}

__attribute__((target("avx2"))) std::optional<bool> flatArgumentsAvx2(std::string_view text, std::size_t open,
                                                                      ToCallArguments *seen) {
  FlatClasses c;
  flatClasses32(text.data() + open + 1, 0, c);
  flatClasses32(text.data() + open + 33, 32, c);
  return readFlatArguments(text, open, seen, c);
}
#endif

/// What toCallHasBoolArgument() answers for the argument list whose `(` is at `open`, read from
/// bit masks of its bytes instead of token by token, where the list is flat: its `)` within 64
/// bytes, with no string, comment, line break, `\`, other bracket, `:`, `lambda` or byte of
/// 0x80 and above before it — `(device, non_blocking=True)`, most of them. nullopt for any other
/// list (or without AVX2, or on the reference path), which the token-by-token scan reads.
std::optional<bool> flatArguments(std::string_view text, std::size_t open, ToCallArguments *seen) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (!cpuHasAvx2() || open + 1 + 64 > text.size()) return std::nullopt;
  return cpuHasAvx512Vbmi() ? flatArgumentsAvx512(text, open, seen) : flatArgumentsAvx2(text, open, seen);
#else
  (void)text, (void)open, (void)seen;
  return std::nullopt;
#endif
}

/// How far the judgements' scans of an argument list, and back to a call or a bracket, read
/// (bytes): past it they answer that they cannot tell.
constexpr std::size_t kJudgementWindow = 1 << 16;

/// `.to(`'s arguments hold a bare `True`/`False` after the first argument: `(…, True)` or
/// `(…, False, …)` at the top level (AF103's shape, whose bool is the second positional
/// argument). Conservative: an f-string or unterminated string among the arguments, or an
/// argument list longer than the window, counts as holding one. With `seen`, a list scanned to
/// its `)` is described there (left empty when a `lambda` or a `:` at its top level makes the
/// keywords something else), so that its `non_blocking=` needs no second scan.
bool toCallHasBoolArgument(std::string_view text, std::size_t open, Lexer &lexer, ToCallArguments *seen = nullptr) {
  if (!lexer.bytewise())
    if (const std::optional<bool> flat = flatArguments(text, open, seen)) return *flat;
  const std::size_t limit = std::min(text.size(), open + kJudgementWindow);
  int depth = 0;
  char previous = 0; // the last character of the previous token at depth 1
  bool plain = true; // no `lambda` nor `:` at depth 1
  if (seen) seen->scratch.clear();
  for (std::size_t k = open; k < limit;) {
    const auto c = static_cast<unsigned char>(text[k]);
    if (c == ' ' || c == '\t' || c == '\f' || c == '\n' || c == '\r' || c == '\\' || c == '#') {
      const std::size_t e = nextToken(text, k, lexer);
      if (e == k) return true; // an unterminated comment cannot be; be safe
      k = e;
      continue;
    }
    if (isQuote(c)) {
      const std::size_t e = lexer.skip(k);
      if (e <= k) return true; // an f-string (its text counts as code) or an unterminated string
      k = e;
      previous = static_cast<char>(c);
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) {
        if (seen && plain) {
          seen->text = text.substr(open, k + 1 - open);
          seen->keywords.swap(seen->scratch);
          seen->cpu = -1;
          seen->nonBlocking = std::string_view::npos;
        }
        return false;
      }
    } else if (isWordByte(c)) {
      const std::string_view w = wordAt(text, k);
      const std::size_t at = k;
      k += w.size();
      if (depth == 1 && previous == ',' && (is(w, "True") || is(w, "False"))) {
        const std::size_t next = nextToken(text, k, lexer);
        if (next >= text.size() || text[next] == ',' || text[next] == ')') return true;
      }
      if (depth == 1 && is(w, "lambda")) plain = false;
      if (seen && depth == 1 && (previous == '(' || previous == ',')) {
        const std::size_t eq = nextToken(text, k, lexer);
        if (eq < text.size() && text[eq] == '=' && (eq + 1 >= text.size() || text[eq + 1] != '='))
          seen->scratch.push_back(at);
      }
      previous = w.back();
      continue;
    } else if (c == ':' && depth == 1) {
      plain = false;
    }
    previous = static_cast<char>(c);
    ++k;
  }
  return true;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define ASYNCFIX_OCCURRENCE_AVX2 1
/// forEachOccurrence's filter 32 positions at a time from `i`, as far as the loads stay in the
/// text (`i` is left at the first position not visited); true when `hit` asked to stop. In a
/// function of its own for the target.
template <class F>
__attribute__((target("avx2"))) bool occurrencesAvx2(const char *s, std::size_t &i, std::size_t n,
                                                     std::string_view word, F &hit) {
  const std::size_t len = word.size();
  const __m256i first = _mm256_set1_epi8(word[0]), last = _mm256_set1_epi8(word[len - 1]);
  for (; i + len - 1 + 32 <= n; i += 32) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + len - 1));
    auto mask = static_cast<unsigned>(
        _mm256_movemask_epi8(_mm256_and_si256(_mm256_cmpeq_epi8(a, first), _mm256_cmpeq_epi8(b, last))));
    while (mask != 0) {
      const auto bit = static_cast<std::size_t>(__builtin_ctz(mask));
      mask &= mask - 1;
      if (std::memcmp(s + i + bit + 1, word.data() + 1, len - 2) == 0 && hit(i + bit)) return true;
    }
  }
  return false;
}

/// occurrencesAvx2 64 positions at a time with AVX-512.
template <class F>
__attribute__((target("avx512f,avx512bw"))) bool occurrencesAvx512(const char *s, std::size_t &i, std::size_t n,
                                                                   std::string_view word, F &hit) {
  const std::size_t len = word.size();
  const __m512i first = _mm512_set1_epi8(word[0]), last = _mm512_set1_epi8(word[len - 1]);
  for (; i + len - 1 + 64 <= n; i += 64) {
    std::uint64_t mask = _mm512_cmpeq_epi8_mask(_mm512_loadu_si512(s + i), first) &
                         _mm512_cmpeq_epi8_mask(_mm512_loadu_si512(s + i + len - 1), last);
    while (mask != 0) {
      const auto bit = static_cast<std::size_t>(__builtin_ctzll(mask));
      mask &= mask - 1;
      if (std::memcmp(s + i + bit + 1, word.data() + 1, len - 2) == 0 && hit(i + bit)) return true;
    }
  }
  return false;
}
#endif

/// Calls `hit(offset)` for each occurrence of `word` (at least 2 bytes) in `text`, in order, until
/// it returns true. On x86-64 a SIMD filter (first and last byte of the word compared 64 positions
/// at a time with AVX-512, 32 with AVX2, else 16) finds the few candidates.
template <class F> void forEachOccurrence(std::string_view text, std::string_view word, F &&hit) {
  const std::size_t n = text.size(), len = word.size();
  if (n < len) return;
  const char *s = text.data();
  std::size_t i = 0;
#if defined(ASYNCFIX_OCCURRENCE_AVX2)
  if (cpuHasAvx512Vbmi() && occurrencesAvx512(s, i, n, word, hit)) return;
  if (cpuHasAvx2() && occurrencesAvx2(s, i, n, word, hit)) return;
#endif
#if defined(__SSE2__)
  const __m128i first = _mm_set1_epi8(word[0]), last = _mm_set1_epi8(word[len - 1]);
  for (; i + len - 1 + 16 <= n; i += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i + len - 1));
    auto mask =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last))));
    while (mask != 0) {
      const auto bit = static_cast<std::size_t>(__builtin_ctz(mask));
      mask &= mask - 1;
      if (std::memcmp(s + i + bit + 1, word.data() + 1, len - 2) == 0 && hit(i + bit)) return;
    }
  }
#endif
  for (; i + len <= n; ++i)
    if (s[i] == word[0] && std::memcmp(s + i + 1, word.data() + 1, len - 1) == 0 && hit(i)) return;
}

bool hasWord(std::string_view text, std::string_view word) {
  if (text.size() < 64) {
    // An argument list: too short for the vectorised search (or memchr's and memcmp's calls) to
    // pay for its set-up.
    const std::size_t len = word.size();
    for (std::size_t at = 0; at + len <= text.size(); ++at)
      if (text[at] == word[0] && text.compare(at, len, word) == 0 && isWholeWord(text, at, len)) return true;
    return false;
  }
  bool found = false;
  forEachOccurrence(text, word, [&](std::size_t at) { return found = isWholeWord(text, at, word.size()); });
  return found;
}

/// Whether the rest of the line from `at` names an AF code. Searches that line only: asked for
/// every word that starts with "no" (`non_blocking`, `not`, …), a search to the end of the text
/// made dense files quadratic.
bool noqaWithAsyncfixCode(std::string_view text, std::size_t at) {
  const std::string_view line = text.substr(at, text.find_first_of("\r\n", at) - at);
  // Any code that starts with `AF` is judged by AF900, a misspelt one (`AFr101`) too.
  return line.find("AF") != std::string_view::npos;
}

/// Is `c` a byte the judgements do not read in code? A vertical tab (a blank to tree-sitter), a
/// control byte other than the blanks and line breaks the judgements read (0x00–0x08, 0x0e–0x1f,
/// DEL: no token, which tree-sitter's error recovery skips: `non_blocking\x01=True` is a keyword
/// argument to it), or a byte of a character other than ASCII (0x80 and above), which tree-sitter
/// may read as a blank (U+00A0, U+FEFF, U+200B…: the grammar's extras), as no token at all
/// (invalid UTF-8, skipped alike) or as the end of a name (`normal×`), where the judgements read
/// one name.
constexpr bool otherByte(unsigned c) {
  return c >= 0x80 || c == 0x7f || (c < 0x20 && c != '\t' && c != '\n' && c != '\f' && c != '\r');
}

/// Could a byte at `p` start one of the words the scan looks for? The filter that the SIMD loop
/// applies 16, 32 or 64 positions at a time: `async`/`await` (a, s|w, _, _, c|t), `non_blocking`
/// (n, _, _, `_`, b), `to` after `.` or a blank and before `(`, `#` or `\`, or before a blank and
/// then one of those or a blank again (what toCallOpen() needs: `torch`, `total` and `token` are
/// no candidates, nor the prose of comments and docstrings, `to be`), `noqa` in any case
/// (n, _, q, a).
bool mayStartWord(std::string_view text, std::size_t p) {
  const auto at = [&](std::size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0U; };
  const unsigned c0 = at(p), c1 = at(p + 1), c2 = at(p + 2), c3 = at(p + 3), c4 = at(p + 4);
  const unsigned before = p == 0 ? ' ' : static_cast<unsigned char>(text[p - 1]);
  const auto opensCall = [](unsigned c) { return c == '(' || c == '#' || c == '\\'; };
  return (c0 == 'a' && (c1 == 's' || c1 == 'w') && (c4 == 'c' || c4 == 't')) || (c0 == 'n' && c3 == '_' && c4 == 'b') ||
         (c0 == 't' && c1 == 'o' && (before == '.' || before <= ' ') &&
          (opensCall(c2) || (c2 <= ' ' && (opensCall(c3) || c3 <= ' ')))) ||
         ((c0 | 0x20U) == 'n' && (c2 | 0x20U) == 'q' && (c3 | 0x20U) == 'a') || otherByte(c0);
}

#if defined(__SSE2__)
/// mayStartWord() for the 16 positions from `p` (reads p[-1] to p[19]) as a bit mask.
inline unsigned candidateMask16(const char *p) {
  const auto load = [p](int k) { return _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + k)); };
  const auto eq = [](__m128i x, char c) { return _mm_cmpeq_epi8(x, _mm_set1_epi8(c)); };
  const __m128i lower = _mm_set1_epi8(0x20), space = _mm_set1_epi8(' ');
  const __m128i before = load(-1), b0 = load(0), b1 = load(1), b2 = load(2), b3 = load(3), b4 = load(4);
  const __m128i keyword = _mm_and_si128(_mm_and_si128(eq(b0, 'a'), _mm_or_si128(eq(b1, 's'), eq(b1, 'w'))),
                                        _mm_or_si128(eq(b4, 'c'), eq(b4, 't')));
  const __m128i nonBlocking = _mm_and_si128(eq(b0, 'n'), _mm_and_si128(eq(b3, '_'), eq(b4, 'b')));
  const __m128i blankBefore = _mm_cmpeq_epi8(_mm_max_epu8(before, space), space); // before <= ' '
  const __m128i toEnds = _mm_or_si128(_mm_or_si128(eq(b2, '('), eq(b2, '#')),
                                      _mm_or_si128(eq(b2, '\\'), _mm_cmpeq_epi8(_mm_max_epu8(b2, space), space)));
  const __m128i to = _mm_and_si128(_mm_and_si128(_mm_and_si128(eq(b0, 't'), eq(b1, 'o')), toEnds),
                                   _mm_or_si128(eq(before, '.'), blankBefore));
  const __m128i noqa = _mm_and_si128(eq(_mm_or_si128(b0, lower), 'n'),
                                     _mm_and_si128(eq(_mm_or_si128(b2, lower), 'q'), eq(_mm_or_si128(b3, lower), 'a')));
  // otherByte(): 0x80 and above, DEL, and the control bytes up to 0x1f but tab, LF, FF and CR.
  const __m128i control =
      _mm_andnot_si128(_mm_or_si128(_mm_or_si128(eq(b0, '\t'), eq(b0, '\n')), _mm_or_si128(eq(b0, '\f'), eq(b0, '\r'))),
                       _mm_cmpeq_epi8(_mm_max_epu8(b0, _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f)));
  const __m128i lead =
      _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(_mm_max_epu8(b0, _mm_set1_epi8('\x80')), b0), control), eq(b0, '\x7f'));
  return static_cast<unsigned>(
      _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_or_si128(keyword, nonBlocking), _mm_or_si128(to, noqa)), lead)));
}
#endif

/// What the judgements ask of a whole text, learnt by the candidate search where it can (the
/// AVX-512 path) rather than by a pass of their own over every file: whether it spells `torch`,
/// `numpy` or `scipy` (mayUseTorchFamily: `family`), and whether it holds the whole word
/// `DataLoader` (`dataLoader`, AF104's loader). Each is looked for where asked (`askFamily`,
/// `askDataLoader`) until seen; `known` when the search went through the whole text without
/// being asked to stop.
struct LearntWords {
  bool askFamily = false, askDataLoader = false;
  bool family = false, dataLoader = false;
  bool known = false;
};

/// Whether the whole word `DataLoader` starts at `at` (as hasWord() reads it).
bool dataLoaderAt(std::string_view text, std::size_t at) {
  return is(text.substr(at, 10), "DataLoader") && isWholeWord(text, at, 10);
}

/// Whether forEachCandidate() learns LearntWords (the family's names, `DataLoader`) on this CPU (its
/// AVX-512 path).
bool candidatesLearn() {
#if defined(__x86_64__) && defined(__GNUC__)
  return cpuHasAvx512Vbmi();
#else
  return false;
#endif
}

#if defined(__x86_64__) && defined(__GNUC__)
#define ASYNCFIX_PREFILTER_AVX2 1
/// The byte constants of candidateMask32, made once per text. Hidden from the optimiser (an
/// empty asm per constant): GCC otherwise makes each broadcast again in every block (three
/// instructions each, for the registers the test needs), where a register or a stack slot
/// serves.
struct CandidateConstants {
  __m256i lower, a, four, w, c, t, n, u, b, o, dot, q, paren, backslash, del, controlHigh, notBlank, lowNibble;
};
__attribute__((target("avx2"))) inline CandidateConstants candidateConstants() {
  CandidateConstants k{_mm256_set1_epi8(0x20), _mm256_set1_epi8('a'), _mm256_set1_epi8(0x04), _mm256_set1_epi8('w'),
                       _mm256_set1_epi8('c'), _mm256_set1_epi8('t'), _mm256_set1_epi8('n'), _mm256_set1_epi8('_'),
                       _mm256_set1_epi8('b'), _mm256_set1_epi8('o'), _mm256_set1_epi8('.'), _mm256_set1_epi8('q'),
                       _mm256_set1_epi8('('), _mm256_set1_epi8('\\'), _mm256_set1_epi8('\x7f'), _mm256_set1_epi8(0x1f),
                       // By the low half of a control byte up to 0x0f: all but tab, LF, FF, CR.
                       _mm256_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, -1, 0, 0, -1, -1, -1, -1, -1, -1, -1,
                                        -1, -1, -1, -1, 0, 0, -1, 0, 0, -1, -1),
                       _mm256_set1_epi8(0x0f)};
  for (__m256i *v : {&k.lower, &k.a, &k.four, &k.w, &k.c, &k.t, &k.n, &k.u, &k.b, &k.o, &k.dot, &k.q, &k.paren,
                     &k.backslash, &k.del, &k.controlHigh, &k.notBlank, &k.lowNibble})
    __asm__("" : "+x"(*v));
  return k;
}

/// candidateMask16 for the 32 positions from `p` (reads p[-1] to p[35]). No lambdas: GCC does
/// not give them the function's target.
__attribute__((target("avx2"))) inline unsigned candidateMask32(const char *p, const CandidateConstants &k) {
  const __m256i before = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p - 1));
  const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
  const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 1));
  const __m256i b2 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 2));
  const __m256i b3 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 3));
  const __m256i b4 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 4));
  // `s` and `w` are the two bytes that OR 0x04 makes `w`.
  const __m256i keyword = _mm256_and_si256(
      _mm256_and_si256(_mm256_cmpeq_epi8(b0, k.a), _mm256_cmpeq_epi8(_mm256_or_si256(b1, k.four), k.w)),
      _mm256_or_si256(_mm256_cmpeq_epi8(b4, k.c), _mm256_cmpeq_epi8(b4, k.t)));
  // `non_blocking` and `noqa` share their first byte's test (`N.._b` too: more positions than
  // mayStartWord()'s, which the candidate's judgement reads whole).
  const __m256i n = _mm256_cmpeq_epi8(_mm256_or_si256(b0, k.lower), k.n);
  const __m256i nonBlockingOrNoqa =
      _mm256_and_si256(n, _mm256_or_si256(_mm256_and_si256(_mm256_cmpeq_epi8(b3, k.u), _mm256_cmpeq_epi8(b4, k.b)),
                                          _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_or_si256(b2, k.lower), k.q),
                                                           _mm256_cmpeq_epi8(_mm256_or_si256(b3, k.lower), k.a))));
  // `to` after a byte up to `.` (a blank or `.`, and some punctuation) and before one up to `(`
  // (a blank, `#` or `(`, and some more) or a backslash: more positions than mayStartWord()'s,
  // in fewer instructions; the candidate's judgement (toCallOpen) wants what mayStartWord does.
  const __m256i toEnds =
      _mm256_or_si256(_mm256_cmpeq_epi8(b2, k.backslash), _mm256_cmpeq_epi8(_mm256_max_epu8(b2, k.paren), k.paren));
  const __m256i to = _mm256_and_si256(
      _mm256_and_si256(_mm256_and_si256(_mm256_cmpeq_epi8(b0, k.t), _mm256_cmpeq_epi8(b1, k.o)), toEnds),
      _mm256_cmpeq_epi8(_mm256_max_epu8(before, k.dot), k.dot));
  // otherByte(): 0x80 and above (b0's own sign bit, which the mask takes: the tests' lanes are 0
  // or 0xFF), DEL, and a control byte up to 0x1f but tab, LF, FF and CR (those up to 0x0f by a
  // table of their low half; a byte with bit 7 set looks up 0).
  const __m256i control =
      _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_max_epu8(b0, k.controlHigh), k.controlHigh),
                       _mm256_or_si256(_mm256_shuffle_epi8(k.notBlank, b0), _mm256_cmpgt_epi8(b0, k.lowNibble)));
  const __m256i other = _mm256_or_si256(_mm256_or_si256(b0, control), _mm256_cmpeq_epi8(b0, k.del));
  return static_cast<unsigned>(
      _mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(keyword, nonBlockingOrNoqa), _mm256_or_si256(to, other))));
}

/// mayStartWord()'s tests as tables for AVX-512's byte permutes: for each byte the filter reads
/// (the five from the position), the patterns whose test that byte passes, by its low seven bits —
/// one bit per pattern, set for every byte where the pattern does not look at that one. A position
/// is a candidate where some pattern's bit survives the five lookups, or where its byte is of
/// another character (the sign bit: a byte of 0x80 and above passes its ASCII twin's tests too).
/// More positions than mayStartWord()'s, which the judgements read again: those, and a `to` after
/// any byte (the byte before, `.` or a blank, is left to mayStartWord(): a sixth lookup for every
/// block cost more than the rare `proto(` it spares).
constexpr unsigned kPatternKeyword = 1;     // a, s|w, _, _, c|t
constexpr unsigned kPatternNonBlocking = 2; // n, _, _, `_`, b
constexpr unsigned kPatternNoqa = 4;        // n|N, _, q|Q, a|A
constexpr unsigned kPatternTo = 8;          // t, o, then `(`, `#` or `\`
constexpr unsigned kPatternOtherByte = 16;  // a control byte but the blanks (otherByte())
constexpr unsigned kPatternToBlank = 32;    // t, o, a blank, then `(`, `#`, `\` or a blank
/// Not a word the judgements read: the names whose spelling mayUseTorchFamily() asks of a whole
/// text, `torch`, `numpy`, `scipy` (t|n|s, _, r|m|i, _, h|y), found in the same pass
/// (LearntWords) rather than by a pass of their own over every file.
constexpr unsigned kPatternFamily = 64;
/// Not a word the judgements read either: `DataLoader` (D, a, t, a, L), whose spelling anywhere in
/// the text a `non_blocking=True` judgement asks (LearntWords).
constexpr unsigned kPatternDataLoader = 128;
constexpr std::array<std::array<std::uint8_t, 128>, 5> kCandidateTables = [] {
  std::array<std::array<std::uint8_t, 128>, 5> t{};
  constexpr unsigned to = kPatternTo | kPatternToBlank;
  constexpr unsigned all = kPatternKeyword | kPatternNonBlocking | kPatternNoqa | to | kPatternOtherByte |
                           kPatternFamily | kPatternDataLoader;
  for (unsigned c = 0; c < 128; ++c) {
    const auto in = [c](std::string_view set) { return set.find(static_cast<char>(c)) != std::string_view::npos; };
    const auto set = [&](std::size_t k, unsigned bits) { t[k - 1][c] = static_cast<std::uint8_t>(bits); };
    set(1, (c == 'a' ? kPatternKeyword : 0U) | (c == 'n' ? kPatternNonBlocking : 0U) |
               (c == 'n' || c == 'N' ? kPatternNoqa : 0U) | (c == 't' ? to : 0U) |
               (otherByte(c) ? kPatternOtherByte : 0U) | (in("tns") ? kPatternFamily : 0U) |
               (c == 'D' ? kPatternDataLoader : 0U));
    set(2, (all & ~(kPatternKeyword | to | kPatternDataLoader)) | (in("sw") ? kPatternKeyword : 0U) |
               (c == 'o' ? to : 0U) | (c == 'a' ? kPatternDataLoader : 0U));
    set(3, (all & ~(kPatternNoqa | to | kPatternFamily | kPatternDataLoader)) | (in("qQ") ? kPatternNoqa : 0U) |
               (in("(#\\") ? kPatternTo : 0U) | (c <= ' ' ? kPatternToBlank : 0U) | (in("rmi") ? kPatternFamily : 0U) |
               (c == 't' ? kPatternDataLoader : 0U));
    set(4, (all & ~(kPatternNonBlocking | kPatternNoqa | kPatternToBlank | kPatternDataLoader)) |
               (c == '_' ? kPatternNonBlocking : 0U) | (in("aA") ? kPatternNoqa : 0U) |
               (in("(#\\") || c <= ' ' ? kPatternToBlank : 0U) | (c == 'a' ? kPatternDataLoader : 0U));
    set(5, (all & ~(kPatternKeyword | kPatternNonBlocking | kPatternFamily | kPatternDataLoader)) |
               (in("ct") ? kPatternKeyword : 0U) | (c == 'b' ? kPatternNonBlocking : 0U) |
               (in("hy") ? kPatternFamily : 0U) | (c == 'L' ? kPatternDataLoader : 0U));
  }
  return t;
}();

/// The 128-byte table in `table[0]`, `table[1]` looked up by the 64 bytes from `q` (no lambda: GCC does
/// not give them the function's target).
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) inline __m512i look(const __m512i *table, const char *q) {
  return _mm512_permutex2var_epi8(table[0], _mm512_loadu_si512(q), table[1]);
}

/// mayStartWord() for the 64 positions from `p` (reads p[0] to p[67]) as a bit mask, with the
/// tables above in pairs of registers (`t[2k]`, `t[2k + 1]`): a superset of its positions, and of
/// the family's names and `DataLoader` where `wanted` asks for kPatternFamily, kPatternDataLoader.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) inline std::uint64_t
candidateMask64(const char *p, const __m512i *t, __m512i wanted) {
  const __m512i b0 = _mm512_loadu_si512(p);
  const __m512i patterns =
      _mm512_and_si512(_mm512_and_si512(_mm512_permutex2var_epi8(t[0], b0, t[1]), look(t + 2, p + 1)),
                       _mm512_and_si512(_mm512_and_si512(look(t + 4, p + 2), look(t + 6, p + 3)), look(t + 8, p + 4)));
  return _mm512_test_epi8_mask(patterns, wanted) | _mm512_movepi8_mask(b0);
}

/// candidatesAvx2 by 64 positions with candidateMask64.
template <class V>
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) bool
candidatesAvx512(const char *s, std::size_t &i, std::size_t n, V &visit, const LearntWords *learnt) {
  __m512i tables[10];
  for (std::size_t k = 0; k < 5; ++k) {
    tables[2 * k] = _mm512_loadu_si512(kCandidateTables[k].data());
    tables[2 * k + 1] = _mm512_loadu_si512(kCandidateTables[k].data() + 64);
  }
  // The masks of up to 16 blocks first, then their visits: the tables stay in registers through
  // the masks' loop (a visit is a call, after which they would be loaded again).
  // The family's names are candidates until one is seen (then `torch` in every line of PyTorch
  // code would be one), `DataLoader` likewise.
  constexpr std::size_t kBatch = 16;
  std::uint64_t masks[kBatch];
  while (i + 4 + 64 <= n) {
    const std::size_t blocks = std::min(kBatch, (n - 4 - i) / 64);
    unsigned patterns = 0x3f;
    if (learnt != nullptr && learnt->askFamily && !learnt->family) patterns |= kPatternFamily;
    if (learnt != nullptr && learnt->askDataLoader && !learnt->dataLoader) patterns |= kPatternDataLoader;
    const __m512i wanted = _mm512_set1_epi8(static_cast<char>(patterns));
    for (std::size_t b = 0; b < blocks; ++b) masks[b] = candidateMask64(s + i + 64 * b, tables, wanted);
    for (std::size_t b = 0; b < blocks; ++b)
      if (masks[b] != 0 && visit(i + 64 * b, masks[b])) return true;
    i += 64 * blocks;
  }
  return false;
}

/// The AVX2 blocks of forEachCandidate from `i`, as far as their loads stay in the text (`i` is
/// left at the first position not visited); true when `visit` asked to stop. In a function of
/// its own for the target: the block's test is inlined only into an AVX2 function.
template <class V>
__attribute__((target("avx2"))) bool candidatesAvx2(const char *s, std::size_t &i, std::size_t n, V &visit) {
  const CandidateConstants k = candidateConstants();
  constexpr std::size_t kBatch = 32; // 1 KB of positions, as in candidatesAvx512
  std::uint32_t masks[kBatch];
  while (i + 4 + 32 <= n) {
    const std::size_t blocks = std::min(kBatch, (n - 4 - i) / 32);
    for (std::size_t b = 0; b < blocks; ++b) masks[b] = candidateMask32(s + i + 32 * b, k);
    for (std::size_t b = 0; b < blocks; ++b)
      if (masks[b] != 0 && visit(i + 32 * b, masks[b])) return true;
    i += 32 * blocks;
  }
  return false;
}
#endif

/// Calls `candidate(offset)` for every position mayStartWord() accepts, in order, until it
/// returns true: the text is read once for all the words, a block of 32 (AVX2) or 16 (SSE2)
/// positions at a time, whose candidates are then visited from its mask; the start and the tail
/// (too short for a block's loads) go one position at a time.
template <class F>
void forEachCandidate(std::string_view text, F &&candidate, [[maybe_unused]] LearntWords *learnt = nullptr) {
  const std::size_t n = text.size();
  if (n == 0 || (mayStartWord(text, 0) && candidate(0))) return;
  [[maybe_unused]] const char *s = text.data(); // for the SIMD scans, where there are any
  std::size_t i = 1;
  [[maybe_unused]] const auto visit = [&](std::size_t block, std::uint64_t mask) {
    for (; mask != 0; mask &= mask - 1)
      if (candidate(block + static_cast<std::size_t>(__builtin_ctzll(mask)))) return true;
    return false;
  };
#if defined(ASYNCFIX_PREFILTER_AVX2)
  if (cpuHasAvx512Vbmi()) {
    if (candidatesAvx512(s, i, n, visit, learnt)) return;
    // The blocks saw every word that starts in [1, i); the rest, and one at 0, are asked here
    // (the tail goes on one position at a time below, by mayStartWord(), which knows neither).
    if (learnt != nullptr && learnt->askFamily && !learnt->family)
      learnt->family = mayUseTorchFamily(text.substr(0, 5)) || mayUseTorchFamily(text.substr(i));
    if (learnt != nullptr && learnt->askDataLoader && !learnt->dataLoader) {
      learnt->dataLoader = dataLoaderAt(text, 0);
      for (std::size_t at = text.find("DataLoader", i); !learnt->dataLoader && at != std::string_view::npos;
           at = text.find("DataLoader", at + 1))
        learnt->dataLoader = dataLoaderAt(text, at);
    }
  }
  if (cpuHasAvx2() && candidatesAvx2(s, i, n, visit)) return;
#endif
#if defined(__SSE2__)
  for (; i + 4 + 16 <= n; i += 16)
    if (const unsigned mask = candidateMask16(s + i); mask != 0 && visit(i, mask)) return;
#endif
  for (; i < n; ++i)
    if (mayStartWord(text, i) && candidate(i)) return;
#if defined(ASYNCFIX_PREFILTER_AVX2)
  if (learnt != nullptr && cpuHasAvx512Vbmi()) learnt->known = true;
#endif
}

/// Where the parenthesis of a `.to(` call whose `to` is at `at` stands: npos when `to` is no
/// method called there (no `.` before it, no `(` after it), kUnknown when a comment stands in the
/// way (a line break is allowed between the tokens: inside brackets it is no statement's end).
constexpr std::size_t kUnknown = std::string_view::npos - 1;
std::size_t toCallOpen(std::string_view text, std::size_t at) {
  std::size_t before = at;
  while (before > 0 && isGap(text[before - 1])) --before;
  if (before == 0) return std::string_view::npos;
  if (text[before - 1] != '.') {
    // The line before may end with `x.` and a comment: the `#` would stand between.
    if (text.substr(before, at - before).find_first_of("\r\n") == std::string_view::npos) return std::string_view::npos;
    std::size_t lineStart = before - 1;
    while (lineStart > 0 && text[lineStart - 1] != '\n' && text[lineStart - 1] != '\r') --lineStart;
    if (text.substr(lineStart, before - lineStart).find('#') == std::string_view::npos) return std::string_view::npos;
    return kUnknown;
  }
  std::size_t after = at + 2;
  while (after < text.size() && isGap(text[after])) ++after;
  if (after >= text.size()) return std::string_view::npos;
  if (text[after] == '#') return kUnknown;
  return text[after] == '(' ? after : std::string_view::npos;
}

/// The call whose argument list holds the keyword argument at `at`, as far as a scan backwards
/// can tell: `method` is the called method ("cuda" for `x.cuda(…, non_blocking=…)`) and `open`
/// its `(`; `method` is empty when the innermost bracket around `at` is no call of a method (a
/// function's or a lambda's parameters, a call of a plain name or of a call, no bracket at all).
/// `known` is false when the scan cannot tell: a string the lexer leaves as code (an f-string, an
/// unterminated one), a `[` or `{` around it, a comment in the way, a list longer than the
/// window. Brackets in strings and comments are skipped with the lexer's spans, known up to `at`.
struct EnclosingCall {
  bool known = false;
  std::string_view method;
  std::size_t open = 0;
};
/// Whether a `:` follows `at` at its level (within the window), before a closing bracket outside
/// the brackets opened after it: the end of the parameters of a lambda around `at`.
bool lambdaColonFollows(std::string_view text, std::size_t at, Lexer &lexer) {
  int depth = 0;
  for (std::size_t k = at, end = std::min(text.size(), at + kJudgementWindow); k < end; ++k) {
    const char c = text[k];
    if (isQuote(c) || c == '#') {
      const std::size_t e = lexer.skip(k);
      if (e <= k) return false; // an f-string or an unterminated string: unknown
      k = e - 1;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth-- == 0) return false;
    } else if (c == ':' && depth == 0) {
      return true;
    }
  }
  return false;
}

EnclosingCall enclosingCall(std::string_view text, std::size_t at, Lexer &lexer) {
  const std::size_t floor = at > kJudgementWindow ? at - kJudgementWindow : 0;
  const EnclosingCall unknown, none{true, {}, 0};
  std::size_t open = std::string_view::npos;
  // The closing brackets passed and not yet opened, innermost last: an opening one that is not
  // their pair (`x.cpu(]: …`) is a syntax error, whose recovery may pair them otherwise.
  constexpr int kDepth = 64;
  std::array<char, kDepth> closed{};
  int depth = 0;
  bool colon = false; // a `:` at the top level between the bracket and `at` (a lambda's body ended)
  for (std::size_t k = at; k-- > floor;) {
    const char c = text[k];
    const bool lambdaEnd = c == 'a' && depth == 0 && !colon && k >= 5 && text.compare(k - 5, 6, "lambda") == 0 &&
                           isWholeWord(text, k - 5, 6);
    if (!lambdaEnd && c != ':' && c != '(' && c != ')' && c != '[' && c != ']' && c != '{' && c != '}' && !isQuote(c))
      continue;
    if (const std::size_t begin = lexer.spanBegin(k); begin != std::string_view::npos) {
      if (lexer.skip(k) > at) return unknown; // `at` is in a field of this f-string
      k = begin;                              // the loop steps to the byte before the string or comment
      continue;
    }
    // `lambda self, non_blocking=False: …`: a parameter, where its `:` follows (else a syntax
    // error, whose recovery may skip the `lambda` and read an argument of the call around it).
    if (lambdaEnd) return lambdaColonFollows(text, at, lexer) ? none : unknown;
    if (c == ':') {
      colon = colon || depth == 0;
    } else if (isQuote(c)) {
      return unknown;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == kDepth) return unknown;
      closed[depth++] = c;
    } else if (depth > 0) {
      if (closed[--depth] != (c == '(' ? ')' : c == '[' ? ']' : '}')) return unknown;
    } else {
      if (c != '(') return unknown;
      open = k;
      break;
    }
  }
  if (open == std::string_view::npos) return floor == 0 ? none : unknown;
  // The name before the parenthesis, then the `.` before the name (blanks and line breaks may
  // stand between them inside brackets; a comment there is not looked into).
  std::size_t end = open;
  while (end > 0 && isGap(text[end - 1])) --end;
  if (end == 0) return none;
  if (lexer.spanBegin(end - 1) != std::string_view::npos) return unknown;
  std::size_t begin = end;
  while (begin > 0 && isWordByte(static_cast<unsigned char>(text[begin - 1]))) --begin;
  if (begin == end) return none;
  // A byte of another character in the name: tree-sitter may split the name there (`×` is no
  // identifier character, nor is a byte of invalid UTF-8), and call what follows the method.
  for (std::size_t k = begin; k < end; ++k)
    if (static_cast<unsigned char>(text[k]) >= 0x80) return unknown;
  std::size_t dot = begin;
  while (dot > 0 && isGap(text[dot - 1])) --dot;
  if (dot == 0) return none;
  if (lexer.spanBegin(dot - 1) != std::string_view::npos) return unknown;
  if (text[dot - 1] != '.') return none;
  return {true, text.substr(begin, end - begin), open};
}

/// The text of the argument list whose `(` is at `open`, up to its `)`; nullopt when the scan
/// cannot tell (a string the lexer leaves as code, a list longer than the window, no `)`).
std::optional<std::string_view> argumentList(std::string_view text, std::size_t open, Lexer &lexer) {
  const std::size_t limit = std::min(text.size(), open + kJudgementWindow);
  int depth = 0;
  for (std::size_t k = open; k < limit;) {
    const char c = text[k];
    if (isQuote(c) || c == '#') {
      const std::size_t e = lexer.skip(k);
      if (e <= k) return std::nullopt;
      k = e;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && --depth == 0) {
      return text.substr(open, k + 1 - open);
    }
    ++k;
  }
  return std::nullopt;
}

/// toCallOpen() where it answered kUnknown (a comment between `.`, `to` and `(`), with the lexer,
/// which has been as far as `at`: the comments are stepped over. npos when `to` is no method
/// called there; kUnknown when the lexer takes a `#` after `to` for code (inside an f-string it
/// does not follow).
std::size_t toCallOpenPastComments(std::string_view text, std::size_t at, Lexer &lexer) {
  std::size_t before = at;
  for (;;) {
    while (before > 0 && isGap(text[before - 1])) --before;
    if (before == 0) return std::string_view::npos;
    const std::size_t begin = lexer.spanBegin(before - 1);
    if (begin == std::string_view::npos) break;
    if (text[begin] != '#') return std::string_view::npos; // a string ends there
    before = begin;
  }
  if (text[before - 1] != '.') return std::string_view::npos;
  const std::size_t after = nextToken(text, at + 2, lexer);
  if (after < text.size() && text[after] == '#') return kUnknown;
  return after < text.size() && text[after] == '(' ? after : std::string_view::npos;
}

/// What a call's argument list passes, as far as a scan can tell: how many positional arguments
/// (a `*args` counts as one) and whether the keyword argument asked for is among them.
struct CallShape {
  unsigned positional = 0;
  bool keyword = false;
  bool splat = false; ///< a `**mapping`, which may hold any keyword
};

/// The shape of the argument list whose `(` is at `open`, asked about keyword `name` (`dim=1`, not
/// `f(dim=1)` nor `dim == 1`); nullopt when the scan cannot tell (a string the lexer leaves as
/// code, a generator expression, a list longer than the window, no `)`).
std::optional<CallShape> callShape(std::string_view text, std::size_t open, std::string_view name, Lexer &lexer) {
  const std::size_t limit = std::min(text.size(), open + kJudgementWindow);
  int depth = 0;
  CallShape shape;
  char previous = 0;  // the last byte of the previous token at depth 1
  bool empty = true;  // no token yet in the current argument
  bool named = false; // the current argument is `name=…` or `**…`
  const auto endArgument = [&] {
    if (!empty && !named) ++shape.positional;
    empty = true;
    named = false;
  };
  for (std::size_t k = open; k < limit;) {
    const auto c = static_cast<unsigned char>(text[k]);
    if (c == ' ' || c == '\t' || c == '\f' || c == '\n' || c == '\r' || c == '\\' || c == '#') {
      const std::size_t e = nextToken(text, k, lexer);
      if (e == k) return std::nullopt;
      k = e;
      continue;
    }
    if (depth == 1 && c != ',' && c != ')') {
      if (empty && c == '*' && k + 1 < text.size() && text[k + 1] == '*') named = shape.splat = true;
      empty = false;
    }
    if (isQuote(c)) {
      const std::size_t e = lexer.skip(k);
      if (e <= k) return std::nullopt; // an f-string (its text counts as code) or an unterminated string
      k = e;
      previous = static_cast<char>(c);
      continue;
    }
    if (isWordByte(c)) {
      const std::string_view w = wordAt(text, k);
      k += w.size();
      if (depth == 1 && w == "for") return std::nullopt; // a generator expression
      if (depth == 1 && (previous == '(' || previous == ',')) {
        const std::size_t eq = nextToken(text, k, lexer);
        if (eq < text.size() && text[eq] == '=' && (eq + 1 >= text.size() || text[eq + 1] != '=')) {
          named = true;
          shape.keyword = shape.keyword || w == name;
        }
      }
      previous = w.back();
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) {
        endArgument();
        return shape;
      }
    } else if (c == ',' && depth == 1) {
      endArgument();
    }
    previous = static_cast<char>(c);
    ++k;
  }
  return std::nullopt;
}

/// The AF3xx words of a call that a rule reads only with some arguments missing: AF304
/// (implicit-softmax-dim) reports `F.softmax(x)` and `nn.Softmax()`, never a call that passes
/// `dim=` or the dimension by position (the functions' second argument, the modules' first).
struct JudgedWord {
  std::string_view word;
  std::string_view keyword;
  unsigned positional; ///< that many positional arguments pass it
};
constexpr std::array<JudgedWord, 6> kJudgedWords{{{"softmax(", "dim", 2},
                                                  {"log_softmax(", "dim", 2},
                                                  {"softmin(", "dim", 2},
                                                  {"Softmax(", "dim", 1},
                                                  {"LogSoftmax(", "dim", 1},
                                                  {"Softmin(", "dim", 1}}};

/// What a scan backwards from an offset in code found (backwardScan).
struct BackwardStop {
  enum Kind {
    Bracket,    ///< `at` is the `(`, `[` or `{` of the innermost bracket around the offset
    Statement,  ///< `at` is where the statement holding the offset starts (after a line break or `;`)
    TextStart,  ///< the scan reached the text's start with its brackets balanced
    Unbalanced, ///< the scan reached the text's start with more closing brackets than opening
    Unknown,    ///< the scan cannot tell: a string the lexer leaves as code, the offset in a field
                ///< of an f-string, more than the window
  } kind;
  std::size_t at = 0;
};

/// Whether backwardScan() reads the byte `c`: a bracket or a quote, and with `statements` a line
/// break, `;` or `#`.
bool stopsBackwardScan(char c, bool statements) {
  switch (c) {
  case '(':
  case ')':
  case '[':
  case ']':
  case '{':
  case '}':
  case '"':
  case '\'':
  case '`': return true;
  case '\n':
  case '\r':
  case ';':
  case '#': return statements;
  default: return false;
  }
}

#if defined(ASYNCFIX_PREFILTER_AVX2)
/// previousStop()'s search 32 bytes a step backwards from `k` while they stay at or above
/// `floor`: the last position before `k` whose byte stopsBackwardScan(), or npos with `k` left at
/// the first position not searched. The bytes are classified by their two nibbles (a table
/// lookup each): bits 0-2 for the brackets and quotes, 3-5 for `#`, the line breaks and `;`.
__attribute__((target("avx2"))) std::size_t previousStopAvx2(const char *s, std::size_t &k, std::size_t floor,
                                                             bool statements) {
  // Bit 0: `"`, `'`, `(`, `)` (high nibble 2); bit 1: `[`, `]`, `{`, `}` (5 and 7, low B and D);
  // bit 2: the backquote; bit 3: `#`; bit 4: `\n`, `\r`; bit 5: `;`.
  const __m256i high = _mm256_setr_epi8(16, 0, 9, 32, 0, 2, 4, 2, 0, 0, 0, 0, 0, 0, 0, 0, //
                                        16, 0, 9, 32, 0, 2, 4, 2, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i low = _mm256_setr_epi8(4, 0, 1, 8, 0, 0, 0, 1, 1, 1, 16, 34, 0, 18, 0, 0, //
                                       4, 0, 1, 8, 0, 0, 0, 1, 1, 1, 16, 34, 0, 18, 0, 0);
  const __m256i nibble = _mm256_set1_epi8(0x0f), wanted = _mm256_set1_epi8(statements ? 0x3f : 0x07);
  const __m256i zero = _mm256_setzero_si256();
  for (; k >= floor + 32; k -= 32) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + k - 32));
    const __m256i hi = _mm256_shuffle_epi8(high, _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble));
    const __m256i lo = _mm256_shuffle_epi8(low, x); // 0 for a byte of 0x80 and above
    const __m256i none = _mm256_cmpeq_epi8(_mm256_and_si256(_mm256_and_si256(hi, lo), wanted), zero);
    if (const auto mask = ~static_cast<unsigned>(_mm256_movemask_epi8(none)); mask != 0)
      return k - 32 + 31 - static_cast<std::size_t>(__builtin_clz(mask));
  }
  return std::string_view::npos;
}
#endif

/// The last position at or above `floor` and before `k` whose byte stopsBackwardScan(); npos when
/// there is none. With `bytewise` (the reference path), one byte at a time.
std::size_t previousStop(std::string_view text, std::size_t k, std::size_t floor, bool statements,
                         [[maybe_unused]] bool bytewise) {
#if defined(ASYNCFIX_PREFILTER_AVX2)
  if (!bytewise && k >= floor + 32 && cpuHasAvx2())
    if (const std::size_t found = previousStopAvx2(text.data(), k, floor, statements); found != std::string_view::npos)
      return found;
#endif
  while (k-- > floor)
    if (stopsBackwardScan(text[k], statements)) return k;
  return std::string_view::npos;
}

/// The one scan backwards over balanced brackets, strings and comments from `at` (in code) that
/// openingBracket() and statementStart() make: it stops at the first opening bracket left open,
/// or — with `statements` — also at a line break (not continued) or `;` at the top level. Brackets
/// in strings and comments are skipped with the lexer's spans, known up to `at`; with
/// `statements`, a `#` the lexer leaves as code cannot be followed either.
BackwardStop backwardScan(std::string_view text, std::size_t at, Lexer &lexer, bool statements) {
  const std::size_t floor = at > kJudgementWindow ? at - kJudgementWindow : 0;
  int depth = 0;
  // From one byte the scan reads to the one before it (previousStop(): the bytes between need
  // no look); a string or comment is stepped over from its start.
  for (std::size_t k = at;
       (k = previousStop(text, k, floor, statements, lexer.bytewise())) != std::string_view::npos;) {
    const char c = text[k];
    const bool bracket = c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}';
    if (const std::size_t begin = lexer.spanBegin(k); begin != std::string_view::npos) {
      if (lexer.skip(k) > at) return {BackwardStop::Unknown}; // `at` is in a field of this f-string
      k = begin;
      continue;
    }
    if (isQuote(c) || c == '#') return {BackwardStop::Unknown}; // code to the lexer: not followed
    if (c == ')' || c == ']' || c == '}') {
      ++depth;
    } else if (bracket) {
      if (depth == 0) return {BackwardStop::Bracket, k};
      --depth;
    } else if (depth == 0 && c == ';') {
      return {BackwardStop::Statement, k + 1};
    } else if (depth == 0 && (c == '\n' || c == '\r')) {
      std::size_t q = k;
      if (c == '\n' && q > 0 && text[q - 1] == '\r') --q;
      if (q == 0 || text[q - 1] != '\\') return {BackwardStop::Statement, k + 1};
    }
  }
  if (floor != 0) return {BackwardStop::Unknown};
  return {depth == 0 ? BackwardStop::TextStart : BackwardStop::Unbalanced};
}

/// The `(`, `[` or `{` of the innermost bracket around `at` (in code), as a scan backwards sees
/// it: npos when `at` is in no bracket, kUnknown when the scan cannot tell (a string the lexer
/// leaves as code, `at` in a field of an f-string, more than the window).
std::size_t openingBracket(std::string_view text, std::size_t at, Lexer &lexer) {
  const BackwardStop stop = backwardScan(text, at, lexer, false);
  if (stop.kind == BackwardStop::Bracket) return stop.at;
  return stop.kind == BackwardStop::Unknown ? kUnknown : std::string_view::npos;
}

/// What stands before the `(` at `open`: the name called or defined (empty for none: `f()(`,
/// `(`), whether a `.` precedes it, and the word before that (`def`, `class`, …). `unclear` when
/// a line break stands between them (inside brackets, with a comment the scan does not read).
struct BracketOwner {
  std::string_view name, keyword;
  bool dotted = false, unclear = false;
  std::size_t keywordAt = 0;
};
BracketOwner bracketOwner(std::string_view text, std::size_t open) {
  BracketOwner o;
  bool broken = false; // a line break was skipped
  const auto blank = [&](std::size_t k) {
    const char c = text[k - 1];
    broken = broken || c == '\n' || c == '\r' || c == '\\';
    return c == ' ' || c == '\t' || c == '\f' || c == '\n' || c == '\r' || c == '\\';
  };
  std::size_t end = open;
  while (end > 0 && blank(end)) --end;
  std::size_t begin = end;
  while (begin > 0 && isWordByte(static_cast<unsigned char>(text[begin - 1]))) --begin;
  o.name = text.substr(begin, end - begin);
  o.unclear = broken && !o.name.empty();
  broken = false;
  std::size_t before = begin;
  while (before > 0 && blank(before)) --before;
  o.dotted = before > 0 && text[before - 1] == '.';
  o.unclear = o.unclear || (broken && o.dotted);
  o.keyword = previousWord(text, begin);
  o.keywordAt = before - o.keyword.size();
  return o;
}

/// Whether the class whose `class` keyword is at `at` and whose bases open at `open` may define
/// an instance `forward` (AF303): a `def forward` in its body whose decorators are no
/// `@staticmethod`/`@classmethod`. The body is read by indentation, its brackets, strings and
/// comments stepped over; anything the scan does not follow (a tab or form feed in an
/// indentation, a string the lexer leaves as code) answers yes.
bool classMayHaveInstanceForward(std::string_view text, std::size_t at, std::size_t open, Lexer &lexer) {
  std::size_t lineStart = at;
  while (lineStart > 0 && text[lineStart - 1] != '\n' && text[lineStart - 1] != '\r') --lineStart;
  for (std::size_t k = lineStart; k < at; ++k)
    if (text[k] != ' ') return true;
  const std::size_t indent = at - lineStart;
  int depth = 0;
  bool lineEnded = false, staticDecorator = false;
  for (std::size_t k = open; k < text.size();) {
    if (lineEnded) {
      // The start of a line at depth 0: its indentation says whether the body goes on.
      lineEnded = false;
      std::size_t first = k;
      while (first < text.size() && text[first] == ' ') ++first;
      if (first >= text.size()) return false;
      const char c = text[first];
      if (c == '\t' || c == '\f' || c == '\\') return true;
      if (c == '\n' || c == '\r' || c == '#') {
        k = first; // a blank line or a comment: no statement
        continue;
      }
      if (first - k <= indent) return false; // a statement outside the class: its body ended
      const std::string_view w = wordAt(text, first);
      if (c == '@') {
        const std::string_view d = wordAt(text, skipBlanks(text, first + 1));
        const std::size_t after = skipBlanks(text, first + 1 + d.size());
        staticDecorator = staticDecorator ||
                          ((d == "staticmethod" || d == "classmethod") &&
                           (after >= text.size() || text[after] == '\n' || text[after] == '\r' || text[after] == '#'));
      } else {
        std::size_t def = first;
        if (w == "async") def = skipBlanks(text, first + 5);
        if (wordAt(text, def) == "def" && wordAt(text, skipBlanks(text, def + 3)) == "forward" && !staticDecorator)
          return true;
        staticDecorator = false;
      }
      k = first;
    }
    const char c = text[k];
    if (isQuote(c) || c == '#') {
      const std::size_t e = lexer.skip(k);
      if (e <= k) return true; // a string the lexer leaves as code
      k = e;
      continue;
    }
    if (c == '\\' && k + 1 < text.size() && (text[k + 1] == '\n' || text[k + 1] == '\r')) {
      k += text[k + 1] == '\r' && k + 2 < text.size() && text[k + 2] == '\n' ? 3 : 2;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth < 0) return true; // a stray bracket: a syntax error, left to the parser
    } else if (c == '\r' && (k + 1 >= text.size() || text[k + 1] != '\n')) {
      return true; // a lone CR: no line end for tree-sitter, whose lines this scan would not follow
    } else if (c == '\n' && depth == 0) {
      lineEnded = true;
    }
    ++k;
  }
  return false;
}

/// Whether the name `name` stands after `import` in an import statement of the text (in code):
/// `import name`, `import a.b as name`, `from m import x, name`, `from . import (\n  name)`. The
/// only bindings that give a name a module's dotted path (the semantic model's `qualified`), so
/// that `name.softmax` may be torch's. Conservative: a statement the scan cannot follow to its
/// end (a string the lexer leaves as code) counts as naming it.
bool importsName(std::string_view text, std::string_view name, Lexer &lexer) {
  bool found = false;
  forEachOccurrence(text, "import", [&](std::size_t at) {
    if (!isWholeWord(text, at, 6) || !lexer.inCode(at)) return false;
    std::size_t k = skipBlanks(text, at + 6);
    const bool parenthesized = k < text.size() && text[k] == '(';
    int depth = 0;
    for (; k < text.size(); ++k) {
      const char c = text[k];
      if (isQuote(c) || c == '#') {
        const std::size_t e = lexer.skip(k);
        if (e <= k) return found = true;
        k = e - 1;
        continue;
      }
      if (c == '(') ++depth;
      if (c == ')' && --depth <= 0 && parenthesized) break;
      if ((c == '\n' || c == '\r') && !parenthesized) {
        std::size_t q = k; // a backslash before the line end (CRLF too) continues the statement
        if (c == '\n' && q > 0 && text[q - 1] == '\r') --q;
        if (q == 0 || text[q - 1] != '\\') break;
      }
      if (c == ';' && !parenthesized) break;
      if (isWordByte(static_cast<unsigned char>(c)) &&
          (k == 0 || !isWordByte(static_cast<unsigned char>(text[k - 1])))) {
        const std::string_view w = wordAt(text, k);
        if (w == name && (k == 0 || text[k - 1] != '.')) return found = true;
        k += w.size() - 1;
      }
    }
    return false;
  });
  return found;
}

/// The names a rule reports in `from <module> import …` (AF310's and AF316's rows of the
/// module): whether the names list after the `import` that ends at `end` holds one (before its
/// `as`). A star imports no name by itself (the rules read its names where they are used);
/// anything the scan does not read (a comment, a string, a line continuation) counts as one.
bool importListNames(std::string_view text, std::size_t end, std::span<const std::string_view> names) {
  std::size_t k = skipBlanks(text, end);
  const bool parenthesized = k < text.size() && text[k] == '(';
  if (parenthesized) ++k;
  const auto blanks = [&](std::size_t i) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\f' ||
                               (parenthesized && (text[i] == '\n' || text[i] == '\r'))))
      ++i;
    return i;
  };
  for (;;) {
    k = blanks(k);
    if (k >= text.size()) return false;
    if (text[k] == '*') return false;
    const std::string_view w = wordAt(text, k);
    if (w.empty()) return !(parenthesized && text[k] == ')');
    if (std::find(names.begin(), names.end(), w) != names.end()) return true;
    k = blanks(k + w.size());
    if (wordAt(text, k) == "as") {
      k = blanks(k + 2);
      const std::string_view alias = wordAt(text, k);
      if (alias.empty()) return true;
      k = blanks(k + alias.size());
    }
    if (k >= text.size()) return false;
    if (text[k] == ',') {
      ++k;
      continue;
    }
    if (parenthesized) return text[k] != ')';
    return !(text[k] == '\n' || text[k] == '\r' || text[k] == ';' || text[k] == '#');
  }
}

/// The names of `torch.nn.init` that AF310 renames (its rows in config/torch_rename_table.h, read
/// from there: one source): what a `from torch.nn.init import …` list must name to matter.
std::span<const std::string_view> initRenameNames() {
  static const std::vector<std::string_view> names = [] {
    constexpr std::string_view kModule = "torch.nn.init.";
    std::vector<std::string_view> found;
    for (const rules::TorchRename &row : rules::torchRenames())
      if (row.old.starts_with(kModule)) found.push_back(row.old.substr(kModule.size()));
    return found;
  }();
  return names;
}
constexpr std::array<std::string_view, 3> kMiscImageNames{"imread", "imsave", "imresize"};

/// The words of AF310's and AF316's rows that their rules report only where the function is
/// called (a deprecated or removed function; not a removed module nor a removed class), or
/// imported by name (`from torch import symeig`): bare names and attribute paths.
constexpr std::array<std::string_view, 21> kCalledNames{"init.uniform",
                                                        "init.normal",
                                                        "init.constant",
                                                        "init.eye",
                                                        "init.dirac",
                                                        "init.orthogonal",
                                                        "init.sparse",
                                                        "xavier_uniform",
                                                        "xavier_normal",
                                                        "kaiming_uniform",
                                                        "kaiming_normal",
                                                        "clip_grad_norm",
                                                        "gesv",
                                                        "potrf",
                                                        "trtrs",
                                                        "gels",
                                                        "symeig",
                                                        "torch.eig",
                                                        "torch.solve",
                                                        "torch.lstsq",
                                                        "torch.matrix_rank"};

/// Where a name whose rule reads it only called (or imported by name) stands: `.` before it (an
/// attribute), or bare. A bare one may be an import's name (after `import`, a `,`, an import's
/// `(`, a line continuation or a line break inside brackets) or, with a star import, any use;
/// elsewhere it is an expression of the file's own (`x = trtrs(…)` after `trtrs = …`), or the
/// start of a statement (`xavier_uniform = _make_deprecate(…)`).
bool bareNameMayBeImported(std::string_view text, std::size_t at, Lexer &lexer) {
  std::size_t p = at;
  p = skipBlanksBack(text, p);
  if (p == 0) return false; // the text's first statement
  const char c = text[p - 1];
  if (c == '\n' || c == '\r') {
    std::size_t q = p - 1;
    if (c == '\n' && q > 0 && text[q - 1] == '\r') --q;
    if (q > 0 && text[q - 1] == '\\') return true;                    // a continued line
    return openingBracket(text, at, lexer) != std::string_view::npos; // inside brackets, or unknown
  }
  if (c == ';') return false; // a statement's start
  if (c == ',') {
    const std::size_t open = openingBracket(text, at, lexer);
    if (open == std::string_view::npos || open == kUnknown) return true; // `import a, symeig`
    return text[open] == '(' && previousWord(text, open) == "import";
  }
  if (c == '(') return previousWord(text, p - 1) == "import";
  if (isWordByte(static_cast<unsigned char>(c))) {
    const std::string_view w = previousWord(text, p);
    return w == "import" || w == "as" || !isKeyword(w);
  }
  // After an operator, an expression: the name of the file's own (bound) or of a star import.
  // Unless the operators stand where none can (`from torch import ~symeig`): tree-sitter's error
  // recovery skips them and reads an import of the name, so it is judged as if they were not there.
  constexpr std::string_view kOperators = "=+-*/%&|^~<>[{:@";
  if (kOperators.find(c) == std::string_view::npos) return true;
  std::size_t q = p - 1;
  while (q > 0 && (kOperators.find(text[q - 1]) != std::string_view::npos || text[q - 1] == ' ' ||
                   text[q - 1] == '\t' || text[q - 1] == '\f'))
    --q;
  if (q > 0 && isWordByte(static_cast<unsigned char>(text[q - 1]))) return previousWord(text, q) == "import";
  return bareNameMayBeImported(text, q, lexer); // after `,`, `(`, a line break…: as there
}

/// Whether the class name (a word of AF305 or AF318 that is no call's) at `at` is an argument of
/// `isinstance`/`issubclass`, or in a tuple that is one, and nothing more (`, ` or `)` after it).
bool typeTestArgument(std::string_view text, std::size_t at, Lexer &lexer) {
  std::size_t end = at;
  while (end < text.size() && (isWordByte(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  const std::size_t next = nextToken(text, end, lexer);
  if (next >= text.size() || (text[next] != ',' && text[next] != ')')) return false;
  std::size_t open = openingBracket(text, at, lexer);
  for (int level = 0; level < 2; ++level) {
    if (open == std::string_view::npos || open == kUnknown || text[open] != '(') return false;
    const BracketOwner owner = bracketOwner(text, open);
    if (owner.unclear) return false;
    if (owner.name.empty() && level == 0) {
      // A tuple: `isinstance(x, (torch.CharTensor, torch.ByteTensor))`.
      std::size_t before = open;
      while (before > 0 && (text[before - 1] == ' ' || text[before - 1] == '\t')) --before;
      if (before == 0 || (text[before - 1] != ',' && text[before - 1] != '(')) return false;
      open = openingBracket(text, open, lexer);
      continue;
    }
    return !owner.dotted && (owner.name == "isinstance" || owner.name == "issubclass") && owner.keyword != "def" &&
           owner.keyword != "class";
  }
  return false;
}

/// What stands before the attribute (or method) name at `at`, read backwards over blanks and line
/// continuations: no `.` (a bare name), a value (`)`, `]`, `}` or a quote: a call's result, a
/// subscript, a literal), or a name (and whether a `.` precedes it: a chain); unknown where a
/// comment stands in the way, or the byte is none of those, or the name is a number (unclear).
struct Receiver {
  enum Kind { kNoDot, kUnclear, kValue, kName } kind = kUnclear;
  std::string_view name;
  bool chained = false;
};
Receiver receiverOf(std::string_view text, std::size_t at, Lexer &lexer) {
  std::size_t k = at;
  while (k > 0 && isGap(text[k - 1])) --k;
  if (k > 0 && lexer.spanBegin(k - 1) != std::string_view::npos) return {Receiver::kUnclear, {}, false};
  if (k == 0 || text[k - 1] != '.') return {Receiver::kNoDot, {}, false};
  --k;
  while (k > 0 && isGap(text[k - 1])) --k;
  if (k == 0 || lexer.spanBegin(k - 1) != std::string_view::npos) return {Receiver::kUnclear, {}, false};
  const char c = text[k - 1];
  if (c == ')' || c == ']' || c == '}' || isQuote(c)) return {Receiver::kValue, {}, false};
  if (!isWordByte(static_cast<unsigned char>(c))) return {Receiver::kUnclear, {}, false};
  std::size_t b = k;
  while (b > 0 && isWordByte(static_cast<unsigned char>(text[b - 1]))) --b;
  if (text[b] >= '0' && text[b] <= '9') return {Receiver::kUnclear, {}, false}; // a number: not ours to judge
  std::size_t d = b;
  while (d > 0 && isGap(text[d - 1])) --d;
  if (d > 0 && lexer.spanBegin(d - 1) != std::string_view::npos) return {Receiver::kUnclear, {}, false};
  return {Receiver::kName, text.substr(b, k - b), d > 0 && text[d - 1] == '.'};
}

/// Whether the receiver of the softmax-family word at `at` may make it torch's (AF304 resolves
/// the callee's dotted path through the file's imports, star imports included): a bare call
/// (`softmax(x)`) may; a method of a call, subscript or literal (`(-x).softmax(d)`) never; a
/// chain's last name must be `functional` (`F`-less `nn.functional.softmax`) or, for the modules,
/// `nn` or `activation`; a single name must be one of those (a star import's) or an import's
/// (`import torch.nn.functional as F`): the only bindings that give a name a dotted path.
bool softmaxReceiverMayBeTorch(std::string_view text, std::size_t at, bool functional, Lexer &lexer) {
  const Receiver r = receiverOf(text, at, lexer);
  if (r.kind == Receiver::kValue) return false;
  if (r.kind != Receiver::kName) return true;
  if (r.name == (functional ? "functional" : "nn") || (!functional && r.name == "activation")) return true;
  return !r.chained && importsName(text, r.name, lexer); // a chain whose last name is no module of the path
}

/// Whether every binding of the name `name` in the text is an import that does not spell `torch`
/// (`from . import _linalg_utils as _utils`), one of them at the module level (a line that starts
/// with `from` or `import` at column 0): then wherever `name.symeig(…)` is written its root is
/// bound by an import (rules/torch_api.h, rootBoundByImport), and its path is no `torch.symeig`.
/// On bytes: each whole `name` in code is such an import's, or the root of an attribute
/// (`name.`), which binds nothing; any other (a parameter, an assignment, a `for` or `with`
/// target, `global`) answers no.
/// Whether the `.` at `dot` makes the name after it an attribute: not the last of an Ellipsis
/// (`...T = x`) nor a number's (`1. T = x`), after which tree-sitter's error recovery may read the
/// name as a statement's own (an assignment's target).
bool attributeDot(std::string_view text, std::size_t dot) {
  std::size_t k = dot;
  k = skipBlanksBack(text, k);
  if (k == 0 || text[k - 1] == '.') return false;
  if (!isWordByte(static_cast<unsigned char>(text[k - 1]))) return true; // `f().x`, `'a'.x`, `a[0].x`
  std::size_t start = k - 1;
  while (start > 0 && isWordByte(static_cast<unsigned char>(text[start - 1]))) --start;
  return !(text[start] >= '0' && text[start] <= '9');
}

bool onlyImportsBind(std::string_view text, std::string_view name, Lexer &lexer) {
  bool moduleLevel = false;
  for (std::size_t k = text.find(name); k != std::string_view::npos; k = text.find(name, k + 1)) {
    if (!isWholeWord(text, k, name.size()) || !lexer.inCode(k)) continue;
    std::size_t before = k;
    while (before > 0 && (text[before - 1] == ' ' || text[before - 1] == '\t')) --before;
    if (before > 0 && text[before - 1] == '.' && attributeDot(text, before - 1)) continue; // another object's attribute
    const std::size_t after = skipBlanks(text, k + name.size());
    if (after < text.size() && text[after] == '.') continue; // an attribute's root: a use
    std::size_t line = k;
    while (line > 0 && text[line - 1] != '\n' && text[line - 1] != '\r') --line;
    const std::size_t first = skipBlanks(text, line);
    const std::string_view keyword = wordAt(text, first);
    if (keyword != "from" && keyword != "import") return false;
    const std::string_view statement = text.substr(first, k - first);
    if (statement.find(';') != std::string_view::npos) return false; // `import x; name = …`
    const std::size_t import = statement.rfind("import");
    if (import == std::string_view::npos || !isWholeWord(text, first + import, 6)) return false;
    for (std::size_t t = statement.find("torch"); t != std::string_view::npos; t = statement.find("torch", t + 1))
      if (isWholeWord(text, first + t, 5)) return false;
    const std::size_t end = std::min(text.find_first_of("\r\n;#\\(", k), text.size());
    for (std::size_t t = text.find("torch", k); t < end; t = text.find("torch", t + 1))
      if (isWholeWord(text, t, 5)) return false;
    moduleLevel = moduleLevel || first == line;
  }
  return moduleLevel;
}

struct Searches;

/// The packages a whole text spells (TorchPackage), and those its caller says it reaches, found
/// as far as the judgements ask: `torch` by a search that stops at its first occurrence (PyTorch
/// code spells it in its first lines), the star imports by spellsStarImport (asked where a word
/// that only a star import provides is found: `load(` in `torch.load(`), NumPy, SciPy and
/// torchvision by the one pass of torchPackagesSpelt, at the first question about one of them —
/// which a file whose words are all torch's never asks.
class SpeltPackages {
public:
  SpeltPackages(std::string_view text, unsigned reached, const Searches &search, Lexer *lexer)
      : text_(text), search_(search), lexer_(lexer), spelt_(reached) {}
  /// Whether the text spells (or reaches) one of `packages`.
  bool any(unsigned packages);
  /// Whether a word of `package` counts at `at`: its package is spelt, or, for a word that only a
  /// star import gives, an import before it (in code, when a lexer is given) may give names its
  /// bytes do not show (unreadImportAt): tree-sitter's error recovery may read the word as one.
  bool counts(unsigned package, std::size_t at);

  /// What the `.volatile` judgement learnt of the text (volatileMayBeReported), so that each
  /// occurrence costs no whole-text pass of its own: whether tree-sitter may recover attributes
  /// the bytes do not spell, and whether each root name seen denotes a path.
  struct VolatileMemo {
    std::optional<bool> recoversAttributes;
    std::vector<std::pair<std::string_view, bool>> roots;
    std::optional<Blocks> lines; ///< the logical lines, read as far as the last root asked
  } volatileMemo;

private:
  std::string_view text_;
  const Searches &search_;
  Lexer *lexer_;
  unsigned spelt_ = 0, known_ = 0; ///< known_: the bits of spelt_ found out
  std::size_t importsRead_ = 0;    ///< the imports that start before it are read
  bool unreadImport_ = false;
};

/// Whether the base class word `Function` at `at` (AF303) may denote `torch.autograd.Function` or
/// `torch.autograd.function.Function`: dotted, the name before it must be `autograd` or
/// `function`, or a single name an import binds (an alias); bare, an import must name it (`from
/// torch.autograd import Function`) or a star import of the family may provide it. A class of the
/// file's own (`class Function` in torch/autograd/function.py) has no dotted path.
bool functionBaseMayBeTorch(std::string_view text, std::size_t at, SpeltPackages &spelt, Lexer &lexer) {
  const Receiver r = receiverOf(text, at, lexer);
  if (r.kind == Receiver::kNoDot) return spelt.any(kPackageStarImport) || importsName(text, "Function", lexer);
  if (r.kind != Receiver::kName || r.name == "autograd" || r.name == "function") return true;
  return !r.chained && importsName(text, r.name, lexer); // a chain whose last name is no module of the path
}

/// The start of the statement holding `at` (which is in no bracket): a scan backwards over
/// balanced brackets, strings and comments to a line break (not continued) or `;` at the top
/// level. npos when the scan cannot tell (a string the lexer leaves as code, more than the
/// window) or finds a bracket left open.
std::size_t statementStart(std::string_view text, std::size_t at, Lexer &lexer) {
  const BackwardStop stop = backwardScan(text, at, lexer, true);
  if (stop.kind == BackwardStop::Statement) return stop.at;
  return stop.kind == BackwardStop::TextStart ? 0 : std::string_view::npos;
}

/// The end of the statement (its line break at the top level) that the code at `at` is in: a
/// scan forwards over brackets, strings and comments; the text's end where it cannot tell.
std::size_t statementEnd(std::string_view text, std::size_t at, Lexer &lexer) {
  int depth = 0;
  for (std::size_t k = at; k < text.size(); ++k) {
    const char c = text[k];
    if (isQuote(c) || c == '#') {
      const std::size_t e = lexer.skip(k);
      if (e <= k) return text.size();
      k = e - 1;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth < 0) return text.size();
    } else if (c == '\\' && k + 1 < text.size() && (text[k + 1] == '\n' || text[k + 1] == '\r')) {
      ++k;
    } else if (depth == 0 && (c == '\n' || c == '\r')) {
      return k;
    }
  }
  return text.size();
}

/// Whether the name at `at` (in code) is the target of an assignment that starts a statement at
/// the top level (`mask = …` after a line break, no bracket around), read on bytes; its column.
std::optional<std::size_t> statementTarget(std::string_view text, std::size_t at, Lexer &lexer) {
  std::size_t p = at;
  while (p > 0 && text[p - 1] == ' ') --p;
  if (p > 0 && text[p - 1] != '\n' && text[p - 1] != '\r') return std::nullopt;
  if (p >= 2 && text[p - 1] == '\n' && (text[p - 2] == '\\' || (text[p - 2] == '\r' && p >= 3 && text[p - 3] == '\\')))
    return std::nullopt;
  const std::size_t eq = skipBlanks(text, at + wordAt(text, at).size());
  if (eq + 1 >= text.size() || text[eq] != '=' || text[eq + 1] == '=') return std::nullopt;
  if (openingBracket(text, at, lexer) != std::string_view::npos) return std::nullopt;
  return at - p;
}

/// Whether the use of a name at `at` may be a mask's for AF305 (Uint8Mask's consumerOf): a
/// subscript's index, the first argument of `masked_fill`/`masked_select`/`masked_scatter` (and
/// their in-place forms) or `where`, `mask=`; read as the bytes before it, through parentheses.
bool mayUseAsMask(std::string_view text, std::size_t at, Lexer &lexer) {
  std::size_t k = at;
  for (;;) {
    while (k > 0 && isGap(text[k - 1])) --k;
    if (k == 0) return false;
    if (lexer.spanBegin(k - 1) != std::string_view::npos) return true; // a comment in the way
    if (text[k - 1] != '(') break;
    const BracketOwner owner = bracketOwner(text, k - 1);
    if (owner.unclear) return true;
    // A call's first argument: a mask only for the masked_* methods and `where` (AF305's).
    if (!owner.name.empty())
      return owner.name == "where" ||
             std::find(rules::kMaskMethods.begin(), rules::kMaskMethods.end(), owner.name) != rules::kMaskMethods.end();
    --k; // a parenthesised value (or a tuple): what holds it decides
  }
  const char c = text[k - 1];
  if (c == '[') return true;
  if (c == '=' && k >= 2 && std::string_view("=<>!:").find(text[k - 2]) == std::string_view::npos)
    return previousWord(text, k - 1) == "mask";
  return false; // after `,`, an operator or a keyword: no index, no first argument
}

/// AF305 through a name (Uint8Mask's findThroughName): `N = ….byte()` at `at` makes a mask only
/// where a later use of `N` is one, up to the next assignment to `N` in the same scope. Read on
/// bytes: the statement must be `N = …` (else the value reaches no name); every later whole `N`
/// in code is judged by mayUseAsMask, until a statement `N = …` at the same column with no line
/// indented less between (the same block, so the same scope), whose own line is judged too.
bool byteValueMayBeMask(std::string_view text, std::size_t at, Lexer &lexer) {
  if (openingBracket(text, at, lexer) != std::string_view::npos) return true; // an index, an argument…
  std::size_t start = statementStart(text, at, lexer);
  if (start == std::string_view::npos) return true;
  if (start == 0 && text.starts_with("\xEF\xBB\xBF")) start = 3; // U+FEFF is not part of a name
  const std::size_t first = skipBlanks(text, start);
  if (text.substr(start, first - start).find_first_not_of(' ') != std::string_view::npos)
    return true; // a tab or form feed in the indentation: no column to compare
  // An `=` at the top level between `from` and the `.byte()`: an assignment this scan cannot read
  // (`a = b = ….byte()`, or one behind a compound statement's header: `if c: m = ….byte()`).
  const auto assignmentBetween = [&](std::size_t from) {
    for (std::size_t k = from; k < at; ++k)
      if (text[k] == '=' && lexer.inCode(k) && openingBracket(text, k, lexer) == std::string_view::npos &&
          std::string_view("=<>!+-*/%&|^@:").find(text[k - 1]) == std::string_view::npos &&
          (k + 1 >= text.size() || text[k + 1] != '='))
        return true; // not `==`, `<=`, `+=`, `:=`…: the rule reads plain assignments only
    return false;
  };
  const std::string_view name = wordAt(text, first);
  if (name.empty() || isKeyword(name) || (name[0] >= '0' && name[0] <= '9'))
    return assignmentBetween(first); // no assignment, unless behind a header (`with …: m = ….byte()`)
  const std::size_t eq = skipBlanks(text, first + name.size());
  if (eq >= text.size() || text[eq] != '=' || (eq + 1 < text.size() && text[eq + 1] == '=')) {
    // `N: T = …`, `N[i] = …`, `a, b = …` and the like, `def f(x): m = …`, or no assignment at all.
    return (eq < text.size() && (text[eq] == ':' || text[eq] == ',' || text[eq] == '.' || text[eq] == '[')) ||
           assignmentBetween(eq);
  }
  if (assignmentBetween(eq + 1)) return true;           // a second `=` at the top level: `a = b = ….byte()`
  if (start > 0 && text[start - 1] == ';') return true; // `a = 1; N = ….byte()`: no column to read
  const std::size_t column = first - start;
  std::size_t lineEnd = std::string_view::npos; // the end of the line of the assignment that ends the search
  bool mayBe = false, dedented = false;
  std::size_t checked = at;                // lines up to here are known indented at least `column`
  const auto occurrences = [&](auto &&f) { // the names may be one byte long: no forEachOccurrence
    for (std::size_t k = text.find(name, at + 1); k != std::string_view::npos; k = text.find(name, k + 1))
      if (f(k)) return;
  };
  occurrences([&](std::size_t k) {
    if (lineEnd != std::string_view::npos && k >= lineEnd) return true;
    if (!isWholeWord(text, k, name.size()) || !lexer.inCode(k)) return false;
    std::size_t before = k;
    while (before > 0 && (text[before - 1] == ' ' || text[before - 1] == '\t')) --before;
    if (before > 0 && text[before - 1] == '.') return false; // an attribute of something else
    // Lines between: any code line indented less than the assignment leaves its block.
    for (std::size_t line = text.find('\n', checked); !dedented && line != std::string_view::npos && line < k;
         line = text.find('\n', line + 1)) {
      const std::size_t b = line + 1;
      const std::size_t f = skipBlanks(text, b);
      if (f >= text.size() || text[f] == '\n' || text[f] == '\r' || text[f] == '#') continue;
      if (lexer.spanBegin(b) != std::string_view::npos && lexer.spanBegin(f) != std::string_view::npos) continue;
      dedented = f - b < column || text.substr(b, f - b).find_first_not_of(' ') != std::string_view::npos;
    }
    checked = k;
    if (mayUseAsMask(text, k, lexer)) return mayBe = true;
    if (!dedented && lineEnd == std::string_view::npos) {
      if (const auto c = statementTarget(text, k, lexer); c && *c == column)
        lineEnd = statementEnd(text, k, lexer); // its own value may still use `N`
    }
    return false;
  });
  return mayBe;
}

/// Whether the token at `at` may follow an expression in code that parses: a closing bracket,
/// an operator, `,` `:` `;` `=` `.` `[`, or a keyword that may (`if`, `else`, `for`, `in`, `not`,
/// `and`, `or`, `is`, `async`, `as`, `from`). A name, a number, a string or a stray byte there is
/// a syntax error at that very place.
bool mayFollowExpression(std::string_view text, std::size_t at) {
  if (at >= text.size()) return true;
  const char c = text[at];
  if (std::string_view(")]},:;=.+-*/%@&|^<>[").find(c) != std::string_view::npos) return true;
  if (c == '!') return at + 1 < text.size() && text[at + 1] == '=';
  const std::string_view word = wordAt(text, at);
  if (word.empty() || (c >= '0' && c <= '9')) return false;
  for (const std::string_view keyword : {"if", "else", "for", "in", "not", "and", "or", "is", "async", "as", "from"})
    if (word == keyword) return true;
  return false;
}

/// Whether a word a rule reads only called, ending at `end`, may still be read as called where
/// the token after it, at `open`, is no `(`: after an earlier syntax error, tree-sitter's error
/// recovery may read a call, skipping what stands between (`$x\nt.trtrs p(b)` gives a call of
/// `t.trtrs`, which AF316 reports). So it counts as called where that token is one no expression
/// is followed by on its line (a syntax error right there: `t.trtrs p \\\n(b)`), or where a `(`
/// stands later on the logical line from `open`, which goes on over backslash continuations.
/// Found by fuzz_prefilter and the session's review.
bool mayBeCalledLater(std::string_view text, std::size_t end, std::size_t open) {
  if (open >= text.size()) return false;
  const bool sameLine = text.substr(end, open - std::min(open, end)).find_first_of("\n\r") == std::string_view::npos;
  if (sameLine && !mayFollowExpression(text, open)) return true;
  for (std::size_t k = open; k < text.size(); ++k) {
    const char c = text[k];
    if (c == '(') return true;
    if (c != '\n' && c != '\r') continue;
    if (k == 0 || text[k - 1] != '\\') return false; // the logical line ends
    if (c == '\r' && k + 1 < text.size() && text[k + 1] == '\n') ++k;
  }
  return false;
}

/// Python's keywords that no name can be (a `.` before one is a syntax error).
constexpr std::array<std::string_view, 35> kHardKeywords{
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

/// Whether tree-sitter's error recovery may read in the text an attribute that its bytes do not
/// spell where they are read one name at a time: it joins a `.` that no name follows to a name
/// further on, skipping what stands between (`x.$ T.volatile`, `x.(T.volatile`, `x.\n\nT.volatile`
/// are read as `x.T.volatile`), and it skips a byte that no token of Python's is. So: a `.` in
/// code followed (blanks and line continuations between) by anything but a name that is no
/// keyword — unless it is a number's (`1.`, `1.5`, `.5` after an operator), an Ellipsis after
/// what may precede an expression, or the dots of a relative import (`from ..m`) — or a `$`, a
/// `?`, a `!` not before `=`, a backslash that continues no line or a control byte in code.
bool mayRecoverAttributes(std::string_view text, Lexer &lexer) {
  const std::size_t n = text.size();
  const auto mayPrecedeExpression = [&](std::size_t i) { // the token before `i`
    i = skipBlanksBack(text, i);
    if (i == 0 || text[i - 1] == '\n' || text[i - 1] == '\r') return true;
    if (std::string_view("([{,=:;+-*/%<>&|^~@").find(text[i - 1]) != std::string_view::npos) return true;
    return isKeyword(previousWord(text, i));
  };
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool stray = c == '$' || c == '?' || c == 0x7f ||
                       (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') ||
                       (c == '!' && (i + 1 >= n || text[i + 1] != '=')) ||
                       (c == '\\' && (i + 1 >= n || (text[i + 1] != '\n' && text[i + 1] != '\r')));
    if (c != '.' && !stray) continue;
    if (!lexer.inCode(i)) continue;
    if (stray) return true;
    std::size_t b = i; // a number's dot: `1.`, `1.5`, `1.e3`, `1.j`
    while (b > 0 && isWordByte(static_cast<unsigned char>(text[b - 1]))) --b;
    if (b < i && text[b] >= '0' && text[b] <= '9') {
      const char next = i + 1 < n ? text[i + 1] : '\n';
      if (!isWordByte(static_cast<unsigned char>(next)) || (next >= '0' && next <= '9') || next == 'e' || next == 'E' ||
          next == 'j' || next == 'J')
        continue;
      return true;
    }
    std::size_t e = i; // a run of dots
    while (e < n && text[e] == '.') ++e;
    if (b == i && previousWord(text, i) == "from") { // a relative import's
      i = e - 1;
      continue;
    }
    if (e - i == 3 && b == i && mayPrecedeExpression(i)) { // an Ellipsis
      i = e - 1;
      continue;
    }
    if (e - i != 1) return true;
    if (b == i && e < n && text[e] >= '0' && text[e] <= '9' && mayPrecedeExpression(i)) continue; // `.5`
    std::size_t k = e;                                                                            // an attribute's name
    for (;;) {
      k = skipBlanks(text, k);
      if (k < n && text[k] == '\\' && k + 1 < n && (text[k + 1] == '\n' || text[k + 1] == '\r')) {
        k += (text[k + 1] == '\r' && k + 2 < n && text[k + 2] == '\n') ? 3 : 2;
        continue;
      }
      break;
    }
    if (k >= n || !((text[k] >= 'a' && text[k] <= 'z') || (text[k] >= 'A' && text[k] <= 'Z') || text[k] == '_'))
      return true;
    const std::string_view w = wordAt(text, k);
    if (std::find(kHardKeywords.begin(), kHardKeywords.end(), w) != kHardKeywords.end()) return true;
  }
  return false;
}

/// Keywords after which a name is bound (a target, a parameter, an import's, a declaration's):
/// what stands before a name in code that may bind it.
constexpr std::array<std::string_view, 14> kBindingKeywords{"lambda", "for",      "def",  "class", "as",
                                                            "global", "nonlocal", "del",  "case",  "with",
                                                            "except", "import",   "from", "async"};
bool isBindingKeyword(std::string_view w) {
  return std::find(kBindingKeywords.begin(), kBindingKeywords.end(), w) != kBindingKeywords.end();
}

/// What the code before the name at `at` (in code) shows of its place, read backwards token by
/// token at its bracket level (nested brackets, strings, comments and line breaks stepped over)
/// to the first token that tells: a keyword that binds what follows it (`for`, `lambda`, `as`,
/// `def`, …), a keyword after which an expression stands (`return`, `in`, `if`, …), a `:` (a
/// lambda's body, a dict's value, a block's statement), the statement's start (a `;`, the
/// text's), or the bracket it is in (`open`). `literal` says whether a string stood at its level
/// on the way. Unknown where the scan cannot follow (a quote the lexer leaves as code, the name
/// in an f-string's field, more than 16 KiB read).
struct NamePlace {
  enum Kind { kUnclear, kBinding, kExpression, kColon, kStatement, kBracket } kind = kUnclear;
  std::size_t open = 0;
  bool literal = false;
};
/// The last place found, from where: a scan from a later name at the same level that reaches
/// that name goes on as that scan went (the names of a long list cost one scan over it).
struct NamePlaceMemo {
  std::size_t from = std::string_view::npos;
  NamePlace place;
};
/// Whether the line break at `end` (in code) ends a statement that its line holds whole: the
/// line starts with a keyword that only a statement starts with (`import`, `def`, `return`, …,
/// `from` with an `import` on the line; not `for`, `if`, which a comprehension split over lines
/// may start a line with) after a line break that no backslash continues, and its brackets (outside
/// strings and comments) close on it.
bool endsStatementLine(std::string_view text, std::size_t end, Lexer &lexer) {
  if (end > 0 && text[end] == '\n' && text[end - 1] == '\r') --end;
  if (end > 0 && text[end - 1] == '\\') return false; // a continued line
  std::size_t line = end;
  while (line > 0 && text[line - 1] != '\n' && text[line - 1] != '\r') --line;
  if (line >= 2 && text[line - 2] == '\\') return false;
  if (line >= 3 && text[line - 1] == '\n' && text[line - 2] == '\r' && text[line - 3] == '\\') return false;
  const std::size_t first = skipBlanks(text, line);
  static constexpr std::array<std::string_view, 17> kStatementKeywords{
      "import",   "def",   "class",  "global", "nonlocal", "del",  "return", "pass",  "break",
      "continue", "raise", "assert", "with",   "while",    "elif", "try",    "except"};
  const std::string_view w = wordAt(text, first);
  const bool from = w == "from"; // a `from … import …` statement, whose `import` is on the line
  if ((!from && std::find(kStatementKeywords.begin(), kStatementKeywords.end(), w) == kStatementKeywords.end()) ||
      !lexer.inCode(first))
    return false;
  int depth = 0;
  bool imports = !from;
  for (std::size_t k = first; k < end; ++k) {
    const char c = text[k];
    if (c == 'i' && !imports && isWholeWord(text, k, 6) && text.substr(k, 6) == "import") imports = true;
    if (isQuote(c) || c == '#') {
      const std::size_t e = lexer.skip(k);
      if (e <= k) return false; // code to the lexer: not followed
      k = e - 1;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && --depth < 0) {
      return false;
    }
  }
  return depth == 0 && imports;
}

NamePlace namePlace(std::string_view text, std::size_t at, Lexer &lexer, NamePlaceMemo &memo) {
  constexpr std::size_t kWindow = 1 << 14;
  NamePlace place;
  const auto found = [&](NamePlace::Kind kind, std::size_t open = 0) {
    place.kind = kind;
    place.open = open;
    memo = {at, place};
    return place;
  };
  int depth = 0;
  std::size_t read = 0;
  for (std::size_t k = at; k > 0; ++read) {
    if (read > kWindow) return {};
    if (k == memo.from && depth == 0 && k != at) {
      const bool literal = place.literal || memo.place.literal;
      place = memo.place;
      place.literal = literal;
      return found(place.kind, place.open);
    }
    const char c = text[k - 1];
    if ((c == '\n' || c == '\r') && depth == 0 && endsStatementLine(text, k - 1, lexer))
      return found(NamePlace::kStatement);
    if (isGap(c)) {
      --k;
      continue;
    }
    if (const std::size_t begin = lexer.spanBegin(k - 1); begin != std::string_view::npos) {
      if (lexer.skip(k - 1) > at) return {}; // `at` is in a field of this f-string
      place.literal = place.literal || (depth == 0 && text[begin] != '#');
      k = begin;
      continue;
    }
    if (isQuote(c) || c == '#') return {}; // code to the lexer: not followed
    if (c == ')' || c == ']' || c == '}') {
      ++depth;
      --k;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      if (depth == 0) return found(NamePlace::kBracket, k - 1);
      --depth;
      --k;
      continue;
    }
    if (isWordByte(static_cast<unsigned char>(c))) {
      std::size_t b = k;
      while (b > 0 && isWordByte(static_cast<unsigned char>(text[b - 1]))) --b;
      const std::string_view w = text.substr(b, k - b);
      k = b;
      if (depth > 0 || (w[0] >= '0' && w[0] <= '9')) continue;
      if (isBindingKeyword(w)) return found(NamePlace::kBinding);
      if (isKeyword(w)) return found(NamePlace::kExpression);
      continue;
    }
    if (depth == 0 && c == ';') return found(NamePlace::kStatement);
    if (depth == 0 && c == ':' && text[k] != '=') return found(NamePlace::kColon);
    if (std::string_view("=+-*/%<>&|^~@!,.:;").find(c) == std::string_view::npos) return {};
    --k;
  }
  return found(NamePlace::kStatement);
}

/// Whether the name `name` at `at` (a whole word in code, no `.` before it) is read there and
/// bound by nothing: the root of an attribute (`name.x`) after `=`, or outside a parameter list,
/// a `for`'s targets or a lambda's parameters (where the error recovery of `def f(name.x)` reads
/// a parameter); a call's argument (`f(a, name)`, no lambda or comprehension between); or an
/// element beside a literal of a bracket that is no target (`("torch", name)`).
bool nameReadOnly(std::string_view text, std::size_t at, std::string_view name, Lexer &lexer, NamePlaceMemo &memo) {
  const std::size_t next = skipBlanks(text, at + name.size());
  const char f = next < text.size() ? text[next] : '\n';
  if (f != '.' && f != ',' && f != ')' && f != ']' && f != '}') return false;
  if (f == '.') { // a value after `=` (`layout=torch.strided` in a lambda's defaults): no target
    std::size_t k = at;
    while (k > 0 && isGap(text[k - 1])) --k;
    if (k >= 2 && text[k - 1] == '=' && std::string_view("=<>!").find(text[k - 2]) == std::string_view::npos &&
        lexer.inCode(k - 1))
      return true;
  }
  const NamePlace place = namePlace(text, at, lexer, memo);
  if (place.kind == NamePlace::kUnclear || place.kind == NamePlace::kBinding) return false;
  if (place.kind != NamePlace::kBracket) return f == '.';
  const BracketOwner owner = bracketOwner(text, place.open);
  if (owner.unclear || isBindingKeyword(owner.name) || owner.keyword == "def" || owner.keyword == "class" ||
      owner.name == "case" || owner.name == "match")
    return false;
  if (f == '.' || text[place.open] == '{') return true;
  const bool call = text[place.open] == '(' && !owner.name.empty() && !isKeyword(owner.name) &&
                    (owner.name[0] < '0' || owner.name[0] > '9');
  return call || place.literal;
}

/// A dotted name as written at `at` (`torch.nn`, blanks around its dots allowed): where it ends.
std::size_t dottedNameEnd(std::string_view text, std::size_t at) {
  std::size_t end = at + wordAt(text, at).size();
  for (;;) {
    const std::size_t dot = skipBlanks(text, end);
    if (dot >= text.size() || text[dot] != '.') return end;
    const std::size_t next = skipBlanks(text, dot + 1);
    const std::string_view w = wordAt(text, next);
    if (w.empty()) return end;
    end = next + w.size();
  }
}

/// What an absolute import does to the name at `at` (a whole word in code, no `.` before it):
/// nothing (it is the module of a `from … import`, or the name an `as` renames), binds it to a path (`import torch` and
/// `import torch.nn` to `torch`, `import x.y as torch` to `x.y`, `from m import torch` to `m.torch`), or something the
/// scan does not read (a relative import, a statement that does not start its line, a parenthesised list); kNotImport
/// where the name's line starts no import.
struct ImportRole {
  enum Kind { kNotImport, kNone, kBinds, kUnclear } kind = kNotImport;
  std::string path;
};
ImportRole importRole(std::string_view text, std::size_t at, Lexer &lexer) {
  std::size_t line = at;
  while (line > 0 && text[line - 1] != '\n' && text[line - 1] != '\r') --line;
  const std::size_t first = skipBlanks(text, line);
  const std::string_view keyword = wordAt(text, first);
  if (keyword != "import" && keyword != "from") return {};
  if (statementStart(text, at, lexer) != line) return {ImportRole::kUnclear, {}};
  const auto compact = [&](std::size_t from, std::size_t end) { // a dotted name without its blanks
    std::string path;
    for (std::size_t k = from; k < end; ++k)
      if (text[k] != ' ' && text[k] != '\t' && text[k] != '\f') path += text[k];
    return path;
  };
  const std::string_view name = wordAt(text, at);
  const std::string_view before = previousWord(text, at);
  std::size_t prev = at;
  prev = skipBlanksBack(text, prev);
  const bool listed = before == "import" || (prev > 0 && text[prev - 1] == ',');
  const bool renamed = wordAt(text, skipBlanks(text, dottedNameEnd(text, at))) == "as";
  std::string module; // `from`'s
  if (keyword == "from") {
    const std::size_t m = skipBlanks(text, first + 4);
    if (m >= text.size() || !isWordByte(static_cast<unsigned char>(text[m]))) return {ImportRole::kUnclear, {}};
    const std::size_t end = dottedNameEnd(text, m);
    if (at < end) return {ImportRole::kNone, {}}; // the module's name: `from torch.x import y` binds no `torch`
    if (wordAt(text, skipBlanks(text, end)) != "import") return {ImportRole::kUnclear, {}};
    module = compact(m, end) + ".";
  }
  const auto blank = [&](std::size_t k) { return text[k - 1] == ' ' || text[k - 1] == '\t' || text[k - 1] == '\f'; };
  if (before == "as") { // the name an `as` binds: to the dotted name before it
    std::size_t end = prev - 2;
    while (end > 0 && blank(end)) --end;
    std::size_t start = end;
    for (;;) {
      std::size_t w = start;
      while (w > 0 && isWordByte(static_cast<unsigned char>(text[w - 1]))) --w;
      if (w == start) return {ImportRole::kUnclear, {}};
      start = w;
      std::size_t d = start;
      while (d > 0 && blank(d)) --d;
      if (d == 0 || text[d - 1] != '.') break;
      --d;
      while (d > 0 && blank(d)) --d;
      start = d;
    }
    return {ImportRole::kBinds, module + compact(start, end)};
  }
  if (!listed) return {ImportRole::kUnclear, {}};
  if (renamed) return {ImportRole::kNone, {}}; // `import torch as T` binds `T`
  return {ImportRole::kBinds, module + std::string(name)};
}

/// Whether the name `name` denotes a module, class or function reached through the file's
/// imports wherever the file reads it (rules/torch_api.h: NameOrigins gives it a Path origin,
/// which every binding of it in a scope must agree on): every whole `name` in code is another
/// object's attribute (`.name`), one read and bound by nothing (nameReadOnly), or one that
/// absolute imports bind, all to the same path, or — with `assigned`, and no import binding it
/// — the target of statements `name = a.b` alone on their lines, all with the same value, whose
/// root `a` denotes a path in the same way (without assignments). A name the file never binds
/// stands for itself: a path too.
bool nameDenotesPath(std::string_view text, std::string_view name, Lexer &lexer, bool assigned) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9') || isKeyword(name) ||
      std::find(kHardKeywords.begin(), kHardKeywords.end(), name) != kHardKeywords.end())
    return false;
  NamePlaceMemo memo;
  std::optional<std::string> imported; // the path the imports bind it to
  std::string_view value;              // the value the assignments give it, as written
  for (std::size_t k = text.find(name); k != std::string_view::npos; k = text.find(name, k + 1)) {
    if (!isWholeWord(text, k, name.size()) || !lexer.inCode(k)) continue;
    std::size_t before = k;
    before = skipBlanksBack(text, before);
    if (before > 0 && text[before - 1] == '.' && attributeDot(text, before - 1)) continue; // another object's attribute
    if (nameReadOnly(text, k, name, lexer, memo)) continue;
    if (ImportRole role = importRole(text, k, lexer); role.kind != ImportRole::kNotImport) {
      if (role.kind == ImportRole::kNone) continue;
      if (role.kind == ImportRole::kUnclear || (imported && *imported != role.path) || !value.empty()) return false;
      imported = std::move(role.path);
      continue;
    }
    if (!assigned || imported || !statementTarget(text, k, lexer)) return false;
    // `name = a.b.c`, alone on its line.
    const std::size_t v = skipBlanks(text, skipBlanks(text, k + name.size()) + 1);
    const std::string_view root = wordAt(text, v);
    if (root.empty() || root == name) return false;
    const std::size_t end = dottedNameEnd(text, v);
    const std::size_t after = skipBlanks(text, end);
    if (after < text.size() && text[after] != '\n' && text[after] != '\r' && text[after] != '#') return false;
    const std::string_view written = text.substr(v, end - v);
    if (!value.empty()) {
      if (written != value) return false;
      continue;
    }
    if (!nameDenotesPath(text, root, lexer, false)) return false;
    value = written;
  }
  return true;
}

/// Whether the chain of names whose root is at `r` is an expression of its own to tree-sitter,
/// whatever errors stand before it: after an opening bracket or a comma, or starting its logical
/// line after a line that ends as a statement may (a name but a keyword that wants more, a number,
/// a closing bracket, a string, a star import's `*`). Elsewhere its recovery may join the chain to what stands before
/// (`None)n.o.volatile`, `None=n.o.volatile`, `*` and a line break: an attribute of something else).
bool chainStandsAlone(std::string_view text, std::size_t r, Lexer &lexer, SpeltPackages::VolatileMemo &memo) {
  std::size_t k = r;
  bool lineBreak = false, stringEnds = false;
  while (k > 0) {
    const char c = text[k - 1];
    if (c == ' ' || c == '\t' || c == '\f' || c == '\n' || c == '\r') {
      lineBreak = lineBreak || c == '\n' || c == '\r';
      --k;
      continue;
    }
    if (const std::size_t span = lexer.spanBegin(k - 1); span != std::string_view::npos) {
      if (text[span] == '#') {
        k = span; // a comment: the token before it
        continue;
      }
      stringEnds = true;
    }
    break;
  }
  if (k == 0) return true; // the text's first token
  const char p = text[k - 1];
  if (p == '(' || p == '[' || p == '{' || p == ',') return true;
  if (!lineBreak) return false;
  if (!memo.lines) memo.lines.emplace(text, lexer);
  if (memo.lines->mayFollowOperand(r)) return false; // not the start of its logical line
  if (stringEnds || p == ')' || p == ']' || p == '}') return true;
  if (p == '*') return previousWord(text, k - 1) == "import"; // a star import ends its statement
  if (!isAsciiWordByte(static_cast<unsigned char>(p))) return false;
  std::size_t b = k - 1;
  while (b > 0 && isAsciiWordByte(static_cast<unsigned char>(text[b - 1]))) --b;
  // The keywords no statement ends with (Python 2's `print` and `exec` too).
  static constexpr std::array<std::string_view, 28> kWantMore{
      "and",    "as",       "assert",  "async", "await", "class",  "def",   "del",    "elif", "else",
      "except", "exec",     "finally", "for",   "from",  "global", "if",    "import", "in",   "is",
      "lambda", "nonlocal", "not",     "or",    "print", "try",    "while", "with"};
  const std::string_view word = text.substr(b, k - b);
  return std::find(kWantMore.begin(), kWantMore.end(), word) == kWantMore.end();
}

/// Whether AF314 may report the attribute `volatile` at `at` (checkAttribute): not where its
/// object is a name, or a chain of names, whose root denotes a path through the file's imports
/// (`Tensor.volatile.__get__` after `Tensor = torch.Tensor`, `torch.Tensor.volatile`): the rule
/// reads a tensor's property, not a class's descriptor. A keyword argument (`volatile=`) and any
/// other object are the rule's to judge.
bool volatileMayBeReported(std::string_view text, std::size_t at, Lexer &lexer, SpeltPackages::VolatileMemo &memo) {
  const Receiver r = receiverOf(text, at, lexer);
  if (r.kind != Receiver::kName) return true;
  std::string_view root = r.name;
  for (bool chained = r.chained; chained;) { // walk the chain back to its root
    std::size_t k = static_cast<std::size_t>(root.data() - text.data());
    k = skipBlanksBack(text, k);
    if (k == 0 || text[k - 1] != '.') return true; // a line break or a comment in the chain
    --k;
    k = skipBlanksBack(text, k);
    std::size_t b = k;
    while (b > 0 && isWordByte(static_cast<unsigned char>(text[b - 1]))) --b;
    if (b == k) return true; // a call's result, a subscript…
    root = text.substr(b, k - b);
    std::size_t d = b;
    d = skipBlanksBack(text, d);
    chained = d > 0 && text[d - 1] == '.';
  }
  if (!memo.recoversAttributes) memo.recoversAttributes = mayRecoverAttributes(text, lexer);
  if (*memo.recoversAttributes) return true;
  if (!chainStandsAlone(text, static_cast<std::size_t>(root.data() - text.data()), lexer, memo)) return true;
  for (const auto &[name, path] : memo.roots)
    if (name == root) return !path;
  const bool path = nameDenotesPath(text, root, lexer, true);
  memo.roots.emplace_back(root, path);
  return !path;
}

/// Whether the AF3xx word `word` at `at` (in code) may give a finding, as far as the code around
/// it shows. Each judgement answers no only where its rule never reports:
/// - any word that is the name a `def` or `class` defines (no rule reports a definition's name);
/// - the softmax family (AF304) where the call passes `dim=` or the dimension by position;
/// - `Function)`, `Function,` (AF303) outside a class's bases, or in those of a class whose body
///   has no instance `forward`, or that cannot denote torch's (functionBaseMayBeTorch);
/// - `F.sigmoid`, `F.tanh` and their `functional.` spellings (AF310) not called: a deprecated,
///   not removed, function is reported only where called (a table of functions may list it);
///   `F.upsample…` (AF315) alike: the rule reads calls;
/// - `torch.load` (AF317) not called, or called with `weights_only=` or a `**mapping`;
/// - the keywords of AF312 and AF313 outside a call's arguments (a `def`'s parameters, a class's
///   keywords, no bracket), and `device_id=` and the losses' keywords in a call of another name
///   than the rule's (`.cuda(device_id=…)`, a loss's `reduce=`/`size_average=`).
/// - the keywords of AF312 and AF313 not followed by `=` (`if size_average is None`, a positional
///   `retain_variables`): the rules read keyword arguments only;
/// - a scheduler's `step(` (AF306): its construction's word keeps the file where it can fire;
/// - `.byte()` (AF305) followed on its line by `.`, `(` or `[`, or whose value reaches no mask's
///   use (byteValueMayBeMask); `ByteTensor` and the CUDA types (AF305, AF318) as an argument of
///   `isinstance`/`issubclass`;
/// - AF310's and AF316's names of deprecated or removed functions (kCalledNames) as an attribute
///   not called, or bare where no import can name them and no star import of the family is spelt;
///   AF316's removed methods called on a name only imports bind that spell no `torch` (onlyImportsBind);
///   `from torch.nn.init import …` and `from scipy.misc import …` naming none of the rows;
/// - the softmax family (AF304) as a method of what cannot denote `torch.nn.functional` or
///   `torch.nn` (a call's result, a chain whose last name is another, a name no import binds);
/// - the attribute `volatile` (AF314) of a name or chain of names whose root denotes a path
///   through the file's imports (volatileMayBeReported: `Tensor.volatile` after `Tensor =
///   torch.Tensor`, `torch.Tensor.volatile`).
bool judgedWordMatters(std::string_view text, std::size_t at, std::string_view word, SpeltPackages &spelt,
                       Lexer &lexer) {
  if (const std::string_view before = previousWord(text, at); before == "def" || before == "class")
    return false; // the name a definition binds (`def clip_grad_norm(`, `class LambdaLR(`): no use of torch's
  if (word == "volatile") return volatileMayBeReported(text, at, lexer, spelt.volatileMemo);
  // AF306 reports a scheduler's `step(` only after the scheduler's construction, whose own word
  // (`StepLR(`, …) keeps the file: the step's word never needs to.
  if (word == "scheduler.step(" || word == "lr_scheduler.step(" || word == "sched.step(") return false;
  // AF305: the value of `.byte()` is a mask only where it is one (an index, a masked_*'s argument,
  // a name's value), never the object of a further attribute, call or subscript on its line.
  if (word == ".byte()") {
    const std::size_t next = skipBlanks(text, at + word.size());
    if (next < text.size() && (text[next] == '.' || text[next] == '(' || text[next] == '[')) return false;
    return byteValueMayBeMask(text, at, lexer);
  }
  // AF305 and AF318 read a uint8 or CUDA type where it is called, converted to (`.type(…)`) or
  // assigned; a type test's argument (`isinstance(x, torch.ByteTensor)`) is none of them.
  if ((word == "ByteTensor" || word.starts_with("cuda.")) && typeTestArgument(text, at, lexer)) return false;
  if (word == "torch.nn.init import") return importListNames(text, at + word.size(), initRenameNames());
  if (word == "scipy.misc import") return importListNames(text, at + word.size(), kMiscImageNames);
  if (std::find(kCalledNames.begin(), kCalledNames.end(), word) != kCalledNames.end()) {
    std::size_t before = at;
    while (before > 0 && isGap(text[before - 1])) --before;
    if (word.find('.') != std::string_view::npos || (before > 0 && text[before - 1] == '.')) {
      const std::size_t open = nextToken(text, at + word.size(), lexer);
      if (open < text.size() && text[open] != '(' && text[open] != '#' &&
          !mayBeCalledLater(text, at + word.size(), open))
        return false;
      // AF316's removed methods (not AF310's names, which a relative import may make torch's):
      // on a name only imports bind (`_utils.symeig(M)`, a module's own function) the rule
      // reports neither a tensor method nor, the imports spelling no `torch`, `torch.symeig`.
      const bool method =
          std::find(rules::kRemovedMethods.begin(), rules::kRemovedMethods.end(), word) != rules::kRemovedMethods.end();
      if (!method || lexer.spanBegin(before - 1) != std::string_view::npos) return true;
      std::size_t end = before - 1;
      while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
      std::size_t root = end;
      while (root > 0 && isWordByte(static_cast<unsigned char>(text[root - 1]))) --root;
      if (root == end || (text[root] >= '0' && text[root] <= '9')) return true;
      std::size_t left = root;
      while (left > 0 && isGap(text[left - 1])) --left;
      if (left > 0 && (text[left - 1] == '.' || lexer.spanBegin(left - 1) != std::string_view::npos))
        return true; // a chain (`a._utils.symeig`), or a comment in the way: not judged
      return !onlyImportsBind(text, text.substr(root, end - root), lexer);
    }
    return spelt.any(kPackageStarImport) || bareNameMayBeImported(text, at, lexer);
  }
  // AF312 and AF313 read these names as keyword arguments only (`f(size_average=False)`).
  if (word == "size_average" || word == "retain_variables" || word.ends_with('=')) {
    const std::size_t eq = word.ends_with('=') ? at + word.size() - 1 : nextToken(text, at + word.size(), lexer);
    if (eq >= text.size() || text[eq] != '=' || (eq + 1 < text.size() && text[eq + 1] == '=')) return false;
  }
  if (word == "Function)" || word == "Function,") {
    if (!functionBaseMayBeTorch(text, at, spelt, lexer)) return false;
    const std::size_t open = openingBracket(text, at, lexer);
    if (open == kUnknown) return true;
    if (open == std::string_view::npos || text[open] != '(') return false;
    const BracketOwner owner = bracketOwner(text, open);
    if (owner.unclear) return true;
    if (owner.keyword != "class" || owner.dotted) return false;
    return classMayHaveInstanceForward(text, owner.keywordAt, open, lexer);
  }
  if (word == "F.sigmoid" || word == "F.tanh" || word == "functional.sigmoid" || word == "functional.tanh" ||
      word == "F.upsample" || word == "functional.upsample") {
    std::size_t end = at + word.size(); // `F.upsample` goes on as `F.upsample_bilinear`
    while (end < text.size() && isWordByte(static_cast<unsigned char>(text[end]))) ++end;
    const std::size_t open = nextToken(text, end, lexer);
    return open >= text.size() || text[open] == '(' || text[open] == '#' || mayBeCalledLater(text, end, open);
  }
  if (word == "torch.load") {
    const std::size_t open = nextToken(text, at + word.size(), lexer);
    if (open < text.size() &&
        (text[open] == '#' || (text[open] != '(' && mayBeCalledLater(text, at + word.size(), open))))
      return true;
    if (open >= text.size() || text[open] != '(') return false;
    const std::optional<CallShape> shape = callShape(text, open, "weights_only", lexer);
    return !shape || (!shape->keyword && !shape->splat);
  }
  const bool loss = word == "reduce=" || word == "size_average";
  if (loss || word == "device_id=" || word == "retain_variables") {
    const std::size_t open = openingBracket(text, at, lexer);
    if (open == kUnknown) return true;
    if (open == std::string_view::npos || text[open] != '(') return false;
    const BracketOwner owner = bracketOwner(text, open);
    if (owner.unclear) return true;
    if (owner.name.empty() || owner.keyword == "def" || owner.keyword == "class") return false;
    if (word == "device_id=") return owner.name == "cuda" && owner.dotted;
    if (word == "retain_variables") return true; // `backward` may be imported under another name
    return owner.name.ends_with("Loss") || owner.name.ends_with("_loss") || owner.name == "cross_entropy" ||
           owner.name == "binary_cross_entropy" || owner.name == "binary_cross_entropy_with_logits" ||
           owner.name == "kl_div";
  }
  const auto *judged =
      std::find_if(kJudgedWords.begin(), kJudgedWords.end(), [&](const JudgedWord &j) { return j.word == word; });
  if (judged == kJudgedWords.end()) return true;
  if (!softmaxReceiverMayBeTorch(text, at, judged->keyword == "dim" && judged->positional == 2, lexer)) return false;
  const std::optional<CallShape> shape = callShape(text, at + judged->word.size() - 1, judged->keyword, lexer);
  return !shape || (!shape->keyword && shape->positional < judged->positional);
}

/// Whether the AF3xx word(s) at `at` may give a finding in a whole file that spells the packages
/// `spelt` (text/torch_words.h): some word of the lists counts there, in code, its package is
/// spelt and its judgement (judgedWordMatters) does not rule it out.
bool torchWordMatters(std::string_view text, std::size_t at, SpeltPackages &spelt, Lexer &lexer) {
  bool inCode = false, lexed = false;
  for (const TorchWordRef &r : torchWordsStartingWith(static_cast<unsigned char>(text[at]))) {
    const TorchWord &w = *r.word;
    if (!torchWordAt(text, at, w.text, r.whole) || !spelt.counts(w.package, at)) continue;
    if (!lexed) inCode = lexer.inCode(at), lexed = true;
    if (!inCode) return false;
    if (judgedWordMatters(text, at, w.text, spelt, lexer)) return true;
  }
  return false;
}

/// The value after `non_blocking` is the literal `True` (or may be: a line break or a comment
/// stands in the way).
bool nonBlockingValueMayBeTrue(std::string_view text, std::size_t at) {
  std::size_t k = skipBlanks(text, at + 12);
  if (k >= text.size() || text[k] != '=') return true; // not a keyword argument: no rule reads it
  k = skipBlanks(text, k + 1);
  if (k >= text.size()) return false;
  if (text[k] == '\n' || text[k] == '\r' || text[k] == '\\' || text[k] == '#') return true;
  return is(wordAt(text, k), "True");
}

/// The searches scan() makes over a text, by one of two paths: the fast one (SIMD candidate
/// search, the word filter's tables and bit sets, vectorised substring searches) and the
/// reference one (every position tried one at a time against the plain definitions), which
/// tests and the fuzz target compare it with (scanTriggersReference).
struct Searches {
  bool reference = false;

  /// The candidates of mayStartWord(); the fast path also learns into `learnt` what it asks (the
  /// reference path leaves it unknown: torchFamily() and word() ask).
  template <class F> void candidates(std::string_view text, F &&candidate, LearntWords *learnt) const {
    if (!reference) return forEachCandidate(text, candidate, learnt);
    for (std::size_t i = 0; i < text.size(); ++i)
      if (mayStartWord(text, i) && candidate(i)) return;
  }
  template <class F> void torchWords(std::string_view text, F &&found) const {
    if (!reference) return forEachTorchWord(text, [&](std::size_t at) { return found(at); });
    for (std::size_t i = 0; i < text.size(); ++i)
      if (startsTorchWord(text, i) && found(i)) return;
  }
  /// Calls `hit(at)` for each occurrence of `w` that starts in [from, end) and ends in the text,
  /// in order, until it returns true.
  template <class F>
  void occurrences(std::string_view text, std::size_t from, std::size_t end, std::string_view w, F &&hit) const {
    if (!reference) {
      const std::size_t stop = std::min(text.size(), end + w.size() - 1);
      if (from < stop)
        forEachOccurrence(text.substr(from, stop - from), w, [&](std::size_t at) { return hit(from + at); });
      return;
    }
    for (std::size_t at = text.find(w, from); at != std::string_view::npos && at < end; at = text.find(w, at + 1))
      if (hit(at)) return;
  }
  bool word(std::string_view text, std::string_view w) const {
    if (!reference) return hasWord(text, w);
    for (std::size_t at = text.find(w); at != std::string_view::npos; at = text.find(w, at + 1))
      if (isWholeWord(text, at, w.size())) return true;
    return false;
  }
  bool torchFamily(std::string_view text) const {
    if (!reference) return mayUseTorchFamily(text);
    return text.find("torch") != std::string_view::npos || text.find("numpy") != std::string_view::npos ||
           text.find("scipy") != std::string_view::npos;
  }
  unsigned packages(std::string_view text) const {
    if (!reference) return torchPackagesSpelt(text);
    unsigned spelt = 0;
    if (text.find("torch") != std::string_view::npos) spelt |= kPackageTorch;
    if (text.find("torchvision") != std::string_view::npos) spelt |= kPackageTorchvision;
    if (text.find("numpy") != std::string_view::npos) spelt |= kPackageNumpy;
    if (text.find("scipy") != std::string_view::npos) spelt |= kPackageScipy;
    if (spellsStarImport(text)) spelt |= kPackageStarImport;
    return spelt;
  }
};

bool SpeltPackages::counts(unsigned package, std::size_t at) {
  if (any(package)) return true;
  if (package != kPackageStarImport) return false;
  if (!unreadImport_ && importsRead_ < at) {
    search_.occurrences(text_, importsRead_, at, "import", [&](std::size_t k) {
      return unreadImport_ = unreadImportAt(text_, k) && (!lexer_ || lexer_->inCode(k));
    });
    importsRead_ = at;
  }
  return unreadImport_;
}

bool SpeltPackages::any(unsigned packages) {
  if ((spelt_ & packages) != 0) return true;
  if ((packages & ~known_) == 0) return false;
  if (packages == kPackageTorch) {
    if (text_.find("torch") != std::string_view::npos) spelt_ |= kPackageTorch; // as torchPackagesSpelt reads it
    known_ |= kPackageTorch;
  } else if (packages == kPackageStarImport) {
    if (spellsStarImport(text_)) spelt_ |= kPackageStarImport;
    known_ |= kPackageStarImport;
  } else {
    spelt_ |= search_.packages(text_);
    known_ = ~0U;
  }
  return (spelt_ & packages) != 0;
}

/// scanTriggers() for a text with such a byte in code (otherByte), or where the lexer lost its way: no judgement, no
/// lexer, every occurrence of a word counts — `async`, `await`, `non_blocking` and `to` with no ASCII identifier byte
/// next to them, a `noqa` naming an AF code, each AF3xx word whose package the text spells. Rare text, one byte at a
/// time.
unsigned scanWithoutJudgements(std::string_view text, unsigned wanted, std::vector<std::uint32_t> *offsets,
                               unsigned reached, PrefilterHit *first, const Searches &search) {
  unsigned found = 0;
  std::vector<std::uint32_t> hits; // offsets, in the order found (sorted below)
  const auto hit = [&](unsigned trigger, std::size_t at) {
    if (first && (found == 0 || at < first->offset)) *first = {trigger, static_cast<std::uint32_t>(at)};
    found |= trigger;
    hits.push_back(static_cast<std::uint32_t>(at));
  };
  for (std::size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    if (c != 'a' && c != 'n' && c != 'N' && c != 't') continue;
    const std::string_view rest = text.substr(at);
    if ((rest.starts_with("async") || rest.starts_with("await")) && mayStandAlone(text, at, 5))
      (wanted & kPrefilterKeywordName) != 0 ? hit(kPrefilterKeywordName, at) : void();
    else if (rest.starts_with("non_blocking") && mayStandAlone(text, at, 12))
      (wanted & kPrefilterNonBlocking) != 0 ? hit(kPrefilterNonBlocking, at) : void();
    else if (rest.starts_with("to") && mayStandAlone(text, at, 2))
      (wanted & kPrefilterToCall) != 0 ? hit(kPrefilterToCall, at) : void();
    else if (rest.size() > 3 && (rest[1] | 0x20) == 'o' && (rest[2] | 0x20) == 'q' && (rest[3] | 0x20) == 'a' &&
             noqaWithAsyncfixCode(text, at + 2))
      (wanted & kPrefilterNoqa) != 0 ? hit(kPrefilterNoqa, at) : void();
  }
  if ((wanted & kPrefilterTorchApi) != 0) {
    SpeltPackages spelt(text, reached, search, nullptr);
    search.torchWords(text, [&](std::size_t at) {
      for (const TorchWordRef &r : torchWordsStartingWith(static_cast<unsigned char>(text[at])))
        if (torchWordAt(text, at, r.word->text, r.whole) && (offsets || spelt.counts(r.word->package, at))) {
          hit(kPrefilterTorchApi, at);
          return !offsets;
        }
      return false;
    });
  }
  if (offsets) {
    std::sort(hits.begin(), hits.end());
    hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
    offsets->insert(offsets->end(), hits.begin(), hits.end());
  }
  return found;
}

/// Whether the tokens around the `async`/`await` at `at` that keywordByNeighbours() reads start
/// (end) with ASCII bytes: a byte of another character there may be one tree-sitter reads as no
/// token at all (invalid UTF-8) or as a blank, where the judgement would read a name; the scan
/// then takes the word for a name (at worst a file parsed for nothing).
bool asciiNeighbours(std::string_view text, std::size_t at) {
  const std::size_t next = skipBlanks(text, at + 5);
  std::size_t before = at;
  while (before > 0 && (text[before - 1] == ' ' || text[before - 1] == '\t')) --before;
  // A number right before it (`0await`): a syntax error whose recovery may read a name.
  if (at > 0 && text[at - 1] >= '0' && text[at - 1] <= '9') return false;
  return (next >= text.size() || static_cast<unsigned char>(text[next]) < 0x80) &&
         (before == 0 || static_cast<unsigned char>(text[before - 1]) < 0x80 ||
          (before == 3 && text.starts_with("\xEF\xBB\xBF")));
}

/// Whether the candidate at `at` (its byte `a`) is an `async` or `await` that tree-sitter may
/// read as a name (AF001's and AF002's trigger): a whole word its neighbours do not make the
/// keyword, in code, and an `await (x)` only outside a coroutine (`blocks`, made at the first
/// such `await`, says).
bool keywordMayBeName(std::string_view text, std::size_t at, Lexer &lexer, std::optional<Blocks> &blocks) {
  const std::string_view w = text.substr(at, 5);
  if ((!is(w, "async") && !is(w, "await")) || !mayStandAlone(text, at, 5)) return false;
  // The keyword by its neighbours first, without the lexer: a file whose only `async`s and
  // `await`s are keywords needs no lexing at all.
  if ((w[1] == 's' ? asyncIsKeyword(text, at) : awaitIsKeyword(text, at)) && asciiNeighbours(text, at)) return false;
  if (!lexer.inCode(at)) return false;
  if (w[1] == 'w' && awaitOperandMakesAName(text, at)) {
    // `await (x)`, `await [x]`, `await -x`, `await +x`: a name use only outside a coroutine.
    if (!blocks) blocks.emplace(text, lexer);
    if (blocks->inCoroutine(at)) return false;
  }
  return true;
}

/// Whether a rule that reads `non_blocking=` can fire on the `non_blocking` at `at`, judged by
/// the call it is a keyword argument of: AF102 reads it in `.cpu(…)`, and in `.cuda(…)` on an
/// nn.Module (which a file can only name through `nn` or `torchvision`); AF104 reads
/// `non_blocking=True` in `.cuda(…)` or `.to(…)` when the file names a `DataLoader`; AF106
/// `non_blocking=True` in `.to(…)` with a `'cpu'` device among its arguments. No rule reads a
/// `non_blocking` that is no keyword argument (a parameter, an attribute, a variable), nor one
/// of any other call. A question about a whole text only (marks may be asked for one statement,
/// whose loader or module can be in another). Keeps what it learnt of the text, and the last
/// `.to(…)` the scan judged whole (`lastTo`), whose `non_blocking=` comes next. With `learnt`, the
/// candidate search learns whether the text names a `DataLoader` as it goes: a `non_blocking=True`
/// that only a loader would make matter is then `ifDataLoader`, for the scan to settle at the end.
struct NonBlockingJudge {
  enum Verdict { no, yes, ifDataLoader };
  std::string_view text;
  Lexer &lexer;
  const Searches &search;
  const LearntWords *learnt = nullptr;
  std::optional<bool> moduleNames, dataLoader;
  ToCallArguments lastTo;

  Verdict judge(std::size_t at) {
    const std::size_t eq = nextToken(text, at + 12, lexer);
    if (eq >= text.size()) return no;
    if (text[eq] != '=' || (eq + 1 < text.size() && text[eq + 1] == '=')) {
      // No keyword argument, unless tree-sitter's error recovery makes one of what follows.
      if (!mayRecoverAsKeyword(at, eq)) return no;
      return judgeIn(enclosingCall(text, at, lexer), at);
    }
    if (std::binary_search(lastTo.keywords.begin(), lastTo.keywords.end(), at))
      return judgeInLastTo(nonBlockingValueMayBeTrue(text, at));
    return judgeIn(enclosingCall(text, at, lexer), at);
  }

  /// judge() for a keyword argument of `call`.
  Verdict judgeIn(const EnclosingCall &call, std::size_t at) {
    if (!call.known || is(call.method, "cpu")) return yes;
    const bool cuda = is(call.method, "cuda");
    if (!cuda && !is(call.method, "to")) return no;
    if (cuda) {
      if (!moduleNames) moduleNames = search.word(text, "nn") || search.word(text, "torchvision");
      if (*moduleNames) return yes;
    }
    if (!nonBlockingValueMayBeTrue(text, at)) return no;
    if (loaderNamed()) return yes;
    if (cuda) return withoutLoader();
    const std::optional<std::string_view> arguments = argumentList(text, call.open, lexer);
    return !arguments || search.word(*arguments, "cpu") ? yes : withoutLoader();
  }

  /// Whether tree-sitter's error recovery may read the `non_blocking` at `at`, which no `=`
  /// follows (its next token is at `k`), as a keyword argument's name after all, by skipping
  /// what stands between it and an `=` (`non_blocking:lambdacopy=True`, `non_blocking else=True`,
  /// `non_blocking{=True`, a comma missing before the next line's `copy=True`: syntax errors).
  /// Not where what follows continues an expression (`,`, `)`, `(`, `[`, `.`). Else where an `=`
  /// (any: an operator's too, more than recovery reads) follows on the rest of the line, before a
  /// `,` or `)` outside the brackets opened after the name (a stray `]` or `}` is passed), or
  /// starts the next line; past its line only inside brackets around the name, which a closing
  /// bracket after the `=` shows (elsewhere a line break ends a statement). The call around it
  /// decides the rest.
  bool mayRecoverAsKeyword(std::size_t at, std::size_t k) const {
    const char c = text[k];
    if (c == ',' || c == ')' || c == '(' || c == '[' || c == '.') return false;
    bool crossed = text.substr(at + 12, k - at - 12).find_first_of("\r\n") != std::string_view::npos;
    bool equals = false; // an `=` past the name's line
    int depth = 0;
    for (const std::size_t end = std::min(text.size(), k + 256); k < end; ++k) {
      const char d = text[k];
      if (d == '\n' || d == '\r' || d == '#') {
        const std::size_t next = nextToken(text, k, lexer);
        if (next >= text.size() || next <= k) return false;
        if (!crossed && text[next] == '=') return true;
        crossed = true;
        k = next - 1;
      } else if (isQuote(d)) {
        const std::size_t e = lexer.skip(k);
        if (e <= k) return true; // an f-string or an unterminated string: unknown
        k = e - 1;
      } else if (d == '(' || d == '[' || d == '{') {
        ++depth;
      } else if (d == ')' || d == ']' || d == '}' || (d == ',' && depth == 0)) {
        if (depth > 0) {
          --depth;
        } else if (crossed) {
          if (d != ',') return equals; // it closes a bracket around the name
        } else if (d == ')' || d == ',') {
          return false;
        }
      } else if (d == '=') {
        if (!crossed) return true;
        equals = true;
      }
    }
    return false;
  }

  /// judge() for a keyword argument of the last `.to(…)` judged whole (lastTo), whose value is
  /// `True` or may be (`valueMayBeTrue`).
  Verdict judgeInLastTo(bool valueMayBeTrue) {
    if (!valueMayBeTrue) return no;
    if (loaderNamed()) return yes;
    if (lastTo.cpu >= 0) return lastTo.cpu == 1 ? yes : withoutLoader();
    return search.word(lastTo.text, "cpu") ? yes : withoutLoader();
  }

  /// Whether the text names a `DataLoader`, as far as known (with `learnt`, so far).
  bool loaderNamed() {
    if (learnt != nullptr) return learnt->dataLoader;
    if (!dataLoader) dataLoader = search.word(text, "DataLoader");
    return *dataLoader;
  }

  /// The verdict on a `non_blocking=True` that only a loader would make matter.
  Verdict withoutLoader() const { return learnt != nullptr ? ifDataLoader : no; }
};

/// What scanJudged() tells of its text beside the triggers it found.
struct ScanNotes {
  /// The judgements cannot be trusted for the text: a blank they do not read in code, or a string
  /// the lexer lost its way at (after which tree-sitter's error recovery may read `y.to(=True)` as
  /// a call with two arguments).
  bool unjudged = false;
  /// The candidate search met a byte that otherByte() names. Where it met none and the scan
  /// found no trigger, the search went through the whole text: every byte is printable ASCII, a
  /// tab, a line break or a form feed.
  bool otherByte = false;
};

/// scanTriggers(), which also records its first hit in `first` when given; with `anyHit` (and no
/// offsets) it stops at the first hit, not when every wanted trigger was seen.
unsigned scanJudged(std::string_view text, unsigned wanted, std::vector<std::uint32_t> *offsets, unsigned reached,
                    bool anyHit, PrefilterHit *first, const Searches &search, ScanNotes &notes) {
  Lexer lexer(text, search.reference);
  unsigned found = 0;
  const std::size_t firstOffset = offsets ? offsets->size() : 0;
  // What the candidate search learns of the whole text as it goes (its AVX-512 path): whether it
  // spells torch, numpy or scipy (the others would compare every `t`, `n` and `s` candidate for
  // nothing), and whether it names a `DataLoader`.
  LearntWords learnt;
  const bool learning = !offsets && !search.reference && candidatesLearn();
  learnt.askFamily = learning && (wanted & kPrefilterTorchApi) != 0;
  // (Not where the first hit is asked for, which a judgement waiting for the end could not give.)
  learnt.askDataLoader = learning && (wanted & kPrefilterNonBlocking) != 0 && first == nullptr;
  NonBlockingJudge nonBlocking{text, lexer, search, learnt.askDataLoader ? &learnt : nullptr, {}, {}, {}};
  std::optional<std::size_t> ifDataLoader; // the first `non_blocking=` that matters if the text names a DataLoader
  // Records a hit; true when the scan may stop (every wanted trigger seen, no offsets asked for).
  const auto record = [&](unsigned trigger, std::size_t at) {
    if (first && found == 0) *first = {trigger, static_cast<std::uint32_t>(at)};
    found |= trigger;
    if (!offsets) return anyHit || found == wanted;
    offsets->push_back(static_cast<std::uint32_t>(at));
    return false;
  };
  // A `non_blocking=`'s verdict: a hit, or one if the text names a DataLoader (the first such).
  const auto settle = [&](NonBlockingJudge::Verdict verdict, std::size_t at) {
    if (verdict == NonBlockingJudge::ifDataLoader && !ifDataLoader) ifDataLoader = at;
    return verdict == NonBlockingJudge::yes && record(kPrefilterNonBlocking, at);
  };
  std::optional<Blocks> blocks; // made for the first `await (` whose function matters
  const auto want = [&](unsigned trigger) { return (wanted & trigger) != 0 && (offsets || !(found & trigger)); };

  search.candidates(
      text,
      [&](std::size_t at) {
        if (at == nonBlocking.lastTo.nonBlocking) {
          // The `non_blocking=` of the `.to(…)` list the scan just read flat: a keyword argument
          // in code (that scan saw every byte of the list), so judged by that call alone.
          return want(kPrefilterNonBlocking) &&
                 settle(nonBlocking.judgeInLastTo(nonBlocking.lastTo.nonBlockingTrue), at);
        }
        const char c = text[at];
        if (const auto u = static_cast<unsigned char>(c); otherByte(u)) {
          // Such a byte in code: the text is read again without judgements (scan()), so stop here.
          // Asked once per character (the rest of it is where its first byte is: in code, or in the
          // same string or comment), and not of a byte order mark at the start.
          notes.otherByte = true;
          if ((u >= 0x80 && at > 0 && static_cast<unsigned char>(text[at - 1]) >= 0x80) ||
              (at == 0 && text.starts_with("\xEF\xBB\xBF")))
            return false;
          return lexer.inCode(at) && (notes.unjudged = true);
        }
        if (learnt.askFamily && !learnt.family && (c == 't' || c == 'n' || c == 's')) {
          // One of the family's names, or a word the scan judges (below), or both (`torch.to(`).
          const std::string_view w = text.substr(at, 5);
          learnt.family = is(w, "torch") || is(w, "numpy") || is(w, "scipy");
        }
        if (c == 'D') {
          if (learnt.askDataLoader && !learnt.dataLoader) learnt.dataLoader = dataLoaderAt(text, at);
          return false;
        }
        if (c == 'a' && want(kPrefilterKeywordName))
          return keywordMayBeName(text, at, lexer, blocks) && record(kPrefilterKeywordName, at);
        if (c == 't') {
          // The vectorised filter lets through more `to`s than mayStartWord() (after any byte, or
          // any up to `.` on AVX2; before any up to `(`): the others are no candidates, before any
          // judgement drives the lexer (how far it went decides whether the judgements are trusted:
          // lost()).
          if (!want(kPrefilterToCall) || !mayStartWord(text, at) || !mayStandAlone(text, at, 2)) return false;
          std::size_t open = toCallOpen(text, at);
          if (open == std::string_view::npos || !lexer.inCode(at)) return false;
          if (open == kUnknown) open = toCallOpenPastComments(text, at, lexer);
          if (open == std::string_view::npos) return false;
          return (open == kUnknown ||
                  toCallHasBoolArgument(text, open, lexer, offsets ? nullptr : &nonBlocking.lastTo)) &&
                 record(kPrefilterToCall, at);
        }
        if (c == 'n' && want(kPrefilterNonBlocking) && is(text.substr(at, 12), "non_blocking") &&
            mayStandAlone(text, at, 12)) {
          if (!lexer.inCode(at)) return false;
          if (offsets) return record(kPrefilterNonBlocking, at);
          return settle(nonBlocking.judge(at), at);
        }
        // `noqa` in any case, as the scan without judgements reads it (a candidate may be here for
        // another word: `non_b…` is one for `non_blocking`, and no `noqa`).
        if ((c | 0x20) == 'n' && want(kPrefilterNoqa) && at + 3 < text.size() && (text[at + 1] | 0x20) == 'o' &&
            (text[at + 2] | 0x20) == 'q' && (text[at + 3] | 0x20) == 'a' && noqaWithAsyncfixCode(text, at + 2)) {
          return record(kPrefilterNoqa, at);
        }
        return false;
      },
      learning ? &learnt : nullptr);
  if (notes.unjudged) return found;
  // Settled now that the whole text was read: the hit the judgement would have made where it stood.
  if (ifDataLoader && learnt.dataLoader) record(kPrefilterNonBlocking, *ifDataLoader);
  if (want(kPrefilterTorchApi) && !(anyHit && found != 0) &&
      (offsets || reached != 0 || (learnt.known && learnt.askFamily ? learnt.family : search.torchFamily(text)))) {
    // The PyTorch-migration rules' words (text/torch_words.h). Whether a whole file is worth
    // parsing also asks whether it may use PyTorch, NumPy or SciPy at all; marks are asked for
    // parts of a file too (a statement that an editor re-lints), which may not spell the import.
    // A whole file's word counts where the file spells its package, and is judged by its call
    // where a rule reads it only in some calls; marks are every word in code.
    std::optional<SpeltPackages> spelt; // made at the first word
    search.torchWords(text, [&](std::size_t at) {
      if (offsets) return lexer.inCode(at) && record(kPrefilterTorchApi, at);
      if (!spelt) spelt.emplace(text, reached, search, &lexer);
      return torchWordMatters(text, at, *spelt, lexer) && record(kPrefilterTorchApi, at);
    });
  }
  if (offsets) std::sort(offsets->begin() + static_cast<std::ptrdiff_t>(firstOffset), offsets->end());
  if (lexer.lost()) notes.unjudged = true;
  return found;
}

/// scanTriggers(): the judged scan, or for a text whose judgements cannot be trusted (a blank
/// they do not read, a string the lexer lost its way at), the scan without them (asked only when
/// the judged scan did not find every trigger wanted: its answer is then the other's, which finds
/// more). With `anyHit`, the first hit is answer enough: a hit of the judged scan is one the
/// scan without judgements makes too (it finds more, never less).
unsigned scan(std::string_view text, unsigned wanted, std::vector<std::uint32_t> *offsets, unsigned reached,
              PrefilterHit *first, const Searches &search, bool anyHit = false, bool *plain = nullptr) {
  const std::size_t firstOffset = offsets ? offsets->size() : 0;
  ScanNotes notes;
  const unsigned judged = scanJudged(text, wanted, offsets, reached, anyHit, first, search, notes);
  unsigned found = judged;
  if (notes.unjudged && (offsets || (judged != wanted && !(anyHit && judged != 0)))) {
    if (offsets) offsets->resize(firstOffset);
    found = scanWithoutJudgements(text, wanted, offsets, reached, first, search);
  }
  if (plain) *plain = !notes.otherByte && found == 0;
  return found;
}

} // namespace

unsigned scanTriggers(std::string_view text, unsigned wanted, std::vector<std::uint32_t> *offsets, unsigned reached) {
  return scan(text, wanted, offsets, reached, nullptr, Searches{});
}

unsigned scanTriggersReference(std::string_view text, unsigned wanted, std::vector<std::uint32_t> *offsets,
                               unsigned reached) {
  return scan(text, wanted, offsets, reached, nullptr, Searches{true});
}

bool mayTrigger(std::string_view text, unsigned wanted, unsigned reached, bool *plain) {
  return scan(text, wanted, nullptr, reached, nullptr, Searches{}, true, plain) != 0;
}

bool mayTriggerReference(std::string_view text, unsigned wanted, unsigned reached) {
  return scan(text, wanted, nullptr, reached, nullptr, Searches{true}, true) != 0;
}

bool keywordByNeighbours(std::string_view text, std::size_t offset) {
  const std::string_view word = text.substr(std::min(offset, text.size()), 5);
  if (word.size() != 5 || !isWholeWord(text, offset, 5)) return false;
  if (word == "async") return asyncIsKeyword(text, offset);
  return word == "await" && awaitIsKeyword(text, offset);
}

bool keywordStandsAlone(std::string_view text, std::size_t offset, std::size_t length) {
  return offset + length <= text.size() && mayStandAlone(text, offset, length);
}

PrefilterHit firstTrigger(std::string_view text, unsigned wanted, unsigned reached) {
  PrefilterHit first;
  scan(text, wanted, nullptr, reached, &first, Searches{});
  return first;
}

} // namespace asyncfix
