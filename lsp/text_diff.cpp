#include "text_diff.h"

#include <algorithm>

#include "asyncfix/line_diff.h"
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

/// before[b0, b1) → after[a0, a1) as token-level edits (a heaviest common subsequence of tokens),
/// so that two renames on one line are two edits. False, with no edit, past 400 tokens a side.
bool tokenEdits(std::string_view before, std::size_t b0, std::size_t b1, std::string_view after, std::size_t a0,
                std::size_t a1, std::vector<asyncfix::TextEdit> &out) {
  const auto x = tokens(before, b0, b1), y = tokens(after, a0, a1);
  if (x.size() > 400 || y.size() > 400) return false;
  const auto text = [](std::string_view s, std::pair<std::size_t, std::size_t> t) {
    return s.substr(t.first, t.second - t.first);
  };
  // lcs[i][j]: the bytes of a heaviest common subsequence of x[i..] and y[j..]. Weighing tokens by
  // their bytes keeps `x = a.cuda(` together rather than matching scattered blanks and newlines.
  std::vector<std::vector<std::uint32_t>> lcs(x.size() + 1, std::vector<std::uint32_t>(y.size() + 1, 0));
  for (std::size_t i = x.size(); i-- > 0;)
    for (std::size_t j = y.size(); j-- > 0;)
      lcs[i][j] = text(before, x[i]) == text(after, y[j])
                      ? lcs[i + 1][j + 1] + static_cast<std::uint32_t>(x[i].second - x[i].first)
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
  return true;
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
  if (oldLines.hasBom() != newLines.hasBom()) {
    trimmedEdit(before, 0, before.size(), after, 0, after.size(), edits);
    return edits;
  }
  // Each line with its terminator, so that a changed line ending is an edit too.
  const auto lines = [](std::string_view text, const LineIndex &index) {
    std::vector<std::string_view> out;
    out.reserve(index.lineCount());
    for (std::uint32_t line = 0; line < index.lineCount(); ++line) {
      const std::size_t start = line == 0 ? 0 : index.lineStart(line);
      const std::size_t end = line + 1 < index.lineCount() ? index.lineStart(line + 1) : text.size();
      out.push_back(text.substr(start, end - start));
    }
    return out;
  };
  const auto a = lines(before, oldLines), b = lines(after, newLines);
  const auto oldAt = [&](std::size_t line) {
    return line < a.size() ? static_cast<std::size_t>(a[line].data() - before.data()) : before.size();
  };
  const auto newAt = [&](std::size_t line) {
    return line < b.size() ? static_cast<std::size_t>(b[line].data() - after.data()) : after.size();
  };
  // Runs of deleted and inserted lines between equal ones, each diffed token by token as a whole;
  // a run too long for that is diffed line by line when it inserts as many lines as it deletes, and
  // trimmed otherwise.
  const std::vector<LineStep> steps = lineEditScript(a, b);
  for (std::size_t i = 0; i < steps.size();) {
    if (steps[i].kind == LineOp::Equal) {
      ++i;
      continue;
    }
    std::size_t deleted = 0, inserted = 0, j = i;
    for (; j < steps.size() && steps[j].kind != LineOp::Equal; ++j)
      (steps[j].kind == LineOp::Delete ? deleted : inserted) += 1;
    // The run covers a[a0, a0 + deleted) and b[b0, b0 + inserted): its first step names both starts.
    const std::size_t a0 = steps[i].a, b0 = steps[i].b;
    if (tokenEdits(before, oldAt(a0), oldAt(a0 + deleted), after, newAt(b0), newAt(b0 + inserted), edits)) {
      i = j;
      continue;
    }
    if (deleted == inserted) {
      for (std::size_t k = 0; k < deleted; ++k)
        if (!tokenEdits(before, oldAt(a0 + k), oldAt(a0 + k + 1), after, newAt(b0 + k), newAt(b0 + k + 1), edits))
          trimmedEdit(before, oldAt(a0 + k), oldAt(a0 + k + 1), after, newAt(b0 + k), newAt(b0 + k + 1), edits);
    } else {
      trimmedEdit(before, oldAt(a0), oldAt(a0 + deleted), after, newAt(b0), newAt(b0 + inserted), edits);
    }
    i = j;
  }
  return edits;
}

} // namespace asyncfix::lsp
