#include "engine/edit_map.h"

namespace asyncfix {

std::size_t mapBack(std::size_t offset, const std::vector<TextEdit> &edits, bool isEnd) {
  std::ptrdiff_t shift = 0; // (new length - old length) of the edits before `offset`
  for (const TextEdit &e : edits) {
    const auto newStart = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(e.start) + shift);
    const std::size_t newEnd = newStart + e.content.size();
    if (offset < newStart || (offset == newStart && !isEnd)) break;
    if (offset < newEnd || (offset == newEnd && isEnd && offset > newStart)) return isEnd ? e.end : e.start;
    shift += static_cast<std::ptrdiff_t>(e.content.size()) - static_cast<std::ptrdiff_t>(e.end - e.start);
  }
  return static_cast<std::size_t>(static_cast<std::ptrdiff_t>(offset) - shift);
}

} // namespace asyncfix
