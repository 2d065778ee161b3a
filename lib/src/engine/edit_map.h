// edit_map.h — map offsets through applied edits. Private.
#pragma once

#include <cstddef>
#include <vector>

#include "asyncfix/diagnostic.h"

namespace asyncfix {

/// Maps an offset in the text after `edits` (sorted, non-overlapping, in the old text's offsets)
/// were applied back to the text before them. An offset inside replaced text maps to the start
/// (or, for `isEnd`, the end) of what it replaced.
std::size_t mapBack(std::size_t offset, const std::vector<TextEdit> &edits, bool isEnd);

} // namespace asyncfix
