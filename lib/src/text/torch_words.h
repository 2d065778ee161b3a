// text/torch_words.h — the words the PyTorch-migration rules (AF3xx) need in a text, as data.
//
// A rule of that family (trigger kTriggerTorchApi) reports only on a node that contains, in code,
// the start of one of these words: the prefilter keeps a file only when one occurs in code
// (kPrefilterTorchApi), and marks every occurrence for the linter's pruned walk, which enters
// only the subtrees that hold a mark. A word that starts with an identifier byte counts only at
// the start of an identifier (`Scale` is not found in `MyScale`); it may continue into a longer
// one (`xavier_uniform` is found in `xavier_uniform_`), so a word is a prefix of what a rule
// matches, never more. A whole word (torchApiWholeWords) that ends with an identifier byte counts
// only where the identifier ends with it too (`np.float` is not found in `np.float32`): for
// names whose longer spellings are today's API. Each word names the package its rule resolves it
// to (`Scale` → torchvision, `np.float` → NumPy, `.data[0]` → torch): in a whole file a word counts
// only where the file spells that package's name (a file that spells no `torchvision` has no
// `transforms.Scale` of torchvision's), so astropy's `models.Scale` or sympy's `Function` keep no
// file. Adding such a rule = adding its words here, one line each with the rule that needs it
// and its package; `asyncfix_bench_parse verify` and the fixture tests check that no finding lies
// outside a word.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace asyncfix {

/// The packages whose names a text spells, a bit set (torchPackagesSpelt).
enum TorchPackage : unsigned {
  kPackageTorch = 1U << 0,       ///< `torch` (also in `torchvision`, `torchaudio`…)
  kPackageTorchvision = 1U << 1, ///< `torchvision`
  kPackageNumpy = 1U << 2,       ///< `numpy`
  kPackageScipy = 1U << 3,       ///< `scipy`
  /// Not a package: the text spells a star import of the family (spellsStarImport). The words of names that only a
  /// star import of the family can provide (`load(` after `from torch import *`) count where it
  /// does, in a text that spells torch, NumPy or SciPy (mayUseTorchFamily): common words that
  /// would keep many files for nothing otherwise.
  kPackageStarImport = 1U << 4,
};

/// A word, and the package a rule must resolve it to for a finding.
struct TorchWord {
  std::string_view text;
  unsigned package = kPackageTorch;
};

/// The words, in no particular order (duplicates are harmless).
std::span<const TorchWord> torchApiWords();
/// The whole words, in no particular order.
std::span<const TorchWord> torchApiWholeWords();

/// The packages of TorchPackage whose names `text` spells anywhere (a substring: in code,
/// strings or comments alike, as an import may be written), and kPackageStarImport. A rule resolves a name to a package
/// only through an import that spells it, or through a relative import inside the package's own
/// files (the caller adds that package: Config::package).
unsigned torchPackagesSpelt(std::string_view text);

/// Whether `text` spells a star import that may give the family's names: `import`, blanks (line
/// continuations too), `*`, after `from M` where M is torch…, numpy…, scipy… or relative (a
/// package's own module); `from matplotlib._image import *` gives no name of PyTorch's, the rules
/// resolve no name through it. Anything the backward read of `from M` cannot follow counts.
bool spellsStarImport(std::string_view text);

/// Whether the `import` at `at` (a whole word) may give a name where its bytes do not show one: it
/// is not followed by a list of names that reads whole (dotted names with or without `as`, separated by
/// commas, in brackets or not, up to the statement's end; or a `*`), and its module may be the
/// family's (starImportOfFamily: `from torch…`, a relative one, or no `from` read). tree-sitter's
/// error recovery reads such an import's names from what follows, skipping what stands between
/// (`from torch import)` then `x = eig(a *` on the next line imports `eig`, which AF316 reports): a
/// word that only a star import would give (kPackageStarImport) may then be that import's name.
bool unreadImportAt(std::string_view text, std::size_t at);

/// Whether `text` may hold a finding of the family at all: every AF3xx rule reports only in a file
/// that imports torch or on a name that resolves to torch, torchvision, NumPy or SciPy, so a text
/// that spells none of `torch`, `numpy`, `scipy` holds none (the prefilter's answer for a whole
/// text; marks are asked for parts of texts too, and are not gated).
bool mayUseTorchFamily(std::string_view text);

/// Calls `found(at)` for each byte `at` of `text` where a word of either list counts, in order,
/// until it returns true. One vectorised pass over the text for all the words
/// (text/prefilter_words.h), whose cost grows little with their number.
void forEachTorchWord(std::string_view text, bool (*found)(void *state, std::size_t at), void *state);
template <class F> void forEachTorchWord(std::string_view text, F &&f) {
  forEachTorchWord(
      text, [](void *state, std::size_t at) { return (*static_cast<F *>(state))(at); }, &f);
}

/// Whether `word` (whole or not) counts at byte `at` of `text`: it is spelt there and, when it
/// starts (ends, for a whole word) with an identifier byte, no identifier byte precedes (follows)
/// it (ASCII identifier bytes: text/prefilter_words.h's wordCountsAt). Says nothing about code: the caller knows
/// whether `at` lies in a string or a comment.
bool torchWordAt(std::string_view text, std::size_t at, std::string_view word, bool whole);

/// A word of either list and whether it is whole (torchApiWholeWords).
struct TorchWordRef {
  const TorchWord *word = nullptr;
  bool whole = false;
};

/// The words of either list that start with the byte `first`, in the lists' order (the words,
/// then the whole words): all a check at one position needs to compare, where the lists are a
/// hundred words and more (torchWordMatters, startsTorchWord).
std::span<const TorchWordRef> torchWordsStartingWith(unsigned char first);

/// Whether every word of the lists has its row in the measured layout of the word filter
/// (bench/words): else the filter lays the words out by a model of Python's bytes, slower on
/// PyTorch code (a unit test asks).
bool torchWordLayoutComplete();

/// Whether some word of either list counts at byte `at` (a rule's check that the node it
/// reports on holds a mark of its own, not only another rule's).
bool startsTorchWord(std::string_view text, std::size_t at);

} // namespace asyncfix
