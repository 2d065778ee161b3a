// rules/edits.h — building blocks for fixes, shared by rules.
#pragma once

#include <tree_sitter/api.h>

#include <string>
#include <string_view>

#include "asyncfix/diagnostic.h"

namespace asyncfix::rules {

/// Replace `node`'s bytes with `content`.
TextEdit replaceNode(TSNode node, std::string content);

/// Remove one argument from an argument list together with the comma that separates it from
/// its neighbours, leaving comments and the other arguments' formatting alone:
/// `f(a, x=1, b)` → `f(a, b)`, `f(a, x=1)` → `f(a)`, `f(x=1)` → `f()`.
TextEdit removeArgument(TSNode argument, std::string_view text);

} // namespace asyncfix::rules
