#include "asyncfix/suppression.h"

#include <algorithm>

#include "asyncfix/document_internals.h"
#include "asyncfix/linter.h"
#include "config/noqa.h"
#include "text/syntax.h"

namespace asyncfix {
namespace {

/// The line a `# noqa` for the code at `offset` goes on: the offset's own line, unless that line
/// cannot take a comment (it ends inside a string, or with a `\` continuation) — then the last
/// line of the statement, which covers the whole statement.
std::uint32_t placementLine(const Document &doc, std::size_t offset) {
  const LineIndex &lines = doc.lines();
  const std::uint32_t line = lines.lineOf(offset);
  const std::size_t end = lines.lineEnd(line);
  const std::string_view text = doc.text();
  if (!DocumentInternals::parse(doc) || end == lines.lineStart(line)) return line;
  const TSNode last =
      DocumentInternals::nodeAt(doc, static_cast<std::uint32_t>(end - 1), static_cast<std::uint32_t>(end));
  bool open = text[end - 1] == '\\';
  for (TSNode n = last; !open && !ts_node_is_null(n); n = ts_node_parent(n))
    if (ts_node_symbol(n) == Kinds::get().string && ts_node_end_byte(n) > end) open = true;
  if (!open) return line;
  // The statement holding the offset: climb to a child of the module or of a block.
  TSNode n = DocumentInternals::nodeAt(doc, static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(offset));
  for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p)) {
    if (ts_node_symbol(p) == Kinds::get().module || ts_node_symbol(p) == Kinds::get().block) break;
    n = p;
  }
  return lines.lineOf(ts_node_end_byte(n));
}

} // namespace

TextEdit noqaEdit(const Document &doc, std::size_t offset, std::string_view code) {
  const std::uint32_t line = placementLine(doc, offset);
  const std::size_t end = doc.lines().lineEnd(line);
  const std::string_view text = doc.text();
  if (DocumentInternals::parse(doc)) {
    const TSNode last =
        end > doc.lines().lineStart(line)
            ? DocumentInternals::nodeAt(doc, static_cast<std::uint32_t>(end - 1), static_cast<std::uint32_t>(end))
            : TSNode{};
    const std::vector<NoqaDirective> directives = !ts_node_is_null(last) && ts_node_symbol(last) == Kinds::get().comment
                                                      ? parseNoqa(textOf(last, text), ts_node_start_byte(last))
                                                      : std::vector<NoqaDirective>{};
    const auto names = [&](const NoqaDirective &d) {
      return std::any_of(d.codes.begin(), d.codes.end(), [&](const NoqaCode &c) { return c.code == code; });
    };
    // A blanket `# noqa` here covers the finding (this is its line, or its statement's last): if
    // the finding is reported, the blanket one did not hide it — a syntax error on the target,
    // which only a named code hides. So only a directive naming the code counts.
    if (std::any_of(directives.begin(), directives.end(), names)) return {end, end, ""}; // already suppressed
    // Extend the last directive that names codes; a blanket one stays as it is (written for another
    // tool, it keeps meaning "everything" there), and the code gets a directive of its own.
    for (auto d = directives.rbegin(); d != directives.rend(); ++d)
      if (!d->blanket) return {d->end, d->end, ", " + std::string(code)};
  }
  return {end, end, "  # noqa: " + std::string(code)};
}

std::string addNoqa(const Linter &linter, std::string_view text, std::size_t *added) {
  if (added) *added = 0;
  if (!linter.mayHaveFindings(text)) return std::string(text);
  Document doc{std::string(text)};
  std::vector<Diagnostic> diagnostics = linter.lint(doc);
  // Last finding first: an edit at the end of a line never moves the offsets before it.
  std::sort(diagnostics.begin(), diagnostics.end(),
            [](const Diagnostic &a, const Diagnostic &b) { return a.start > b.start; });
  for (const Diagnostic &d : diagnostics) {
    if (d.code == "AF900") continue; // judged after suppression: a noqa cannot silence it
    const TextEdit e = noqaEdit(doc, d.start, d.code);
    if (e.content.empty()) continue; // that line already suppresses the code
    doc.edit(e.start, e.end, e.content);
    if (added) ++*added;
  }
  return doc.text();
}

} // namespace asyncfix
