#include "text/prefilter_words.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "text/cpu.h"

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

/// How often each byte occurs in Python source, per 10 000 bytes: printable ASCII measured on
/// 12.8 MB of the bench corpora (Debian's and PyTorch code, 2026-12-07), line breaks 269, any
/// other byte 1. What the filter's tables are laid out against: only how many positions pass
/// depends on it, never which words are found.
double byteShare(unsigned char c) {
  static constexpr std::array<std::uint16_t, 95> kPrintable{
      2510, 1,   77,  15,  1,   2,  1,   41,  138, 138, 16,  7,   159, 31,  184, 12,  60,  46, 31,
      20,   16,  18,  14,  12,  13, 12,  80,  2,   2,   110, 11,  1,   3,   12,  6,   9,   9,  10,
      10,   4,   3,   8,   1,   1,  9,   7,   18,  7,   10,  1,   7,   10,  35,  3,   4,   4,  1,
      1,    1,   25,  6,   25,  1,  173, 38,  424, 84,  215, 218, 691, 167, 108, 141, 358, 5,  44,
      293,  158, 343, 385, 162, 8,  384, 397, 483, 155, 61,  50,  55,  56,  24,  10,  1,   10, 1};
  if (c == '\n') return 269;
  return c >= 32 && c < 127 ? kPrintable[c - 32] : 1;
}

/// Runs of four bytes that byteShare() takes for rarer than they are, measured on the same
/// corpora: the pieces of names PyTorch code spells every few hundred bytes (`torch.`, `device`,
/// `loader`, `self.`, `.cuda`, `batch`, `non_blocking=True`). No word is keyed on one where it
/// has another run (a key here counts as fifty times its share).
bool commonRun(std::string_view run) {
  static constexpr std::array<std::string_view, 24> kRuns{
      "torc", "orch", "rch.", "devi", "evic", "vice", "load", "oade", "ader", "self", "elf.", "cuda",
      ".cud", "init", "size", "func", "nump", "data", "mode", "odel", "batc", "atch", "True", "non_"};
  // (Compared as four-byte numbers: the layout asks this of every run of every word.)
  if (run.size() != 4) return false;
  std::uint32_t key = 0;
  std::memcpy(&key, run.data(), 4);
  return std::any_of(kRuns.begin(), kRuns.end(), [key](std::string_view r) {
    std::uint32_t k = 0;
    std::memcpy(&k, r.data(), 4);
    return k == key;
  });
}

/// byteShare() as a share of 1, by the high and low half of the byte.
struct ShareTable {
  std::array<std::array<double, 16>, 16> share{}; // [high][low]
  ShareTable() {
    for (unsigned c = 0; c < 256; ++c) share[c >> 4U][c & 15U] = byteShare(static_cast<unsigned char>(c)) / 10000.0;
  }
};

/// The halves one position of a bucket's tables lets through, and the share of bytes that pass
/// there (those whose low half is in `lo` and high half in `hi`, weighted by byteShare()), with
/// the sums that give the share after adding a byte in a few operations (the layout weighs every
/// key of every word in every bucket: loops over the halves there made it half a millisecond).
struct PositionSet {
  std::uint16_t lo = 0, hi = 0;
  double pass = 0;
  std::array<double, 16> byHigh{}; ///< [h]: the share of the bytes with high half h and a low half in lo
  std::array<double, 16> byLow{};  ///< [l]: the share of the bytes with low half l and a high half in hi

