// asyncfix/line_diff.h — the shortest line edit script between two texts (Myers' diff), and the
// one span where two texts differ.
// Internal: not installed; the CLI renders it as a unified diff, the language server turns it
// into the small edits an editor applies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace asyncfix {

enum class LineOp : std::uint8_t { Equal, Delete, Insert };

/// One line of an edit script. `a`/`b` index the line in the old/new list; for a line that is on
/// one side only, the other index is the position between lines where it belongs.
struct LineStep {
  LineOp kind;
  std::size_t a;
  std::size_t b;
  friend bool operator==(const LineStep &, const LineStep &) = default;
};

/// A shortest edit script from `a` to `b` (lines compared as strings; the caller decides what a
/// line is and whether it keeps its terminator). Common head and tail lines are matched directly;
/// when the region between them needs more than `maxEdits` insertions and deletions, it is
/// replaced wholesale (all of its old lines deleted, then all new lines inserted), which bounds
/// memory at O(maxEdits²) for texts that differ everywhere.
std::vector<LineStep> lineEditScript(const std::vector<std::string_view> &a, const std::vector<std::string_view> &b,
                                     std::int32_t maxEdits = 2000);

/// Where two texts differ, as one span: bytes [start, beforeEnd) of `before` became bytes
/// [start, afterEnd) of `after`. The common prefix and suffix are left out, in whole UTF-8
/// characters (neither end falls inside a multi-byte sequence of either text).
struct ChangedSpan {
  std::size_t start = 0, beforeEnd = 0, afterEnd = 0;
};
ChangedSpan changedSpan(std::string_view before, std::string_view after);

} // namespace asyncfix
