// AF103 to-positional-non-blocking (lib/src/rules/to_positional_non_blocking.cpp).
#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix;
using namespace asyncfix::testing;

TEST_CASE("AF103 to-positional-non-blocking", "[rules][AF103]") {
  const std::vector<std::string> valid = {
      "x.to(device, non_blocking=True)\n",
      "x.to(device)\n",
      "x.to(device, dtype)\n",
      "x.to(device, True, False)\n", // three positional: not this pattern
      "foo(device, True)\n",
      "x.to(*args)\n",
      "x.to('cuda', True, non_blocking=False)\n", // the fix would repeat the keyword
      "y = x.to(\\\nTrue)\n",                     // one argument: a line continuation is none (the review, session 11)
      "y = x.to(\\\n    True)\n",
  };
  const std::vector<Invalid> invalid = {
      {"x = x.to(device, True)\n",
       {{"AF103", 1, 18, 22, FixKind::Safe, "dtype"}},
       "x = x.to(device, non_blocking=True)\n"},
      {"x = x.to(device, False, copy=True)\n",
       {{"AF103", 1, 18, 23}},
       "x = x.to(device, non_blocking=False, copy=True)\n"},
      {"x = x.to(\n    device,  # where\n    True,\n)\n",
       {{"AF103", 3, 5, 9}},
       "x = x.to(\n    device,  # where\n    non_blocking=True,\n)\n"},
      {"x = x.to(device, \\\n    True)\n", {{"AF103", 2, 5, 9}}, "x = x.to(device, \\\n    non_blocking=True)\n"},
  };
  runRuleTests("AF103", valid, invalid);
}
