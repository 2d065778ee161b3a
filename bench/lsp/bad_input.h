// bench/lsp/bad_input.h — issue 29's "bad input" edits as traces of editor edits, for the
// benchmark (typing_cpu.cpp --bad-input) and the incremental == fresh differential
// (tests/unit/incremental_lint_test.cpp), which replay the same traces.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace bench {

/// One edit as an editor sends it: bytes [start, end) of the current text become `text`.
struct Edit {
  std::size_t start = 0, end = 0;
  std::string text;
};

/// A named list of edits, each one keystroke (one update of the linter).
struct Trace {
  std::string name;
  std::vector<Edit> edits;
};

namespace detail {

inline void typeAt(std::vector<Edit> &edits, std::size_t at, const std::string &typed) {
  for (std::size_t k = 0; k < typed.size(); ++k) edits.push_back({at + k, at + k, typed.substr(k, 1)});
}
inline void backspace(std::vector<Edit> &edits, std::size_t at, std::size_t count) {
  for (std::size_t k = count; k > 0; --k) edits.push_back({at + k - 1, at + k, ""});
}
inline std::size_t lineEnd(const std::string &text, std::size_t at) {
  const std::size_t nl = text.find('\n', at);
  return nl == std::string::npos ? text.size() : nl + 1;
}

} // namespace detail

/// The bad-input traces over a training script `text` (bench::generateTraining's or the tests'
/// shape: `    model.train()` in training functions, module-level `train_loader = ` and
/// `val_loader = ` lines, functions at top level), each starting from `text` itself and ending
/// with it again:
///  - "unclosed bracket": `    z = torch.zeros(` typed into the first training function (high
///    up), one character per keystroke, the bracket never closed, then deleted one by one;
///  - "def merged": four spaces typed one by one before a `def` in the middle (the function
///    becomes part of the one before it: the two merge), then deleted one by one (the dedent);
///  - "DataLoader deleted": the `train_loader = ` line deleted at once, then restored (undo); the
///    `val_loader = ` line deleted by backspaces from its end, then restored (undo);
///  - "paste": `paste` inserted at once before a `def` in the middle, then removed (undo).
/// A trace whose anchor the text lacks is left out.
inline std::vector<Trace> badInputTraces(const std::string &text, const std::string &paste) {
  using namespace detail;
  std::vector<Trace> traces;
  if (const std::size_t at = text.find("    model.train()\n"); at != std::string::npos) {
    Trace t{"unclosed bracket", {}};
    const std::string typed = "    z = torch.zeros(";
    const std::size_t where = at + 18;
    typeAt(t.edits, where, typed);
    backspace(t.edits, where, typed.size());
    traces.push_back(std::move(t));
  }
  if (const std::size_t at = text.find("\n\ndef ", text.size() / 2); at != std::string::npos) {
    Trace t{"def merged", {}};
    typeAt(t.edits, at + 2, "    ");
    backspace(t.edits, at + 2, 4);
    traces.push_back(std::move(t));
  }
  const std::size_t train = text.find("\ntrain_loader = "), val = text.find("\nval_loader = ");
  if (train != std::string::npos && val != std::string::npos) {
    Trace t{"DataLoader deleted", {}};
    const std::size_t tl = train + 1, tEnd = lineEnd(text, tl);
    const std::string line = text.substr(tl, tEnd - tl);
    t.edits.push_back({tl, tEnd, ""});
    t.edits.push_back({tl, tl, line});
    const std::size_t vl = val + 1, vEnd = lineEnd(text, vl);
    const std::string vline = text.substr(vl, vEnd - vl);
    backspace(t.edits, vl, vline.size());
    t.edits.push_back({vl, vl, vline});
    traces.push_back(std::move(t));
  }
  if (const std::size_t at = text.find("\n\ndef ", text.size() / 2); at != std::string::npos && !paste.empty()) {
    Trace t{"paste", {}};
    t.edits.push_back({at + 2, at + 2, paste});
    t.edits.push_back({at + 2, at + 2 + paste.size(), ""});
    traces.push_back(std::move(t));
  }
  return traces;
}

} // namespace bench
