#include "asyncfix/line_diff.h"

#include <algorithm>
#include <optional>

namespace asyncfix {
namespace {

using Lines = std::vector<std::string_view>;

/// Myers' O((N+M)D) shortest edit script between a[aFrom, aTo) and b[bFrom, bTo), or nullopt when
/// it needs more than `maxD` edits.
std::optional<std::vector<LineStep>> myers(const Lines &a, std::size_t aFrom, std::size_t aTo, const Lines &b,
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
  if (found < 0) return std::nullopt;

  std::vector<LineStep> steps;
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
      steps.push_back({LineOp::Equal, idx(aFrom, x), idx(bFrom, y)});
    }
    if (d > 0) {
      if (x == prevX) {
        steps.push_back({LineOp::Insert, idx(aFrom, x), idx(bFrom, prevY)});
      } else {
        steps.push_back({LineOp::Delete, idx(aFrom, prevX), idx(bFrom, y)});
      }
    }
    x = prevX;
    y = prevY;
  }
  std::reverse(steps.begin(), steps.end());
  return steps;
}

} // namespace

std::vector<LineStep> lineEditScript(const Lines &a, const Lines &b, std::int32_t maxEdits) {
  std::size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  std::size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head && a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) ++tail;
  std::vector<LineStep> steps;
  steps.reserve(std::max(a.size(), b.size()) + 8);
  for (std::size_t i = 0; i < head; ++i) steps.push_back({LineOp::Equal, i, i});
  const std::size_t aEnd = a.size() - tail;
  const std::size_t bEnd = b.size() - tail;
  if (auto middle = myers(a, head, aEnd, b, head, bEnd, maxEdits)) {
    steps.insert(steps.end(), middle->begin(), middle->end());
  } else {
    for (std::size_t i = head; i < aEnd; ++i) steps.push_back({LineOp::Delete, i, head});
    for (std::size_t j = head; j < bEnd; ++j) steps.push_back({LineOp::Insert, aEnd, j});
  }
  for (std::size_t i = 0; i < tail; ++i) steps.push_back({LineOp::Equal, aEnd + i, bEnd + i});
  return steps;
}

ChangedSpan changedSpan(std::string_view before, std::string_view after) {
  const std::size_t shorter = std::min(before.size(), after.size());
  std::size_t prefix = 0;
  while (prefix < shorter && before[prefix] == after[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < shorter - prefix && before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix]) ++suffix;
  const auto continuation = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; };
  while (prefix > 0 && ((prefix < before.size() && continuation(before[prefix])) ||
                        (prefix < after.size() && continuation(after[prefix]))))
    --prefix;
  while (suffix > 0 && continuation(before[before.size() - suffix])) --suffix; // the suffix is common
  return {prefix, before.size() - suffix, after.size() - suffix};
}

} // namespace asyncfix
