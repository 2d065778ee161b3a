// lsp/text_diff.h — the edits that turn one text into another, small enough for an editor.
#pragma once

#include <string_view>
#include <vector>

#include "asyncfix/diagnostic.h"

namespace asyncfix::lsp {

/// Sorted, non-overlapping edits (byte offsets into `before`) with applyEdits(before, edits) ==
/// after. Each changed line gets its own edit, trimmed to the bytes that differ (never splitting a
/// UTF-8 character) when the changed region keeps its number of lines; otherwise the changed region
/// is one edit. Used to send the result of a whole-file fix() as edits that keep the cursor,
/// markers and undo history of the untouched text.
std::vector<asyncfix::TextEdit> diffEdits(std::string_view before, std::string_view after);

} // namespace asyncfix::lsp
