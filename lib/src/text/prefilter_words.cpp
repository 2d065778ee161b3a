#include "text/prefilter_words.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ASYNCFIX_WORDS_AVX2 1
#endif

namespace asyncfix {
namespace {

/// An identifier byte, for where a word may start or end: ASCII only. A byte of another
/// character may belong to one that tree-sitter reads as a blank (U+00A0, U+FEFF, U+200B) or to
/// none (invalid UTF-8), so it never stops a word from counting (at worst `éScale` counts).
bool isWordByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// A byte before a word that makes it part of a longer name: a letter or `_`. A digit may end a
/// number (`0torch` is `0` and `torch` to tree-sitter), so it does not stop a word (at worst
/// `x0Scale` counts).
bool continuesName(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

/// The share of bytes a bucket's tables let through at one position, were bytes uniform: what the
/// bucket assignment keeps small.
double passRate(std::uint16_t lo, std::uint16_t hi) {
  return static_cast<double>(__builtin_popcount(lo)) * __builtin_popcount(hi) / 256.0;
}

/// The bit of a WordSet's bit sets for a key of four or eight bytes (their bytes as the text has
/// them, loaded with memcpy, so the hash is the same on any byte order for words and texts alike).
template <unsigned Bits> std::size_t headBit(std::uint64_t key) {
  return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> (64U - Bits));
}

template <std::size_t N> bool testBit(const std::array<std::uint64_t, N> &set, std::size_t bit) {
  return (set[bit / 64] >> (bit % 64) & 1U) != 0;
}

#if defined(ASYNCFIX_WORDS_AVX2)
/// 0xff where 0 <= x - low <= span (unsigned), else 0.
__attribute__((target("avx2"))) inline __m256i withinAvx2(__m256i x, char low, char span) {
  const __m256i d = _mm256_sub_epi8(x, _mm256_set1_epi8(low));
  return _mm256_cmpeq_epi8(_mm256_min_epu8(d, _mm256_set1_epi8(span)), d);
}

/// The buckets each of the 32 positions from `p` passes (p[-1] to p[34] are read), as 32 bytes.
/// No lambdas: GCC does not give them the function's target.
__attribute__((target("avx2"))) inline __m256i bucketsAvx2(const char *p, const __m256i *lo, const __m256i *hi,
                                                           __m256i startBuckets) {
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  __m256i result = _mm256_set1_epi8(static_cast<char>(0xff));
  for (std::size_t k = 0; k < WordSet::kPrefix; ++k) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + k));
    const __m256i l = _mm256_shuffle_epi8(lo[k], _mm256_and_si256(v, nibble));
    const __m256i h = _mm256_shuffle_epi8(hi[k], _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
    result = _mm256_and_si256(result, _mm256_and_si256(l, h));
  }
  // The byte before: a letter or `_` (continuesName) rules out the buckets whose words start
  // with an identifier byte.
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p - 1));
  const __m256i letter = withinAvx2(_mm256_or_si256(b, _mm256_set1_epi8(0x20)), 'a', 25);
  const __m256i word = _mm256_or_si256(letter, _mm256_cmpeq_epi8(b, _mm256_set1_epi8('_')));
  return _mm256_andnot_si256(_mm256_and_si256(word, startBuckets), result);
}

/// Positions [from, to) by 32 (from ≥ 1, to + kPrefix - 1 ≤ the text's size, to - from a
/// multiple of 32); calls `visit` with each passing position and its buckets. Returns true when a
/// callback asked to stop.
template <class V>
__attribute__((target("avx2"))) bool rangeAvx2(const char *s, std::size_t from, std::size_t to,
                                               const std::array<std::array<std::uint8_t, 16>, WordSet::kPrefix> &lo,
                                               const std::array<std::array<std::uint8_t, 16>, WordSet::kPrefix> &hi,
                                               std::uint8_t startBuckets, V &visit) {
  __m256i loV[WordSet::kPrefix], hiV[WordSet::kPrefix];
  for (std::size_t k = 0; k < WordSet::kPrefix; ++k) {
    loV[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i *>(lo[k].data())));
    hiV[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i *>(hi[k].data())));
  }
  const __m256i start = _mm256_set1_epi8(static_cast<char>(startBuckets));
  for (std::size_t i = from; i < to; i += 32) {
    const __m256i buckets = bucketsAvx2(s + i, loV, hiV, start);
    auto mask = ~static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(buckets, _mm256_setzero_si256())));
    if (mask == 0) continue;
    alignas(32) std::uint8_t bytes[32];
    _mm256_store_si256(reinterpret_cast<__m256i *>(bytes), buckets);
    while (mask != 0) {
      const auto bit = static_cast<std::size_t>(__builtin_ctz(mask));
      mask &= mask - 1;
      if (visit(i + bit, bytes[bit])) return true;
    }
  }
  return false;
}

