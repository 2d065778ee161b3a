// cli/output.cpp — the output formats: full, concise, json, json-lines; statistics; rule docs.
// The CI formats (sarif, github, gitlab, junit) are in output_sarif.cpp and output_ci.cpp.
#include "output.h"

#include <cwchar>

#include "asyncfix/utf8.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "asyncfix/line_index.h"
#include "asyncfix/report_format.h"
#include "output_ci.h"

namespace asyncfix::cli {
namespace {

using Json = nlohmann::ordered_json;

// --- colors ------------------------------------------------------------------------------------

constexpr std::string_view kReset = "\x1b[0m";
constexpr std::string_view kBold = "\x1b[1m";
constexpr std::string_view kCyan = "\x1b[36m";
constexpr std::string_view kBlue = "\x1b[1;34m";

std::string_view severityColor(Severity severity) {
  switch (severity) {
  case Severity::Error: return "\x1b[1;31m";
  case Severity::Warning: return "\x1b[1;33m";
  case Severity::Info: return "\x1b[1;34m";
  case Severity::Hint: return "\x1b[1;36m";
  }
  return kBold;
}

/// Appends `text`, wrapped in `color` when colors are on.
void paint(std::string &out, bool enabled, std::string_view color, std::string_view text) {
  if (enabled) {
    out.append(color).append(text).append(kReset);
  } else {
    out.append(text);
  }
}

// --- names -------------------------------------------------------------------------------------

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// --- full --------------------------------------------------------------------------------------

/// The source line as shown: C0 control characters other than tab become their visible Unicode
/// symbols (one code point each, so columns stay aligned, and no escape sequence reaches the
/// terminal).
std::string displayLine(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (const char c : line) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\t') || byte == 0x7F) {
      const unsigned symbol = byte == 0x7F ? 0x2421U : 0x2400U + byte; // U+2400..U+241F, U+2421
      out += static_cast<char>(0xE0 | (symbol >> 12));
      out += static_cast<char>(0x80 | ((symbol >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (symbol & 0x3F));
    } else {
      out += c;
    }
  }
  return out;
}

/// How many columns a character takes on a terminal: wcwidth() in the UTF-8 locale main() sets.
/// Windows's C library has no wcwidth: there, the ranges that matter in source text — combining
/// marks and zero-width characters (0), East Asian wide and fullwidth characters and emoji (2).
#if defined(_WIN32)
int columnsOf(char32_t c) {
  struct Range {
    char32_t first, last;
  };
  static constexpr Range kZero[] = {{0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A},
                                    {0x064B, 0x065F}, {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF}, {0x200B, 0x200F},
                                    {0x20D0, 0x20FF}, {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F}};
  static constexpr Range kWide[] = {{0x1100, 0x115F},   {0x2E80, 0x303E},   {0x3041, 0x33FF},  {0x3400, 0x4DBF},
                                    {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},   {0xAC00, 0xD7A3},  {0xF900, 0xFAFF},
                                    {0xFE30, 0xFE4F},   {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},  {0x1F300, 0x1F64F},
                                    {0x1F900, 0x1F9FF}, {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD}};
  const auto in = [c](const auto &ranges) {
    return std::any_of(std::begin(ranges), std::end(ranges),
                       [c](const Range &r) { return c >= r.first && c <= r.last; });
  };
  if (c < 0x20 || (c >= 0x7F && c < 0xA0)) return -1;
  return in(kZero) ? 0 : in(kWide) ? 2 : 1;
}
#else
int columnsOf(char32_t c) { return ::wcwidth(static_cast<wchar_t>(c)); }
#endif

/// Blank space as wide as text[from, to) on screen: tabs kept as tabs (so the caret lines up
/// whatever the terminal's tab stops are), two spaces for a wide character (CJK, most emoji; as
/// wcwidth() says in a UTF-8 locale), none for a combining mark, one space otherwise.
std::string blankLike(std::string_view text, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to;) {
    if (text[i] == '\t') {
      out += '\t';
    } else {
      const int width = columnsOf(static_cast<char32_t>(utf8Decode(text, i)));
      out.append(width < 0 ? 1 : static_cast<std::size_t>(width), ' ');
    }
    i += std::max<std::size_t>(1, utf8SequenceLength(text, i));
  }
  return out;
}

void renderFull(std::string &out, const FileDiagnostics &file, const SourceMap &map, const Diagnostic &d,
                const RenderOptions &options) {
  const bool color = options.color;
  // Rows, columns and the line shown come from the file, or from the notebook cell.
  const SourcePlace at = map.at(d.start);
  const SourcePlace until = map.at(d.end);
  const LineIndex &lines = *at.lines;
  const std::string_view text = at.text;
  const Position start = at.position(PositionEncoding::Utf32);
  const std::size_t lineStart = lines.lineStart(start.line);
  const std::size_t lineEnd = std::max(lines.lineEnd(start.line), lineStart);
  const std::size_t caretFrom = std::clamp(at.offset, lineStart, lineEnd);
  const std::size_t caretTo = std::clamp(until.cell == at.cell ? until.offset : lineEnd, caretFrom, lineEnd);
  const std::uint32_t fromColumn = lines.position(caretFrom, PositionEncoding::Utf32).column;
  const std::uint32_t toColumn = lines.position(caretTo, PositionEncoding::Utf32).column;
  const std::size_t width = toColumn > fromColumn ? toColumn - fromColumn : 1;

  const std::string row = std::to_string(rowColumn(at).row);
  const std::string pad(row.size() + 1, ' ');
  const std::string_view severity = severityColor(d.severity);

  paint(out, color, kBold, file.path);
  out += ':' + at.label() + ": ";
  paint(out, color, severity, d.code);
  out += ' ';
  if (d.fix && isApplicable(*d.fix, options.unsafeFixes)) {
    out += '[';
    paint(out, color, kCyan, "*");
    out += "] ";
  }
  out += d.message;
  out += '\n';

  paint(out, color, kBlue, pad + "|");
  out += '\n';
  paint(out, color, kBlue, row + " |");
  out += ' ';
  out += displayLine(text.substr(lineStart, lineEnd - lineStart));
  out += '\n';
  paint(out, color, kBlue, pad + "|");
  out += ' ';
  out += blankLike(text, lineStart, caretFrom);
  paint(out, color, severity, std::string(width, '^') + " " + std::string(d.code));
  out += '\n';
  paint(out, color, kBlue, pad + "|");
  out += '\n';
  if (d.fix) {
    out += pad;
    paint(out, color, kBold, "= help:");
    out += ' ';
    out += d.fix->title;
    if (d.fix->applicability == Applicability::Unsafe && !options.unsafeFixes) {
      out += " (unsafe fix: enable with --unsafe-fixes)";
    }
    out += '\n';
  }
  out += '\n';
}

void renderConcise(std::string &out, const FileDiagnostics &file, const SourceMap &map, const Diagnostic &d,
                   const RenderOptions &options) {
  paint(out, options.color, kBold, file.path);
  out += ':' + map.at(d.start).label() + ": ";
  paint(out, options.color, severityColor(d.severity), d.code);
  out += ' ';
  if (d.fix && isApplicable(*d.fix, options.unsafeFixes)) {
    out += '[';
    paint(out, options.color, kCyan, "*");
    out += "] ";
  }
  out += d.message;
  out += '\n';
}

} // namespace

