#include "asyncfix/notebook.h"

#include "asyncfix/line_diff.h"
#include "asyncfix/utf8.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>

namespace asyncfix {
namespace {

/// The line that separates two cells in the virtual text: a comment no rule edits.
constexpr std::string_view kBoundary = "\n# -- asyncfix: notebook cell boundary --\n";

std::string_view trimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

/// Splits text into lines that keep their terminators.
std::vector<std::string_view> linesOf(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::size_t n = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(0, n));
    text.remove_prefix(n);
  }
  return lines;
}

/// IPython syntax on one line: `%magic`, `!shell` (not `!=`), `?help`, `obj?` / `obj.attr??`.
bool isIPythonLine(std::string_view line) {
  const std::string_view body = trimRight(line);
  const auto first = body.find_first_not_of(" \t");
  if (first == std::string_view::npos) return false;
  const char c = body[first];
  if (c == '%' || c == '?') return true;
  if (c == '!') return body.size() == first + 1 || body[first + 1] != '=';
  if (body.back() != '?') return false;
  // Help on a name: only a dotted name before the question marks (code with a `?` in a comment
  // or a string is code).
  std::string_view name = body.substr(first);
  while (!name.empty() && name.back() == '?') name.remove_suffix(1);
  if (name.empty()) return false;
  for (const char ch : name)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '*')) return false;
  return true;
}

/// The line made an empty comment of the same length: its first non-blank character becomes `#`
/// and the rest blanks, so no rule can flag or edit anything in it (a `# noqa` there included).
std::string masked(std::string_view line) {
  std::string out(line);
  const auto first = out.find_first_not_of(" \t");
  if (first == std::string::npos || out[first] == '\n' || out[first] == '\r') return out;
  out[first] = '#';
  for (std::size_t i = first + 1; i < out.size(); ++i)
    if (out[i] != '\n' && out[i] != '\r') out[i] = ' ';
  return out;
}

/// A cell's source as the virtual text holds it: IPython lines made comments, a cell magic's
/// cell blanked out. `maskedLines` gets each masked line (its index in the cell, its text).
std::string maskCell(std::string_view source, std::vector<std::pair<std::size_t, std::string>> &maskedLines) {
  maskedLines.clear();
  const auto lines = linesOf(source);
  const auto firstCode =
      std::find_if(lines.begin(), lines.end(), [](std::string_view l) { return !trimRight(l).empty(); });
  const bool cellMagic = firstCode != lines.end() &&
                         trimRight(*firstCode).find_first_not_of(" \t") != std::string_view::npos &&
                         firstCode->substr(firstCode->find_first_not_of(" \t")).starts_with("%%");
  std::string out;
  out.reserve(source.size());
  for (std::size_t k = 0; k < lines.size(); ++k) {
    if (cellMagic || isIPythonLine(lines[k])) {
      maskedLines.emplace_back(k, std::string(lines[k]));
      std::string m = masked(lines[k]);
      if (cellMagic && k > 0) // a cell magic's body is not Python at all: blank it out
        for (char &c : m)
          if (c != '\n' && c != '\r') c = ' ';
      out += m;
    } else {
      out += lines[k];
    }
  }
  return out;
}

/// The layout of a JSON array's elements: the blanks before each one and before `]`.
void arrayLayout(std::string_view raw, std::string_view json, std::size_t start, NotebookCell &cell) {
  if (raw.size() > 2) {
    const std::size_t first = raw.find_first_not_of(" \t\r\n", 1);
    cell.elementIndent = std::string(raw.substr(1, first - 1));
    cell.elementSeparator = cell.elementIndent;
    // The blanks after the first element's comma: ", " in an inline array, "\n   " in nbformat's.
    if (first != std::string_view::npos && raw[first] == '"') {
      std::size_t i = first + 1;
      while (i < raw.size() && raw[i] != '"') i += raw[i] == '\\' ? 2 : 1;
      const std::size_t comma = raw.find_first_not_of(" \t\r\n", i + 1);
      if (comma != std::string_view::npos && raw[comma] == ',') {
        const std::size_t next = raw.find_first_not_of(" \t\r\n", comma + 1);
        if (next != std::string_view::npos)
          cell.elementSeparator = std::string(raw.substr(comma + 1, next - comma - 1));
      }
    }
    const std::size_t last = raw.find_last_not_of(" \t\r\n", raw.size() - 2);
    cell.closingIndent = std::string(raw.substr(last + 1, raw.size() - 2 - last));
    return;
  }
  // `[]`: nbformat's own layout, one space deeper than the line holding the key.
  const std::size_t lineStart = json.rfind('\n', start);
  const std::size_t from = lineStart == std::string_view::npos ? 0 : lineStart + 1;
  const std::size_t keyIndent = json.find_first_not_of(' ', from) - from;
  // Built with append: GCC 12 -O3 warns falsely (-Wrestrict) on `"literal" + std::string`.
  cell.elementIndent.assign(1, '\n').append(keyIndent + 1, ' ');
  cell.elementSeparator = cell.elementIndent;
  cell.closingIndent.assign(1, '\n').append(keyIndent, ' ');
}

