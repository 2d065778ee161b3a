#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix::testing;

TEST_CASE("AF002 await-identifier", "[rules][AF002]") {
  const std::vector<std::string> valid = {
      "async def f():\n    await x\n    await (y)\n    return [await z for z in zs]\n",
      "async def f():\n    g = lambda: 1\n    return await(g())\n",
      "async def f():\n    return await [x][0], await -y, await +z\n",
      "def f():\n    await g()\n", // a forgotten `async`, not a name: left to the user
      "x = 'await = 1'  # await = 2\n",
      "await_ = 1\n",
      // A bracket left open above `await g()`: tree-sitter's recovery may read `await` as a name,
      // but a name is never followed by another; the syntax error is the bracket's.
      "x = foo(\n    await g()\nclass A:\nu = \'\'\'\n",
  };
  const std::vector<Invalid> invalid = {
      {"def f():\n    await = 1\n    return await\n",
       {{"AF002", 2, 5, 10, FixKind::Safe}, {"AF002", 3, 12, 17, FixKind::Safe}},
       "def f():\n    await_ = 1\n    return await_\n"},
      {"def f(await=None):\n    pass\n",
       {{"AF002", 1, 7, 12, FixKind::Unsafe, "parameter"}},
       "def f(await_=None):\n    pass\n",
       "def f(await=None):\n    pass\n"},
      {"x.await = 1\n", {{"AF002", 1, 3, 8, FixKind::Unsafe, "attribute"}}, "x.await_ = 1\n", "x.await = 1\n"},
      // A function named `await`, called the Python 3.6 way outside a coroutine.
      {"def await(f):\n    return f.result()\n\nv = await(job)\n",
       {{"AF002", 1, 5, 10, FixKind::Unsafe, "function name"},
        {"AF002", 4, 5, 10, FixKind::Unsafe, "outside `async def`"}},
       "def await_(f):\n    return f.result()\n\nv = await_(job)\n",
       "def await(f):\n    return f.result()\n\nv = await(job)\n"},
      {"def g():\n    def await(f):\n        return f\n    return await(1)\n",
       {{"AF002", 2, 9, 14, FixKind::Safe}, {"AF002", 4, 12, 17, FixKind::Safe}},
       "def g():\n    def await_(f):\n        return f\n    return await_(1)\n"},
      // Python 3.6 read these as the name `await` in a sum, a difference, a subscript.
      {"def f():\n    await = [1]\n    a = await + 1\n    b = await - 1\n    return await[0]\n",
       {{"AF002", 2, 5, 10, FixKind::Safe},
        {"AF002", 3, 9, 14, FixKind::Safe},
        {"AF002", 4, 9, 14, FixKind::Safe},
        {"AF002", 5, 12, 17, FixKind::Safe}},
       "def f():\n    await_ = [1]\n    a = await_ + 1\n    b = await_ - 1\n    return await_[0]\n"},
      // `await * 2` lands in an ERROR region: reported there, and the parameter's rename (which
      // cannot reach that use) is no longer safe.
      {"def _f(await):\n    return await * 2\n",
       {{"AF002", 1, 8, 13, FixKind::Unsafe}, {"AF002", 2, 12, 17, FixKind::None}},
       "def _f(await_):\n    return await * 2\n",
       "def _f(await):\n    return await * 2\n"},
      // `await * b` in a lambda or a generator expression parses as an await of `*b`: a product
      // of the name to Python 3.6 (found by the CPython oracle, tests/oracle).
      {"_h = lambda await, b=1: await * b\n",
       {{"AF002", 1, 13, 18, FixKind::Safe}, {"AF002", 1, 25, 30, FixKind::Safe}},
       "_h = lambda await_, b=1: await_ * b\n"},
      // (Unsafe for now: the generator's `await` resolves outside the comprehension, a
      // conservative answer of the semantic model for this form.)
      {"def f():\n    return list(await * 2 for await in (1, 2))\n",
       {{"AF002", 2, 17, 22, FixKind::Unsafe}, {"AF002", 2, 31, 36, FixKind::Unsafe}},
       "def f():\n    return list(await_ * 2 for await_ in (1, 2))\n",
       "def f():\n    return list(await * 2 for await in (1, 2))\n"},
      {"from a import b as await\n",
       {{"AF002", 1, 20, 25, FixKind::Unsafe}},
       "from a import b as await_\n",
       "from a import b as await\n"},
  };
  runRuleTests("AF002", valid, invalid);
}
