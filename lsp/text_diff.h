// lsp/text_diff.h — the edits that turn one text into another, small enough for an editor.
#pragma once

#include <string_view>
#include <vector>

#include "asyncfix/diagnostic.h"

namespace asyncfix::lsp {

/// Sorted, non-overlapping edits (byte offsets into `before`) with applyEdits(before, edits) ==
/// after. The lines that differ come from the library's line edit script (Myers); each run of
/// changed lines gets the edits of the tokens that differ in it (never splitting a UTF-8
/// character). A run of over 400 tokens a side is diffed line by line when it keeps its number of
/// lines, and is one trimmed edit otherwise.
/// Used to send the result of a whole-file fix() as edits that keep the cursor, markers and undo
/// history of the untouched text.
std::vector<asyncfix::TextEdit> diffEdits(std::string_view before, std::string_view after);

} // namespace asyncfix::lsp