std::string renderSource(const NotebookCell &cell, std::string_view text) {
  if (!cell.sourceIsArray) return nlohmann::json(std::string(text)).dump();
  const auto lines = linesOf(text);
  if (lines.empty()) return "[]";
  std::string out = "[";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out.append(",").append(cell.elementSeparator); // append: see arrayLayout on -Wrestrict
    else out += cell.elementIndent;
    out += nlohmann::json(std::string(lines[i])).dump();
  }
  return out + cell.closingIndent + "]";
}

/// A cursor over JSON text that nlohmann::json::accept has already validated. It finds only
/// where values begin and end: the byte ranges of the cells' `source` values, which fixes are
/// written back into (everything else in the file stays as it was).
class JsonScanner {
public:
  explicit JsonScanner(std::string_view text) : t_(text) {
    if (t_.starts_with("\xEF\xBB\xBF")) i_ = 3; // a UTF-8 byte order mark, as nlohmann allows
  }
  /// Steps into an object or array when one starts here.
  bool enter(char open) {
    if (peek() != open) return false;
    ++i_;
    return true;
  }
  /// Steps out when the object or array ends here (right after `enter`: an empty one).
  bool leave(char close) {
    if (peek() != close) return false;
    ++i_;
    return true;
  }
  /// After a member: true at a `,` (another member follows), false at the closing bracket.
  bool next(char close) {
    if (peek() == ',') {
      ++i_;
      return true;
    }
    leave(close);
    return false;
  }
  /// An object's key (unescaped) and its `:`.
  std::string key() {
    const std::string_view raw = value();
    if (peek() == ':') ++i_;
    if (raw.find('\\') == std::string_view::npos) return std::string(raw.substr(1, raw.size() - 2));
    return nlohmann::json::parse(raw).get<std::string>();
  }
  /// Skips one value and returns its text.
  std::string_view value() {
    peek();
    const std::size_t start = i_;
    if (i_ >= t_.size()) return {};
    if (t_[i_] == '"') {
      skipString();
    } else if (t_[i_] == '{' || t_[i_] == '[') {
      std::size_t depth = 0;
      do {
        const char c = t_[i_];
        if (c == '"') {
          skipString();
          continue;
        }
        if (c == '{' || c == '[') ++depth;
        if (c == '}' || c == ']') --depth;
        ++i_;
      } while (depth > 0 && i_ < t_.size());
    } else {
      while (i_ < t_.size() && std::string_view(",}] \t\r\n").find(t_[i_]) == std::string_view::npos) ++i_;
    }
    return t_.substr(start, i_ - start);
  }

private:
  char peek() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r')) ++i_;
    return i_ < t_.size() ? t_[i_] : '\0';
  }
  void skipString() {
    ++i_;
    while (i_ < t_.size() && t_[i_] != '"') i_ += t_[i_] == '\\' ? 2 : 1;
    ++i_;
  }

  std::string_view t_;
  std::size_t i_ = 0;
};

} // namespace

