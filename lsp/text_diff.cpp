#include "text_diff.h"

#include <algorithm>

#include "asyncfix/line_index.h"

namespace asyncfix::lsp {
namespace {

bool isContinuation(std::string_view text, std::size_t i) {
  return i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;
}

/// Tokens for a line diff: a run of word characters (ASCII letters, digits, `_`, and any
/// non-ASCII character), a run of blanks, or one other character.
std::vector<std::pair<std::size_t, std::size_t>> tokens(std::string_view text, std::size_t from, std::size_t to) {
  const auto word = [](unsigned char c) {
    return c >= 0x80 || c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
  };
  const auto blank = [](unsigned char c) { return c == ' ' || c == '\t'; };
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t i = from; i < to;) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t j = i + 1;
    if (word(c)) {
      while (j < to && word(static_cast<unsigned char>(text[j]))) ++j;
    } else if (blank(c)) {
      while (j < to && blank(static_cast<unsigned char>(text[j]))) ++j;
    }
    out.emplace_back(i, j);
    i = j;
  }
  return out;
}

void trimmedEdit(std::string_view before, std::size_t b0, std::size_t b1, std::string_view after, std::size_t a0,
                 std::size_t a1, std::vector<asyncfix::TextEdit> &out);

/// before[b0, b1) → after[a0, a1) as token-level edits (a longest common subsequence of tokens),
/// so that two renames on one line are two edits; plain trimming when the line is long.
void lineEdits(std::string_view before, std::size_t b0, std::size_t b1, std::string_view after, std::size_t a0,
               std::size_t a1, std::vector<asyncfix::TextEdit> &out) {
  const auto x = tokens(before, b0, b1), y = tokens(after, a0, a1);
  if (x.size() > 400 || y.size() > 400) return trimmedEdit(before, b0, b1, after, a0, a1, out);
  const auto text = [](std::string_view s, std::pair<std::size_t, std::size_t> t) {
    return s.substr(t.first, t.second - t.first);
  };
  // lcs[i][j]: LCS length of x[i..] and y[j..].
  std::vector<std::vector<std::uint16_t>> lcs(x.size() + 1, std::vector<std::uint16_t>(y.size() + 1, 0));
  for (std::size_t i = x.size(); i-- > 0;)
    for (std::size_t j = y.size(); j-- > 0;)
      lcs[i][j] = text(before, x[i]) == text(after, y[j]) ? static_cast<std::uint16_t>(lcs[i + 1][j + 1] + 1)
                                                          : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::size_t i = 0, j = 0;
  std::size_t delStart = b0, insStart = a0; // the pending change: before[delStart, …) → after[insStart, …)
  bool pending = false;
  const auto flush = [&](std::size_t delEnd, std::size_t insEnd) {
    if (pending) trimmedEdit(before, delStart, delEnd, after, insStart, insEnd, out);
    pending = false;
  };
  while (i < x.size() || j < y.size()) {
    if (i < x.size() && j < y.size() && text(before, x[i]) == text(after, y[j])) {
      flush(x[i].first, y[j].first);
      ++i, ++j;
      delStart = i < x.size() ? x[i].first : b1;
      insStart = j < y.size() ? y[j].first : a1;
    } else if (j < y.size() && (i == x.size() || lcs[i][j + 1] >= lcs[i + 1][j])) {
      pending = true;
      ++j;
    } else {
      pending = true;
      ++i;
    }
  }
  flush(b1, a1);
}

/// One edit for before[b0, b1) → after[a0, a1), trimmed of common bytes at both ends, or none.
void trimmedEdit(std::string_view before, std::size_t b0, std::size_t b1, std::string_view after, std::size_t a0,
                 std::size_t a1, std::vector<asyncfix::TextEdit> &out) {
  std::size_t prefix = 0;
  while (b0 + prefix < b1 && a0 + prefix < a1 && before[b0 + prefix] == after[a0 + prefix]) ++prefix;
  if (b0 + prefix == b1 && a0 + prefix == a1) return; // identical
  while (prefix > 0 && isContinuation(before, b0 + prefix)) --prefix;
  std::size_t suffix = 0;
  while (suffix < b1 - b0 - prefix && suffix < a1 - a0 - prefix && before[b1 - 1 - suffix] == after[a1 - 1 - suffix])
    ++suffix;
  while (suffix > 0 && isContinuation(before, b1 - suffix)) --suffix;
  out.push_back({b0 + prefix, b1 - suffix, std::string(after.substr(a0 + prefix, a1 - suffix - a0 - prefix))});
}

} // namespace

std::vector<asyncfix::TextEdit> diffEdits(std::string_view before, std::string_view after) {
  std::vector<asyncfix::TextEdit> edits;
  if (before == after) return edits;
  const LineIndex oldLines(before), newLines(after);
  // The changed region, in whole lines: common leading and trailing lines are left alone.
  std::size_t prefix = 0;
  const std::size_t shorter = std::min(before.size(), after.size());
  while (prefix < shorter && before[prefix] == after[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < shorter - prefix && before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix]) ++suffix;
  const std::uint32_t firstLine = oldLines.lineOf(prefix); // same line number in both texts
  const std::uint32_t oldLast = oldLines.lineOf(before.size() - suffix);
  const std::uint32_t newLast = newLines.lineOf(after.size() - suffix);
  if (oldLast != newLast || oldLines.hasBom() != newLines.hasBom()) {
    trimmedEdit(before, 0, before.size(), after, 0, after.size(), edits);
    return edits;
  }
  for (std::uint32_t line = firstLine; line <= oldLast; ++line) {
    // Each line with its terminator, so that a changed line ending is an edit too.
    const std::size_t b0 = oldLines.lineStart(line), a0 = newLines.lineStart(line);
    const std::size_t b1 = line + 1 < oldLines.lineCount() ? oldLines.lineStart(line + 1) : before.size();
    const std::size_t a1 = line + 1 < newLines.lineCount() ? newLines.lineStart(line + 1) : after.size();
    lineEdits(before, b0, b1, after, a0, a1, edits);
  }
  return edits;
}

} // namespace asyncfix::lsp
