// asyncfix/incremental.h — lint results kept across edits, for editor hosts that lint on every
// keystroke. Internal: not installed; the language server and the tests use it.
//
// The unit of work is the top-level statement (a child of the module: a statement with its
// decorators and else/except clauses, or a comment). Each statement's findings are kept with
// what they depended on outside it — the words whose statements its queries consulted and the
// byte ranges it read (ModelDependencies). After an edit, a statement is linted again only when
// its text or syntax changed, or when a changed statement holds one of its words or lies in one
// of its ranges; the others' findings move with the text. The result always equals
// Linter::lint() of the same tree (tests/unit/incremental_lint_test.cpp checks it at every step
// of random typing).
//
// The per-file fact index: each statement's StatementFacts (what it shows the others — the
// module-level names it binds or reads, its keywords, attributes, definitions and imports; see
// analysis/semantic.h) are kept with it while it is unchanged, learnt from the models that
// walked it. An edit re-learns them for the statements it changed only, and a statement whose
// findings depend on a word through the facts (where a module-level loader comes from, which
// package is imported) is linted again only when the changed statements' facts, before or after
// the edit, hold that word — not whenever their text does (a function's own `loader` parameter
// tells nothing about the module's `loader`). The models of later keystrokes walk only the
// statements whose facts hold what a query asks about. A statement whose facts are not known
// (no model walked it: the first lint walks few) keeps a sketch instead: the words its text may
// hold, and the facts a model found it cannot show. A keystroke's query then neither searches
// the whole text for its word nor asks those statements again: only the touched statements
// recompute.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "asyncfix/diagnostic.h"
#include "asyncfix/document.h"
#include "asyncfix/document_internals.h"
#include "asyncfix/linter.h"

struct TSNode;

namespace asyncfix {

class SemanticModel;
struct StatementFacts;
struct StatementSketch;

class IncrementalLint {
public:
  /// How much the last update() did.
  struct Stats {
    std::size_t statements = 0;   ///< top-level statements in the tree
    std::size_t linted = 0;       ///< of which linted again
    bool full = false;            ///< everything was linted (first time, or a fresh parse)
    bool contained = false;       ///< the edited statements were linted alone (not exact)
    std::size_t walked = 0;       ///< statements the semantic model walked
    bool rejectedLocally = false; ///< the text stayed rejected, judged from the edited statements alone
  };

  /// Forgets everything: the next update() lints every statement (a new document, another
  /// Linter, a text replaced wholesale).
  void reset();
  /// Tells of an edit of `doc`: bytes [start, end) of its current text become `replacement`.
  /// Call it before `doc.edit(start, end, replacement)`, with the same arguments.
  void willEdit(const Document &doc, std::size_t start, std::size_t end, std::string_view replacement);
  /// The diagnostics of `doc`'s current tree (re-parsed incrementally if needed), by `linter`,
  /// which must be the one of the previous calls since reset().
  ///
  /// With `contain`, on a large document whose edited statements now leave a bracket or a string
  /// open (`batch.cuda(` typed, not yet closed), the document is not re-parsed at all: an open
  /// bracket makes tree-sitter re-read everything after it, and lint all of it again. Instead
  /// the edited statements are linted as a text of their own and spliced into the previous
  /// results; findings elsewhere stay as they were (without fixes that reach into the edited
  /// text), and the edited statements' findings carry no fixes. Such a result is not exact
  /// (stats().contained): the next update with the statements closed, or any update without
  /// `contain`, is exact again.
  const std::vector<Diagnostic> &update(const Linter &linter, const Document &doc, bool contain = false);
  /// Holds every statement of `doc`'s current tree (parsed by the caller) as linted with no
  /// finding, without linting any: for a text `linter`'s prefilter rejects as a whole (an editor
  /// host does not lint it). The next update() lints only what changed, as after a lint; while
  /// the text stays rejected, nothing (its findings are none); once it is kept, also the
  /// statements held unlinted whose own text the prefilter marks, which were "no finding" only
  /// as part of the rejected whole (a `non_blocking=True` copy in a file that gains a
  /// `DataLoader`). A keystroke that makes the file worth linting lints that statement, not all.
  void adoptRejected(const Linter &linter, const Document &doc);
  /// Documents smaller than this are never contained (a whole re-parse costs little there).
  std::size_t containBytes = std::size_t{32} * 1024;
  const std::vector<Diagnostic> &diagnostics() const { return diagnostics_; }
  /// Whether results are held (else the next update() lints every statement).
  bool holdsResults() const { return valid_; }
  /// Whether the last update() equals a lint of the same tree (false after a contained one).
  bool exact() const { return !stats_.contained; }
  const Stats &stats() const { return stats_; }

private:
  bool updateContained(const Linter &linter, const Document &doc);
  /// Before the first edit since an update, of bytes [s, e) of `doc`'s current text: learns the
  /// facts of the statements it hits and of their neighbours (see willEdit()).
  void learnAround(const Document &doc, std::uint32_t s, std::uint32_t e);
  /// What a statement's lint left that holds offsets (most statements: nothing, so no block).
  struct Results {
    std::vector<Diagnostic> raw;                                 ///< the rules' findings, before suppressions
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges; ///< bytes read outside it
    std::vector<std::uint32_t> comments;                         ///< starts of its suppression comments
  };
  /// One top-level statement's results, in current-text offsets. Small: a keystroke walks every
  /// unit (moving offsets, matching statements), and touches the blocks of the few that have any.
  /// What those passes read (offsets, flags, word bits, the results pointer) fills the start of
  /// a cache line, and a unit starts one: a pass over 20 000 lines' statements reads one line
  /// per unit. The sorted word lists, read only when the bits meet an edit's, come after. Its
  /// facts and sketch are held beside the units (unitFacts_, unitSketches_).
  struct alignas(64) Unit {
    std::uint32_t start = 0, end = 0;
    bool dirty = false;                 ///< an edit touched it or what it read
    bool hit = false;                   ///< an edit touched its text (its words went to words_, facts_)
    bool unlinted = false;              ///< held as "no finding" by adoptRejected(), not linted
    std::uint64_t wordBits = 0;         ///< wordBit() of each of `words`
    std::uint64_t factBits = 0;         ///< wordBit() of each of `factWords`
    std::unique_ptr<Results> results;   ///< null: nothing that holds an offset
    std::vector<std::string> words;     ///< sorted: words its queries were about
    std::vector<std::string> factWords; ///< sorted: words its queries asked the facts about
  };
  /// Gives every unit without one the sketch of its text (the words its text may hold), before
  /// a model is made: the model then searches for a word in those units only. `which`: the
  /// units that may lack one (after match(), the unmatched ones); null: every unit.
  void sketch(std::string_view text, const std::vector<std::size_t> *which);
  /// Lints units[i] for each i of `which` again (units[i] is DocumentInternals::statement(i));
  /// their facts and sketches stay.
  static void relint(const Linter &linter, const Document &doc, const SemanticModel &model, std::vector<Unit> &units,
                     const std::vector<std::size_t> &which);
  /// The facts and the sketches the index holds, per statement (for a SemanticModel): one pass
  /// over the units for both.
  void known(std::vector<const StatementFacts *> &facts, std::vector<const StatementSketch *> &sketches) const;
  /// A statement whose text no edit touched but whose syntax tree-sitter reports changed (often
  /// a neighbour of the edited one, re-parsed with it), with the facts it showed.
  struct Reparsed {
    std::uint32_t start, end;
    std::shared_ptr<const StatementFacts> facts;
  };
  /// Matches units_ with the statements `spans` of the new tree: a unit keeps its place and
  /// results when its statement kept its range and nothing touched it; the others become new
  /// units (their indices in `unmatched`), and what the changed ones showed goes to facts_ or
  /// `reparsed`.
  void match(const std::vector<DocumentInternals::Span> &spans,
             const std::vector<std::pair<std::uint32_t, std::uint32_t>> &changed, std::string_view text,
             std::vector<std::size_t> &unmatched, std::vector<Reparsed> &reparsed);
  /// Adds to `todo` the unmatched units and the kept ones whose findings read what changed.
  void findStale(const SemanticModel &model, std::string_view text, const std::vector<std::size_t> &unmatched,
                 std::vector<Reparsed> &reparsed, std::vector<std::size_t> &todo);
  /// Keeps the facts `model` learnt (see update()).
  void learn(const SemanticModel &model, const std::vector<std::size_t> &todo, bool full);

