// AF106 non-blocking-device-to-host (lib/src/rules/non_blocking_device_to_host.cpp).
#include <catch2/catch.hpp>

#include "asyncfix/document.h"
#include "asyncfix/linter.h"
#include "rules/rule_tester.h"

using namespace asyncfix;
using namespace asyncfix::testing;

TEST_CASE("AF106 non-blocking-device-to-host", "[rules][AF106]") {
  const std::vector<std::string> valid = {
      "y = x.to('cpu', non_blocking=True)\ntorch.cuda.synchronize()\nprint(y.numpy())\n",
      "y = x.to('cpu', non_blocking=True)\nevent.synchronize()\nv = y.item()\n",
      "y = x.to('cpu')\nprint(y.numpy())\n",
      "y = x.to('cuda', non_blocking=True)\nprint(y.item())\n",
      "y = x.to('cpu', non_blocking=True)\ny = other\nprint(y.numpy())\n",
      "non_blocking = True\nx: int\n", // an annotation without a value (crashed once)
  };
  const std::vector<Invalid> invalid = {
      {"y = x.to('cpu', non_blocking=True)\nprint(y.numpy())\n",
       {{"AF106", 1, 17, 29, FixKind::Any, "line 2"}},
       std::nullopt},
      {"def f(x):\n    s = x.to(device=\"cpu\", non_blocking=True)\n    log(1)\n    return float(s)\n",
       {{"AF106", 2, 28, 40, FixKind::Any, "line 4"}},
       std::nullopt},
      {"y = x.to(torch.device('cpu'), non_blocking=True)\nv = y.tolist()\n", {{"AF106", 1, 31, 43}}, std::nullopt},
  };
  runRuleTests("AF106", valid, invalid);
  // The suggestion is display-only: a synchronize before the read, never applied.
  const auto d = Linter().lint(Document("y = x.to('cpu', non_blocking=True)\nprint(y.numpy())\n"));
  REQUIRE(d.size() == 1);
  REQUIRE(d[0].fix);
  CHECK(d[0].fix->applicability == Applicability::DisplayOnly);
  CHECK(applyEdits("y = x.to('cpu', non_blocking=True)\nprint(y.numpy())\n", d[0].fix->edits) ==
        "y = x.to('cpu', non_blocking=True)\ntorch.cuda.synchronize()\nprint(y.numpy())\n");
}
