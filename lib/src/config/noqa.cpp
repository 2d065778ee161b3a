#include "config/noqa.h"

#include <algorithm>
#include <cctype>

#include "asyncfix/document_internals.h"
#include "asyncfix/rules.h"
#include "text/syntax.h"

namespace asyncfix {
namespace {

bool startsWithNoCase(std::string_view text, std::size_t at, std::string_view word) {
  if (at + word.size() > text.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[at + i])) != word[i]) return false;
  return true;
}

std::size_t skipSpaces(std::string_view text, std::size_t i) {
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  return i;
}

bool isAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

/// A code such as AF101 or E501: letters, then letters and digits with at least one digit (so a
/// typo like `AF1O1` is read as one unknown code, not as the end of the list).
std::size_t codeLength(std::string_view text, std::size_t i) {
  std::size_t j = i;
  while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
  if (j == i) return 0;
  bool digit = false;
  while (j < text.size() && std::isalnum(static_cast<unsigned char>(text[j]))) {
    digit = digit || std::isdigit(static_cast<unsigned char>(text[j])) != 0;
    ++j;
  }
  if (!digit || (j < text.size() && text[j] == '_')) return 0;
  return j - i;
}

bool mentionsSuppression(std::string_view text) {
  for (std::size_t i = 0; i + 4 <= text.size(); ++i)
    if (startsWithNoCase(text, i, "noqa") || startsWithNoCase(text, i, "asyncfix")) return true;
  return false;
}

/// The line range a directive in `comment` covers: its own line, or — when the comment ends a
/// statement that spans several lines — every line of that statement. Lines are LineIndex's, as
/// the diagnostics' lines are.
void coverage(const LineIndex &lines, TSNode comment, NoqaDirective &d) {
  const std::uint32_t line = lines.lineOf(ts_node_start_byte(comment));
  d.firstLine = d.lastLine = line;
  const TSNode prev = prevLeaf(comment);
  if (ts_node_is_null(prev) || lines.lineOf(ts_node_end_byte(prev)) != line) return;
  const Kinds &k = Kinds::get();
  TSNode n = prev;
  for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p)) {
    const TSSymbol s = ts_node_symbol(p);
    if (s == k.module || s == k.block || lines.lineOf(ts_node_end_byte(p)) != line) break;
    n = p;
  }
  d.firstLine = lines.lineOf(ts_node_start_byte(n));
}

} // namespace

std::vector<NoqaDirective> parseNoqa(std::string_view comment, std::size_t offset) {
  std::vector<NoqaDirective> found;
  for (std::size_t hash = comment.find('#'); hash != std::string_view::npos; hash = comment.find('#', hash + 1)) {
    std::size_t j = skipSpaces(comment, hash + 1);
    if (comment.substr(j).starts_with("asyncfix:")) j = skipSpaces(comment, j + 9);
    if (!startsWithNoCase(comment, j, "noqa")) continue;
    std::size_t k = j + 4;
    if (k < comment.size() && isAlnum(comment[k])) continue; // `noqanda`
    NoqaDirective &out = found.emplace_back();
    out.start = offset + hash;
    out.end = offset + k;
    const std::size_t colon = skipSpaces(comment, k);
    if (colon < comment.size() && comment[colon] == ':') {
      std::size_t i = skipSpaces(comment, colon + 1);
      for (;;) {
        const std::size_t n = codeLength(comment, i);
        if (n == 0) break;
        out.codes.push_back({std::string(comment.substr(i, n)), offset + i, offset + i + n, false});
        out.end = offset + i + n;
        i += n;
        std::size_t next = skipSpaces(comment, i);
        if (next < comment.size() && comment[next] == ',') next = skipSpaces(comment, next + 1);
        i = next;
      }
      out.blanket = out.codes.empty();
    }
    hash = out.end - offset - 1; // the next directive starts after this one
  }
  return found;
}

bool onReservedWord(std::string_view text, std::size_t start, std::size_t end) {
  if (end > text.size() || end < start + 5) return false;
  const std::string_view word = text.substr(end - 5, 5);
  return (word == "async" || word == "await") && (end - 5 == start || !isAlnum(text[end - 6]));
}

bool suppressedOnlyByCode(const Diagnostic &d, std::string_view text, const Config &config) {
  return config.keywordsReserved() && onReservedWord(text, d.start, d.end);
}

Suppressions collectSuppressions(const Document &doc, const std::vector<TSNode> &comments) {
  Suppressions s;
  const std::string_view text = doc.text();
  // The header: comments before the module's first statement.
  std::size_t firstCode = text.size();
  for (std::size_t i = 0, n = DocumentInternals::statementSpans(doc).size(); i < n; ++i) {
    const TSNode child = DocumentInternals::statement(doc, i);
    if (ts_node_is_named(child) && ts_node_symbol(child) != Kinds::get().comment) {
      firstCode = ts_node_start_byte(child);
      break;
    }
  }
  for (const TSNode c : comments) {
    const std::string_view body = textOf(c, text);
    if (!mentionsSuppression(body)) continue;
    const bool header = ts_node_start_byte(c) < firstCode;
    const std::size_t at = body.find("asyncfix:");
    if (header && at != std::string_view::npos && skipSpaces(body, at + 9) == body.find("skip-file", at)) {
      s.skipFile = true;
      continue;
    }
    const std::size_t commentStart = ts_node_start_byte(c);
    // The end of the line's content: tree-sitter ends a comment after the "\r" of a CRLF.
    const std::size_t commentEnd =
        std::min<std::size_t>(ts_node_end_byte(c), doc.lines().lineEnd(doc.lines().lineOf(commentStart)));
    for (NoqaDirective &d : parseNoqa(body, commentStart)) {
      d.commentStart = commentStart;
      d.commentEnd = commentEnd;
      const bool asyncfixForm = text.substr(d.start, d.end - d.start).find("asyncfix:") != std::string_view::npos;
      if (header && asyncfixForm) {
        if (d.blanket) s.fileAll = true;
        for (const NoqaCode &code : d.codes) s.fileCodes.push_back(code.code);
        continue;
      }
      coverage(doc.lines(), c, d);
      s.directives.push_back(std::move(d));
    }
  }
  return s;
}

