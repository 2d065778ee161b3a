// lsp/server_documents.cpp — the Server's handlers for open documents: text synchronization
// (didOpen/didChange/didClose/didSave), what is published for a document (pushed, or pulled with
// textDocument/diagnostic and workspace/diagnostic), and hover. A notebook's cells are
// server_notebooks.cpp's; code actions server_code_actions.cpp's.
#include <algorithm>
#include <system_error>

#include "asyncfix/project_view.h"
#include "asyncfix/rules.h"
#include "server.h"
#include "uri.h"

namespace asyncfix::lsp {
namespace fs = std::filesystem;

std::string hoverText(const asyncfix::Diagnostic &d, std::string_view docsUrl) {
  const RuleInfo *rule = findRule(d.code);
  std::string text = "**" + std::string(d.code) + "** `" + std::string(d.name) + "`: " + d.message + "\n\n";
  if (rule)
    text += std::string(rule->doc) + "\n[" + std::string(d.code) + " documentation](" + ruleUrl(*rule, docsUrl) + ")\n";
  return text;
}

// ---- text synchronization ----

void Server::onDidOpen(const DidOpenTextDocumentParams &params) {
  const TextDocumentItem &item = params.textDocument;
  OpenDocument &doc = workspace_.open(item.uri, item.version, item.text);
  publishLater(doc);
  if (doc.path) noteFile(*doc.path);
  lookUpModule(doc);
}

void Server::onDidChange(const DidChangeTextDocumentParams &params) {
  OpenDocument *doc = workspace_.find(params.textDocument.uri);
  if (!doc) {
    log_.warn("didChange for a document that is not open: " + params.textDocument.uri);
    return;
  }
  const std::int64_t version = params.textDocument.version;
  if (version <= doc->version())
    log_.warn("version " + std::to_string(version) + " of " + doc->uri + " does not follow " +
              std::to_string(doc->version()));
  if (params.contentChanges.empty()) workspace_.renumber(*doc, version);
  for (const TextDocumentContentChangeEvent &change : params.contentChanges) {
    if (!change.range) {
      workspace_.replaceText(*doc, version, change.text);
      continue;
    }
    // Positions past the end of a line or of the document are clamped by LineIndex.
    const LineIndex &lines = doc->doc.lines();
    const std::size_t start = toOffset(lines, change.range->start);
    const std::size_t end = toOffset(lines, change.range->end);
    workspace_.edit(*doc, version, start, std::max(start, end), change.text);
  }
  publishLater(*doc);
}

void Server::onDidClose(const DidCloseTextDocumentParams &params) {
  if (!workspace_.find(params.textDocument.uri)) return;
  workspace_.close(params.textDocument.uri);
  if (!pull_)
    dispatcher_.notify(
        "textDocument/publishDiagnostics",
        PublishDiagnosticsParams{.uri = params.textDocument.uri, .version = std::nullopt, .diagnostics = {}});
}

void Server::onDidSave(const DidSaveTextDocumentParams &params) {
  OpenDocument *doc = workspace_.find(params.textDocument.uri);
  if (doc && params.text && *params.text != doc->doc.text()) {
    log_.warn("the saved text of " + doc->uri + " differs from the synchronized one; using the saved text");
    workspace_.replaceText(*doc, doc->version(), *params.text);
    publishLater(*doc);
  }
  if (doc && doc->path) {
    noteFile(*doc->path);
    // Its header may have come to opt out of AF201, or stopped (ProjectView::build reads it).
    if (ProjectView::mentionsKeywordModule(doc->path->generic_string())) forgetWorkspaceProject();
  }
  if (const auto path = uriToPath(params.textDocument.uri); path && isConfigFile(*path)) {
    workspace_.reloadConfigFiles();
    refreshDiagnostics();
  } else {
    lookUpModules(); // a file saved may take a module's new name, or free it
  }
}

// ---- publishing ----

void Server::publish(OpenDocument &doc) {
  doc.published();
  dispatcher_.notifyText("textDocument/publishDiagnostics",
                         toJSONText(PublishDiagnosticsParams{
                             .uri = doc.uri, .version = doc.version(), .diagnostics = shownFindings(doc)}));
}

std::vector<lsp::Diagnostic> Server::shownFindings(const OpenDocument &doc) const {
  const std::vector<asyncfix::Diagnostic> &findings = doc.current()->diagnostics;
  std::vector<lsp::Diagnostic> shown = toLsp(findings, doc.doc.lines(), doc.version());
  // The lines a message names ("the DataLoader on line 5"), as places the editor links to.
  if (client_.relatedInformation)
    for (std::size_t i = 0; i < findings.size(); ++i)
      for (const LineReference &ref : findings[i].lineReferences)
        shown[i].relatedInformation.push_back({.uri = doc.uri,
                                               .range = toRange(doc.doc.lines(), ref.offset, ref.offset),
                                               .message = std::string(ref.what)});
  if (doc.moduleFindings.empty()) return shown;
  std::vector<lsp::Diagnostic> all = moduleItems(doc);
  all.insert(all.end(), std::make_move_iterator(shown.begin()), std::make_move_iterator(shown.end()));
  return all;
}

// ---- diagnostics ----

void Server::onDocumentDiagnostic(const DocumentDiagnosticParams &params,
                                  const Reply<DocumentDiagnosticReport> &reply) {
  catchUp();
  answerWhenCurrent(params.textDocument.uri, params.previousResultId, reply);
}

/// Answers a pull with the findings of the document's (or cell's) current version, at once or
/// once the worker has made them.
void Server::answerWhenCurrent(const std::string &uri, const std::optional<std::string> &previous,
                               const Reply<DocumentDiagnosticReport> &reply) {
  if (reply.cancelled()) return reply.error(ErrorCode::RequestCancelled, "request cancelled");
  OpenDocument *doc = workspace_.find(uri);
  OpenNotebook *nb = doc ? nullptr : workspace_.notebookOfCell(uri);
  if (nb) doc = nb->virtualDoc.get();
  if (!doc) return reply({false, "closed", {}}); // nothing known about it: an empty report
  if (!doc->current())
    return doc->waiting.push_back({[reply] { return reply.cancelled(); },
                                   [this, uri, previous, reply] { answerWhenCurrent(uri, previous, reply); }});
  // A cell's findings are pushed to every client (VS Code's language client 9 never pulls
  // cells); its pull gets an empty report, so a client that does both shows them once.
  if (nb) return reply({false, "pushed", {}});
  reply(documentReport(*doc, previous));
}

/// The report of an open document; its result id changes with every edit and configuration change.
DocumentDiagnosticReport Server::documentReport(OpenDocument &doc, const std::optional<std::string> &previous) {
  DocumentDiagnosticReport report;
  report.resultId = std::to_string(doc.stamp());
  if (previous == report.resultId) report.unchanged = true;
  else report.items = shownFindings(doc);
  return report;
}

/// The report of a file that is not open, read from disk; its result id is the configuration
/// generation, modification time and size, so an unchanged file is not even read. nullopt for a
/// file that cannot be read or is not UTF-8.
std::optional<DocumentDiagnosticReport> Server::diskReport(const fs::path &path,
                                                           const std::optional<std::string> &previous) {
  std::error_code ec;
  const auto mtime = fs::last_write_time(path, ec);
  const auto size = ec ? 0 : fs::file_size(path, ec);
  if (ec) return std::nullopt;
  DocumentDiagnosticReport report;
  report.resultId = "disk:" + std::to_string(workspace_.configGeneration()) + ":" +
                    std::to_string(static_cast<long long>(mtime.time_since_epoch().count())) + ":" +
                    std::to_string(size);
  if (previous == report.resultId) {
    report.unchanged = true;
    return report;
  }
  const std::optional<std::string> text = readLogged(path, log_);
  if (!text) return std::nullopt;
  report.items = toLsp(workspace_.settingsForPath(path).linter->lint(*text), LineIndex(*text), 0);
  return report;
}

/// The report of an open document for workspace/diagnostic: from the worker's findings when they
/// are current, else from a lint of its text here (a long request: no waiting for the worker).
DocumentDiagnosticReport Server::openReport(OpenDocument &doc, const std::optional<std::string> &previous) {
  if (doc.current()) return documentReport(doc, previous);
  DocumentDiagnosticReport report;
  report.resultId = std::to_string(doc.stamp());
  if (previous == report.resultId) report.unchanged = true;
  else {
    report.items = moduleItems(doc); // first, as shownFindings() has them
    if (doc.doc.text().size() <= workspace_.maxLintBytes) {
      std::vector<lsp::Diagnostic> linted =
          toLsp(workspace_.settingsFor(doc.uri).linter->lint(doc.doc.text()), doc.doc.lines(), doc.version());
      report.items.insert(report.items.end(), std::make_move_iterator(linted.begin()),
                          std::make_move_iterator(linted.end()));
    }
  }
  return report;
}

void Server::onWorkspaceDiagnostic(const WorkspaceDiagnosticParams &params,
                                   const Reply<WorkspaceDiagnosticReport> &reply) {
  catchUp();
  const auto previous = [&](const std::string &uri) -> std::optional<std::string> {
    for (const PreviousResultId &p : params.previousResultIds)
      if (p.uri == uri) return p.value;
    return std::nullopt;
  };
  WorkspaceDiagnosticReport result;
  std::vector<const OpenDocument *> reported;
  for (const fs::path &path : workspace_.pythonFiles()) {
    dispatcher_.pollIncoming(); // a $/cancelRequest that arrived meanwhile counts now
    if (reply.cancelled()) return reply.error(ErrorCode::RequestCancelled, "request cancelled");
    if (OpenDocument *doc = workspace_.findByPath(path)) {
      reported.push_back(doc);
      result.items.push_back(
          {.uri = doc->uri, .version = doc->version(), .report = openReport(*doc, previous(doc->uri))});
    } else if (const std::string uri = pathToUri(path); auto report = diskReport(path, previous(uri))) {
      result.items.push_back({.uri = uri, .version = std::nullopt, .report = std::move(*report)});
    }
  }
  for (auto &[uri, doc] : workspace_.documents()) // open documents outside the workspace folders
    if (std::find(reported.begin(), reported.end(), &doc) == reported.end())
      result.items.push_back({.uri = uri, .version = doc.version(), .report = openReport(doc, previous(uri))});
  reportProblems();
  reply(result);
}

// ---- hover ----

std::optional<Hover> Server::onHover(const TextDocumentPositionParams &params) {
  catchUp();
  OpenDocument *doc = workspace_.find(params.textDocument.uri);
  if (!doc) {
    if (OpenNotebook *nb = workspace_.notebookOfCell(params.textDocument.uri))
      return notebookHover(*nb, *nb->cellIndex(params.textDocument.uri), params);
    return std::nullopt;
  }
  // At once: the current findings, or the latest ones moved onto the current text (as the
  // editor shows them) while the worker catches up.
  const LineIndex &lines = doc->doc.lines();
  if (const Findings *findings = doc->current())
    return hoverAt(findings->diagnostics, lines, toOffset(lines, params.position));
  return hoverAt(doc->latest(), lines, toOffset(lines, params.position));
}

/// The documentation of the findings (of `diagnostics`, positioned in `lines`' text) under
/// `offset`, one per code; nullopt when there are none.
std::optional<Hover> Server::hoverAt(const std::vector<asyncfix::Diagnostic> &diagnostics, const LineIndex &lines,
                                     std::size_t offset) const {
  std::optional<Hover> hover;
  std::vector<std::string_view> shown;
  for (const asyncfix::Diagnostic &d : diagnostics) {
    const bool inside = (d.start <= offset && offset < d.end) || (d.start == d.end && offset == d.start);
    if (!inside || std::find(shown.begin(), shown.end(), d.code) != shown.end()) continue;
    shown.push_back(d.code);
    if (!hover) {
      hover.emplace();
      hover->contents.kind = client_.hoverMarkdown ? "markdown" : "plaintext";
      hover->range = toRange(lines, d.start, d.end);
    } else {
      hover->contents.value += "\n---\n\n";
    }
    hover->contents.value += hoverText(d, docsUrl_);
  }
  return hover;
}

} // namespace asyncfix::lsp
