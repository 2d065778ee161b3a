// unified_diff.cpp — the library's line edit script, printed as a unified diff.
#include "asyncfix/unified_diff.h"

#include <algorithm>
#include <vector>

#include "asyncfix/line_diff.h"

namespace asyncfix {
namespace {

using Lines = std::vector<std::string_view>;

/// Lines of `text`, each with its own terminator; the last one may have none.
Lines splitLines(std::string_view text) {
  Lines lines;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    const std::size_t length = newline == std::string_view::npos ? text.size() : newline + 1;
    lines.push_back(text.substr(0, length));
    text.remove_prefix(length);
  }
  return lines;
}

/// "l,n" of a hunk header (GNU style: ",1" omitted; an empty range names the line before it).
std::string hunkRange(std::size_t start, std::size_t count) {
  if (count == 0) {
    return std::to_string(start) + ",0";
  }
  if (count == 1) {
    return std::to_string(start + 1);
  }
  return std::to_string(start + 1) + "," + std::to_string(count);
}

void appendLine(std::string &out, char marker, std::string_view line) {
  out += marker;
  out += line;
  if (line.empty() || line.back() != '\n') {
    out += "\n\\ No newline at end of file\n";
  }
}

} // namespace

std::string unifiedDiff(std::string_view before, std::string_view after, std::string_view path, int context) {
  if (before == after) {
    return {};
  }
  const Lines a = splitLines(before);
  const Lines b = splitLines(after);
  const std::vector<LineStep> ops = lineEditScript(a, b);
  const auto ctx = static_cast<std::size_t>(std::max(context, 0));

  std::vector<std::size_t> changes;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind != LineOp::Equal) {
      changes.push_back(i);
    }
  }
  std::string out;
  if (changes.empty()) {
    return out;
  }
  out.append("--- a/").append(path).append("\n+++ b/").append(path).append("\n");
  for (std::size_t c = 0; c < changes.size();) {
    std::size_t last = changes[c];
    std::size_t next = c + 1;
    while (next < changes.size() && changes[next] - last - 1 <= 2 * ctx) {
      last = changes[next++];
    }
    const std::size_t from = changes[c] > ctx ? changes[c] - ctx : 0;
    const std::size_t to = std::min(ops.size(), last + ctx + 1);
    std::size_t aCount = 0;
    std::size_t bCount = 0;
    for (std::size_t i = from; i < to; ++i) {
      aCount += ops[i].kind != LineOp::Insert ? 1 : 0;
      bCount += ops[i].kind != LineOp::Delete ? 1 : 0;
    }
    out.append("@@ -")
        .append(hunkRange(ops[from].a, aCount))
        .append(" +")
        .append(hunkRange(ops[from].b, bCount))
        .append(" @@\n");
    for (std::size_t i = from; i < to; ++i) {
      switch (ops[i].kind) {
      case LineOp::Equal: appendLine(out, ' ', a[ops[i].a]); break;
      case LineOp::Delete: appendLine(out, '-', a[ops[i].a]); break;
      case LineOp::Insert: appendLine(out, '+', b[ops[i].b]); break;
      }
    }
    c = next;
  }
  return out;
}

} // namespace asyncfix
