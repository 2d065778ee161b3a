// cli/diff.cpp — a line-based Myers diff, printed as a unified diff.
#include "diff.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace asyncfix::cli {
namespace {

/// Lines of `text`, each with its own terminator; the last one may have none.
std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    const std::size_t length = newline == std::string_view::npos ? text.size() : newline + 1;
    lines.push_back(text.substr(0, length));
    text.remove_prefix(length);
  }
  return lines;
}

enum class OpKind : std::uint8_t { Equal, Delete, Insert };

/// One line of the edit script. `a`/`b` are the line's index in the old/new text; for a line that
/// is only on one side, the other index is the position between lines where it belongs.
struct Op {
  OpKind kind;
  std::size_t a;
  std::size_t b;
};

using Lines = std::vector<std::string_view>;

/// Myers' O((N+M)D) shortest edit script between a[aFrom, aTo) and b[bFrom, bTo), or nullopt when
/// it needs more than `maxD` edits (the caller then replaces the region wholesale).
std::optional<std::vector<Op>> myers(const Lines &a, std::size_t aFrom, std::size_t aTo, const Lines &b,
                                     std::size_t bFrom, std::size_t bTo, std::int32_t maxD) {
  const auto n = static_cast<std::int32_t>(aTo - aFrom);
  const auto m = static_cast<std::int32_t>(bTo - bFrom);
  const std::int32_t max = n + m;
  const std::int32_t offset = max + 1;
  std::vector<std::int32_t> v(static_cast<std::size_t>(2 * max + 3), 0);
  std::vector<std::vector<std::int32_t>> trace;
  const auto same = [&](std::int32_t x, std::int32_t y) {
    return a[aFrom + static_cast<std::size_t>(x)] == b[bFrom + static_cast<std::size_t>(y)];
  };
  const auto at = [&](std::int32_t k) -> std::int32_t & { return v[static_cast<std::size_t>(offset + k)]; };

  std::int32_t found = -1;
  for (std::int32_t d = 0; d <= std::min(max, maxD) && found < 0; ++d) {
    // The frontier before round d, for k in [-(d+1), d+1]: what the backtrack needs.
    trace.emplace_back(v.begin() + (offset - d - 1), v.begin() + (offset + d + 2));
    for (std::int32_t k = -d; k <= d; k += 2) {
      std::int32_t x = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? at(k + 1) : at(k - 1) + 1;
      std::int32_t y = x - k;
      while (x < n && y < m && same(x, y)) {
        ++x;
        ++y;
      }
      at(k) = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) {
    return std::nullopt;
  }

  std::vector<Op> ops;
  std::int32_t x = n;
  std::int32_t y = m;
  const auto idx = [](std::size_t base, std::int32_t i) { return base + static_cast<std::size_t>(i); };
  for (std::int32_t d = found; d >= 0; --d) {
    const std::vector<std::int32_t> &frontier = trace[static_cast<std::size_t>(d)];
    const auto before = [&](std::int32_t k) { return frontier[static_cast<std::size_t>(k + d + 1)]; };
    const std::int32_t k = x - y;
    const std::int32_t prevK = (k == -d || (k != d && before(k - 1) < before(k + 1))) ? k + 1 : k - 1;
    const std::int32_t prevX = before(prevK);
    const std::int32_t prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      --x;
      --y;
      ops.push_back({OpKind::Equal, idx(aFrom, x), idx(bFrom, y)});
    }
    if (d > 0) {
      if (x == prevX) {
        ops.push_back({OpKind::Insert, idx(aFrom, x), idx(bFrom, prevY)});
      } else {
        ops.push_back({OpKind::Delete, idx(aFrom, prevX), idx(bFrom, y)});
      }
    }
    x = prevX;
    y = prevY;
  }
  std::reverse(ops.begin(), ops.end());
  return ops;
}

/// The edit script for the whole texts: common head and tail lines are matched directly, only
/// the region between them goes through Myers.
std::vector<Op> editScript(const Lines &a, const Lines &b) {
  std::size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) {
    ++head;
  }
  std::size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head && a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) {
    ++tail;
  }
  std::vector<Op> ops;
  ops.reserve(std::max(a.size(), b.size()) + 8);
  for (std::size_t i = 0; i < head; ++i) {
    ops.push_back({OpKind::Equal, i, i});
  }
  const std::size_t aEnd = a.size() - tail;
  const std::size_t bEnd = b.size() - tail;
  // Fixes change a few lines; past 2000 differing lines a minimal script is not worth its memory.
  constexpr std::int32_t kMaxEdits = 2000;
  if (auto middle = myers(a, head, aEnd, b, head, bEnd, kMaxEdits)) {
    ops.insert(ops.end(), middle->begin(), middle->end());
  } else {
    for (std::size_t i = head; i < aEnd; ++i) {
      ops.push_back({OpKind::Delete, i, head});
    }
    for (std::size_t j = head; j < bEnd; ++j) {
      ops.push_back({OpKind::Insert, aEnd, j});
    }
  }
  for (std::size_t i = 0; i < tail; ++i) {
    ops.push_back({OpKind::Equal, aEnd + i, bEnd + i});
  }
  return ops;
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
  const std::vector<Op> ops = editScript(a, b);
  const auto ctx = static_cast<std::size_t>(std::max(context, 0));

  std::vector<std::size_t> changes;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind != OpKind::Equal) {
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
      aCount += ops[i].kind != OpKind::Insert ? 1 : 0;
      bCount += ops[i].kind != OpKind::Delete ? 1 : 0;
    }
    out.append("@@ -")
        .append(hunkRange(ops[from].a, aCount))
        .append(" +")
        .append(hunkRange(ops[from].b, bCount))
        .append(" @@\n");
    for (std::size_t i = from; i < to; ++i) {
      switch (ops[i].kind) {
      case OpKind::Equal: appendLine(out, ' ', a[ops[i].a]); break;
      case OpKind::Delete: appendLine(out, '-', a[ops[i].a]); break;
      case OpKind::Insert: appendLine(out, '+', b[ops[i].b]); break;
      }
    }
    c = next;
  }
  return out;
}

} // namespace asyncfix::cli
