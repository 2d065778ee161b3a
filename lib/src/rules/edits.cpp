#include "rules/edits.h"

#include "text/syntax.h"

namespace asyncfix::rules {

TextEdit replaceNode(TSNode node, std::string content) {
  return {ts_node_start_byte(node), ts_node_end_byte(node), std::move(content)};
}

namespace {
bool isComma(TSNode n, std::string_view text) {
  return !ts_node_is_null(n) && !ts_node_is_named(n) && textOf(n, text) == ",";
}
std::size_t skipBlanks(std::string_view text, std::size_t i) {
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  return i;
}
} // namespace

TextEdit removeArgument(TSNode argument, std::string_view text) {
  const std::size_t start = ts_node_start_byte(argument), end = ts_node_end_byte(argument);
  // Prefer taking the comma after: `f(x=1, b)` → `f(b)`.
  TSNode after = ts_node_next_sibling(argument);
  while (!ts_node_is_null(after) && ts_node_symbol(after) == Kinds::get().comment) after = ts_node_next_sibling(after);
  if (isComma(after, text)) {
    TSNode next = ts_node_next_sibling(after);
    const bool nextIsArgument =
        !ts_node_is_null(next) && ts_node_is_named(next) && ts_node_symbol(next) != Kinds::get().comment;
    if (nextIsArgument) {
      std::size_t cut = skipBlanks(text, ts_node_end_byte(after));
      // Only swallow the gap when the next argument is on the same line.
      if (cut != ts_node_start_byte(next)) cut = ts_node_end_byte(after);
      return {start, cut, ""};
    }
  }
  // Otherwise take the comma before: `f(a, x=1)` → `f(a)`.
  TSNode before = ts_node_prev_sibling(argument);
  while (!ts_node_is_null(before) && ts_node_symbol(before) == Kinds::get().comment)
    before = ts_node_prev_sibling(before);
  if (isComma(before, text)) {
    TSNode prev = ts_node_prev_sibling(before);
    if (!ts_node_is_null(prev) && ts_node_is_named(prev)) {
      const std::size_t from = ts_node_end_byte(prev);
      if (text.substr(from, start - from).find('#') == std::string_view::npos) return {from, end, ""};
      // A comment between the two stays, so the comma before it stays too (then a trailing
      // comma): the argument goes with its own comma, if it has one.
      return {start, isComma(after, text) ? ts_node_end_byte(after) : end, ""};
    }
  }
  if (isComma(after, text)) return {start, ts_node_end_byte(after), ""}; // `f(x=1,)` → `f()`
  return {start, end, ""};
}

} // namespace asyncfix::rules
