// rules/rule.h — the interface every rule implements, and the per-file context it reports into.
//
// A rule declares the node kinds it wants (symbol ids); the linter walks the tree once and calls
// check() for every node of those kinds. Rules are immutable and shared across threads: all
// per-file state lives in the Context.
#pragma once

#include <tree_sitter/api.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/receivers.h"
#include "analysis/semantic.h"
#include "asyncfix/config.h"
#include "asyncfix/diagnostic.h"
#include "asyncfix/document.h"
#include "asyncfix/rules.h"
#include "text/prefilter.h"
#include "text/syntax.h"

namespace asyncfix::rules {

class Rule;

/// What a rule may claim, so that the rules below it in the registry leave it alone (a bit set;
/// each rule's registry line says which it claims).
enum Claim : unsigned {
  kClaimToken = 1U << 0,           ///< the `async`/`await` token the walk is at
  kClaimKeywordArgument = 1U << 1, ///< a keyword argument `NAME=value` (the node itself)
  kClaimStatement = 1U << 2,       ///< the walk's node, inside a statement the rule rewrites whole
  /// an `async`/`await` token anywhere in the file that the semantic model recorded (a name, an
  /// attribute name or a keyword name that a rename would rewrite)
  kClaimRecordedToken = 1U << 3,
  kClaimCall = 1U << 4, ///< a call the rule reports whole (AF305: the call that makes a uint8 mask)
};

class Context {
public:
  Context(const Document &doc, const Config &config) : doc_(doc), config_(config) {}
  /// A context whose semantic model is `shared` (one model for the contexts of several
  /// top-level statements of one tree; it records each one's dependencies in turn).
  Context(const Document &doc, const Config &config, const SemanticModel &shared)
      : doc_(doc), config_(config), shared_(&shared) {}

  const Document &document() const { return doc_; }
  std::string_view text() const { return doc_.text(); }
  const Config &config() const { return config_; }

  /// Scopes and bindings, built on first use.
  const SemanticModel &semantic() {
    if (shared_) return *shared_;
    if (!semantic_) semantic_.emplace(doc_);
    return *semantic_;
  }
  /// What expressions hold (Module, Tensor, DataLoader…), built on first use.
  const Receivers &receivers() {
    if (!receivers_) receivers_.emplace(doc_.text(), semantic());
    return *receivers_;
  }

  /// The ancestors of the node being checked, root first (the node itself excluded).
  std::span<const TSNode> ancestors() const { return ancestors_; }
  /// The parent of `node`, found down from the deepest ancestor of the node being checked that
  /// holds it (tree-sitter's ts_node_parent searches down from the root: across a module's
  /// thousands of statements, the cost of a whole lint in a dense file).
  TSNode parentOf(TSNode node) const;
  /// The named statement after `statement` in `block`, its parent (null after the last). At
  /// module level (`block` a module or null), from the semantic model's list of statements: an
  /// editor's document may be held as several trees, and a sibling step would leave this one.
  TSNode nextStatement(TSNode statement, TSNode block);
  /// field(node, name), remembered for the last few nodes asked about: the rules called for one
  /// node ask for the same fields in turn (eight read a call's `function`), and tree-sitter finds
  /// a field by walking the node's children each time.
  TSNode field(TSNode node, FieldName name);
  /// asyncfix::calledMethod(args, call, text()), the call's fields from field(): the rules
  /// called for a keyword argument ask in turn.
  std::string_view calledMethod(TSNode args, TSNode call) {
    return asyncfix::calledMethod(args, call, text(), [this](TSNode n, FieldName name) { return field(n, name); });
  }
  /// True when the node being checked lies inside an ERROR node.
  bool insideError() const { return errorDepth_ > 0; }

  /// A rule that reads text beyond the top-level statement it checks, other than through the
  /// semantic model, declares the bytes it read: an edit there must re-lint (IncrementalLint).
  void dependsOn(std::uint32_t start, std::uint32_t end) { ranges_.emplace_back(start, end); }
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> &dependencies() const { return ranges_; }
  /// Appends the 1-based line of byte `offset` to `d`'s message ("the DataLoader on line 5"),
  /// from the document's LineIndex, so CR-only and CRLF line ends count as they do everywhere
  /// else. The number is kept as a reference to `offset` (Diagnostic::lineReferences, `what`
  /// says what stands there): lines added above it renumber the message without a new lint.
  void appendLineNumber(Diagnostic &d, std::uint32_t offset, std::string_view what) const {
    asyncfix::appendLineNumber(d, doc_.lines(), offset, what);
  }

  // Lines as LineIndex ends them ("\n", "\r\n" or a lone "\r"; tree-sitter counts rows at "\n"
  // only, and ends a comment after the "\r" of a CRLF). A rule takes lines from here, never by
  // looking for "\n" itself.

  // What these read is a dependency of the finding (dependsOn).