Suppressions headerSuppressions(std::string_view text) {
  // The header's lines: blank, or a comment (a `#` after indentation). A line continued with a
  // backslash or anything else ends it, so the text parsed holds comments alone.
  std::size_t end = 0;
  for (std::size_t at = text.starts_with("\xEF\xBB\xBF") ? 3 : 0; at < text.size();) {
    const std::size_t lineEnd = std::min(text.find_first_of("\r\n", at), text.size());
    const std::size_t first = text.find_first_not_of(" \t\f", at);
    if (first < lineEnd && text[first] != '#') break;
    at = lineEnd;
    if (at < text.size()) at += text.compare(at, 2, "\r\n") == 0 ? 2 : 1;
    end = at;
  }
  if (text.substr(0, end).find("asyncfix") == std::string_view::npos) return {};
  const Document header{std::string(text.substr(0, end))};
  std::vector<TSNode> comments;
  for (std::size_t i = 0, n = DocumentInternals::statementSpans(header).size(); i < n; ++i)
    if (const TSNode node = DocumentInternals::statement(header, i); ts_node_symbol(node) == Kinds::get().comment)
      comments.push_back(node);
  Suppressions s = collectSuppressions(header, comments);
  s.directives.clear();
  return s;
}

namespace {

Diagnostic unusedCode(const RuleInfo &rule, const NoqaDirective &d, std::size_t index, std::string message,
                      std::string_view text) {
  const NoqaCode &code = d.codes[index];
  Diagnostic diag;
  diag.code = rule.code;
  diag.name = rule.name;
  diag.severity = Severity::Warning;
  diag.message = std::move(message);
  diag.start = code.start;
  diag.end = code.end;
  TextEdit edit;
  if (d.codes.size() == 1) {
    // The directive goes. A comment that was only the directive goes whole, with the blanks
    // before it; one that goes on after it keeps its `#`; one that held it after other text
    // loses the directive and the blanks before it.
    std::size_t from = d.start;
    while (from > 0 && (text[from - 1] == ' ' || text[from - 1] == '\t')) --from;
    const std::size_t rest = text.find_first_not_of(" \t", d.end);
    if (d.start != d.commentStart) edit = {from, d.end, ""};
    else if (d.end == d.commentEnd) edit = {from, d.commentEnd, ""};
    else if (rest < d.commentEnd && text[rest] == '#') edit = {d.start, rest, ""}; // `# type: ignore` follows
    else edit = {d.start + 1, d.end, ""};
  } else if (index + 1 < d.codes.size()) {
    edit = {code.start, d.codes[index + 1].start, ""};
  } else {
    edit = {d.codes[index - 1].end, code.end, ""};
  }
  diag.fix = Fix{"Remove `" + code.code + "` from the `noqa` comment", Applicability::Safe, {edit}};
  return diag;
}

} // namespace

void applySuppressions(const Document &doc, Suppressions &s, const Config &config,
                       std::vector<Diagnostic> &diagnostics) {
  if (s.skipFile) {
    diagnostics.clear();
    return;
  }
  const LineIndex &lines = doc.lines();
  std::erase_if(diagnostics, [&](const Diagnostic &d) {
    if (std::find(s.fileCodes.begin(), s.fileCodes.end(), d.code) != s.fileCodes.end()) return true;
    // A syntax error on the target: only a directive that names the code hides it.
    const bool blanketHides = !suppressedOnlyByCode(d, doc.text(), config);
    bool suppressed = s.fileAll && blanketHides;
    const std::uint32_t line = lines.lineOf(d.start);
    for (NoqaDirective &dir : s.directives) {
      if (line < dir.firstLine || line > dir.lastLine) continue;
      if (dir.blanket && blanketHides) suppressed = true;
      for (NoqaCode &code : dir.codes)
        if (code.code == d.code) code.used = suppressed = true;
    }
    return suppressed;
  });

  if (s.fileAll) return; // the header's blanket `# asyncfix: noqa` also silences AF900
  const RuleInfo *unused = findRule("AF900");
  if (!unused || !config.rules.enables(unused->code)) return;
  for (const NoqaDirective &dir : s.directives) {
    for (std::size_t i = 0; i < dir.codes.size(); ++i) {
      const NoqaCode &code = dir.codes[i];
      if (!code.code.starts_with("AF")) continue; // another tool's code: not ours to judge
      const RuleInfo *rule = findRule(code.code);
      if (!rule)
        diagnostics.push_back(unusedCode(*unused, dir, i, "Unknown code `" + code.code + "` in `noqa`", doc.text()));
      else if (!code.used && config.rules.enables(rule->code))
        diagnostics.push_back(unusedCode(
            *unused, dir, i, "Unused `noqa` code `" + code.code + "` (nothing to suppress here)", doc.text()));
    }
  }
}

} // namespace asyncfix
