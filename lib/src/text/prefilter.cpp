#include "text/prefilter.h"

#include <algorithm>
#include <array>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace asyncfix {
namespace {

bool isWordByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

/// The identifier-like word starting at `i` (empty when none).
std::string_view wordAt(std::string_view text, std::size_t i) {
  std::size_t j = i;
  while (j < text.size() && isWordByte(static_cast<unsigned char>(text[j]))) ++j;
  return text.substr(i, j - i);
}

std::size_t skipBlanks(std::string_view text, std::size_t i) {
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\f')) ++i;
  return i;
}

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
  while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\f')) --i;
  return i == 0 || text[i - 1] == '\n' || text[i - 1] == '\r' || text[i - 1] == ';' ||
         (i == 3 && text.starts_with("\xEF\xBB\xBF"));
}

/// Is the `async` at `i` (a whole word) certainly the keyword?
bool asyncIsKeyword(std::string_view text, std::size_t i) {
  const std::string_view next = wordAt(text, skipBlanks(text, i + 5));
  if (next == "def" || next == "with") return startsLine(text, i);
  if (next != "for") return false;
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

bool isWholeWord(std::string_view text, std::size_t i, std::size_t len) {
  const bool afterBom = i == 3 && text.starts_with("\xEF\xBB\xBF"); // U+FEFF is not part of a name
  return (i == 0 || afterBom || !isWordByte(static_cast<unsigned char>(text[i - 1]))) &&
         (i + len >= text.size() || !isWordByte(static_cast<unsigned char>(text[i + len])));
}

/// The string prefixes Python knows (any case): r u b f br rb fr rf, and 3.14's t tr rt.
/// Returns 0 for no prefix, 1 for a plain string prefix, 2 for an f-/t-string prefix.
int stringPrefix(std::string_view w) {
  if (w.empty() || w.size() > 2) return 0;
  bool f = false, r = false, b = false, u = false;
  for (const char ch : w) {
    switch (ch | 0x20) {
    case 'f':
    case 't':
      if (f) return 0;
      f = true;
      break;
    case 'r':
      if (r) return 0;
      r = true;
      break;
    case 'b':
      if (b) return 0;
      b = true;
      break;
    case 'u':
      if (u) return 0;
      u = true;
      break;
    default: return 0;
    }
  }
  if (u && w.size() > 1) return 0;
  if (f && b) return 0;
  return f ? 2 : 1;
}

/// Where Python's tokenizer sees strings and comments: sorted, disjoint [begin, end) spans. Built
/// on first use — only texts with a hit that the neighbours could not decide pay for it. f-strings
/// are not spans: their replacement fields are code, so their whole text counts as code.
/// Anything unterminated is left as code too (the parser may well read it as code).
class Lexer {
public:
  explicit Lexer(std::string_view text) : text_(text) {}

  /// True unless `offset` lies inside a string literal or a comment.
  bool inCode(std::size_t offset) { return spanAt(offset) == nullptr; }
  /// The end of the string or comment around `offset` (offset itself when in code).
  std::size_t skip(std::size_t offset) {
    const Span *s = spanAt(offset);
    return s ? s->end : offset;
  }

private:
  struct Span {
    std::size_t begin, end;
  };

  const Span *spanAt(std::size_t offset) {
    if (!built_) build();
    auto it = std::upper_bound(spans_.begin(), spans_.end(), offset,
                               [](std::size_t o, const Span &s) { return o < s.begin; });
    if (it == spans_.begin()) return nullptr;
    --it;
    return offset < it->end ? &*it : nullptr;
  }

  void build() {
    built_ = true;
    const std::string_view t = text_;
    for (std::size_t i = 0; i < t.size();) {
      const auto c = static_cast<unsigned char>(t[i]);
      if (c == '#') {
        std::size_t e = i;
        while (e < t.size() && t[e] != '\n' && t[e] != '\r') ++e;
        spans_.push_back({i, e});
        i = e;
      } else if (c == '"' || c == '\'') {
        i = string(i, i, false);
      } else if (isWordByte(c)) {
        const std::size_t j = i + wordAt(t, i).size();
        const int prefix = j < t.size() && (t[j] == '"' || t[j] == '\'') ? stringPrefix(t.substr(i, j - i)) : 0;
        i = prefix ? string(i, j, prefix == 2) : j;
      } else {
        ++i;
      }
    }
  }

  /// The string whose prefix starts at `begin` and whose quote is at `q`; returns where to go on.
  std::size_t string(std::size_t begin, std::size_t q, bool formatted) {
    const std::string_view t = text_;
    const char quote = t[q];
    const bool triple = q + 2 < t.size() && t[q + 1] == quote && t[q + 2] == quote;
    for (std::size_t k = q + (triple ? 3 : 1); k < t.size();) {
      const char ch = t[k];
      if (ch == '\\') {
        k += 2;
      } else if (!triple && (ch == '\n' || ch == '\r')) {
        return q + 1; // unterminated: what follows the quote is scanned as code
      } else if (ch == quote && (!triple || (k + 2 < t.size() && t[k + 1] == quote && t[k + 2] == quote))) {
        const std::size_t end = k + (triple ? 3 : 1);
        if (!formatted) spans_.push_back({begin, end});
        return end;
      } else {
        ++k;
      }
    }
    return q + (triple ? 3 : 1); // unterminated at the end of the text
  }

  std::string_view text_;
  std::vector<Span> spans_;
  bool built_ = false;
};

/// `.to(`'s arguments hold a bare `True`/`False` at the top level (AF103's shape). Conservative:
/// an argument list longer than the window counts as holding one.
bool toCallHasBoolArgument(std::string_view text, std::size_t open, Lexer &lexer) {
  constexpr std::size_t kWindow = 1 << 16;
  const std::size_t limit = std::min(text.size(), open + kWindow);
  int depth = 0;
  for (std::size_t k = open; k < limit;) {
    const auto c = static_cast<unsigned char>(text[k]);
    if (c == '"' || c == '\'' || c == '#') {
      const std::size_t e = lexer.skip(k);
      k = e > k ? e : k + 1;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) return false;
    } else if (isWordByte(c)) {
      const std::string_view w = wordAt(text, k);
      if (depth == 1 && (w == "True" || w == "False")) return true;
      k += w.size();
      continue;
    }
    ++k;
  }
  return true;
}

