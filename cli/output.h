// cli/output.h — how diagnostics, statistics, summaries and rule docs are printed.
//
// Positions are converted only through LineIndex: rows are 1-based lines, columns 1-based counts
// of Unicode code points (a UTF-8 BOM is not part of line 1) — except in SARIF, whose columns
// count UTF-16 code units (its default columnKind, stated in the log). In a notebook, rows and
// columns count within the code cell that holds the position (SourceMap, in the library's
// asyncfix/report.h, like FileDiagnostics and the JSON writer), in every format.
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
#include "asyncfix/report.h"
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

struct RenderOptions {
  OutputFormat format = OutputFormat::Full;
  bool color = false;       ///< ANSI colors (a terminal without NO_COLOR)
  bool unsafeFixes = false; ///< whether --unsafe-fixes is on ([*] and hints depend on it)
  std::string docsUrl;      ///< the manual's address for links to rule pages (ruleUrl(); "" = default)
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

/// `asyncfix rule`: each rule's heading and documentation (or a JSON object / array, whose `url`
/// is the rule's page under `docsUrl`, as ruleUrl() makes it).
std::string renderRules(std::span<const RuleInfo *const> rules, bool json, bool asArray, std::string_view docsUrl = {});

} // namespace asyncfix::cli
