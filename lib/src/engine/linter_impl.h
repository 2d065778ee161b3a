// linter_impl.h — the inside of a Linter: its rules, the walk that dispatches nodes to them and
// the pass that applies suppressions. Private; shared by Linter (whole files) and IncrementalLint
// (top-level statements).
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "asyncfix/linter.h"
#include "rules/rule.h"

namespace asyncfix {

/// Offsets of the text the rules can report on or must see: every prefilter trigger of the
/// enabled rules, and every comment that may be a suppression (`noqa`, `asyncfix:` in any case).
/// `base` is added to each (a statement's text scanned alone).
/// `words` are more whole words of kTriggerTorchApi (the last names of the user's AF310 rows,
/// Linter::Impl::apiWords), marked wherever they occur.
std::vector<std::uint32_t> marksOf(std::string_view text, unsigned triggers, std::uint32_t base = 0,
                                   const std::vector<std::string> &words = {});

/// A caller's "stop now?" asked as a walk goes (LinterInternals::lintUnless): every kEvery nodes,
/// so that the question costs nothing beside the walk (the language server's asks the clock, and
/// under WebAssembly that is a call into JavaScript). Once it says yes, it stays yes.
class WalkStop {
public:
  static constexpr unsigned kEvery = 256;
  explicit WalkStop(const std::function<bool()> &stop) : stop_(stop) {}
  /// Counts one node; true once the walk must stop.
  bool operator()() {
    if (stopped_) return true;
    if (--left_ != 0) return false;
    left_ = kEvery;
    return stopped_ = stop_();
  }
  /// Asks at once (between two walks).
  bool now() { return stopped_ || (stopped_ = stop_()); }
  bool stopped() const { return stopped_; }

private:
  const std::function<bool()> &stop_;
  unsigned left_ = kEvery;
  bool stopped_ = false;
};

struct ASYNCFIX_LOCAL Linter::Impl {
  Config config;
  std::vector<std::unique_ptr<rules::Rule>> rules;        ///< the enabled ones
  std::vector<std::vector<const rules::Rule *>> dispatch; ///< symbol id → subscribed rules
  unsigned triggers = 0;                                  ///< union of the enabled rules' Trigger bits
  /// The last names of the user's API renames (`[tool.asyncfix.renames] api`, AF310): words of
  /// kTriggerTorchApi that text/torch_words.h cannot list.
  std::vector<std::string> apiWords;
  /// The packages of text/torch_words.h a file reaches through relative imports without spelling
  /// them: those of Config::package (`torch.nn` reaches torch).
  unsigned reachedPackages = 0;

  explicit Impl(Config c);

  /// One pre-order walk of `top` (the root, or one of its children whose ancestors are `root`
  /// alone), dispatching every node to the rules that subscribed to its kind. With `marks`
  /// (sorted), a subtree that holds no mark is neither entered nor dispatched. Comment nodes
  /// met go to `comments`. With `stop`, the walk gives up once it says so: false then.
  bool walk(TSNode root, TSNode top, rules::Context &ctx, const std::vector<std::uint32_t> *marks,
            std::vector<TSNode> &comments, WalkStop *stop = nullptr) const;
  /// Suppressions (and AF900; none with `suppress` false), configured severities, and the order
  /// of the results: position, then code, then the walk's order. `comments` are the comment
  /// nodes the walks met.
  std::vector<Diagnostic> finish(const Document &doc, std::vector<Diagnostic> diagnostics,
                                 const std::vector<TSNode> &comments, bool suppress = true) const;
  /// finish(), in place: `diagnostics` keeps its storage (an editor's update reuses it).
  void finishInPlace(const Document &doc, std::vector<Diagnostic> &diagnostics, const std::vector<TSNode> &comments,
                     bool suppress = true) const;
  /// Linter::lint(doc), pruned or not; with `suppress` false, no `# noqa` and no
  /// `# asyncfix: skip-file` hides a finding (LinterInternals::lintUnsuppressed). With `stop`,
  /// nullopt once it said so (LinterInternals::lintUnless).
  std::optional<std::vector<Diagnostic>> lint(const Document &doc, bool prune, bool suppress,
                                              WalkStop *stop = nullptr) const;
};

} // namespace asyncfix