/// Calls `hit(offset)` for each occurrence of `word` (at least 2 bytes) in `text`, in order, until
/// it returns true. On x86-64 a SIMD filter (first and last byte of the word compared 16 positions
/// at a time) finds the few candidates; glibc's memmem is several times slower for such short
/// needles and this scan is most of the prefilter's cost.
template <class F> void forEachOccurrence(std::string_view text, std::string_view word, F &&hit) {
  const std::size_t n = text.size(), len = word.size();
  if (n < len) return;
  const char *s = text.data();
  std::size_t i = 0;
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

/// forEachOccurrence, for whole words only.
template <class F> void forEachWord(std::string_view text, std::string_view word, F &&hit) {
  forEachOccurrence(text, word, [&](std::size_t at) { return isWholeWord(text, at, word.size()) && hit(at); });
}

bool noqaWithAsyncfixCode(std::string_view text, std::size_t at) {
  const std::size_t eol = std::min(text.find_first_of("\r\n", at), text.size());
  for (std::size_t j = text.find("AF", at); j != std::string_view::npos && j + 2 < eol; j = text.find("AF", j + 1))
    if (text[j + 2] >= '0' && text[j + 2] <= '9') return true;
  return false;
}

} // namespace

unsigned scanTriggers(std::string_view text, unsigned wanted, std::vector<std::uint32_t> *offsets) {
  Lexer lexer(text);
  unsigned found = 0;
  const std::size_t first = offsets ? offsets->size() : 0;
  // Records a hit; true when the caller may stop looking for this trigger.
  auto record = [&](unsigned trigger, std::size_t at) {
    found |= trigger;
    if (!offsets) return true;
    offsets->push_back(static_cast<std::uint32_t>(at));
    return false;
  };

  if (wanted & kPrefilterKeywordName) {
    for (const std::string_view word : {std::string_view("async"), std::string_view("await")}) {
      if (!offsets && (found & kPrefilterKeywordName)) break;
      const bool isAsync = word[1] == 's';
      forEachWord(text, word, [&](std::size_t at) {
        if (isAsync ? asyncIsKeyword(text, at) : awaitIsKeyword(text, at)) return false;
        return lexer.inCode(at) && record(kPrefilterKeywordName, at);
      });
    }
  }
  if (wanted & kPrefilterNonBlocking) {
    forEachWord(text, "non_blocking",
                [&](std::size_t at) { return lexer.inCode(at) && record(kPrefilterNonBlocking, at); });
  }
  if (wanted & kPrefilterToCall) {
    forEachWord(text, "to", [&](std::size_t at) {
      std::size_t before = at, after = at + 2;
      while (before > 0 && (text[before - 1] == ' ' || text[before - 1] == '\t')) --before;
      while (after < text.size() && (text[after] == ' ' || text[after] == '\t')) ++after;
      if (before == 0 || text[before - 1] != '.' || after >= text.size() || text[after] != '(') return false;
      return lexer.inCode(at) && toCallHasBoolArgument(text, after, lexer) && record(kPrefilterToCall, at);
    });
  }
  if (wanted & kPrefilterNoqa) {
    // Anchor on the rare letter: memchr for `q`/`Q`, then look around it for `noqa` in any case
    // and an `AF<digit>` later on the line.
    bool done = false;
    for (const char q : {'q', 'Q'}) {
      for (std::size_t i = 0; !done && i < text.size();) {
        const void *p = std::memchr(text.data() + i, q, text.size() - i);
        if (!p) break;
        const auto at = static_cast<std::size_t>(static_cast<const char *>(p) - text.data());
        i = at + 1;
        if (at < 2 || at + 1 >= text.size() || (text[at - 2] | 0x20) != 'n' || (text[at - 1] | 0x20) != 'o' ||
            (text[at + 1] | 0x20) != 'a')
          continue;
        if (noqaWithAsyncfixCode(text, at)) done = record(kPrefilterNoqa, at - 2);
      }
    }
  }
  if (offsets) std::sort(offsets->begin() + static_cast<std::ptrdiff_t>(first), offsets->end());
  return found;
}

} // namespace asyncfix
