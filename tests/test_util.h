// test_util.h — small helpers shared by the C++ tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "asyncfix/linter.h"

namespace asyncfix::testing {

/// The bytes of a file ("" when it cannot be read).
inline std::string readFile(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// FixOptions with unsafe fixes enabled.
inline FixOptions unsafeFixes() {
  FixOptions options;
  options.unsafe = true;
  return options;
}

} // namespace asyncfix::testing
