// prefilter.h — a conservative token scan that decides whether a text needs parsing at all.
#pragma once

#include <string_view>

namespace asyncfix {

/// False only when `text` holds no `async`/`await` that could be a name: every occurrence is a
/// word followed by what makes it the keyword (`async def|for|with`, `await <operand>`). Text in
/// strings and comments also counts (it may say "maybe" too often, never "no" wrongly).
/// Rules triggered by other words (future AF1xx/AF2xx) add their own triggers here.
bool mayUseKeywordAsName(std::string_view text);

/// False only when `text` does not contain `non_blocking`.
bool mentionsNonBlocking(std::string_view text);

/// False only when `text` has no `.to(` (blanks allowed around the dot and before the paren).
bool mentionsToCall(std::string_view text);

/// False only when no line of `text` has a `noqa` (any case) followed by an `AF` code: then no
/// asyncfix code in a suppression comment can be unused or unknown (AF900).
bool mentionsAsyncfixNoqa(std::string_view text);

} // namespace asyncfix
