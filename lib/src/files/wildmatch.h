// wildmatch.h — glob matching with the semantics git gives ignore patterns (`man gitignore`,
// "PATTERN FORMAT"). Private. Knows nothing about files, directories or .gitignore syntax
// (negation, anchoring, trailing `/`): that is ignore_rules.h.
//
//   ?        one character other than `/`
//   *        any run of characters other than `/`
//   [...]    one character (never `/`) from a set: ranges `a-z`, `[!...]` / `[^...]` negated,
//            a `]` first is literal, POSIX classes `[[:alpha:]]` etc. (ASCII), `\x` literal
//   **       a whole path component or several: `**/x` (x in any directory), `x/**` (everything
//            inside x), `a/**/b` (zero or more directories between); a `**` that is not a whole
//            component is a `*`
//   \x       the character x; a pattern that ends in a lone `\` matches nothing
//
// Matching is case-sensitive and byte-wise (UTF-8 passes through as bytes).
#pragma once

#include <string_view>

namespace asyncfix {

/// True when the whole of `text` (a relative path with `/` separators, no leading or trailing
/// `/`) matches the whole of `pattern`.
bool wildmatch(std::string_view pattern, std::string_view text);

/// True when `pattern` has no character that wildmatch treats specially (`*`, `?`, `[`, `\`):
/// it then matches exactly the text equal to it.
bool isLiteralPattern(std::string_view pattern);

} // namespace asyncfix