  /// The pass share with the byte `c` added.
  double with(const ShareTable &t, unsigned char c) const {
    const unsigned l = c & 15U, h = c >> 4U;
    const bool newHigh = (hi >> h & 1U) == 0, newLow = (lo >> l & 1U) == 0;
    return pass + (newHigh ? byHigh[h] + (newLow ? t.share[h][l] : 0) : 0) + (newLow ? byLow[l] : 0);
  }
  /// Adds the halves in `addLo` and `addHi`.
  void add(const ShareTable &t, std::uint16_t addLo, std::uint16_t addHi) {
    for (unsigned l = 0; l < 16; ++l)
      if ((addLo >> l & 1U) != 0 && (lo >> l & 1U) == 0)
        for (unsigned h = 0; h < 16; ++h) byHigh[h] += t.share[h][l];
    for (unsigned h = 0; h < 16; ++h)
      if ((addHi >> h & 1U) != 0 && (hi >> h & 1U) == 0)
        for (unsigned l = 0; l < 16; ++l) byLow[l] += t.share[h][l];
    lo = static_cast<std::uint16_t>(lo | addLo);
    hi = static_cast<std::uint16_t>(hi | addHi);
    pass = 0;
    for (unsigned h = 0; h < 16; ++h) pass += (hi >> h & 1U) != 0 ? byHigh[h] : 0;
  }
};

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
  constexpr std::size_t kBatch = 32; // 1 KB of positions, as in rangeAvx512
  alignas(32) std::uint8_t bytes[kBatch][32];
  std::uint32_t masks[kBatch];
  for (std::size_t i = from; i < to;) {
    const std::size_t blocks = std::min(kBatch, (to - i) / 32);
    for (std::size_t b = 0; b < blocks; ++b) {
      const __m256i buckets = bucketsAvx2(s + i + 32 * b, loV, hiV, start);
      masks[b] = ~static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(buckets, _mm256_setzero_si256())));
      _mm256_store_si256(reinterpret_cast<__m256i *>(bytes[b]), buckets);
    }
    for (std::size_t b = 0; b < blocks; ++b)
      for (std::uint32_t mask = masks[b]; mask != 0; mask &= mask - 1) {
        const auto bit = static_cast<std::size_t>(__builtin_ctz(mask));
        if (visit(i + 32 * b + bit, bytes[b][bit])) return true;
      }
    i += 32 * blocks;
  }
  return false;
}
#endif

#if defined(ASYNCFIX_WORDS_AVX2)
/// bucketsAvx2 for 64 positions from `p` (p[-1] to p[66] are read), with AVX-512's byte permutes:
/// each position's 128-byte table (WordSet::exact_) looked up by the byte's low seven bits, the
/// table in two registers (`tables[2k]`, `tables[2k + 1]`). Stores the buckets in `out` and
/// returns the mask of the positions some bucket passes.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) inline std::uint64_t
bucketsAvx512(const char *p, const __m512i *tables, __m512i startBuckets, std::uint8_t *out) {
  static_assert(WordSet::kPrefix == 4, "the lookups below are written out for four positions");
  const __m512i result0 = _mm512_permutex2var_epi8(tables[0], _mm512_loadu_si512(p), tables[1]);
  const __m512i result1 = _mm512_permutex2var_epi8(tables[2], _mm512_loadu_si512(p + 1), tables[3]);
  const __m512i result2 = _mm512_permutex2var_epi8(tables[4], _mm512_loadu_si512(p + 2), tables[5]);
  const __m512i result3 = _mm512_permutex2var_epi8(tables[6], _mm512_loadu_si512(p + 3), tables[7]);
  __m512i result = _mm512_and_si512(_mm512_and_si512(result0, result1), _mm512_and_si512(result2, result3));
  // The byte before: a letter or `_` (continuesName) rules out the buckets whose words start
  // with an identifier byte. (A byte of another character is no letter here: 0x80 | c less 'a'
  // is beyond 25.)
  const __m512i b = _mm512_loadu_si512(p - 1);
  const __mmask64 name =
      _mm512_cmple_epu8_mask(_mm512_sub_epi8(_mm512_or_si512(b, _mm512_set1_epi8(0x20)), _mm512_set1_epi8('a')),
                             _mm512_set1_epi8(25)) |
      _mm512_cmpeq_epi8_mask(b, _mm512_set1_epi8('_'));
  result = _mm512_mask_blend_epi8(name, result, _mm512_xor_si512(result, _mm512_and_si512(result, startBuckets)));
  _mm512_storeu_si512(out, result);
  return _mm512_test_epi8_mask(result, result);
}

/// rangeAvx2 by 64 positions with bucketsAvx512 ([from, to): from ≥ 1, to + kPrefix - 1 ≤ the
/// text's size, to - from a multiple of 64).
template <class V>
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) bool
rangeAvx512(const char *s, std::size_t from, std::size_t to,
            const std::array<std::array<std::uint8_t, 128>, WordSet::kPrefix> &exact, std::uint8_t startBuckets,
            V &visit) {
  __m512i tables[2 * WordSet::kPrefix];
  for (std::size_t k = 0; k < WordSet::kPrefix; ++k) {
    tables[2 * k] = _mm512_loadu_si512(exact[k].data());
    tables[2 * k + 1] = _mm512_loadu_si512(exact[k].data() + 64);
  }
  const __m512i start = _mm512_set1_epi8(static_cast<char>(startBuckets));
  // The buckets of up to 16 blocks first, then their visits: the tables stay in registers
  // through the first loop (a visit may call out, after which they would be loaded again).
  constexpr std::size_t kBatch = 16;
  alignas(64) std::uint8_t bytes[kBatch][64];
  std::uint64_t masks[kBatch];
  for (std::size_t i = from; i < to;) {
    const std::size_t blocks = std::min(kBatch, (to - i) / 64);
    for (std::size_t b = 0; b < blocks; ++b) masks[b] = bucketsAvx512(s + i + 64 * b, tables, start, bytes[b]);
    for (std::size_t b = 0; b < blocks; ++b)
      for (std::uint64_t mask = masks[b]; mask != 0; mask &= mask - 1) {
        const auto bit = static_cast<std::size_t>(__builtin_ctzll(mask));
        if (visit(i + 64 * b + bit, bytes[b][bit])) return true;
      }
    i += 64 * blocks;
  }
  return false;
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
  return !(whole && isWordByte(static_cast<unsigned char>(word.back())) && end < text.size() &&
           isAsciiWordByte(static_cast<unsigned char>(text[end])));
}

