#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix::testing;

TEST_CASE("AF101 torch-async-kwarg", "[rules][AF101]") {
  const std::vector<std::string> valid = {
      "x = x.cuda(non_blocking=True)\n",
      "x = x.to(device, non_blocking=True)\n",
      "x = x.cuda()\n",
      "s = 'x.cuda(async=True)'\n",
      "# x.cuda(async=True)\n",
      "def f():\n    \"\"\"Call x.cuda(async=True).\"\"\"\n",
      "x = f'{y}.cuda(async=True)'\n",
      "async def f():\n    await x.cuda(non_blocking=True)\n",
      "x.cuda(**{'async': True})\n",
      "requests.get(url, async_=True)\n",
      "foo(bar(async=True\n", // broken, but not a PyTorch call: AF001's
  };
  const std::vector<Invalid> invalid = {
      {"x = x.cuda(async=True)\n",
       {{"AF101", 1, 12, 17, FixKind::Safe, "non_blocking"}},
       "x = x.cuda(non_blocking=True)\n"},
      {"x.cuda(0, async=True)\n", {{"AF101", 1, 11, 16, FixKind::Safe}}, "x.cuda(0, non_blocking=True)\n"},
      {"x.cuda(device=d, async=flag)\n", {{"AF101", 1, 18, 23}}, "x.cuda(device=d, non_blocking=flag)\n"},
      {"y = x.to(device, async=True)\n", {{"AF101", 1, 18, 23}}, "y = x.to(device, non_blocking=True)\n"},
      {"y = x.type(torch.cuda.FloatTensor, async=False)\n",
       {{"AF101", 1, 36, 41}},
       "y = x.type(torch.cuda.FloatTensor, non_blocking=False)\n"},
      {"y.copy_(x, async=is_pinned(x) and True)\n",
       {{"AF101", 1, 12, 17}},
       "y.copy_(x, non_blocking=is_pinned(x) and True)\n"},
      {"x.cuda(async = True)\n", {{"AF101", 1, 8, 13}}, "x.cuda(non_blocking = True)\n"},
      // Split over lines, comments between the arguments: only the keyword changes.
      {"batch = batch.cuda(\n    0,  # the GPU\n    async=True,  # overlap copies\n)\n",
       {{"AF101", 3, 5, 10}},
       "batch = batch.cuda(\n    0,  # the GPU\n    non_blocking=True,  # overlap copies\n)\n"},
      // Chained and nested calls, several on a line.
      {"a, b = x.cuda(async=True), y.cuda(async=True).float().to(d, async=True)\n",
       {{"AF101", 1, 15, 20}, {"AF101", 1, 35, 40}, {"AF101", 1, 61, 66}},
       "a, b = x.cuda(non_blocking=True), y.cuda(non_blocking=True).float().to(d, non_blocking=True)\n"},
      {"model(input.cuda(async=True))['out'].cpu()\n",
       {{"AF101", 1, 18, 23}},
       "model(input.cuda(non_blocking=True))['out'].cpu()\n"},
      // Non-ASCII text before the token: columns count code points.
      {"t = 'é€中😀'; x.cuda(async=True)\n", {{"AF101", 1, 20, 25}}, "t = 'é€中😀'; x.cuda(non_blocking=True)\n"},
      // CRLF and a BOM are kept byte for byte.
      {"\xEF\xBB\xBFx.cuda(async=True)\r\ny = 1\r\n",
       {{"AF101", 1, 8, 13}},
       "\xEF\xBB\xBFx.cuda(non_blocking=True)\r\ny = 1\r\n"},
      // Inside a function, a lambda, a comprehension, an f-string's expression.
      {"def f(xs):\n    return [x.cuda(async=True) for x in xs]\n",
       {{"AF101", 2, 20, 25}},
       "def f(xs):\n    return [x.cuda(non_blocking=True) for x in xs]\n"},
      {"s = f'{x.cuda(async=True)}'\n", {{"AF101", 1, 15, 20}}, "s = f'{x.cuda(non_blocking=True)}'\n"},
      // Python 2 leftovers elsewhere in the file do not stop the rule.
      {"print 'epoch'\nx = x.cuda(async=True)\n",
       {{"AF101", 2, 12, 17}},
       "print 'epoch'\nx = x.cuda(non_blocking=True)\n"},
      // An unclosed call around it (an ERROR region): still found and fixed.
      {"foo(x.cuda(async=True)\n", {{"AF101", 1, 12, 17, FixKind::Safe}}, "foo(x.cuda(non_blocking=True)\n"},
      // The call's structure lost to a syntax error (a missing `)`): found token by token, fixed.
      {"x = y.cuda(async=True\n", {{"AF101", 1, 12, 17, FixKind::Safe}}, "x = y.cuda(non_blocking=True\n"},
      {"x = y.cuda(0, f(a, b), async=True\nz = 1\n",
       {{"AF101", 1, 24, 29, FixKind::Safe}},
       "x = y.cuda(0, f(a, b), non_blocking=True\nz = 1\n"},
      {"x = y.cuda(async=\n", {{"AF101", 1, 12, 17, FixKind::Safe}}, "x = y.cuda(non_blocking=\n"},
      // Both spellings: the duplicate `async=` is removed (unsafe: the values may differ).
      {"x.cuda(non_blocking=True, async=True)\n",
       {{"AF101", 1, 27, 32, FixKind::Unsafe}},
       "x.cuda(non_blocking=True)\n",
       "x.cuda(non_blocking=True, async=True)\n"},
      {"x.cuda(async=True, non_blocking=True)\n",
       {{"AF101", 1, 8, 13, FixKind::Unsafe}},
       "x.cuda(non_blocking=True)\n",
       "x.cuda(async=True, non_blocking=True)\n"},
  };
  runRuleTests("AF101", valid, invalid);
}

TEST_CASE("AF101 severity follows the target version", "[rules][AF101]") {
  asyncfix::Config py36;
  py36.target = {3, 6};
  runRuleTests("AF101", {},
               {{"x.cuda(async=True)\n",
                 {{"AF101", 1, 8, 13, FixKind::Safe, "becomes a syntax error"}},
                 "x.cuda(non_blocking=True)\n"}},
               py36);
}
