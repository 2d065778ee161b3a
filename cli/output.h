// cli/output.h — how diagnostics, statistics, summaries and rule docs are printed.
//
// Positions are converted only through LineIndex: rows are 1-based lines, columns 1-based counts
// of Unicode code points (a UTF-8 BOM is not part of line 1) — except in SARIF, whose columns
// count UTF-16 code units (its default columnKind, stated in the log). In a notebook, rows and
// columns count within the code cell that holds the position (SourceMap), in every format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asyncfix/diagnostic.h"
#include "asyncfix/line_index.h"
#include "asyncfix/notebook.h"
#include "asyncfix/rules.h"

namespace asyncfix::cli {

enum class OutputFormat : std::uint8_t {
  Full,      ///< source line and caret
  Concise,   ///< one line per diagnostic
  Json,      ///< one array
  JsonLines, ///< one object per line
  Sarif,     ///< SARIF 2.1.0 log (output_sarif.cpp)
  Github,    ///< GitHub Actions workflow commands (output_ci.cpp)
  Gitlab,    ///< GitLab Code Quality report (output_ci.cpp)
  Junit,     ///< JUnit XML (output_ci.cpp)
};

/// "full" → Full, ...; false for an unknown name.
bool parseOutputFormat(std::string_view name, OutputFormat &format);

/// The diagnostics of one file, and the text their byte ranges (and their fixes' edits) refer to.
struct FileDiagnostics {
  std::string_view path;
  std::string_view text;
  std::span<const Diagnostic> diagnostics;
  /// For a notebook: the notebook whose virtual text `text` is. Every diagnostic's range and every
  /// edit of its fix must then lie inside one code cell (see SourceMap).
  const Notebook *notebook = nullptr;
};

/// Where a byte offset of a file's text is reported: in a plain file, the file itself; in a
/// notebook, the code cell that holds it, with rows and columns counted within that cell.
struct SourcePlace {
  std::size_t cell = 0;            ///< 1-based cell number in a notebook; 0 in a plain file
  std::string_view text;           ///< the file's text, or the cell's source
  const LineIndex *lines = nullptr; ///< `text`'s lines
  std::size_t offset = 0;          ///< the byte offset within `text`

  /// 0-based line and column in `encoding` units.
  Position position(PositionEncoding encoding) const { return lines->position(offset, encoding); }
  /// "3:5" in a plain file, "cell 2:3:5" in a notebook: 1-based row and code-point column.
  std::string label() const;
};

/// Maps a file's byte offsets to places to report (see SourcePlace). The one place where a
/// notebook's virtual-text offsets become cell positions; conversions go through LineIndex built
/// on each cell's source. Keeps views of `file`'s text and notebook.
class SourceMap {
public:
  explicit SourceMap(const FileDiagnostics &file);
  /// The place of `offset`. In a notebook an offset must lie in a code cell (on no boundary
  /// line); one that does not is reported against the virtual text, as cell 0.
  SourcePlace at(std::size_t offset) const;

private:
  std::string_view text_;
  const Notebook *notebook_ = nullptr;
  LineIndex lines_;                    ///< of the text (plain file, or the fallback)
  std::vector<LineIndex> cellLines_;   ///< of each code cell's source, in codeCells() order
};

/// Keeps of a notebook's diagnostics (offsets in its virtual text) what can be reported per cell:
/// a diagnostic outside every code cell (a boundary line, which no rule flags) is dropped, the
/// end of a range that runs into a later cell is cut at the end of the start's cell, and a fix
/// with an edit that does not lie inside one cell is dropped from its diagnostic. Returns how
/// many diagnostics were dropped.
std::size_t keepReportableInCells(const Notebook &notebook, std::vector<Diagnostic> &diagnostics);

struct RenderOptions {
  OutputFormat format = OutputFormat::Full;
  bool color = false;       ///< ANSI colors (a terminal without NO_COLOR)
  bool unsafeFixes = false; ///< whether --unsafe-fixes is on ([*] and hints depend on it)
};

/// True when --fix would apply this fix under the current unsafe setting.
bool isApplicable(const Fix &fix, bool unsafeFixes);

/// Diagnostics of all files in the given order. `full`/`concise`/`json-lines`/`github` print
/// nothing for no diagnostics; `json` and `gitlab` print `[]`, `sarif` a log with no results and
/// `junit` one passing test case.
std::string renderDiagnostics(std::span<const FileDiagnostics> files, const RenderOptions &options);

/// `--statistics`: one row per code, most frequent first (or a JSON array).
std::string renderStatistics(std::span<const FileDiagnostics> files, const RenderOptions &options);

enum class FixMode : std::uint8_t { None, Apply, Diff };

/// Totals for the closing lines of a run.
struct Summary {
  FixMode mode = FixMode::None;
  std::size_t remaining = 0;    ///< diagnostics reported (after fixing, when fixing)
  std::size_t fixable = 0;      ///< of those, with a fix applicable under the unsafe setting
  std::size_t hiddenUnsafe = 0; ///< of those, with an unsafe fix that --unsafe-fixes would apply
  std::size_t fixed = 0;        ///< diagnostics fixed (or that would be, with --diff)
  bool failures = false;        ///< some file could not be processed
};

/// Adds the diagnostics of `files` to the counts of `summary`.
void countDiagnostics(Summary &summary, std::span<const Diagnostic> diagnostics, bool unsafeFixes);

/// The closing lines, in Ruff's words: "Found 3 errors.", "[*] 2 fixable with the --fix
/// option.", "Fixed 2 errors (1 remaining).", "Would fix 2 errors.", "All checks passed!".
std::string renderSummary(const Summary &summary, bool color);

/// `asyncfix rule`: each rule's heading and documentation (or a JSON object / array).
std::string renderRules(std::span<const RuleInfo *const> rules, bool json, bool asArray);

} // namespace asyncfix::cli