std::vector<WordSet::Keyed> WordSet::layOut(const std::vector<Word> &words) {
  // Each word is keyed on four consecutive bytes of its own (a shorter word on all of it) and
  // put into a bucket; the key and the bucket are chosen together, word after word (the shorter
  // first: they have fewer keys to choose from), as the pair that lets the fewest more bytes of
  // Python code through the tables (byteShare(); the four positions taken as independent). So
  // words share keys where they can (`Float`, `Tensor(`), and a head Python code spells all the
  // time (`device`, `torch.`, `load`) is passed over for rarer bytes (`_id=`, `oad(`).
  const ShareTable table;
  std::array<std::array<PositionSet, kPrefix>, kBuckets> sets{};
  std::vector<Keyed> laid;
  std::vector<const Word *> order;
  for (const Word &w : words)
    if (!w.text.empty()) order.push_back(&w);
  std::stable_sort(order.begin(), order.end(),
                   [](const Word *a, const Word *b) { return a->text.size() < b->text.size(); });
  for (const Word *w : order) {
    const std::string_view t = w->text;
    std::size_t bestOffset = 0, bestBucket = 0;
    double bestCost = 0;
    bool first = true;
    const std::size_t lastOffset = t.size() < kPrefix ? 0 : std::min(t.size() - kPrefix, kMaxOffset);
    for (std::size_t offset = 0; offset <= lastOffset; ++offset) {
      // What the key matches itself (even where another word has the same key: a common run
      // stays common), and what it adds to what a bucket lets through.
      double own = 1;
      for (std::size_t k = 0; k < kPrefix && offset + k < t.size(); ++k)
        own *= table.share[static_cast<unsigned char>(t[offset + k]) >> 4U]
                          [static_cast<unsigned char>(t[offset + k]) & 15U];
      const double weight = commonRun(t.substr(offset, kPrefix)) ? 50 : 1;
      for (std::size_t b = 0; b < kBuckets; ++b) {
        double before = 1, after = 1;
        for (std::size_t k = 0; k < kPrefix; ++k) {
          before *= sets[b][k].pass;
          after *= offset + k < t.size() ? sets[b][k].with(table, static_cast<unsigned char>(t[offset + k]))
                                         : 1.0; // a shorter word: any byte (or none) there
        }
        const double cost = (after - before + own) * weight;
        if (first || cost < bestCost) bestOffset = offset, bestBucket = b, bestCost = cost, first = false;
      }
    }
    for (std::size_t k = 0; k < kPrefix; ++k) {
      if (bestOffset + k < t.size()) {
        const auto c = static_cast<unsigned char>(t[bestOffset + k]);
        sets[bestBucket][k].add(table, static_cast<std::uint16_t>(1U << (c & 15U)),
                                static_cast<std::uint16_t>(1U << (c >> 4U)));
      } else {
        sets[bestBucket][k].add(table, 0xffff, 0xffff);
      }
    }
    laid.push_back({*w, static_cast<std::uint8_t>(bestOffset), static_cast<std::uint8_t>(bestBucket)});
  }
  return laid;
}

WordSet::WordSet(const std::vector<Word> &words) : WordSet(std::span<const Keyed>(layOut(words))) {}

