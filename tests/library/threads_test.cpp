// One Linter shared by many threads: lint() and fix() concurrently give exactly what they give
// one at a time. Run under the asan preset (ASan + UBSan) by CI; a data race that corrupts
// memory or a result shows up as a mismatch or a sanitizer report.
#include <catch2/catch.hpp>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "asyncfix/linter.h"
#include "asyncfix/report.h"

using namespace asyncfix;

namespace {

const std::vector<std::string> kSources = {
    "x.cuda(async=True)\n",
    "def f(async=False):\n    return g(async=async)\n",
    "import torch.nn as nn\nm = nn.Linear(2, 2)\nm.cuda(non_blocking=True)\n",
    "async = 1\nprint(async)\n",
    "import asyncio\nasyncio.async(coro())\n",
    "from kombu.async import Hub\n",
    "y = x.to(device, True)\n",
    "try:\n    x = x.cuda(non_blocking=True)\nexcept TypeError:\n    x = x.cuda(async=True)\n",
    "x = 1  # noqa: AF101\n",
    "async def ok():\n    await g()\n",
};

/// What a test compares: every diagnostic's code, byte range and fix title, and the fixed text.
std::string fingerprint(const Linter &linter, const std::string &src, std::size_t i) {
  const Report report = linter.lint(src, "file" + std::to_string(i) + ".py");
  std::string out = report.toJson();
  out += linter.fix(src, "f.py", Applicability::Unsafe).text;
  return out;
}

} // namespace

TEST_CASE("a Linter is safe to share across threads for concurrent lint and fix calls", "[api][threads]") {
  const Linter linter; // one instance, const, shared by every thread
  std::vector<std::string> expected;
  for (std::size_t i = 0; i < kSources.size(); ++i) expected.push_back(fingerprint(linter, kSources[i], i));
  // The sources really exercise the rules (a table of empty results would prove nothing).
  CHECK(expected[0].find("AF101") != std::string::npos);
  CHECK(expected[4].find("AF202") != std::string::npos);

  constexpr int kThreads = 8;
  constexpr int kRounds = 25;
  std::atomic<int> mismatches{0};
  std::atomic<int> checked{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield(); // start together, to overlap as much as possible
      for (int round = 0; round < kRounds; ++round) {
        // Each thread walks the sources in its own order.
        for (std::size_t k = 0; k < kSources.size(); ++k) {
          const std::size_t i = (k + static_cast<std::size_t>(t) * 3) % kSources.size();
          if (fingerprint(linter, kSources[i], i) != expected[i]) ++mismatches;
          ++checked;
        }
      }
    });
  }
  go = true;
  for (std::thread &thread : threads) thread.join();
  CHECK(checked.load() == kThreads * kRounds * static_cast<int>(kSources.size()));
  CHECK(mismatches.load() == 0);
}
