#include "engine/still_rejected.h"

#include <algorithm>
#include <array>

#include "text/prefilter.h"
#include "text/torch_words.h"

namespace asyncfix {
namespace {

/// The trigger words other than the AF3xx ones whose whole-file judgement reads beyond their
/// statement (see the header), searched as bytes: in code, strings and comments alike.
constexpr std::array<std::string_view, 2> kCrossStatementWords{"non_blocking", "await"};

/// Bytes after which the prefilter's judgements are not the ones a statement alone gets: the
/// lead bytes of the blanks of another character tree-sitter reads (a vertical tab, U+0085,
/// U+00A0, U+1680, U+2000…, U+3000, U+FEFF: any of them in code makes the whole text unjudged),
/// a form feed or a lone carriage return (which the indentation and line passes give up at).
bool unjudgedByte(std::string_view text, std::size_t i) {
  switch (static_cast<unsigned char>(text[i])) {
  case 0x0b:
  case 0x0c:
  case 0xc2:
  case 0xe1:
  case 0xe2:
  case 0xe3:
  case 0xef: return true;
  case '\r': return i + 1 >= text.size() || text[i + 1] != '\n';
  default: return false;
  }
}

} // namespace

bool holdsCrossStatementWord(std::string_view text, const std::vector<std::string> &apiWords) {
  for (const std::string_view word : kCrossStatementWords)
    if (text.find(word) != std::string_view::npos) return true;
  for (const std::string &word : apiWords)
    if (text.find(word) != std::string_view::npos) return true;
  bool found = false;
  forEachTorchWord(text, [&](std::size_t) { return found = true; });
  return found;
}

std::size_t crossStatementWordReach(const std::vector<std::string> &apiWords) {
  std::size_t reach = 0;
  for (const std::string_view word : kCrossStatementWords) reach = std::max(reach, word.size());
  for (const std::string &word : apiWords) reach = std::max(reach, word.size());
  for (const TorchWord &w : torchApiWords()) reach = std::max(reach, w.text.size());
  for (const TorchWord &w : torchApiWholeWords()) reach = std::max(reach, w.text.size());
  return reach + 1; // and the byte next to it, which decides whether it stands alone
}

bool statementsStayRejected(std::string_view text, unsigned triggers) {
  for (std::size_t i = 0; i < text.size(); ++i)
    if (unjudgedByte(text, i)) return false;
  // A probe after the statements: a name `async` in code, which counts wherever the lexer reads
  // code, then the same word in a comment, which counts only where the text is not judged (the
  // lexer lost its way, a string left open). Exactly the first: no hit in the statements, the
  // lexer in code at their end.
  constexpr std::string_view kProbe = "\nasync = 0  # async\n";
  std::string probed(text);
  probed += kProbe;
  std::vector<std::uint32_t> marks;
  (void)scanTriggers(probed, triggers | kPrefilterKeywordName, &marks);
  return marks.size() == 1 && marks.front() == text.size() + kProbe.find("async");
}

} // namespace asyncfix
