// test_util.h — small helpers shared by the C++ tests.
#pragma once

#include "asyncfix/linter.h"

namespace asyncfix::testing {

/// FixOptions with unsafe fixes enabled.
inline FixOptions unsafeFixes() {
  FixOptions options;
  options.unsafe = true;
  return options;
}

} // namespace asyncfix::testing
