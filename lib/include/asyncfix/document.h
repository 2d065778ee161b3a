// asyncfix/document.h — a Python source text with its line index and its syntax tree.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "asyncfix/line_index.h"

#include "asyncfix/export.h"

namespace asyncfix {

/// UTF-8 source text and its tree-sitter-python syntax tree. The tree is made when first needed
/// (a text nobody lints is never parsed) and re-made incrementally after edits: each edit is
/// applied to the old tree at once, the re-parse waits until the tree is next needed. The tree
/// itself is the library's own business (tree-sitter's symbols are not exported).
///
/// Not thread-safe, not even the const members (they may parse): one Document belongs to one
/// thread at a time. Moving is cheap; copying is not offered (the tree would have to be copied
/// too; use `Document(doc.text())`).
class ASYNCFIX_API Document {
public:
  explicit Document(std::string text);
  ~Document();
  Document(Document &&) noexcept;
  Document &operator=(Document &&) noexcept;
  Document(const Document &) = delete;
  Document &operator=(const Document &) = delete;

  const std::string &text() const { return text_; }
  const LineIndex &lines() const { return lines_; }
  /// Whether a tree is held (possibly awaiting a re-parse after edits). Never parses.
  bool holdsTree() const;
  /// Frees the tree (an editor host keeps trees for the documents in use only); the next use
  /// parses the text from scratch.
  void releaseTree();

  /// Replace bytes [start, end) with `replacement` and re-parse incrementally.
  /// Offsets are clamped to the text and moved off UTF-8 continuation bytes.
  void edit(std::size_t start, std::size_t end, std::string_view replacement);
  /// Replace the whole text (a full re-parse).
  void reset(std::string text);

  /// Number of ERROR and MISSING nodes in the tree (0 for a clean parse).
  std::size_t syntaxErrorCount() const;
  /// False when the parser gave up (e.g. nesting too deep for it): then the tree is null.
  bool parsed() const;

private:
  friend struct DocumentInternals; // the library and editor hosts: the tree, what re-parses changed
  struct Impl;
  std::string text_;
  LineIndex lines_;
  std::unique_ptr<Impl> impl_;
};

} // namespace asyncfix
