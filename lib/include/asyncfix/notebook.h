// asyncfix/notebook.h — Jupyter notebooks (.ipynb) as one virtual Python document.
//
// The code cells are joined, in order, into one text (so a name bound in one cell and used in a
// later one is one binding), separated by a boundary comment line. IPython syntax is left alone:
// lines starting with `%`, `!` or `?` (or ending with `?`) are turned into comments of the same
// length, and a cell that starts with a `%%` cell magic is blanked out. Fixes made to the virtual
// text are written back into only the cells they changed; every other byte of the notebook JSON
// (key order, indentation, outputs, metadata) stays as it was.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "asyncfix/export.h"

namespace asyncfix {

struct NotebookCell {
  std::size_t number = 0;       ///< 1-based position among all the notebook's cells ("cell 3")
  std::string source;           ///< the cell's source as the notebook holds it
  std::size_t virtualStart = 0; ///< where the cell's (masked) text starts in the virtual text
  std::size_t virtualEnd = 0;
  // Where the cell's "source" value lies in the notebook JSON, and how it is laid out.
  std::size_t jsonStart = 0, jsonEnd = 0;
  bool sourceIsArray = true;
  std::string elementIndent;    ///< whitespace before the first element of a source array
  std::string elementSeparator; ///< whitespace after each `,` between elements (`\n  ` or ` `)
  std::string closingIndent;    ///< whitespace before the array's `]`
};

/// One cell as an editor holds it (LSP's notebookDocument/*): its kind and its text.
struct NotebookCellSource {
  bool code = true;   ///< a code cell (linted); false: any other cell (markdown, raw), left out
  std::string source; ///< UTF-8
};

/// What replacing one cell's source did to the virtual text: bytes [start, end) became the
/// `length` bytes at `start` of the new virtual text (nothing changed when all three say so).
struct VirtualTextChange {
  std::size_t start = 0, end = 0, length = 0;
  bool empty() const { return start == end && length == 0; }
};

/// Owns its JSON text, its virtual text and the cells. Its const members may be called from
/// several threads at once; replaceCellSource is the one that changes it, in place (views into
/// json() and virtualText() do not survive it; codeCells() keeps its elements, updated). Copy and
/// move freely.
class ASYNCFIX_API Notebook {
public:
  /// Parses notebook JSON (nbformat 4). An error says what is wrong ("cell 4 has no source").
  static std::variant<Notebook, std::string> parse(std::string json);
  /// A notebook made of these cells, in order: the virtual text, cells and offsets are what
  /// parse() makes of an nbformat 4 file holding them. Its json() is such a file (each source one
  /// JSON string), written here, not parsed, which withVirtualText() and replaceCellSource()
  /// rewrite as they rewrite a parsed file. An error when a source is not valid UTF-8 ("cell 2:
  /// not valid UTF-8 at byte offset 5").
  static std::variant<Notebook, std::string> fromCells(const std::vector<NotebookCellSource> &cells);

  const std::string &json() const { return json_; }
  /// The code cells joined into one Python text (see the file comment).
  const std::string &virtualText() const { return virtual_; }
  const std::vector<NotebookCell> &codeCells() const { return cells_; }

  /// The code cell holding `virtualOffset` and the offset within that cell's source; nullptr
  /// for an offset on a boundary line.
  const NotebookCell *cellAt(std::size_t virtualOffset, std::size_t *offsetInCell = nullptr) const;

  /// The notebook JSON after the virtual text became `fixedVirtual`: each cell whose text changed
  /// gets a new "source" value in the original layout; nothing else changes. nullopt when the
  /// fixed text no longer splits into the same cells (a boundary line was touched).
  std::optional<std::string> withVirtualText(std::string_view fixedVirtual) const;

  /// Code cell `index` (in codeCells()) now holds `source`, as an editor changed it: the cell's
  /// part of the virtual text is masked again and its "source" value rewritten in the cell's
  /// layout; every other cell keeps its bytes. The texts, cells and offsets are what parse()
  /// would make of the new JSON (only the layout a later rewrite of the cell uses may differ: an
  /// array that shrank to one line keeps the separator it had, which a fresh parse cannot see).
  /// It costs masking the one cell, moving the two texts' tails and shifting the later cells'
  /// offsets. Returns the span of the virtual text that changed (whole UTF-8 characters, the
  /// common prefix and suffix left out; empty when `source` is the cell's); nullopt, changing
  /// nothing, when there is no such cell or `source` is not valid UTF-8.
  std::optional<VirtualTextChange> replaceCellSource(std::size_t index, std::string source);

private:
  /// Makes virtual_ and masked_ of cells_ (each cell's text masked, then a boundary line).
  void joinCells();

  std::string json_;
  std::string virtual_;
  std::vector<NotebookCell> cells_;
  /// Per code cell: the lines masked as comments (index in the cell → original line).
  std::vector<std::vector<std::pair<std::size_t, std::string>>> masked_;
};

} // namespace asyncfix
