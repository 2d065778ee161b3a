#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "asyncfix/line_diff.h"

using namespace asyncfix;

namespace {

using Lines = std::vector<std::string_view>;

std::size_t lcsLength(const Lines &a, const Lines &b) {
  std::vector<std::vector<std::size_t>> t(a.size() + 1, std::vector<std::size_t>(b.size() + 1, 0));
  for (std::size_t i = a.size(); i-- > 0;)
    for (std::size_t j = b.size(); j-- > 0;)
      t[i][j] = a[i] == b[j] ? t[i + 1][j + 1] + 1 : std::max(t[i + 1][j], t[i][j + 1]);
  return t[0][0];
}

/// Replays `steps` on `a` and checks that they consume a and b in order; returns the rebuilt b.
Lines replay(const Lines &a, const Lines &b, const std::vector<LineStep> &steps) {
  Lines out;
  std::size_t x = 0, y = 0;
  for (const LineStep &s : steps) {
    REQUIRE(s.a == x);
    REQUIRE(s.b == y);
    switch (s.kind) {
    case LineOp::Equal:
      REQUIRE(a[x] == b[y]);
      out.push_back(a[x++]);
      ++y;
      break;
    case LineOp::Delete: ++x; break;
    case LineOp::Insert: out.push_back(b[y++]); break;
    }
  }
  REQUIRE(x == a.size());
  REQUIRE(y == b.size());
  return out;
}

} // namespace

TEST_CASE("lineEditScript is a shortest edit script", "[line_diff]") {
  std::mt19937 rng(17);
  const std::vector<std::string_view> words = {"a\n", "b\n", "c\n", "d\n", "a\r\n", ""};
  for (int round = 0; round < 2000; ++round) {
    Lines a, b;
    for (auto k = rng() % 9; k > 0; --k) a.push_back(words[rng() % words.size()]);
    for (auto k = rng() % 9; k > 0; --k) b.push_back(words[rng() % words.size()]);
    const auto steps = lineEditScript(a, b);
    CHECK(replay(a, b, steps) == b);
    std::size_t changes = 0;
    for (const LineStep &s : steps) changes += s.kind == LineOp::Equal ? 0 : 1;
    CHECK(changes == a.size() + b.size() - 2 * lcsLength(a, b));
  }
}

TEST_CASE("lineEditScript keeps common head and tail and replaces a region past maxEdits", "[line_diff]") {
  const Lines a = {"head\n", "x1\n", "x2\n", "x3\n", "tail\n"};
  const Lines b = {"head\n", "y1\n", "x2\n", "y3\n", "tail\n"};
  const auto minimal = lineEditScript(a, b);
  CHECK(minimal.front() == LineStep{LineOp::Equal, 0, 0});
  CHECK(minimal.back() == LineStep{LineOp::Equal, 4, 4});
  CHECK(std::count_if(minimal.begin(), minimal.end(), [](auto &s) { return s.kind == LineOp::Equal; }) == 3);

  const auto wholesale = lineEditScript(a, b, 1);
  CHECK(replay(a, b, wholesale) == b);
  const std::vector<LineStep> expected = {{LineOp::Equal, 0, 0},  {LineOp::Delete, 1, 1}, {LineOp::Delete, 2, 1},
                                          {LineOp::Delete, 3, 1}, {LineOp::Insert, 4, 1}, {LineOp::Insert, 4, 2},
                                          {LineOp::Insert, 4, 3}, {LineOp::Equal, 4, 4}};
  CHECK(wholesale == expected);
}
