// The language server's notebook support (LSP 3.17 notebookDocument/*): a notebook's Python
// cells are linted together as one document, as the CLI lints an .ipynb file; findings, quick
// fixes, fix-all and hover are given per cell, in the cell's own positions.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "asyncfix/suppression.h"
#include "code_actions.h"
#include "server.h"
#include "text_diff.h"

namespace asyncfix::lsp {
namespace {

OpenNotebook::Cell cellOf(const NotebookCell &cell, const std::vector<TextDocumentItem> &items) {
  OpenNotebook::Cell out;
  out.uri = cell.document;
  out.code = cell.kind == 2;
  for (const TextDocumentItem &item : items)
    if (item.uri == cell.document) {
      out.language = item.languageId;
      out.version = item.version;
      out.text = item.text;
    }
  return out;
}

} // namespace

void Server::onDidOpenNotebook(const DidOpenNotebookDocumentParams &params) {
  std::vector<OpenNotebook::Cell> cells;
  for (const NotebookCell &cell : params.notebookDocument.cells)
    cells.push_back(cellOf(cell, params.cellTextDocuments));
  OpenNotebook &nb =
      workspace_.openNotebook(params.notebookDocument.uri, params.notebookDocument.version, std::move(cells));
  nb.publishLater(); // cells are pushed also to clients that pull (see answerWhenCurrent)
}

void Server::onDidChangeNotebook(const DidChangeNotebookDocumentParams &params) {
  OpenNotebook *nb = workspace_.findNotebook(params.notebookDocument.uri);
  if (!nb) {
    log_.warn("notebookDocument/didChange for a notebook that is not open: " + params.notebookDocument.uri);
    return;
  }
  // Validate everything before changing anything: a bad change leaves the notebook as it was.
  if (params.structure) {
    const auto start = static_cast<std::size_t>(params.structure->start);
    const auto count = static_cast<std::size_t>(params.structure->deleteCount);
    if (start > nb->cells.size() || count > nb->cells.size() - start)
      throw LspError(ErrorCode::InvalidParams, "params.change.cells.structure.array: cells " + std::to_string(start) +
                                                   "+" + std::to_string(count) + " of " +
                                                   std::to_string(nb->cells.size()));
  }
  if (!params.structure && params.data.empty()) {
    // Text typed into cells (a keystroke): only the cells typed into are touched, and each one's
    // part of the virtual document is edited in place.
    std::vector<std::pair<std::size_t, OpenNotebook::Cell>> edited = editedCells(nb->cells, params.textContent);
    for (auto &[index, cell] : edited) nb->cells[index] = std::move(cell);
    for (const auto &e : edited) workspace_.syncNotebookCell(*nb, e.first);
    nb->version = params.notebookDocument.version;
    nb->publishLater();
    return;
  }
  std::vector<OpenNotebook::Cell> cells = nb->cells;
  std::vector<std::string> gone; // cells removed (not moved)
  if (params.structure) {
    const auto start = static_cast<std::ptrdiff_t>(params.structure->start);
    const auto count = static_cast<std::ptrdiff_t>(params.structure->deleteCount);
    std::vector<OpenNotebook::Cell> removed(cells.begin() + start, cells.begin() + start + count);
    cells.erase(cells.begin() + start, cells.begin() + start + count);
    std::vector<OpenNotebook::Cell> added;
    for (const NotebookCell &cell : params.structure->cells) {
      OpenNotebook::Cell c = cellOf(cell, params.didOpen);
      // A cell moved within the notebook keeps its text (no didOpen for it).
      for (const OpenNotebook::Cell &old : removed)
        if (old.uri == c.uri && std::none_of(params.didOpen.begin(), params.didOpen.end(),
                                             [&](const TextDocumentItem &i) { return i.uri == c.uri; }))
          c = old, c.code = cell.kind == 2;
      added.push_back(std::move(c));
    }
    cells.insert(cells.begin() + start, added.begin(), added.end());
    for (const OpenNotebook::Cell &old : removed)
      if (std::none_of(cells.begin(), cells.end(), [&](const OpenNotebook::Cell &c) { return c.uri == old.uri; }))
        gone.push_back(old.uri);
  }
  for (const NotebookCell &cell : params.data)
    for (OpenNotebook::Cell &c : cells)
      if (c.uri == cell.document) c.code = cell.kind == 2;
  for (auto &[index, cell] : editedCells(cells, params.textContent)) cells[index] = std::move(cell);
  // The change is valid: the removed cells' diagnostics are cleared.
  for (const std::string &uri : gone)
    dispatcher_.notify("textDocument/publishDiagnostics",
                       PublishDiagnosticsParams{.uri = uri, .version = std::nullopt, .diagnostics = {}});
  nb->cells = std::move(cells);
  nb->version = params.notebookDocument.version;
  workspace_.syncNotebook(*nb);
  nb->publishLater();
}

std::vector<std::pair<std::size_t, OpenNotebook::Cell>>
Server::editedCells(const std::vector<OpenNotebook::Cell> &cells,
                    const std::vector<NotebookCellTextChange> &changes) const {
  std::vector<std::pair<std::size_t, OpenNotebook::Cell>> edited;
  for (const NotebookCellTextChange &change : changes) {
    const auto it = std::find_if(cells.begin(), cells.end(),
                                 [&](const OpenNotebook::Cell &c) { return c.uri == change.document.uri; });
    if (it == cells.end())
      throw LspError(ErrorCode::InvalidParams, "params.change.cells.textContent: no cell " + change.document.uri);
    const auto index = static_cast<std::size_t>(it - cells.begin());
    auto at = std::find_if(edited.begin(), edited.end(), [&](const auto &e) { return e.first == index; });
    if (at == edited.end()) at = edited.insert(edited.end(), {index, *it});
    OpenNotebook::Cell &cell = at->second;
    for (const TextDocumentContentChangeEvent &e : change.changes) {
      if (!e.range) {
        cell.text = e.text;
        continue;
      }
      // A column that falls inside a character (half of a UTF-16 surrogate pair, part of a
      // UTF-8 sequence) or a range that ends before it starts is the client's error: the whole
      // change is refused with InvalidParams, as a bad structure change is. Past the end of a
      // line or of the cell is clamped, as LSP says for text documents.
      const LineIndex lines(cell.text);
      const auto offsetOf = [&](const Position &p, const char *which) {
        const std::size_t offset = toOffset(lines, p);
        if (p.line < lines.lineCount() && offset < lines.lineEnd(p.line) &&
            lines.position(offset, encoding_).column != p.character)
          throw LspError(ErrorCode::InvalidParams, "params.change.cells.textContent: the range's " +
                                                       std::string(which) + " " + std::to_string(p.line) + ":" +
                                                       std::to_string(p.character) + " is inside a character of " +
                                                       change.document.uri);
        return offset;
      };
      const std::size_t s = offsetOf(e.range->start, "start"), t = offsetOf(e.range->end, "end");
      if (t < s)
        throw LspError(ErrorCode::InvalidParams,
                       "params.change.cells.textContent: a range ends before it starts in " + change.document.uri);
      cell.text.replace(s, t - s, e.text);
    }
    cell.version = change.document.version;
  }
  return edited;
}

void Server::onDidSaveNotebook(const DidSaveNotebookDocumentParams &) {}

void Server::onDidCloseNotebook(const DidCloseNotebookDocumentParams &params) {
  OpenNotebook *nb = workspace_.findNotebook(params.notebookDocument.uri);
  if (!nb) return;
  for (const OpenNotebook::Cell &cell : nb->cells)
    dispatcher_.notify("textDocument/publishDiagnostics",
                       PublishDiagnosticsParams{.uri = cell.uri, .version = std::nullopt, .diagnostics = {}});
  workspace_.closeNotebook(params.notebookDocument.uri);
}

std::vector<std::pair<asyncfix::Diagnostic, std::size_t>>
Server::cellFindings(const std::vector<asyncfix::Diagnostic> &all, const NotebookCells &nb, std::size_t cell) {
  std::vector<std::pair<asyncfix::Diagnostic, std::size_t>> out;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (auto d = inCell(all[i], nb); d && d->first == cell) out.emplace_back(std::move(d->second), i);
  return out;
}

std::optional<std::pair<std::size_t, asyncfix::Diagnostic>> Server::inCell(const asyncfix::Diagnostic &finding,
                                                                           const NotebookCells &nb) {
  const auto at = nb.cellAt(finding.start);
  if (!at) return std::nullopt;
  asyncfix::Diagnostic d = finding;
  const std::size_t length = std::min(finding.end - finding.start, nb.cells[at->first].text.size() - at->second);
  d.start = at->second;
  d.end = at->second + length;
  return std::pair{at->first, std::move(d)};
}

void Server::publishNotebook(OpenNotebook &nb) {
  nb.published();
  // Each cell's findings, in one pass over the notebook's.
  std::vector<std::vector<asyncfix::Diagnostic>> byCell(nb.cells.size());
  for (const asyncfix::Diagnostic &finding : nb.virtualDoc->current()->diagnostics)
    if (auto d = inCell(finding, nb)) byCell[d->first].push_back(std::move(d->second));
  for (std::size_t c = 0; c < nb.cells.size(); ++c) {
    OpenNotebook::Cell &cell = nb.cells[c];
    // Markup is not linted; a cell that became markup has its findings cleared once.
    if (!cell.code && !(cell.published && !cell.published->second.empty())) continue;
    // The same version with the same findings: nothing to tell.
    const auto same = [&] {
      const std::vector<PublishedFinding> &was = cell.published->second;
      return cell.published->first == cell.version &&
             std::equal(
                 was.begin(), was.end(), byCell[c].begin(), byCell[c].end(),
                 [](const PublishedFinding &p, const asyncfix::Diagnostic &d) { return p == PublishedFinding(d); });
    };
    if (cell.published && same()) continue;
    const LineIndex lines(cell.text);
    dispatcher_.notifyText("textDocument/publishDiagnostics",
                           toJSONText(PublishDiagnosticsParams{.uri = cell.uri,
                                                               .version = cell.version,
                                                               .diagnostics = toLsp(byCell[c], lines, cell.version)}));
    cell.published.emplace(cell.version, std::vector<PublishedFinding>(byCell[c].begin(), byCell[c].end()));
  }
}

std::optional<WorkspaceEdit> Server::notebookEdit(const NotebookCells &nb, const std::string &after) const {
  if (!nb.layout) return std::nullopt;
  const std::optional<std::string> json = nb.layout->withVirtualText(after);
  if (!json) return std::nullopt;
  const nlohmann::json fixed = nlohmann::json::parse(*json, nullptr, false);
  if (fixed.is_discarded() || !fixed.contains("cells") || fixed["cells"].size() != nb.cells.size()) return std::nullopt;
  WorkspaceEdit edit;
  edit.documentChanges = client_.documentChanges;
  for (std::size_t c = 0; c < nb.cells.size(); ++c) {
    const std::string text = fixed["cells"][c].value("source", std::string());
    if (text == nb.cells[c].text) continue;
    const LineIndex lines(nb.cells[c].text);
    edit.edits.push_back(
        {{nb.cells[c].uri, nb.cells[c].version}, toLspEdits(lines, diffEdits(nb.cells[c].text, text))});
  }
  if (edit.edits.empty()) return std::nullopt;
  return edit;
}

void Server::notebookCodeActions(OpenNotebook &nb, std::size_t cell, const CodeActionParams &params,
                                 const Reply<std::vector<CodeAction>> &reply) {
  const bool unsafe = workspace_.settingsFor(nb.uri).unsafeFixes;
  // What the worker sees of the notebook: its cells as they are now, at this virtual version.
  const std::int64_t version = nb.virtualDoc->version();
  analyzeThen(*nb.virtualDoc,
              [this, cells = NotebookCells(nb), version, cell, params, reply,
               unsafe](const Analyzed *at) -> Analyzer::MainTask {
                if (!at || at->findings.version != version)
                  return [reply] { reply.error(ErrorCode::ContentModified, "the notebook changed"); };
                if (reply.cancelled())
                  return [reply] { reply.error(ErrorCode::RequestCancelled, "request cancelled"); };
                std::vector<CodeAction> actions = notebookCodeActionsAt(*at, cells, cell, params, unsafe);
                return [reply, actions = std::move(actions)] { reply(actions); };
              });
}

std::vector<CodeAction> Server::notebookCodeActionsAt(const Analyzed &at, const NotebookCells &nb, std::size_t cell,
                                                      const CodeActionParams &params, bool unsafe) const {
  std::vector<CodeAction> actions;
  const std::vector<asyncfix::Diagnostic> &all = at.findings.diagnostics;
  const auto findings = cellFindings(all, nb, cell);
  const std::string &virtualText = at.doc.text();
  const LineIndex lines(nb.cells[cell].text);
  const auto wholeFix = [&](bool allowUnsafe, const std::optional<std::string> &code) -> std::optional<WorkspaceEdit> {
    FixOptions options;
    options.unsafe = allowUnsafe;
    if (code) options.filter = [&](const asyncfix::Diagnostic &d) { return d.code == *code; };
    const FixResult result = fix(at.linter, virtualText, options);
    if (!result.changed) return std::nullopt;
    return notebookEdit(nb, result.text);
  };
  if (wanted(params.context.only, kQuickFix)) {
    std::vector<const Fix *> offered;
    std::vector<std::string_view> codes;
    for (const auto &[d, index] : findings) {
      if (lines.lineOf(d.end) < params.range.start.line || lines.lineOf(d.start) > params.range.end.line) continue;
      const asyncfix::Diagnostic &original = all[index];
      const lsp::Diagnostic shown = toLsp({d}, lines, nb.cells[cell].version).front();
      if (std::find(codes.begin(), codes.end(), d.code) == codes.end()) codes.push_back(d.code);
      if (fixAllowed(original, unsafe) &&
          std::none_of(offered.begin(), offered.end(), [&](const Fix *f) { return *f == *original.fix; }) &&
          verifyFix(at.doc, *original.fix)) {
        offered.push_back(&*original.fix);
        if (auto edit = notebookEdit(nb, applyEdits(virtualText, original.fix->edits))) {
          const bool safe = original.fix->applicability == Applicability::Safe;
          CodeAction action;
          action.title = original.fix->title + (safe ? "" : " (unsafe)");
          action.kind = kQuickFix;
          action.diagnostics = {shown};
          action.isPreferred = safe;
          action.edit = std::move(edit);
          actions.push_back(std::move(action));
        }
      }
      if (!at.findings.exact) continue; // a noqa comment waits for the exact findings
      const asyncfix::TextEdit noqa = noqaEdit(at.doc, original.start, original.code);
      if (noqa.start != noqa.end || !noqa.content.empty())
        if (auto edit = notebookEdit(nb, applyEdits(virtualText, {noqa}))) {
          CodeAction action;
          action.title = "Disable " + std::string(d.code) + " for this line";
          action.kind = kQuickFix;
          action.diagnostics = {shown};
          action.edit = std::move(edit);
          actions.push_back(std::move(action));
        }
    }
    for (const std::string_view code : codes) {
      const auto fixable = std::count_if(all.begin(), all.end(), [&](const asyncfix::Diagnostic &x) {
        return x.code == code && fixAllowed(x, unsafe);
      });
      if (fixable < 2) continue;
      CodeAction action;
      action.title = "Fix all " + std::string(code) + " problems in this notebook";
      action.kind = kQuickFix;
      // fix() over the whole notebook costs tens of milliseconds with many findings: a client
      // that resolves `edit` gets it in codeAction/resolve, when the action is picked.
      if (client_.codeActionResolveEdit)
        action.data = CodeActionData{nb.uri, at.findings.version, "fixAll", std::string(code), std::nullopt};
      else if (!(action.edit = wholeFix(unsafe, std::string(code)))) continue;
      actions.push_back(std::move(action));
    }
  }
  for (const char *kind : {kSourceFixAll, kNotebookFixAll}) {
    if (!params.context.only || !wanted(params.context.only, kind)) continue;
    CodeAction action;
    action.title = "Fix all auto-fixable asyncfix problems";
    action.kind = kind;
    if (client_.codeActionResolveEdit) {
      if (std::any_of(all.begin(), all.end(), [](const asyncfix::Diagnostic &d) { return fixAllowed(d, false); })) {
        action.data = CodeActionData{nb.uri, at.findings.version, "sourceFixAll", std::nullopt, std::nullopt};
        actions.push_back(std::move(action));
      }
    } else if ((action.edit = wholeFix(false, std::nullopt))) {
      actions.push_back(std::move(action));
    }
    break; // one fix-all, whichever kind was asked for first
  }
  return actions;
}

void Server::resolveNotebookFixAll(OpenNotebook &nb, const CodeAction &action, const Reply<CodeAction> &reply) {
  const CodeActionData &data = *action.data;
  const auto modified = [reply, version = data.version] {
    reply.error(ErrorCode::ContentModified, "the notebook changed since version " + std::to_string(version));
  };
  if (nb.virtualDoc->version() != data.version) return modified();
  const bool unsafe = data.action == "fixAll" && workspace_.settingsFor(nb.uri).unsafeFixes;
  analyzeThen(
      *nb.virtualDoc,
      [this, cells = NotebookCells(nb), action, reply, modified, unsafe](const Analyzed *at) -> Analyzer::MainTask {
        const CodeActionData &asked = *action.data;
        if (!at || at->findings.version != asked.version) return modified;
        if (reply.cancelled()) return [reply] { reply.error(ErrorCode::RequestCancelled, "request cancelled"); };
        FixOptions options;
        options.unsafe = unsafe;
        if (asked.action == "fixAll" && asked.code)
          options.filter = [&](const asyncfix::Diagnostic &d) { return d.code == *asked.code; };
        const FixResult result = fix(at->linter, at->doc.text(), options);
        CodeAction resolved = action;
        if (result.changed) resolved.edit = notebookEdit(cells, result.text);
        if (!resolved.edit) resolved.edit = WorkspaceEdit{.documentChanges = client_.documentChanges, .edits = {}};
        return [reply, resolved = std::move(resolved)] { reply(resolved); };
      });
}

std::optional<Hover> Server::notebookHover(OpenNotebook &nb, std::size_t cell,
                                           const TextDocumentPositionParams &params) {
  // The current findings, or the latest ones moved onto the current text.
  const OpenDocument &doc = *nb.virtualDoc;
  std::vector<asyncfix::Diagnostic> moved;
  if (!doc.current()) moved = doc.latest();
  std::vector<asyncfix::Diagnostic> findings;
  for (auto &[d, index] : cellFindings(doc.current() ? doc.current()->diagnostics : moved, nb, cell))
    findings.push_back(std::move(d));
  const LineIndex lines(nb.cells[cell].text);
  return hoverAt(findings, lines, toOffset(lines, params.position));
}

} // namespace asyncfix::lsp
