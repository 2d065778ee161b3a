// asyncfix/report.h — the findings for one file, where they are, and the JSON the CLI prints.
//
// Diagnostics carry byte ranges into the text that was linted. This header turns those into
// places a person or a tool understands: 0-based positions in any PositionEncoding through
// LineIndex, and for a Jupyter notebook the code cell and the position within that cell's source.
// `renderJson` is the `--output-format json` / `json-lines` writer of the CLI, shared with the C
// API (asyncfix_check_json) and the Python bindings so that all three print the same objects.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asyncfix/diagnostic.h"
#include "asyncfix/export.h"
#include "asyncfix/line_index.h"
#include "asyncfix/notebook.h"

namespace asyncfix {

/// The diagnostics of one file, and the text their byte ranges (and their fixes' edits) refer to.
/// A view: it owns nothing, and everything it points at must outlive it.
struct FileDiagnostics {
  std::string_view path;
  std::string_view text;
  std::span<const Diagnostic> diagnostics;
  /// For a notebook: the notebook whose virtual text `text` is. Every diagnostic's range and every
  /// edit of its fix must then lie inside one code cell (see keepReportableInCells).
  const Notebook *notebook = nullptr;
};

/// Where a byte offset of a file's text is reported: in a plain file, the file itself; in a
/// notebook, the code cell that holds it, with rows and columns counted within that cell.
struct SourcePlace {
  std::size_t cell = 0;             ///< 1-based cell number in a notebook; 0 in a plain file
  std::string_view text;            ///< the file's text, or the cell's source
  const LineIndex *lines = nullptr; ///< `text`'s lines
  std::size_t offset = 0;           ///< the byte offset within `text`

  /// 0-based line and column in `encoding` units.
  Position position(PositionEncoding encoding) const { return lines->position(offset, encoding); }
  /// "3:5" in a plain file, "cell 2:3:5" in a notebook: 1-based row and code-point column.
  ASYNCFIX_API std::string label() const;
};

/// Maps a file's byte offsets to places to report (see SourcePlace). The one place where a
/// notebook's virtual-text offsets become cell positions; conversions go through LineIndex built
/// on each cell's source. Keeps views of the file's text and notebook: they must outlive it.
/// Immutable after construction; safe to read from several threads.
class ASYNCFIX_API SourceMap {
public:
  explicit SourceMap(const FileDiagnostics &file);
  /// The place of `offset`. In a notebook an offset must lie in a code cell (on no boundary
  /// line); one that does not is reported against the virtual text, as cell 0.
  SourcePlace at(std::size_t offset) const;

private:
  std::string_view text_;
  const Notebook *notebook_ = nullptr;
  LineIndex lines_;                  ///< of the text (plain file, or the fallback)
  std::vector<LineIndex> cellLines_; ///< of each code cell's source, in codeCells() order
};

/// Keeps of a notebook's diagnostics (offsets in its virtual text) what can be reported per cell:
/// a diagnostic outside every code cell (a boundary line, which no rule flags) is dropped, the
/// end of a range that runs into a later cell is cut at the end of the start's cell, and a fix
/// with an edit that does not lie inside one cell is dropped from its diagnostic. Returns how
/// many diagnostics were dropped.
ASYNCFIX_API std::size_t keepReportableInCells(const Notebook &notebook, std::vector<Diagnostic> &diagnostics);

/// The CLI's JSON output for these files, in order: `--output-format json` (`lines == false`: one
/// array, indented by two spaces, ending in a newline; `[]` for no diagnostics) or `json-lines`
/// (one object per line). Rows and columns are 1-based, columns count code points; a notebook's
/// objects carry a "cell" key; `url` is the rule's page under `docsUrl` (ruleUrl() in rules.h: empty
/// for the default). The shape is documented in docs/cli.md ("JSON output").
ASYNCFIX_API std::string renderJson(std::span<const FileDiagnostics> files, bool lines = false,
                                    std::string_view docsUrl = {});

/// Why `bytes` cannot be linted as Python source: it holds a NUL byte (binary) or is not valid
/// UTF-8 (decodeSource() in encoding.h first reads a file that declares another encoding). nullopt
/// when it is fine. The reason names the byte offset and line of the problem:
/// "not valid UTF-8 (byte 0xFF at byte offset 12, line 2), skipped".
ASYNCFIX_API std::optional<std::string> checkSourceText(std::string_view bytes);

/// True for a path the library treats as a Jupyter notebook (it ends in `.ipynb`).
ASYNCFIX_API bool isNotebookPath(std::string_view path);

/// The result of `Linter::lint(text, path)`: the diagnostics of one file together with the text
/// they refer to, so that their byte ranges can be turned into positions at any later time.
///
/// Ownership: a Report owns copies of the path, the text (and the parsed notebook); diagnostics'
/// `code`/`name` point at the rule catalogue's static strings. Copying is cheap (the data is
/// shared and immutable), and a Report may be read from several threads at once.
class ASYNCFIX_API Report {
public:
  /// An empty report (no path, no text, no diagnostics).
  Report();

  const std::string &path() const;
  /// The text the diagnostics' byte ranges refer to: the source, or a notebook's virtual text
  /// (its code cells joined; see notebook.h).
  std::string_view text() const;
  /// Sorted by position, then code. Empty when error() is set.
  const std::vector<Diagnostic> &diagnostics() const;
  /// The notebook, when the path ends in `.ipynb` and the text parsed as one; else nullptr.
  const Notebook *notebook() const;
  /// Set when the text could not be checked at all: a NUL byte, invalid UTF-8, or a notebook
  /// that is not valid nbformat JSON. The message names the problem but not the path.
  const std::optional<std::string> &error() const;
  bool ok() const { return !error().has_value(); }

  /// Lines of text() (in a notebook: of the virtual text).
  const LineIndex &lines() const;
  /// Where byte `offset` of text() is reported (in a notebook, the cell and the offset in it).
  SourcePlace place(std::size_t offset) const;
  /// The view the output writers take (valid while this Report lives).
  FileDiagnostics view() const;
  /// renderJson() of this one file: the CLI's `--output-format json` (or `json-lines`) output.
  std::string toJson(bool lines = false) const;

private:
  struct Data;
  std::shared_ptr<const Data> data_;
  explicit Report(std::shared_ptr<const Data> data);
  friend class Linter;
};

} // namespace asyncfix