bool parseOutputFormat(std::string_view name, OutputFormat &format) {
  static constexpr std::pair<std::string_view, OutputFormat> kFormats[] = {
      {"full", OutputFormat::Full},     {"concise", OutputFormat::Concise},
      {"json", OutputFormat::Json},     {"json-lines", OutputFormat::JsonLines},
      {"sarif", OutputFormat::Sarif},   {"github", OutputFormat::Github},
      {"gitlab", OutputFormat::Gitlab}, {"junit", OutputFormat::Junit},
  };
  for (const auto &[spelling, value] : kFormats) {
    if (spelling == name) {
      format = value;
      return true;
    }
  }
  return false;
}

bool isApplicable(const Fix &fix, bool unsafeFixes) {
  return fix.applicability == Applicability::Safe || (fix.applicability == Applicability::Unsafe && unsafeFixes);
}

std::string renderDiagnostics(std::span<const FileDiagnostics> files, const RenderOptions &options) {
  switch (options.format) {
  case OutputFormat::Sarif: return renderSarif(files, options.docsUrl);
  case OutputFormat::Github: return renderGithub(files);
  case OutputFormat::Gitlab: return renderGitlab(files);
  case OutputFormat::Junit: return renderJunit(files);
  default: break;
  }
  if (options.format == OutputFormat::Json || options.format == OutputFormat::JsonLines) {
    return renderJson(files, options.format == OutputFormat::JsonLines, options.docsUrl);
  }
  std::string out;
  for (const FileDiagnostics &file : files) {
    if (file.diagnostics.empty()) {
      continue;
    }
    const SourceMap map(file);
    for (const Diagnostic &d : file.diagnostics) {
      switch (options.format) {
      case OutputFormat::Full: renderFull(out, file, map, d, options); break;
      case OutputFormat::Concise: renderConcise(out, file, map, d, options); break;
      default: // JSON and the CI formats are rendered whole, above
        break;
      }
    }
  }
  return out;
}