  /// Declares that the finding depends on `offset`'s whole line, from its start (after a BOM) to
  /// the end of its content: the rule judged a word by its neighbours on the line.
  void dependsOnLine(std::uint32_t offset) {
    const LineIndex &lines = doc_.lines();
    const std::uint32_t line = lines.lineOf(offset);
    dependsOn(static_cast<std::uint32_t>(lines.lineStart(line)), static_cast<std::uint32_t>(lines.lineEnd(line)));
  }
  /// The text from the start of `offset`'s line (after a BOM) to `offset`: its indentation, when
  /// only blanks precede it.
  std::string_view lineBefore(std::uint32_t offset) {
    const LineIndex &lines = doc_.lines();
    const auto start = static_cast<std::uint32_t>(lines.lineStart(lines.lineOf(offset)));
    if (start >= offset) return {};
    dependsOn(start, offset);
    return text().substr(start, offset - start);
  }
  /// The line break that ends `offset`'s line; on a last line without one, the break before it
  /// ("\n" when the text has none).
  std::string_view lineBreakAt(std::uint32_t offset) {
    const LineIndex &lines = doc_.lines();
    for (std::uint32_t line = lines.lineOf(offset) + 1; line-- > 0;) {
      if (line + 1 >= lines.lineCount()) continue; // the last line: no break
      const auto end = static_cast<std::uint32_t>(lines.lineEnd(line));
      const auto next = static_cast<std::uint32_t>(lines.lineStart(line + 1));
      dependsOn(std::min(end, offset), next);
      return text().substr(end, next - end);
    }
    return "\n";
  }
  /// `end` (a node's end) moved back to the end of its line's content when it lies inside a line
  /// break, as a comment's does in a CRLF file.
  std::uint32_t beforeLineBreak(std::uint32_t end) const {
    const LineIndex &lines = doc_.lines();
    return static_cast<std::uint32_t>(std::min<std::size_t>(end, lines.lineEnd(lines.lineOf(end))));
  }

  /// True when a rule above `self` in the registry claims `node` as one of `what` (Claim bits):
  /// then `self` leaves it alone. The rules are asked nearest first (registry.cpp).
  bool claimedByOther(const Rule &self, unsigned what, TSNode node);
  /// Removes from `nodes` those a rule above `self` claims as `what` (see claimedByOther).
  void dropClaimedByOther(const Rule &self, unsigned what, std::vector<TSNode> &nodes);

  void report(Diagnostic d) { diagnostics_.push_back(std::move(d)); }

  /// Per-file state a rule keeps between its check() calls (a rename computed once and shared
  /// by all its occurrences), created empty on first use. `owner` is the rule.
  template <class T> T &state(const void *owner) {
    std::shared_ptr<void> &slot = states_[owner];
    if (!slot) slot = std::make_shared<T>();
    return *static_cast<T *>(slot.get());
  }
  std::vector<Diagnostic> takeDiagnostics() { return std::move(diagnostics_); }

  // Walk bookkeeping, driven by the linter.
  std::vector<TSNode> &ancestorStack() { return ancestors_; }
  int &errorDepth() { return errorDepth_; }

private:
  const Document &doc_;
  const Config &config_;
  const SemanticModel *shared_ = nullptr;
  std::optional<SemanticModel> semantic_;
  std::optional<Receivers> receivers_;
  std::vector<TSNode> ancestors_;
  int errorDepth_ = 0;
  std::vector<Diagnostic> diagnostics_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges_;
  std::map<const void *, std::shared_ptr<void>> states_;
  struct FieldMemo {
    TSNode node{};
    std::size_t field = 0;
    TSNode child{};
  };
  std::array<FieldMemo, 8> fieldMemo_{}; ///< field()'s, filled in turn
  std::size_t fieldMemoNext_ = 0;
};

/// What the prefilter must look for before a text is worth parsing for a rule (a bit set).
enum Trigger : unsigned {
  kTriggerKeywordName = kPrefilterKeywordName, ///< `async`/`await` that may be a name
  kTriggerNonBlocking = kPrefilterNonBlocking, ///< the word `non_blocking` in code
  kTriggerToCall = kPrefilterToCall,           ///< a `.to(` call with a bare bool argument
  kTriggerNoqa = kPrefilterNoqa,               ///< a `noqa` comment naming an AF code
  kTriggerTorchApi = kPrefilterTorchApi,       ///< a word of text/torch_words.h (the AF3xx rules)
};

class Rule {
public:
  virtual ~Rule() = default;
  virtual const RuleInfo &info() const = 0;
  /// The words whose absence proves this rule cannot fire (see Trigger).
  virtual unsigned triggers() const { return kTriggerKeywordName; }
  /// The node kinds (symbol ids) check() is called for.
  virtual std::vector<TSSymbol> subscriptions() const = 0;
  virtual void check(TSNode node, Context &ctx) const = 0;
  /// Whether this rule claims `node` as `what` (one Claim bit that its registry line declares).
  /// Asked by the rules below it in the registry, through Context::claimedByOther.
  virtual bool claims(Claim /*what*/, TSNode /*node*/, Context & /*ctx*/) const { return false; }
};

/// Every rule, in code order; registry.def lists them one line each.
std::vector<std::unique_ptr<Rule>> makeAllRules();

/// Severity of "this name no longer compiles": an error where Config::keywordsReserved(), a warning
/// before.
/// Such a finding's range ends with the `async`/`await` token (the token, or a path `kombu.async`):
/// the suppression pass reads it from there (config/noqa.h, onReservedWord), so that only a
/// `# noqa` naming the code hides it.
Severity keywordSeverity(const Config &config);

/// A diagnostic of `rule` over `node`'s byte range.
Diagnostic makeDiagnostic(const RuleInfo &rule, Severity severity, TSNode node, std::string message);

} // namespace asyncfix::rules
