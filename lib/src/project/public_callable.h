// project/public_callable.h — which functions other modules can call by keyword. Private.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "analysis/semantic.h"

namespace asyncfix {

/// The callable whose parameters the function scope `scope` holds, from its module, when other
/// modules can call it by keyword: "f", "C.m", and "C" for `C.__init__` (`*constructor` is then
/// set). Nullopt for private names (`_f`, a method of `_C`), functions nested in functions,
/// lambdas, and dunder methods other than `__init__`.
std::optional<std::string> publicCallable(const SemanticModel &model, std::uint32_t scope, bool *constructor = nullptr);

} // namespace asyncfix
