#include "prefilter.h"

#include <array>
#include <cstring> // memmem (GNU)

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
    "and", "as", "assert", "async", "await", "del", "elif", "else", "exec", "for", "from", "if",
    "import", "in", "is", "lambda", "not", "or", "print", "raise", "return", "while", "with", "yield"};

bool isKeyword(std::string_view w) {
  for (std::string_view k : kKeywords)
    if (k == w) return true;
  return false;
}

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
  const std::size_t before = i;
  std::size_t k = before;
  while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == '\t')) --k;
  if (k == 0) return false;
  const char c = text[k - 1];
  if (c == ')' || c == ']' || c == '}' || c == '"' || c == '\'') return true;
  const std::string_view prev = previousWord(text, before);
  return !prev.empty() && !isKeyword(prev);
}

/// Is the `await` at `i` (a whole word) certainly the keyword?
bool awaitIsKeyword(std::string_view text, std::size_t i) {
  const std::size_t j = skipBlanks(text, i + 5);
  if (j >= text.size()) return false;
  const auto c = static_cast<unsigned char>(text[j]);
  if (c == '"' || c == '\'' || c == '{' || c == '~') return true;
  if (!isWordByte(c)) return false; // `(`, `[`, `+`, `-`, `=`, `,`, `.`, newline…: may be a name
  const std::string_view next = wordAt(text, j);
  return !isKeyword(next);
}

} // namespace

bool mayUseKeywordAsName(std::string_view text) {
  for (const char *word : {"async", "await"}) {
    const bool isAsync = word[1] == 's';
    for (std::size_t i = 0; i + 5 <= text.size(); i += 5) {
      const void *hit = memmem(text.data() + i, text.size() - i, word, 5);
      if (!hit) break;
      i = static_cast<std::size_t>(static_cast<const char *>(hit) - text.data());
      if (i > 0 && isWordByte(static_cast<unsigned char>(text[i - 1]))) continue;
      if (i + 5 < text.size() && isWordByte(static_cast<unsigned char>(text[i + 5]))) continue;
      if (isAsync ? !asyncIsKeyword(text, i) : !awaitIsKeyword(text, i)) return true;
    }
  }
  return false;
}

bool mentionsNonBlocking(std::string_view text) {
  return memmem(text.data(), text.size(), "non_blocking", 12) != nullptr;
}

bool mentionsToCall(std::string_view text) {
  for (std::size_t i = 0; i + 2 < text.size();) {
    const void *hit = memmem(text.data() + i, text.size() - i, "to", 2);
    if (!hit) return false;
    const auto at = static_cast<std::size_t>(static_cast<const char *>(hit) - text.data());
    i = at + 2;
    std::size_t before = at, after = at + 2;
    while (before > 0 && (text[before - 1] == ' ' || text[before - 1] == '\t')) --before;
    while (after < text.size() && (text[after] == ' ' || text[after] == '\t')) ++after;
    if (before > 0 && text[before - 1] == '.' && after < text.size() && text[after] == '(') return true;
  }
  return false;
}

bool mentionsAsyncfixNoqa(std::string_view text) {
  // Anchor on the rare letter: memchr for `q`/`Q`, then look around it for `noqa` in any case.
  for (const char q : {'q', 'Q'}) {
    for (std::size_t i = 0; i < text.size();) {
      const void *hit = std::memchr(text.data() + i, q, text.size() - i);
      if (!hit) break;
      const auto at = static_cast<std::size_t>(static_cast<const char *>(hit) - text.data());
      i = at + 1;
      if (at < 2 || at + 1 >= text.size() || (text[at - 2] | 0x20) != 'n' || (text[at - 1] | 0x20) != 'o' ||
          (text[at + 1] | 0x20) != 'a')
        continue;
      const std::size_t eol = std::min(text.find('\n', at), text.size());
      for (std::size_t j = text.find("AF", at); j != std::string_view::npos && j + 2 < eol; j = text.find("AF", j + 1))
        if (text[j + 2] >= '0' && text[j + 2] <= '9') return true;
    }
  }
  return false;
}

} // namespace asyncfix
