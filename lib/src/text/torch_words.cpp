#include "text/torch_words.h"

#include <vector>

namespace asyncfix {

std::span<const std::string_view> torchApiWords() {
  // One line per word, with the rule that needs it. Keep words as specific as the rule allows:
  // each occurrence in a file makes it worth parsing.
  static const std::vector<std::string_view> kWords{
      // "word", // AF3xx rule-name: what it starts
  };
  return kWords;
}

} // namespace asyncfix
