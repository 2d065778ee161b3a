// text/torch_words.h — the words the PyTorch-migration rules (AF3xx) need in a text, as data.
//
// A rule of that family (trigger kTriggerTorchApi) reports only on a node that contains, in code,
// the start of one of these words: the prefilter keeps a file only when one occurs in code
// (kPrefilterTorchApi), and marks every occurrence for the linter's pruned walk, which enters
// only the subtrees that hold a mark. A word that starts with an identifier byte counts only at
// the start of an identifier (`Scale` is not found in `MyScale`); it may continue into a longer
// one (`xavier_uniform` is found in `xavier_uniform_`), so a word is a prefix of what a rule
// matches, never more. Adding such a rule = adding its words here, one line each with the rule
// that needs it; `asyncfix_bench_parse verify` and the fixture tests check that no finding lies
// outside a word.
#pragma once

#include <span>
#include <string_view>

namespace asyncfix {

/// The words, in no particular order (duplicates are harmless).
std::span<const std::string_view> torchApiWords();

} // namespace asyncfix
