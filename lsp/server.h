// lsp/server.h — the language server: one short handler per LSP method, on top of the engine.
//
// Single-threaded and deterministic: messages are handled one at a time in arrival order. Work
// that can wait (publishing diagnostics after an edit) is done when no message is pending, so a
// burst of keystrokes is linted once. Long requests (asyncfix.fixWorkspace, workspace/diagnostic)
// read the messages that arrived meanwhile between two files, so $/cancelRequest and shutdown
// stop them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "asyncfix/line_index.h"
#include "dispatcher.h"
#include "logger.h"
#include "protocol.h"
#include "transport.h"
#include "workspace.h"

namespace asyncfix::lsp {

struct CodeActionScope;

/// The hover text of a finding: its code, name and message, and the rule's documentation.
std::string hoverText(const asyncfix::Diagnostic &d);

class Server {
public:
  Server(Transport &transport, Logger &log);
  ~Server();
  Server(const Server &) = delete;
  Server &operator=(const Server &) = delete;

  /// Serves until `exit` or the end of the input; returns the process exit code (0 after a
  /// clean shutdown, 1 otherwise).
  int run();
  /// Handles every message available now, then the deferred work (tests, step by step).
  void drain();
  /// What the loop does once the client has been quiet for kQuietMs: documents whose tree was
  /// re-parsed incrementally after broken states are parsed afresh (tree-sitter's recovery may
  /// differ from a fresh parse, which is what the CLI sees), and their diagnostics published
  /// again if they changed. Off the keystroke path: a keystroke never waits for a full parse.
  void settle();
  static constexpr int kQuietMs = 400;
  bool exited() const { return exited_; }
  int exitCode() const { return shutdownRequested_ ? 0 : 1; }

  Workspace &workspace() { return workspace_; }
  PositionEncoding encoding() const { return encoding_; }

private:
  // lifecycle
  InitializeResult onInitialize(const InitializeParams &params);
  void onInitialized(const NoParams &);
  Null onShutdown(const NoParams &);
  void onExit(const NoParams &);
  // text synchronization
  void onDidOpen(const DidOpenTextDocumentParams &params);
  void onDidChange(const DidChangeTextDocumentParams &params);
  void onDidClose(const DidCloseTextDocumentParams &params);
  void onDidSave(const DidSaveTextDocumentParams &params);
  // notebooks (server_notebooks.cpp)
  void onDidOpenNotebook(const DidOpenNotebookDocumentParams &params);
  void onDidChangeNotebook(const DidChangeNotebookDocumentParams &params);
  void onDidSaveNotebook(const DidSaveNotebookDocumentParams &params);
  void onDidCloseNotebook(const DidCloseNotebookDocumentParams &params);
  void publishNotebook(OpenNotebook &notebook);
  /// A cell's findings: copies with offsets in the cell's text, and their index in the
  /// notebook's virtual document's findings. Findings on boundary lines are left out.
  std::vector<std::pair<asyncfix::Diagnostic, std::size_t>> cellFindings(OpenNotebook &notebook, std::size_t cell);
  /// The edits, per cell, that make the notebook's virtual text `after`; nullopt when they would
  /// touch IPython syntax or a cell boundary (as the CLI refuses to write such a fix).
  std::optional<WorkspaceEdit> notebookEdit(OpenNotebook &notebook, const std::string &after) const;
  std::vector<CodeAction> notebookCodeActions(OpenNotebook &notebook, std::size_t cell, const CodeActionParams &params);
  std::optional<Hover> notebookHover(OpenNotebook &notebook, std::size_t cell, const TextDocumentPositionParams &params);
  // workspace
  void onDidChangeConfiguration(const DidChangeConfigurationParams &params);
  void onDidChangeWorkspaceFolders(const DidChangeWorkspaceFoldersParams &params);
  void onDidChangeWatchedFiles(const DidChangeWatchedFilesParams &params);
  void onExecuteCommand(const ExecuteCommandParams &params, Reply<Null> reply);
  // features
  DocumentDiagnosticReport onDocumentDiagnostic(const DocumentDiagnosticParams &params);
  void onWorkspaceDiagnostic(const WorkspaceDiagnosticParams &params, Reply<WorkspaceDiagnosticReport> reply);
  std::vector<CodeAction> onCodeAction(const CodeActionParams &params);
  CodeAction onCodeActionResolve(const CodeAction &action);
  std::optional<Hover> onHover(const TextDocumentPositionParams &params);
  std::optional<Hover> hoverAt(const std::vector<asyncfix::Diagnostic> &diagnostics, const LineIndex &lines,
                               std::size_t offset) const;

  // diagnostics
  DocumentDiagnosticReport documentReport(OpenDocument &doc, const std::optional<std::string> &previous);
  std::optional<DocumentDiagnosticReport> diskReport(const std::filesystem::path &path,
                                                     const std::optional<std::string> &previous);
  // code actions
  void pickFindings(const CodeActionParams &params, CodeActionScope &scope) const;
  lsp::Diagnostic diagnosticFor(const CodeActionScope &scope, std::size_t i) const;
  void addQuickFixes(const CodeActionScope &scope, std::vector<CodeAction> &actions);
  void addFixAllActions(const CodeActionScope &scope, std::vector<CodeAction> &actions);
  void addNoqaActions(const CodeActionScope &scope, std::vector<CodeAction> &actions);
  void addSourceFixAll(const CodeActionScope &scope, std::vector<CodeAction> &actions);

  // helpers
  void idle();
  void applySettings();
  void refreshDiagnostics();
  void reportProblems();
  void publish(OpenDocument &doc);
  void showMessage(MessageType type, const std::string &message);
  void fixWorkspace(Reply<Null> reply, std::optional<ProgressToken> token);
  void progress(const std::optional<ProgressToken> &token, WorkDoneProgress value);
  std::vector<lsp::Diagnostic> toLsp(const std::vector<asyncfix::Diagnostic> &diagnostics, const LineIndex &lines,
                                     std::int64_t version) const;
  Range toRange(const LineIndex &lines, std::size_t start, std::size_t end) const;
  std::size_t toOffset(const LineIndex &lines, const Position &position) const;
  std::vector<lsp::TextEdit> toLspEdits(const LineIndex &lines, const std::vector<asyncfix::TextEdit> &edits) const;
  WorkspaceEdit documentEdit(const OpenDocument &doc, const std::vector<asyncfix::TextEdit> &edits) const;
  std::optional<WorkspaceEdit> fixAllEdit(OpenDocument &doc, const std::optional<std::string> &code, bool unsafe);

  Transport &transport_;
  Logger &log_;
  Dispatcher dispatcher_;
  Workspace workspace_;
  ClientCapabilities client_;
  PositionEncoding encoding_ = PositionEncoding::Utf16;
  bool pull_ = false; ///< the client pulls diagnostics: never push them
  Settings initOptions_;
  Settings changedSettings_;
  bool shutdownRequested_ = false;
  bool exited_ = false;
  std::int64_t progressTokens_ = 0;
};

} // namespace asyncfix::lsp