bool hasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2") != 0;
  return has;
}
#endif

} // namespace

bool wordCountsAt(std::string_view text, std::size_t at, std::string_view word, bool whole) {
  if (word.empty() || at > text.size() || text.substr(at, word.size()) != word) return false;
  if (isWordByte(static_cast<unsigned char>(word.front())) && at > 0 &&
      continuesName(static_cast<unsigned char>(text[at - 1])))
    return false;
  // After it, only an ASCII identifier byte makes it part of a longer name: a byte of another
  // character may be one tree-sitter reads as no identifier character (`normal×`, invalid UTF-8),
  // where the name ends with the word (at worst a file parsed for nothing, where `normalé` is one
  // name).
  const std::size_t end = at + word.size();
  const auto asciiWordByte = [](unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  return !(whole && isWordByte(static_cast<unsigned char>(word.back())) && end < text.size() &&
           asciiWordByte(static_cast<unsigned char>(text[end])));
}

WordSet::WordSet(const std::vector<Word> &words) {
  // Words with the same first bytes share a bucket; each group goes where it lets the fewest
  // bytes through that did not pass before. Words that start with an identifier byte and words
  // that do not are never in one bucket (the byte before is judged per bucket).
  std::map<std::pair<bool, std::string>, std::vector<Word>> groups;
  for (const Word &w : words)
    if (!w.text.empty())
      groups[{isWordByte(static_cast<unsigned char>(w.text[0])), std::string(w.text.substr(0, kPrefix))}].push_back(w);
  std::array<std::array<std::uint16_t, kPrefix>, kBuckets> loSets{}, hiSets{};
  // Bucket 0 holds the words that start with no identifier byte (when there are any), the others
  // the rest.
  bool others = false;
  for (const auto &group : groups) others = others || !group.first.first;
  std::array<bool, kBuckets> used{};
  for (const auto &[key, members] : groups) {
    const std::string &prefix = key.second;
    std::array<std::uint16_t, kPrefix> lo{}, hi{};
    for (std::size_t k = 0; k < kPrefix; ++k) {
      if (k < prefix.size()) {
        const auto c = static_cast<unsigned char>(prefix[k]);
        lo[k] = static_cast<std::uint16_t>(1U << (c & 15U));
        hi[k] = static_cast<std::uint16_t>(1U << (c >> 4U));
      } else {
        lo[k] = hi[k] = 0xffff; // a shorter word: any byte (or none) there
      }
    }
    std::size_t best = 0;
    double bestCost = 0;
    for (std::size_t b = others && key.first ? 1 : 0; b < (others && !key.first ? 1 : kBuckets); ++b) {
      double before = 1, after = 1;
      for (std::size_t k = 0; k < kPrefix; ++k) {
        before *= passRate(loSets[b][k], hiSets[b][k]);
        after *= passRate(loSets[b][k] | lo[k], hiSets[b][k] | hi[k]);
      }
      const double cost = after - (used[b] ? before : 0);
      if (b == (others && key.first ? 1 : 0) || cost < bestCost) best = b, bestCost = cost;
    }
    used[best] = true;
    for (std::size_t k = 0; k < kPrefix; ++k) {
      loSets[best][k] |= lo[k];
      hiSets[best][k] |= hi[k];
    }
    for (const Word &w : members) {
      if (w.text.size() < kPrefix) {
        shortBuckets_ = static_cast<std::uint8_t>(shortBuckets_ | 1U << best);
      } else if (w.text.size() < 8) {
        std::uint32_t head = 0;
        std::memcpy(&head, w.text.data(), 4);
        const std::size_t bit = headBit<kHashBits>(head);
        heads4_[bit / 64] |= std::uint64_t{1} << (bit % 64);
      } else {
        std::uint64_t head = 0;
        std::memcpy(&head, w.text.data(), 8);
        const std::size_t bit = headBit<kHashBits>(head);
        heads8_[bit / 64] |= std::uint64_t{1} << (bit % 64);
      }
      Entry e{w, 0, 0};
      const std::size_t head = std::min<std::size_t>(8, w.text.size());
      std::memcpy(&e.head, w.text.data(), head);
      std::memset(&e.mask, 0xff, head);
      buckets_[best].push_back(e);
    }
  }
  for (std::size_t b = 0; b < kBuckets; ++b) {
    // A bucket judges the byte before only when every word in it starts with an identifier byte.
    bool allStart = !buckets_[b].empty();
    for (const Entry &e : buckets_[b]) allStart = allStart && isWordByte(static_cast<unsigned char>(e.word.text[0]));
    if (allStart) startBuckets_ = static_cast<std::uint8_t>(startBuckets_ | 1U << b);
    for (std::size_t k = 0; k < kPrefix; ++k)
      for (unsigned n = 0; n < 16; ++n) {
        if (loSets[b][k] >> n & 1U) lo_[k][n] = static_cast<std::uint8_t>(lo_[k][n] | 1U << b);
        if (hiSets[b][k] >> n & 1U) hi_[k][n] = static_cast<std::uint8_t>(hi_[k][n] | 1U << b);
      }
  }
}

bool WordSet::headMayMatch(std::string_view text, std::size_t at, unsigned mask) const {
  if ((mask & shortBuckets_) != 0) return true;
  // (Loads of a fixed size where the text has the bytes: a copy of a variable size goes through
  // memory byte by byte, and the hash's multiplication waits for it.)
  std::uint64_t head8 = 0;
  std::uint32_t head4 = 0;
  if (text.size() - at >= 8) {
    std::memcpy(&head8, text.data() + at, 8);
    std::memcpy(&head4, text.data() + at, 4);
  } else {
    std::memcpy(&head8, text.data() + at, text.size() - at);
    std::memcpy(&head4, text.data() + at, std::min<std::size_t>(4, text.size() - at));
  }
  return testBit(heads4_, headBit<kHashBits>(head4)) || testBit(heads8_, headBit<kHashBits>(head8));
}

bool WordSet::verify(std::string_view text, std::size_t at, unsigned mask, Found found, void *state) const {
  // The eight bytes from `at` against each word's first eight: one comparison rules out most.
  std::uint64_t chunk = 0;
  std::memcpy(&chunk, text.data() + at, std::min<std::size_t>(8, text.size() - at));
  for (; mask != 0; mask &= mask - 1)
    for (const Entry &e : buckets_[static_cast<std::size_t>(__builtin_ctz(mask))])
      if ((chunk & e.mask) == e.head && wordCountsAt(text, at, e.word.text, e.word.whole))
        return found(state, at); // one call per position
  return false;
}

bool WordSet::scalarRange(std::string_view text, std::size_t from, std::size_t to, Found found, void *state) const {
  const auto *s = reinterpret_cast<const unsigned char *>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = from; i < to; ++i) {
    unsigned mask = 0xff;
    for (std::size_t k = 0; k < kPrefix && i + k < n && mask != 0; ++k)
      mask &= static_cast<unsigned>(lo_[k][s[i + k] & 15U] & hi_[k][s[i + k] >> 4U]);
    if (mask != 0 && i > 0 && continuesName(s[i - 1])) mask &= ~static_cast<unsigned>(startBuckets_);
    if (mask != 0 && headMayMatch(text, i, mask) && verify(text, i, mask, found, state)) return true;
  }
  return false;
}

