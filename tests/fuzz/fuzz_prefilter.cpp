// Fuzzer (e): the prefilter's fast path against its reference path on arbitrary bytes. The first
// byte picks the triggers asked for and the packages the text reaches (text/torch_words.h); the
// rest is the text. Invariants: no crash; scanTriggers() (SIMD candidate search, the word
// filter's tables and bit sets) gives the same triggers as scanTriggersReference() (every
// position against the plain definitions) for a whole file, and the same marks for a part of
// one; whatever the prefilter rejects as a whole file, the linter's walk without pruning finds
// nothing in (the promise every front end relies on).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "asyncfix/document.h"
#include "asyncfix/linter.h"
#include "asyncfix/linter_internals.h"
#include "text/prefilter.h"
#include "text/torch_words.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  using namespace asyncfix;
  if (size == 0) return 0;
  constexpr unsigned kAll =
      kPrefilterKeywordName | kPrefilterNonBlocking | kPrefilterToCall | kPrefilterNoqa | kPrefilterTorchApi;
  const unsigned wanted = (data[0] & 0x1fU) != 0 ? data[0] & 0x1fU : kAll;
  const unsigned reached = (data[0] & 0x20U) != 0 ? unsigned{kPackageTorch} : 0U;
  const std::string_view text(reinterpret_cast<const char *>(data) + 1, size - 1);

  const unsigned fast = scanTriggers(text, wanted, nullptr, reached);
  const unsigned reference = scanTriggersReference(text, wanted, nullptr, reached);
  if (fast != reference) {
    std::fprintf(stderr, "whole text: fast path %#x, reference %#x\n", fast, reference);
    std::abort();
  }
  // A text the scan calls plain holds printable ASCII, tabs, line breaks and form feeds only
  // (the run skips its UTF-8 check), and one it finds no trigger in is plain unless it holds
  // another byte.
  bool plain = false;
  const bool maybe = mayTrigger(text, wanted, reached, &plain);
  const bool ascii = std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n' || c == '\f' || c == '\r';
  });
  if (plain != (!maybe && ascii)) {
    std::fprintf(stderr, "plain %d, but a hit %d, ASCII %d\n", plain, maybe, ascii);
    std::abort();
  }
  // The front ends' question, answered at the first hit: the same as the full scan's.
  if (mayTrigger(text, wanted, reached) != (fast != 0) || mayTriggerReference(text, wanted, reached) != (fast != 0)) {
    std::fprintf(stderr, "first hit: fast path %d, reference %d, full scan %#x\n", mayTrigger(text, wanted, reached),
                 mayTriggerReference(text, wanted, reached), fast);
    std::abort();
  }
  std::vector<std::uint32_t> fastMarks, referenceMarks;
  const unsigned fastMarked = scanTriggers(text, wanted, &fastMarks, reached);
  const unsigned referenceMarked = scanTriggersReference(text, wanted, &referenceMarks, reached);
  if (fastMarked != referenceMarked || fastMarks != referenceMarks) {
    std::fprintf(stderr, "marks: fast path %#x (%zu), reference %#x (%zu)\n", fastMarked, fastMarks.size(),
                 referenceMarked, referenceMarks.size());
    std::abort();
  }

  // A text the linter's prefilter rejects holds no finding of any rule.
  static const Linter linter;
  if (text.size() <= 4096 && !linter.mayHaveFindings(text)) {
    const auto found = LinterInternals::lintWithoutPruning(linter, Document(std::string(text)));
    if (!found.empty()) {
      std::fprintf(stderr, "prefilter rejected a text where %.*s fires at byte %u\n",
                   static_cast<int>(found.front().code.size()), found.front().code.data(),
                   static_cast<unsigned>(found.front().start));
      std::abort();
    }
  }
  return 0;
}