std::string renderStatistics(std::span<const FileDiagnostics> files, const RenderOptions &options) {
  struct Row {
    std::string_view code;
    std::string_view name;
    std::size_t count = 0;
    bool fixable = false;
  };
  std::map<std::string_view, Row> byCode;
  for (const FileDiagnostics &file : files) {
    for (const Diagnostic &d : file.diagnostics) {
      Row &row = byCode[d.code];
      row.code = d.code;
      row.name = d.name;
      ++row.count;
      row.fixable = row.fixable || (d.fix && isApplicable(*d.fix, options.unsafeFixes));
    }
  }
  std::vector<Row> rows;
  rows.reserve(byCode.size());
  for (const auto &entry : byCode) {
    rows.push_back(entry.second);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) { return a.count > b.count; });

  if (options.format == OutputFormat::Json || options.format == OutputFormat::JsonLines) {
    Json array = Json::array();
    for (const Row &row : rows) {
      array.push_back(Json{{"code", row.code}, {"name", row.name}, {"count", row.count}, {"fixable", row.fixable}});
    }
    return jsonText(array, options.format == OutputFormat::Json ? 2 : -1) + "\n";
  }
  std::size_t countWidth = 0;
  std::size_t codeWidth = 0;
  bool anyFixable = false;
  for (const Row &row : rows) {
    countWidth = std::max(countWidth, std::to_string(row.count).size());
    codeWidth = std::max(codeWidth, row.code.size());
    anyFixable = anyFixable || row.fixable;
  }
  std::string out;
  for (const Row &row : rows) {
    const std::string count = std::to_string(row.count);
    out.append(countWidth - count.size(), ' ').append(count).append("\t");
    paint(out, options.color, severityColor(Severity::Error), row.code);
    out.append(codeWidth - row.code.size(), ' ').append("\t");
    if (anyFixable) {
      if (row.fixable) {
        out += '[';
        paint(out, options.color, kCyan, "*");
        out += "] ";
      } else {
        out += "[ ] ";
      }
    }
    out.append(row.name).append("\n");
  }
  return out;
}

void countDiagnostics(Summary &summary, std::span<const Diagnostic> diagnostics, bool unsafeFixes) {
  for (const Diagnostic &d : diagnostics) {
    ++summary.remaining;
    if (d.fix && isApplicable(*d.fix, unsafeFixes)) {
      ++summary.fixable;
    } else if (d.fix && d.fix->applicability == Applicability::Unsafe) {
      ++summary.hiddenUnsafe;
    }
  }
}

std::string renderSummary(const Summary &s, bool color) {
  std::string out;
  const std::string hidden =
      plural(s.hiddenUnsafe, "hidden fix", "hidden fixes") + " can be enabled with the --unsafe-fixes option";
  const auto fixablePrefix = [&] {
    out += '[';
    paint(out, color, kCyan, "*");
    out += "] ";
  };

  if (s.mode == FixMode::Diff) {
    if (s.fixed > 0) {
      out += "Would fix " + plural(s.fixed, "error", "errors");
      if (s.hiddenUnsafe > 0) {
        out += " (" + plural(s.hiddenUnsafe, "additional fix", "additional fixes") + " available with --unsafe-fixes)";
      }
      out += ".\n";
    } else if (s.hiddenUnsafe > 0) {
      out +=
          "No errors would be fixed (" + plural(s.hiddenUnsafe, "fix", "fixes") + " available with --unsafe-fixes).\n";
    }
    return out;
  }

  if (s.mode == FixMode::Apply && s.fixed > 0) {
    out += "Fixed " + plural(s.fixed, "error", "errors");
    out += s.remaining > 0 ? " (" + std::to_string(s.remaining) + " remaining).\n" : ".\n";
  } else if (s.remaining > 0) {
    out += "Found " + plural(s.remaining, "error", "errors") + ".\n";
  } else if (!s.failures) {
    out += "All checks passed!\n";
  }

  if (s.mode == FixMode::None && s.fixable > 0) {
    fixablePrefix();
    out += std::to_string(s.fixable) + " fixable with the --fix option";
    out += s.hiddenUnsafe > 0 ? " (" + hidden + ").\n" : ".\n";
  } else if (s.hiddenUnsafe > 0) {
    out += "No fixes available (" + hidden + ").\n";
  }
  return out;
}

std::string renderRules(std::span<const RuleInfo *const> rules, bool json, bool asArray, std::string_view docsUrl) {
  const auto fixText = [](FixAvailability fix) -> std::string_view {
    switch (fix) {
    case FixAvailability::Always: return "Fix is always available.";
    case FixAvailability::Sometimes: return "Fix is sometimes available.";
    case FixAvailability::None: return "";
    }
    return "";
  };
  if (json) {
    Json array = Json::array();
    for (const RuleInfo *rule : rules) {
      array.push_back(Json{{"name", rule->name},
                           {"code", rule->code},
                           {"summary", rule->summary},
                           {"fix", fixText(rule->fix)},
                           {"explanation", rule->doc},
                           {"url", ruleUrl(*rule, docsUrl)}});
    }
    if (!asArray && array.size() == 1) {
      return jsonText(array[0], 2) + "\n";
    }
    return jsonText(array, 2) + "\n";
  }
  std::string out;
  for (const RuleInfo *rule : rules) {
    if (!out.empty()) {
      out += '\n';
    }
    out.append("# ").append(rule->name).append(" (").append(rule->code).append(")\n\n");
    if (const std::string_view fix = fixText(rule->fix); !fix.empty()) {
      out.append(fix).append("\n\n");
    }
    out.append(rule->doc);
    if (out.empty() || out.back() != '\n') {
      out += '\n';
    }
  }
  return out;
}

} // namespace asyncfix::cli
