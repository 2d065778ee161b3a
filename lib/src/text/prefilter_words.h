// text/prefilter_words.h — many words found in one vectorised pass over a text.
//
// Knows bytes only: no Python, no strings or comments (the caller asks the lexer about those).
// A WordSet is built once from its words; forEach() calls back at every byte where one of them
// counts, in order, each position once. "Counts" is torchWordAt()'s rule (text/torch_words.h): a
// word that starts with an identifier byte only at the start of an identifier, a whole word only
// where the identifier ends with it.
//
// How: a filter in the manner of Hyperscan's Teddy. Each word is keyed on four consecutive bytes
// of its own and put into one of eight buckets: as a caller's layout says (the AF3xx lists: the
// layout bench/words measured on real code), or else the run that is rarest in Python code by a
// table of byte shares (`_id=` of `device_id=`, `oad(` of `load(`): keyed on their first four
// bytes, `device`, `torch.` and `loader` passed the filter every few hundred bytes of PyTorch
// code for nothing. For each of the four positions a table gives, for each low and
// each high half of a byte, the buckets whose keys may have such a byte there. A position passes
// when the four bytes from it (table lookups of both halves, 32 positions at a time with AVX2's
// byte shuffle) leave a bucket, and — for the buckets of words keyed at their start, which is an
// identifier byte — when the byte before it is no identifier byte (with AVX-512's byte permutes,
// a table of the 128 ASCII bytes per position instead of the two halves': 64 positions at a
// time, and only the bytes the keys have). A position that passes is then
// looked up in three bit sets of 32 768 bits (a multiplicative hash of the bytes picks the bit):
// the eight bytes from the key of the words with eight or more from it; the key and the four
// bytes before it of the words keyed past their fourth byte (`eTensor(` of `DoubleTensor(`,
// where `sor(` alone is in every `tensor(`); the four to seven bytes from the key to the end of
// the others (`reduce=`, not only `redu`). The nibble tables let through many positions no key is
// at, and the bit sets stop nearly all of those for a few instructions. Only the positions that pass both
// are compared with their buckets' words, each at its start (the key's position less the key's
// offset in it). Starts come out up to kMaxOffset bytes out of order, so they are held until the
// filter has passed them by that much, then called back in order. The portable path (no AVX2,
// other CPUs) applies the same tables one byte at a time; both give exactly the positions a
// word-by-word comparison gives (tests/unit/prefilter_test.cpp compares them on generated texts).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace asyncfix {

/// Whether `word` counts at byte `at` of `text`: it is spelt there and, when it starts (ends, for
/// a whole word) with an identifier byte, no identifier byte precedes (follows) it. Identifier
/// bytes are ASCII letters, digits and `_`, and before a word only a letter or `_` counts (a digit
/// may end a number: `0torch` is two tokens): a byte of another character may belong to one that
/// tree-sitter reads as a blank (U+00A0, U+FEFF, U+200B, U+2060), so it never stops a word.
bool wordCountsAt(std::string_view text, std::size_t at, std::string_view word, bool whole);

/// An ASCII identifier byte: a letter, a digit or `_`.
constexpr bool isAsciiWordByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

class WordSet {
public:
  struct Word {
    std::string_view text; ///< not empty; the caller keeps the bytes alive
    bool whole = false;
  };
  /// A word with its key: where in it the filter's four bytes start (held to kMaxOffset and to
  /// the word), and its bucket (below kBuckets).
  struct Keyed {
    Word word;
    std::uint8_t offset = 0;
    std::uint8_t bucket = 0;
  };
  /// Keys and buckets laid out here, against a model of Python's bytes (byteShare()).
  explicit WordSet(const std::vector<Word> &words);
  /// Keys and buckets as given (a layout measured on real code: bench/words). Any layout finds
  /// the same positions; only how many the filter passes for nothing depends on it.
  explicit WordSet(std::span<const Keyed> words);

  using Found = bool (*)(void *state, std::size_t at);
  /// Calls `found(state, at)` for each byte `at` of `text` where some word counts, in order, until
  /// it returns true. The fastest path the CPU has.
  void forEach(std::string_view text, Found found, void *state) const;
  /// The same with the portable path only (for tests that compare the two).
  void forEachPortable(std::string_view text, Found found, void *state) const;

  /// Whether some word counts at byte `at` (no filter: the words compared one by one).
  bool startsAt(std::string_view text, std::size_t at) const;

  static constexpr std::size_t kBuckets = 8;
  static constexpr std::size_t kPrefix = 4;     ///< the bytes of a word the filter looks at (its key)
  static constexpr std::size_t kMaxOffset = 24; ///< the furthest a key starts into its word

private:
  /// The keys and buckets of `words`, chosen word after word against byteShare().
  static std::vector<Keyed> layOut(const std::vector<Word> &words);
  /// The second filter: whether the bit sets let the position `at` (which the buckets in `mask`
  /// passed) through. Defined inline in the .cpp, where the filter loops call it.
  inline bool headMayMatch(std::string_view text, std::size_t at, unsigned mask) const;
  struct Pending; ///< the starts found, put back in order (defined in the .cpp)
  /// Compares the words of the buckets in `mask` whose key may be at `at`; adds their starts to
  /// `pending` and calls back those the filter has passed for good. True when a callback asked to stop.
  bool verify(std::string_view text, std::size_t at, unsigned mask, Pending &pending) const;
  /// The portable filter for keys at [from, to) (from ≥ 0; bytes past the text read as absent).
  bool scalarRange(std::string_view text, std::size_t from, std::size_t to, Pending &pending) const;

  struct Entry {
    Word word;
    std::size_t offset;       ///< where the word's key starts in it
    std::uint64_t head, mask; ///< the (up to) eight bytes from the key, and which of the eight they are
  };
  std::array<std::vector<Entry>, kBuckets> buckets_;
  /// lo_[k][n]: the buckets whose words may have a byte with low half n at position k; hi_ alike.
  std::array<std::array<std::uint8_t, 16>, kPrefix> lo_{}, hi_{};
  /// exact_[k][c]: the buckets whose words have the byte c at position k of their key (or any
  /// byte there: a shorter word), by the byte's low seven bits (a byte of another character
  /// passes where its ASCII twin does). The AVX-512 filter's tables: one byte permute per
  /// position, where the halves' tables let through their cross products too.
  std::array<std::array<std::uint8_t, 128>, kPrefix> exact_{};
  std::uint8_t startBuckets_ = 0; ///< buckets whose words are keyed at their start, an identifier byte
  std::uint8_t shortBuckets_ = 0; ///< buckets with a word shorter than kPrefix (no bit set judges it)
  /// The second filter: bits for the four to seven bytes from the key to the end of the words
  /// keyed within their first four bytes with fewer than eight from their key, and for the eight bytes
  /// from the key of the words with eight or more.
  static constexpr unsigned kHashBits = 15;
  std::array<std::uint64_t, (1U << kHashBits) / 64> heads4_{}, heads8_{};
  /// The third: bits for the key and the four bytes before it of the words keyed past their fourth
  /// byte with fewer than eight from their key.
  std::array<std::uint64_t, (1U << kHashBits) / 64> headsBefore_{};
  std::uint8_t shortHeads_ = 0;               ///< the lengths (bit n: n bytes, 4 to 7) of the keys in heads4_
  std::array<std::uint64_t, 8> firstBytes_{}; ///< [n]: a mask of the first n bytes of a number loaded from a text
};

} // namespace asyncfix