std::variant<Notebook, std::string> Notebook::parse(std::string json) {
  Notebook nb;
  nb.json_ = std::move(json);
  try {
    if (!nlohmann::json::accept(nb.json_)) {
      const nlohmann::json unused = nlohmann::json::parse(nb.json_); // throws: position and reason
      return std::string("invalid notebook JSON");
    }
    JsonScanner in(nb.json_);
    if (!in.enter('{')) return std::string("invalid notebook JSON: the document is not an object");
    bool sawCells = false;
    for (bool more = !in.leave('}'); more; more = in.next('}')) {
      if (in.key() != "cells") {
        in.value();
        continue;
      }
      sawCells = true;
      if (!in.enter('[')) return std::string("invalid notebook JSON: `cells` is not a list");
      std::size_t number = 0;
      for (bool moreCells = !in.leave(']'); moreCells; moreCells = in.next(']')) {
        ++number;
        if (!in.enter('{')) return "invalid notebook JSON: cell " + std::to_string(number) + " is not an object";
        std::string type;
        std::optional<NotebookCell> cell;
        for (bool moreFields = !in.leave('}'); moreFields; moreFields = in.next('}')) {
          const std::string key = in.key();
          const std::string_view raw = in.value();
          if (key == "cell_type") {
            const nlohmann::json parsed = nlohmann::json::parse(raw);
            if (!parsed.is_string())
              return "invalid notebook JSON: the `cell_type` of cell " + std::to_string(number) + " is not a string";
            type = parsed.get<std::string>();
          } else if (key == "source") {
            NotebookCell c;
            c.number = number;
            c.sourceIsArray = raw.front() == '[';
            c.jsonStart = static_cast<std::size_t>(raw.data() - nb.json_.data());
            c.jsonEnd = c.jsonStart + raw.size();
            const nlohmann::json parsed = nlohmann::json::parse(raw);
            if (parsed.is_string()) {
              c.source = parsed.get<std::string>();
            } else {
              for (const auto &line : parsed) {
                if (!line.is_string()) return "cell " + std::to_string(number) + ": `source` must hold strings";
                c.source += line.get<std::string>();
              }
              if (c.sourceIsArray) arrayLayout(raw, nb.json_, c.jsonStart, c);
            }
            cell = std::move(c);
          }
        }
        if (type != "code") continue;
        if (!cell) return "cell " + std::to_string(number) + " has no `source`";
        nb.cells_.push_back(std::move(*cell));
      }
    }
    if (!sawCells) return "not a Jupyter notebook (no `cells` list)";
  } catch (const nlohmann::json::exception &e) {
    return std::string("invalid notebook JSON: ") + e.what();
  }

  nb.joinCells();
  return nb;
}

std::variant<Notebook, std::string> Notebook::fromCells(const std::vector<NotebookCellSource> &cells) {
  Notebook nb;
  nb.json_ = "{\"cells\": [";
  std::size_t number = 0;
  for (const NotebookCellSource &cell : cells) {
    ++number;
    if (const auto bad = firstInvalidUtf8(cell.source))
      return "cell " + std::to_string(number) + ": not valid UTF-8 at byte offset " + std::to_string(*bad);
    if (number > 1) nb.json_ += ", ";
    nb.json_ += cell.code ? R"({"cell_type": "code", "source": )" : R"({"cell_type": "markdown", "source": )";
    const std::string quoted = nlohmann::json(cell.source).dump();
    if (cell.code) {
      NotebookCell c;
      c.number = number;
      c.source = cell.source;
      c.sourceIsArray = false;
      c.jsonStart = nb.json_.size();
      c.jsonEnd = c.jsonStart + quoted.size();
      nb.cells_.push_back(std::move(c));
    }
    nb.json_ += quoted;
    nb.json_ += R"(, "metadata": {}})";
  }
  nb.json_ += R"(], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})";
  nb.json_ += '\n';
  nb.joinCells();
  return nb;
}

void Notebook::joinCells() {
  virtual_.clear();
  masked_.assign(cells_.size(), {});
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    NotebookCell &cell = cells_[i];
    cell.virtualStart = virtual_.size();
    virtual_ += maskCell(cell.source, masked_[i]);
    cell.virtualEnd = virtual_.size();
    virtual_ += kBoundary;
  }
}

