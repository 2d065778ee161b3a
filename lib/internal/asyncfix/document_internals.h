// asyncfix/document_internals.h — what an editor host asks a Document beyond its public API.
// Internal: not installed; for the engine (rules, analysis, linter), the language server, the
// tests and the benchmark: tree-sitter's types stay out of the public API.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "asyncfix/document.h"

struct TSTree;

namespace asyncfix {

struct DocumentInternals {
  /// The tree of the current text (parsed now if needed); owned by the Document, valid until the
  /// next edit(), reset() or releaseTree(). Null when the parser gave up.
  static const TSTree *tree(const Document &doc);
  /// The tree as last parsed, with the edits since applied to its positions (ts_tree_edit) but
  /// not re-parsed; nullptr when none is held. Never parses.
  static const TSTree *heldTree(const Document &doc);
  /// Whether a tree is held and is the current text's: no re-parse pending (after an edit that
  /// only respelled an identifier, none is needed).
  static bool treeIsCurrent(const Document &doc);
  /// Parses the document if needed, then gives the byte ranges (of the current text) whose
  /// syntax changed in the incremental re-parses since the last call, and forgets them. Returns
  /// true when a parse since then started from scratch (no old tree: every range may differ).
  static bool takeChanges(const Document &doc, std::vector<std::pair<std::uint32_t, std::uint32_t>> &changed);
};

} // namespace asyncfix
