// asyncfix/unified_diff.h (internal, not installed) — unified diffs of what a fix would change.
#pragma once

#include <string>
#include <string_view>

namespace asyncfix {

/// A unified diff (`--- a/path`, `+++ b/path`, `@@ -l,n +l,n @@` hunks with `context` lines of
/// context) from `before` to `after`, as `patch -p1` / `git apply` read it. Lines keep their own
/// terminators (a CRLF line stays CRLF); a last line without one is followed by
/// `\ No newline at end of file`. Empty when the texts are equal.
std::string unifiedDiff(std::string_view before, std::string_view after, std::string_view path, int context = 3);

} // namespace asyncfix