WordSet::WordSet(std::span<const Keyed> words) {
  for (std::size_t n = 0; n < firstBytes_.size(); ++n) std::memset(&firstBytes_[n], 0xff, n);
  for (const Keyed &keyed : words) {
    const std::string_view t = keyed.word.text;
    if (t.empty()) continue;
    // Any key inside the word is sound (only how many positions pass depends on it): a layout
    // from elsewhere is held to that.
    const std::size_t bestOffset =
        std::min<std::size_t>({keyed.offset, t.size() < kPrefix ? 0 : t.size() - kPrefix, kMaxOffset});
    const std::size_t bestBucket = keyed.bucket % kBuckets;
    const Word *w = &keyed.word;
    for (std::size_t k = 0; k < kPrefix; ++k) {
      const bool any = bestOffset + k >= t.size(); // a shorter word: any byte (or none) there
      const unsigned c = any ? 0U : static_cast<unsigned char>(t[bestOffset + k]);
      for (unsigned n = 0; n < 16; ++n) {
        if (any || (c & 15U) == n) lo_[k][n] = static_cast<std::uint8_t>(lo_[k][n] | 1U << bestBucket);
        if (any || (c >> 4U) == n) hi_[k][n] = static_cast<std::uint8_t>(hi_[k][n] | 1U << bestBucket);
      }
      for (unsigned b = 0; b < 128; ++b)
        if (any || (c & 127U) == b) exact_[k][b] = static_cast<std::uint8_t>(exact_[k][b] | 1U << bestBucket);
    }
    const std::size_t rest = t.size() - bestOffset; // the key's bytes and those after it
    if (t.size() < kPrefix) {
      shortBuckets_ = static_cast<std::uint8_t>(shortBuckets_ | 1U << bestBucket);
    } else if (rest < 8 && bestOffset >= 4) {
      // The key's bytes and the four before it, all the word's: `eTensor(` where the key alone
      // (`sor(`) is common.
      std::uint64_t head = 0;
      std::memcpy(&head, t.data() + bestOffset - 4, 8);
      const std::size_t bit = headBit<kHashBits>(head);
      headsBefore_[bit / 64] |= std::uint64_t{1} << (bit % 64);
    } else if (rest < 8) {
      // The key and the rest of the word, four to seven bytes (`reduce=`, not only `redu`).
      std::uint64_t head = 0;
      std::memcpy(&head, t.data() + bestOffset, rest);
      const std::size_t bit = headBit<kHashBits>(head);
      heads4_[bit / 64] |= std::uint64_t{1} << (bit % 64);
      shortHeads_ = static_cast<std::uint8_t>(shortHeads_ | 1U << rest);
    } else {
      std::uint64_t head = 0;
      std::memcpy(&head, t.data() + bestOffset, 8);
      const std::size_t bit = headBit<kHashBits>(head);
      heads8_[bit / 64] |= std::uint64_t{1} << (bit % 64);
    }
    Entry e{*w, bestOffset, 0, 0};
    const std::size_t head = std::min<std::size_t>(8, rest);
    std::memcpy(&e.head, t.data() + bestOffset, head);
    std::memset(&e.mask, 0xff, head);
    buckets_[bestBucket].push_back(e);
  }
  for (std::size_t b = 0; b < kBuckets; ++b) {
    // A bucket judges the byte before only when every word in it is keyed at its start, which is
    // an identifier byte.
    bool allStart = !buckets_[b].empty();
    for (const Entry &e : buckets_[b])
      allStart = allStart && e.offset == 0 && isWordByte(static_cast<unsigned char>(e.word.text[0]));
    if (allStart) startBuckets_ = static_cast<std::uint8_t>(startBuckets_ | 1U << b);
  }
}

bool WordSet::headMayMatch(std::string_view text, std::size_t at, unsigned mask) const {
  if ((mask & shortBuckets_) != 0) return true;
  // (Loads of a fixed size where the text has the bytes: a copy of a variable size goes through
  // memory byte by byte, and the hash's multiplication waits for it.)
  std::uint64_t head8 = 0;
  const std::size_t left = text.size() - at;
  if (left >= 8) std::memcpy(&head8, text.data() + at, 8);
  else std::memcpy(&head8, text.data() + at, left);
  if (testBit(heads8_, headBit<kHashBits>(head8))) return true;
  // The words keyed on their last four to seven bytes: those bytes, for each such length. (Bytes
  // past the text read as zeros: a word that does not fit is no match anyway.)
  for (unsigned lengths = shortHeads_; lengths != 0; lengths &= lengths - 1) {
    if (testBit(heads4_, headBit<kHashBits>(head8 & firstBytes_[static_cast<std::size_t>(__builtin_ctz(lengths))])))
      return true;
  }
  // The words keyed past their fourth byte on fewer than eight: the key and the four bytes before.
  if (at < 4 || left < 4) return false;
  std::uint64_t before = 0;
  std::memcpy(&before, text.data() + at - 4, 8);
  return testBit(headsBefore_, headBit<kHashBits>(before));
}

/// The starts found so far that a later key may still precede: a key at `at` is the start of a
/// word at `at - offset`, so the starts come out of the filter up to kMaxOffset out of order (and
/// a start twice, when two words' keys find it). Held here, sorted, until the filter has passed
/// them by kMaxOffset, then called back in order, each once.
struct WordSet::Pending {
  Found found;
  void *state;
  std::array<std::size_t, kMaxOffset + 2> starts{}; // sorted, distinct
  std::size_t size = 0;