  /// Whether units_ hold unlinted ones (adoptRejected()).
  bool anyUnlinted() const;
  /// Whether the text, rejected as a whole at the last update (rejectable_), still is: judged
  /// from the statements the edits since then touched (`unmatched`: the new ones) and their
  /// neighbours (engine/still_rejected.h). False when that cannot tell: ask the whole text.
  bool stillRejected(const Linter &linter, const Document &doc, const std::vector<std::size_t> &unmatched) const;
  /// Whether the prefilter's rejection of `doc`'s whole text can be judged again from the
  /// statements an edit touches: its tree has no syntax error, the text holds no word whose
  /// judgement reads beyond its statement, and its statements scanned as one are judged as the
  /// file is (engine/still_rejected.h).
  static bool locallyRejectable(const Linter &linter, const Document &doc);

  std::vector<Unit> units_;
  /// Per unit, beside units_ (the same slots): what its statement shows the others (null: not
  /// known), and what its text tells (see sketch()). Held apart so that a keystroke's model
  /// takes them as two arrays, copied, not gathered from every unit.
  std::vector<std::shared_ptr<const StatementFacts>> unitFacts_;
  std::vector<std::shared_ptr<StatementSketch>> unitSketches_;
  bool valid_ = false;             ///< units_ hold the results of an earlier update()
  std::vector<std::string> words_; ///< identifiers in text the edits since then removed or inserted
  std::vector<std::string> facts_; ///< fact words of the statements the edits since then touched
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edited_; ///< current-text ranges the edits touched
  /// The first and last index of a unit the edits since the last update made dirty (SIZE_MAX:
  /// none): units outside them and outside the edits keep their slots (see match()).
  std::size_t dirtyFirst_ = SIZE_MAX, dirtyLast_ = 0;
  std::vector<Diagnostic> diagnostics_;
  std::vector<Diagnostic> gathered_; ///< the last update's findings before diagnostics_ (storage reused)
  /// An edit since the last update (not contained) may have added or removed a line break: the
  /// kept findings' messages name lines (renderLineNumbers) that update() renders again.
  bool linesMoved_ = false;
  Stats stats_;
  /// The prefilter rejected the text of the last update() as a whole (units stayed unlinted) and
  /// locallyRejectable() held for it: the next edits are judged by stillRejected().
  bool rejectable_ = false;
  /// False when no unit is unlinted (anyUnlinted() then needs no pass over them): none is after a
  /// full update, or once an update linted those held.
  bool mayHoldUnlinted_ = false;
};

} // namespace asyncfix
