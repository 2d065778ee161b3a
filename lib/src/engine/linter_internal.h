// linter_internal.h — what tests and the benchmark may ask of the Linter beyond its API. Private.
#pragma once

#include <vector>

#include "asyncfix/linter.h"

namespace asyncfix {

/// lint() without the walk's pruning: every node is visited and dispatched. Must give exactly
/// what lint() gives; tests and `asyncfix_bench_parse verify` compare the two.
std::vector<Diagnostic> lintWithoutPruning(const Linter &linter, const Document &doc);

} // namespace asyncfix
