#include <catch2/catch.hpp>

#include "asyncfix/linter.h"
#include "prefilter.h"

using namespace asyncfix;

TEST_CASE("prefilter says no only when every async/await is the keyword", "[prefilter]") {
  for (const char *src : {
           "", "x = 1\n", "import asyncio\nasyncio.run(main())\n", "x = is_async or awaiting\n",
           "async def f():\n    await g()\n", "    async with a:\n        async for x in y:\n            pass\n",
           "return [x async for x in y]\n", "await ~x\n", "r = await self.fetch()\n",
           "\xEF\xBB\xBF" "async def f(): pass\n", "x = 1; async def f(): pass\n"}) {
    INFO(src);
    CHECK_FALSE(mayUseKeywordAsName(src));
  }
  for (const char *src : {
           "x.cuda(async=True)\n", "async = 1\n", "print(async)\n", "def f(async): pass\n",
           "x = await\n", "await(x)\n", "await - 1\n", "await[0]\n", "await + 1\n", "y = await if c else z\n", "from kombu.async import Hub\n",
           "z = [a for b in async for c in d]\n", "x = async if c else y\n", "self.async\n",
           "async", "await", "x = (async\n", "# async = 1\n", "x = not async for\n"}) {
    INFO(src);
    CHECK(mayUseKeywordAsName(src));
  }
}

TEST_CASE("prefilter for AF900: a noqa comment with an AF code", "[prefilter]") {
  CHECK(mentionsAsyncfixNoqa("x = 1  # noqa: AF101\n"));
  CHECK(mentionsAsyncfixNoqa("x = 1  # NOQA:E501,AF9\n"));
  CHECK_FALSE(mentionsAsyncfixNoqa("import os  # noqa: F401\n"));
  CHECK_FALSE(mentionsAsyncfixNoqa("x = 1  # noqa\ny = 'AF101'\n")); // the code is on another line
  CHECK_FALSE(mentionsAsyncfixNoqa("AF101 = 1\n"));
  const Linter linter;
  CHECK(linter.lint(std::string_view("x = 1  # noqa: AF101\n")).size() == 1);
  CHECK(linter.lint(std::string_view("import os  # noqa: F401\n")).empty());
}

TEST_CASE("Linter::lint(text) skips parsing when the prefilter says no", "[prefilter]") {
  const Linter linter;
  CHECK(linter.lint(std::string_view("async def f():\n    await g()\n")).empty());
  CHECK(linter.lint(std::string_view("def f(async): pass\n")).size() == 1);
  Config none;
  none.rules.select = {}; // no rule: nothing can fire
  CHECK_FALSE(Linter(none).mayHaveFindings("async = 1\n"));
}
