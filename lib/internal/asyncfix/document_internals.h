// asyncfix/document_internals.h — what an editor host asks a Document beyond its public API.
// Internal: not installed; for the engine (rules, analysis, linter), the language server, the
// tests and the benchmark: tree-sitter's types stay out of the public API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "asyncfix/diagnostic.h"
#include "asyncfix/document.h"

struct TSTree;
struct TSNode;

namespace asyncfix {

struct DocumentInternals {
  /// Parses the current text now if needed. False when the parser gave up (no tree).
  static bool parse(const Document &doc);
  /// parse(), asking `stop` now and then while tree-sitter works (every few hundred of its steps:
  /// keep it cheap) and giving up when it says so: then false, and the document is left unparsed.
  /// For a background parse that gives way to new work (the language server's settle).
  static bool parseUnless(const Document &doc, const std::function<bool()> &stop);
  /// The top-level statements of the current text, in order (a module's children: statements,
  /// comments). With chunking on, they may come from more than one tree; a node's root is
  /// `ts_tree_root_node(node.tree)`. Valid until the next edit(), reset(), releaseTree() or
  /// tree() (which folds the chunks).
  static const std::vector<TSNode> &statements(const Document &doc);
  /// A top-level statement's byte range in the current text.
  struct Span {
    std::uint32_t start = 0, end = 0;
  };
  /// The byte ranges of statements(), in the same order. Cheaper than statements() between
  /// keystrokes in a chunked document: the statements outside the overlay are not looked up in
  /// the tree again (an edit inside it moves those after it by as much as it grows). Valid as
  /// statements() is.
  static const std::vector<Span> &statementSpans(const Document &doc);
  /// statements()[i] (i < statementSpans().size()), found without listing them all: a lookup
  /// by position in its tree.
  static TSNode statement(const Document &doc, std::size_t i);
  /// How often statement() did not find its node by position and listed statements() instead
  /// (for tests: never expected).
  static std::size_t statementLookupMisses(const Document &doc);
  /// Whether any tree of the current text has a syntax error.
  static bool hasError(const Document &doc);
  /// The smallest node spanning bytes [start, end) in the tree that holds `start` (null when
  /// the parser gave up).
  static TSNode nodeAt(const Document &doc, std::uint32_t start, std::uint32_t end);
  /// Chunking for an editor host: when a text of at least `minBytes` bytes (0: never, the
  /// default) is edited, the next re-parse parses only the top-level statements around the
  /// edits, as a tree of their own, when that can stand for a re-parse of the whole (the rest
  /// parsed cleanly, the edits lie within a quarter of the text); later edits there re-parse that
  /// tree alone. Where the edited statements have syntax errors, a whole re-parse may recover
  /// differently. tree() folds the chunks back into one tree.
  static void setChunking(const Document &doc, std::size_t minBytes);
  /// Whether the current text is held as more than one tree (parses now if needed).
  static bool chunked(const Document &doc);
  /// The statements parsed on their own: their tree and the byte range it covers, which starts
  /// and ends at line starts (or the text's end); the rest of the text parsed cleanly. Null tree
  /// when the text is not chunked. Parses now if needed.
  struct Overlay {
    const TSTree *tree = nullptr;
    std::uint32_t start = 0, end = 0;
  };
  static Overlay overlay(const Document &doc);
  /// For a chunked document and `edits` that lie within the overlay: the syntax errors of the
  /// overlay's statements with the edits applied (`fixed` is the whole text after them), parsed
  /// afresh on their own as the overlay is. The rest of the text parsed cleanly and does not
  /// change, so that is the fixed text's count as the chunks see it. nullopt when the document is
  /// not chunked, an edit reaches outside the overlay, or the edited statements would not stand
  /// alone (then the whole text decides).
  static std::optional<std::size_t> overlayErrorsAfter(const Document &doc, const std::vector<TextEdit> &edits,
                                                       const std::string &fixed);
  /// The whole current text's tree (parsed now if needed, chunks folded back); owned by the
  /// Document, valid until the next edit(), reset() or releaseTree(). Null when the parser gave
  /// up.
  static const TSTree *tree(const Document &doc);
  /// The tree as last parsed, with the edits since applied to its positions (ts_tree_edit) but
  /// not re-parsed; nullptr when none is held. Never parses.
  static const TSTree *heldTree(const Document &doc);
  /// Whether a tree is held and is the current text's: no re-parse pending (after an edit that
  /// only respelled an identifier, none is needed).
  static bool treeIsCurrent(const Document &doc);
  /// Parses the document if needed, then gives the byte ranges (of the current text) whose
  /// syntax changed in the incremental re-parses since the last call, and forgets them. Returns
  /// true when a parse since then started from scratch (no old tree), or the root turned into
  /// an ERROR node or back: every range may differ.
  static bool takeChanges(const Document &doc, std::vector<std::pair<std::uint32_t, std::uint32_t>> &changed);
};

} // namespace asyncfix