  /// Calls back the starts before `limit`, in order; true when a callback asked to stop.
  bool flush(std::size_t limit) {
    std::size_t done = 0;
    while (done < size && starts[done] < limit)
      if (found(state, starts[done++])) return true;
    std::copy(starts.begin() + static_cast<std::ptrdiff_t>(done), starts.begin() + static_cast<std::ptrdiff_t>(size),
              starts.begin());
    size -= done;
    return false;
  }
  /// Adds a start (flush() has been called with a limit ≤ it + kMaxOffset + 1 before: fewer than
  /// kMaxOffset + 2 starts are held).
  void add(std::size_t at) {
    std::size_t k = size;
    while (k > 0 && starts[k - 1] > at) --k;
    if (k > 0 && starts[k - 1] == at) return;
    std::copy_backward(starts.begin() + static_cast<std::ptrdiff_t>(k),
                       starts.begin() + static_cast<std::ptrdiff_t>(size),
                       starts.begin() + static_cast<std::ptrdiff_t>(size + 1));
    starts[k] = at;
    ++size;
  }
};

bool WordSet::verify(std::string_view text, std::size_t at, unsigned mask, Pending &pending) const {
  // Every start a key at `at` may stand for is at least at - kMaxOffset: the earlier ones are final.
  if (pending.size != 0 && at > kMaxOffset && pending.flush(at - kMaxOffset)) return true;
  // The eight bytes from `at` against each key's eight: one comparison rules out most.
  std::uint64_t chunk = 0;
  std::memcpy(&chunk, text.data() + at, std::min<std::size_t>(8, text.size() - at));
  for (; mask != 0; mask &= mask - 1)
    for (const Entry &e : buckets_[static_cast<std::size_t>(__builtin_ctz(mask))])
      if ((chunk & e.mask) == e.head && at >= e.offset && wordCountsAt(text, at - e.offset, e.word.text, e.word.whole))
        pending.add(at - e.offset);
  return false;
}

bool WordSet::scalarRange(std::string_view text, std::size_t from, std::size_t to, Pending &pending) const {
  const auto *s = reinterpret_cast<const unsigned char *>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = from; i < to; ++i) {
    unsigned mask = 0xff;
    for (std::size_t k = 0; k < kPrefix && i + k < n && mask != 0; ++k)
      mask &= static_cast<unsigned>(lo_[k][s[i + k] & 15U] & hi_[k][s[i + k] >> 4U]);
    if (mask != 0 && i > 0 && continuesName(s[i - 1])) mask &= ~static_cast<unsigned>(startBuckets_);
    if (mask != 0 && headMayMatch(text, i, mask) && verify(text, i, mask, pending)) return true;
  }
  return false;
}

void WordSet::forEachPortable(std::string_view text, Found found, void *state) const {
  Pending pending{found, state};
  if (!scalarRange(text, 0, text.size(), pending)) pending.flush(text.size());
}

void WordSet::forEach(std::string_view text, Found found, void *state) const {
  const std::size_t n = text.size();
  Pending pending{found, state};
#if defined(ASYNCFIX_WORDS_AVX2)
  // The widest blocks the CPU has; position 0 (no byte before it to load) and the tail (the loads
  // read kPrefix - 1 bytes past the last position) go the portable way.
  const std::size_t block = cpuHasAvx512Vbmi() ? 64 : cpuHasAvx2() ? 32 : 0;
  if (block != 0 && n >= 1 + block + kPrefix) {
    const std::size_t end = 1 + (n - kPrefix) / block * block;
    if (scalarRange(text, 0, 1, pending)) return;
    const auto visit = [&](std::size_t at, std::uint8_t mask) {
      return headMayMatch(text, at, mask) && verify(text, at, mask, pending);
    };
    if (block == 64 ? rangeAvx512(text.data(), 1, end, exact_, startBuckets_, visit)
                    : rangeAvx2(text.data(), 1, end, lo_, hi_, startBuckets_, visit))
      return;
    if (!scalarRange(text, end, n, pending)) pending.flush(n);
    return;
  }
#endif
  if (!scalarRange(text, 0, n, pending)) pending.flush(n);
}

bool WordSet::startsAt(std::string_view text, std::size_t at) const {
  for (const auto &bucket : buckets_)
    for (const Entry &e : bucket)
      if (wordCountsAt(text, at, e.word.text, e.word.whole)) return true;
  return false;
}

} // namespace asyncfix
