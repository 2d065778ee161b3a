// bench/words/word_layout.cpp — the AF3xx word filter's layout, measured on real code.
//
//   asyncfix_word_layout DIR WEIGHT [DIR WEIGHT]...  >  (the rows of kTorchWordLayout)
//
// The word filter (text/prefilter_words.h) keys each word on four of its bytes and puts it into
// one of eight buckets; a position passes when its four bytes pass some bucket's nibble tables.
// Which key and bucket each word gets decides how many positions of Python code pass for nothing
// (each costs a branch and a bit set lookup), never which words are found. WordSet's own layout
// models Python's bytes as independent; this one counts, on the .py files under each DIR that
// spell torch, numpy or scipy (the only texts the filter runs on), weighted, how many positions
// each bucket passes, and moves one word at a time to the (bucket, key) that lowers the sum most,
// until no move does. Prints one row per word for text/torch_words.cpp's kTorchWordLayout.
// Rerun it after adding a word: a word the table lacks makes the library fall back to the model.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "text/prefilter_words.h"
#include "text/torch_words.h"

namespace {

using asyncfix::WordSet;
constexpr int kPositions = static_cast<int>(WordSet::kPrefix);
constexpr int kBuckets = static_cast<int>(WordSet::kBuckets);

bool nameByte(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

/// A run of four bytes of the sample, whether a letter or `_` precedes it, and how often (per MB).
struct Run {
  std::array<unsigned char, 4> bytes{};
  bool afterName = false;
  double perMb = 0;
};

struct Layout {
  std::vector<int> bucket, offset;
};

struct Model {
  std::vector<std::string> words;
  std::vector<Run> runs;
  std::array<std::vector<int>, 256> byFirst; ///< the runs by their first byte

  int lastOffset(int w) const {
    const int size = static_cast<int>(words[w].size());
    return size < kPositions ? 0 : std::min(size - kPositions, static_cast<int>(WordSet::kMaxOffset));
  }

  /// How many positions per MB bucket `b` passes when word `moved` (if ≥ 0) is keyed at `offset`
  /// in it instead of where `layout` puts it.
  double passes(const Layout &layout, int b, int moved, int offset) const {
    std::array<std::uint16_t, kPositions> lo{}, hi{};
    bool start = true, any = false;
    for (int w = 0; w < static_cast<int>(words.size()); ++w) {
      const int wb = w == moved ? (offset < 0 ? -1 : b) : layout.bucket[w];
      if (wb != b) continue;
      const int o = w == moved ? offset : layout.offset[w];
      const std::string &t = words[w];
      any = true;
      for (int k = 0; k < kPositions; ++k) {
        if (o + k < static_cast<int>(t.size())) {
          const auto c = static_cast<unsigned char>(t[o + k]);
          lo[k] = static_cast<std::uint16_t>(lo[k] | 1U << (c & 15U));
          hi[k] = static_cast<std::uint16_t>(hi[k] | 1U << (c >> 4U));
        } else {
          lo[k] = hi[k] = 0xffff;
        }
      }
      const auto first = static_cast<unsigned char>(t[0]);
      if (o != 0 || !(nameByte(first) || (first >= '0' && first <= '9'))) start = false;
    }
    if (!any) return 0;
    double sum = 0;
    for (unsigned c = 0; c < 256; ++c) {
      if ((lo[0] >> (c & 15U) & 1U) == 0 || (hi[0] >> (c >> 4U) & 1U) == 0) continue;
      for (const int r : byFirst[c]) {
        const Run &run = runs[r];
        bool pass = !(start && run.afterName);
        for (int k = 1; k < kPositions && pass; ++k)
          pass = (lo[k] >> (run.bytes[k] & 15U) & 1U) != 0 && (hi[k] >> (run.bytes[k] >> 4U) & 1U) != 0;
        if (pass) sum += run.perMb;
      }
    }
    return sum;
  }
};

} // namespace

int main(int argc, char **argv) {
  if (argc < 3 || argc % 2 == 0) {
    std::fputs("usage: asyncfix_word_layout DIR WEIGHT [DIR WEIGHT]...\n", stderr);
    return 2;
  }
  Model model;
  for (const asyncfix::TorchWord &w : asyncfix::torchApiWords()) model.words.emplace_back(w.text);
  for (const asyncfix::TorchWord &w : asyncfix::torchApiWholeWords()) model.words.emplace_back(w.text);

  std::unordered_map<std::uint64_t, double> counts;
  double bytes = 0;
  for (int a = 1; a + 1 < argc; a += 2) {
    const double weight = std::atof(argv[a + 1]);
    std::vector<std::filesystem::path> files;
    for (const auto &e : std::filesystem::recursive_directory_iterator(argv[a]))
      if (e.is_regular_file() && e.path().extension() == ".py") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto &f : files) {
      std::ifstream in(f, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      const std::string t = ss.str();
      if (!asyncfix::mayUseTorchFamily(t)) continue;
      bytes += static_cast<double>(t.size()) * weight;
      for (std::size_t i = 0; i < t.size(); ++i) {
        std::uint64_t key = 0;
        for (std::size_t j = 0; j < 4; ++j)
          key |= static_cast<std::uint64_t>(i + j < t.size() ? static_cast<unsigned char>(t[i + j]) : 0) << (8 * j);
        if (i > 0 && nameByte(static_cast<unsigned char>(t[i - 1]))) key |= std::uint64_t{1} << 32;
        counts[key] += weight;
      }
    }
  }
  for (const auto &[key, n] : counts) {
    Run run;
    for (std::size_t j = 0; j < 4; ++j) run.bytes[j] = static_cast<unsigned char>(key >> (8 * j));
    run.afterName = (key >> 32 & 1U) != 0;
    run.perMb = n / bytes * 1e6;
    model.byFirst[run.bytes[0]].push_back(static_cast<int>(model.runs.size()));
    model.runs.push_back(run);
  }

  // Start: word after word (the shorter first), the (bucket, key) that adds least to its bucket.
  const int n = static_cast<int>(model.words.size());
  Layout layout{std::vector<int>(n, -1), std::vector<int>(n, 0)};
  std::vector<int> order(n);
  for (int w = 0; w < n; ++w) order[w] = w;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return model.words[a].size() < model.words[b].size(); });
  for (const int w : order) {
    double best = -1;
    for (int b = 0; b < kBuckets; ++b)
      for (int o = 0; o <= model.lastOffset(w); ++o)
        if (const double p = model.passes(layout, b, w, o); best < 0 || p < best)
          best = p, layout.bucket[w] = b, layout.offset[w] = o;
  }
  // Then one word at a time to where the sum over the buckets falls most, until nothing moves.
  std::array<double, kBuckets> pass{};
  for (int b = 0; b < kBuckets; ++b) pass[b] = model.passes(layout, b, -1, 0);
  for (int sweep = 0; sweep < 20; ++sweep) {
    bool moved = false;
    for (const int w : order) {
      const int from = layout.bucket[w];
      const double without = model.passes(layout, from, w, -1);
      double bestDelta = -1e-9, bestPass = 0;
      int toBucket = from, toOffset = layout.offset[w];
      for (int b = 0; b < kBuckets; ++b)
        for (int o = 0; o <= model.lastOffset(w); ++o) {
          if (b == from && o == layout.offset[w]) continue;
          const double p = model.passes(layout, b, w, o);
          const double delta = b == from ? p - pass[from] : without - pass[from] + p - pass[b];
          if (delta < bestDelta) bestDelta = delta, bestPass = p, toBucket = b, toOffset = o;
        }
      if (toBucket == from && toOffset == layout.offset[w]) continue;
      if (toBucket != from) pass[from] = without;
      pass[toBucket] = bestPass;
      layout.bucket[w] = toBucket;
      layout.offset[w] = toOffset;
      moved = true;
    }
    double sum = 0;
    for (const double p : pass) sum += p;
    std::fprintf(stderr, "sweep %d: %.0f positions per MB through some bucket (summed)\n", sweep + 1, sum);
    if (!moved) break;
  }
  for (int w = 0; w < n; ++w)
    std::printf("    {\"%s\", %d, %d},\n", model.words[w].c_str(), layout.offset[w], layout.bucket[w]);
  return 0;
}
