// lsp/text_diff.h — the edits that turn one text into another, small enough for an editor.
#pragma once

#include <string_view>
#include <vector>

#include "asyncfix/diagnostic.h"

namespace asyncfix::lsp {

/// Sorted, non-overlapping edits (byte offsets into `before`) with applyEdits(before, edits) ==
/// after. The lines that differ come from the library's line edit script (Myers); where a run of
/// changed lines keeps its number of lines, each line gets its own edits, at the tokens that differ
/// (never splitting a UTF-8 character); any other run gets the edits of its tokens as a whole.
/// Used to send the result of a whole-file fix() as edits that keep the cursor, markers and undo
/// history of the untouched text.
std::vector<asyncfix::TextEdit> diffEdits(std::string_view before, std::string_view after);

} // namespace asyncfix::lsp