void WordSet::forEachPortable(std::string_view text, Found found, void *state) const {
  scalarRange(text, 0, text.size(), found, state);
}

void WordSet::forEach(std::string_view text, Found found, void *state) const {
  const std::size_t n = text.size();
#if defined(ASYNCFIX_WORDS_AVX2)
  if (hasAvx2() && n >= 1 + 32 + kPrefix) {
    // Position 0 (no byte before it to load) and the tail (the loads read kPrefix - 1 bytes past
    // the last position) go the portable way.
    const std::size_t end = 1 + (n - kPrefix - 1 + 1) / 32 * 32;
    if (scalarRange(text, 0, 1, found, state)) return;
    const auto visit = [&](std::size_t at, std::uint8_t mask) {
      return headMayMatch(text, at, mask) && verify(text, at, mask, found, state);
    };
    if (rangeAvx2(text.data(), 1, end, lo_, hi_, startBuckets_, visit)) return;
    scalarRange(text, end, n, found, state);
    return;
  }
#endif
  scalarRange(text, 0, n, found, state);
}

bool WordSet::startsAt(std::string_view text, std::size_t at) const {
  for (const auto &bucket : buckets_)
    for (const Entry &e : bucket)
      if (wordCountsAt(text, at, e.word.text, e.word.whole)) return true;
  return false;
}

} // namespace asyncfix
