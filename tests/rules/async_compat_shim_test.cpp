// AF105 async-compat-shim (lib/src/rules/async_compat_shim.cpp).
#include <catch2/catch.hpp>

#include "asyncfix/document.h"
#include "asyncfix/linter.h"
#include "rules/rule_tester.h"

using namespace asyncfix;
using namespace asyncfix::testing;

TEST_CASE("AF105 async-compat-shim", "[rules][AF105]") {
  const std::vector<std::string> valid = {
      "try:\n    x = x.cuda(non_blocking=True)\nexcept TypeError:\n    x = x.cuda()\n",
      "try:\n    x = x.cuda(non_blocking=True)\nexcept ValueError:\n    x = x.cuda(async_=True)\n",
  };
  const std::vector<Invalid> invalid = {
      {"try:\n    x = x.cuda(non_blocking=True)\nexcept TypeError:\n    x = x.cuda(async=True)\n",
       {{"AF105", 4, 16, 21, FixKind::Safe, "shim"}},
       "x = x.cuda(non_blocking=True)\n"},
      // The other order, nested in a function, with comments and several statements.
      {"def load(batch):\n    try:  # old PyTorch\n        batch = batch.cuda(async=True)\n    except TypeError:\n"
       "        # PyTorch >= 0.4\n        batch = batch.cuda(non_blocking=True)\n        log('moved')\n    return "
       "batch\n",
       {{"AF105", 3, 28, 33}},
       "def load(batch):\n    # PyTorch >= 0.4\n    batch = batch.cuda(non_blocking=True)\n    log('moved')\n    "
       "return batch\n"},
      {"if gpu:\n    try:\n        a = a.cuda(non_blocking=True)\n        b = b.cuda(non_blocking=True)\n"
       "    except (TypeError, RuntimeError):\n        a = a.cuda(async=True)\n        b = b.cuda(async=True)\n",
       {{"AF105", 6, 20, 25}},
       "if gpu:\n    a = a.cuda(non_blocking=True)\n    b = b.cuda(non_blocking=True)\n"},
  };
  runRuleTests("AF105", valid, invalid);
}

TEST_CASE("AF105 owns the shim's async=: AF101 and AF001 stay silent there", "[rules][AF105]") {
  const auto diags = Linter().lint(
      Document("try:\n    x = x.cuda(non_blocking=True)\nexcept TypeError:\n    x = x.cuda(async=True)\n"));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "AF105");
}

TEST_CASE("AF105 at the top of a file with a BOM: the BOM is no indentation", "[rules][AF105]") {
  runRuleTests("AF105", {},
               {{"\xEF\xBB\xBFtry:\n    a = a.cuda(non_blocking=True)\n    b = b.cuda(non_blocking=True)\n"
                 "except TypeError:\n    a = a.cuda(async=True)\n",
                 {{"AF105", 5, 16, 21, FixKind::Safe}},
                 "\xEF\xBB\xBF"
                 "a = a.cuda(non_blocking=True)\nb = b.cuda(non_blocking=True)\n"}});
}