const NotebookCell *Notebook::cellAt(std::size_t offset, std::size_t *offsetInCell) const {
  // The last cell starting at or before the offset (cells lie in order in the virtual text).
  const auto after = std::upper_bound(cells_.begin(), cells_.end(), offset,
                                      [](std::size_t at, const NotebookCell &cell) { return at < cell.virtualStart; });
  if (after == cells_.begin()) return nullptr;
  const NotebookCell &cell = *std::prev(after);
  if (offset > cell.virtualEnd) return nullptr;
  if (offsetInCell) *offsetInCell = offset - cell.virtualStart;
  return &cell;
}

std::optional<std::string> Notebook::withVirtualText(std::string_view fixed) const {
  // Split at the boundary lines; there must be exactly one per cell, at the end of each.
  std::vector<std::string_view> parts;
  for (std::size_t from = 0; from < fixed.size();) {
    const std::size_t at = fixed.find(kBoundary, from);
    if (at == std::string_view::npos) return std::nullopt;
    parts.push_back(fixed.substr(from, at - from));
    from = at + kBoundary.size();
  }
  if (parts.size() != cells_.size()) return std::nullopt;

  std::string out = json_;
  for (std::size_t i = cells_.size(); i-- > 0;) {
    const NotebookCell &cell = cells_[i];
    const std::string_view original(virtual_.data() + cell.virtualStart, cell.virtualEnd - cell.virtualStart);
    if (parts[i] == original) continue;
    // Put the IPython lines back, in order: a fix may have added or removed other lines around
    // them, but one that changed or dropped a masked line cannot be written back.
    auto lines = linesOf(parts[i]);
    std::vector<std::string> restored(lines.begin(), lines.end());
    const auto originalLines = linesOf(original);
    std::size_t next = 0;
    for (const auto &[index, line] : masked_[i]) {
      const std::string_view was = originalLines[index];
      while (next < restored.size() && restored[next] != was) ++next;
      if (next == restored.size()) return std::nullopt;
      restored[next++] = line;
    }
    std::string text;
    for (const std::string &line : restored) text += line;
    out.replace(cell.jsonStart, cell.jsonEnd - cell.jsonStart, renderSource(cell, text));
  }
  return out;
}

std::optional<VirtualTextChange> Notebook::replaceCellSource(std::size_t index, std::string source) {
  if (index >= cells_.size() || firstInvalidUtf8(source)) return std::nullopt;
  NotebookCell &cell = cells_[index];
  if (source == cell.source) return VirtualTextChange{}; // and its JSON stays as it is
  std::vector<std::pair<std::size_t, std::string>> maskedLines;
  const std::string text = maskCell(source, maskedLines);
  const std::string rendered = renderSource(cell, source);

  const std::string_view before(virtual_.data() + cell.virtualStart, cell.virtualEnd - cell.virtualStart);
  const ChangedSpan span = changedSpan(before, text);
  const VirtualTextChange change{cell.virtualStart + span.start, cell.virtualStart + span.beforeEnd,
                                 span.afterEnd - span.start};

  const auto virtualShift = static_cast<std::ptrdiff_t>(text.size()) - static_cast<std::ptrdiff_t>(before.size());
  const auto jsonShift =
      static_cast<std::ptrdiff_t>(rendered.size()) - static_cast<std::ptrdiff_t>(cell.jsonEnd - cell.jsonStart);
  virtual_.replace(change.start, change.end - change.start, text, span.start, change.length);
  json_.replace(cell.jsonStart, cell.jsonEnd - cell.jsonStart, rendered);
  cell.source = std::move(source);
  cell.virtualEnd += static_cast<std::size_t>(virtualShift); // modular arithmetic: a shrink wraps back
  cell.jsonEnd += static_cast<std::size_t>(jsonShift);
  masked_[index] = std::move(maskedLines);
  for (std::size_t i = index + 1; i < cells_.size(); ++i) {
    cells_[i].virtualStart += static_cast<std::size_t>(virtualShift);
    cells_[i].virtualEnd += static_cast<std::size_t>(virtualShift);
    cells_[i].jsonStart += static_cast<std::size_t>(jsonShift);
    cells_[i].jsonEnd += static_cast<std::size_t>(jsonShift);
  }
  return change;
}

} // namespace asyncfix
