// lsp/server.h — the language server: one short handler per LSP method, on top of the engine.
//
// Messages are handled one at a time in arrival order on the message loop, which never parses or
// lints an open document: the Analyzer does, on its worker thread (run()), or inline when the
// tests drive the server step by step (drain()), deterministically. Findings are published as
// the worker makes them, for the newest version only; hover answers at once from the latest
// findings moved onto the current text; code actions and fixes run on the worker at the version
// they were asked for, or are answered ContentModified when the document changed meanwhile.
// asyncfix.fixWorkspace runs `asyncfix check --fix`'s run (asyncfix/run.h) on a thread of its own
// over a snapshot of the open texts, and hands its progress and result to the loop through the
// Analyzer; $/cancelRequest and shutdown stop it. workspace/diagnostic reads the messages that
// arrived meanwhile between two files, so $/cancelRequest and shutdown stop it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "asyncfix/line_index.h"
#include "asyncfix/project_view.h"
#include "dispatcher.h"
#include "logger.h"
#include "protocol.h"
#include "transport.h"
#include "workspace.h"

namespace asyncfix {
class RunProgress;
}

namespace asyncfix::lsp {

struct CodeActionScope;
struct WorkspaceFix;
struct WorkspaceFixOutcome;

/// The workspace's module renames, and what the worker needs to make their edits.
struct WorkspaceProject {
  std::vector<std::string> files; ///< the workspace's Python files, as ProjectView::build saw them
  ProjectView view;
  std::shared_ptr<const ConfigResolver> resolver;
  std::uint64_t configGeneration = 0;
  std::vector<std::filesystem::path> folders;
};

/// What the worker needs to list the workspace's files and make their project view.
struct WorkspaceSource {
  std::vector<std::filesystem::path> folders;
  std::shared_ptr<const ConfigResolver> resolver; ///< thread-safe
  std::uint64_t configGeneration = 0;
};

/// An open document's text, copied for the worker (an open document overrides the disk).
struct OpenText {
  std::string path; ///< normalized
  std::string uri;
  std::int64_t version = 0;
  std::string text; ///< a notebook's: its code cells' virtual text
  bool notebook = false;
};

/// The workspace's project view that decides which module renames to offer, shared by the message
/// loop, which only forgets it (never touching the disk), and the worker, which makes it.
class ProjectCache {
public:
  /// On the worker: the view of `source`'s files, listed again when the configuration or the
  /// folders changed, forget() or noteFile() dropped it, a file it renames came or went, an offered
  /// target appeared, or what took a refused one's name went.
  std::shared_ptr<const WorkspaceProject> get(const WorkspaceSource &source);
  /// Whether the last view made, still of this configuration and these folders, has no module to
  /// rename, refused or not (a refused one is offered once what takes its name goes).
  bool knownEmpty(std::uint64_t configGeneration, const std::vector<std::filesystem::path> &folders);
  void forget();
  /// A file the editor opened or saved: the view is dropped if it lies in a folder and the view
  /// did not list it (a module `async.py` may have just been created; only configuration files
  /// are watched).
  void noteFile(const std::filesystem::path &path, const std::vector<std::filesystem::path> &folders);

private:
  std::mutex mutex_;
  std::shared_ptr<const WorkspaceProject> project_;
  std::uint64_t dropped_ = 0; ///< counts forget() and noteFile()'s drops
};

/// What a code action on an import of the workspace's own module needs on the worker.
struct ModuleRenameRequest {
  WorkspaceSource source; ///< what the worker lists the workspace's files from
  std::vector<OpenText> open;
  std::string path; ///< the document's
};

/// The hover text of a finding: its code, name and message, the rule's documentation and the link
/// to its page under `docsUrl` (ruleUrl(): empty for the default).
std::string hoverText(const asyncfix::Diagnostic &d, std::string_view docsUrl = {});

// What the Server's files share (server.cpp defines them).
inline constexpr const char *kApplyAutofix = "asyncfix.applyAutofix";
inline constexpr const char *kFixWorkspace = "asyncfix.fixWorkspace";
/// pyproject.toml, asyncfix.toml or .asyncfix.toml: a configuration file.
bool isConfigFile(const std::filesystem::path &path);
/// readPythonFile(), its failure logged.
std::optional<std::string> readLogged(const std::filesystem::path &path, Logger &log);

class Server {
public:
  Server(Transport &transport, Logger &log);
  ~Server();
  Server(const Server &) = delete;
  Server &operator=(const Server &) = delete;

  /// The address of the manual for the links to rule pages (`--docs-url`); the `docsUrl` setting
  /// wins over it. Empty: defaultDocsUrl().
  void setDocsUrl(std::string url);

  /// Serves until `exit` or the end of the input, with the Analyzer on its worker thread (or on
  /// this one: inlineAnalysis, a host without threads); returns the process exit code (0 after a
  /// clean shutdown, 1 otherwise).
  int run();
  /// Handles every message available now, then the deferred work, all on this thread (tests,
  /// step by step).
  void drain();
  /// What the settler thread does once the client has been quiet for kQuietMs (Analyzer::settle):
  /// documents whose results may differ from a fresh parse's (statements parsed on their own,
  /// syntax errors, contained results) are parsed and linted afresh on a copy of the text, and
  /// their diagnostics published again if they changed. For drain()'s tests.
  void settle();
  static constexpr int kQuietMs = 400;
  /// The quiet time run() gives the worker (tests that must not see a settle lengthen it).
  int quietMs = kQuietMs;
  /// run() keeps the Analyzer's work on its own thread, as the WebAssembly build (no threads)
  /// does: tests run that loop natively.
  bool inlineAnalysis = false;
  bool exited() const { return exited_; }
  int exitCode() const { return shutdownRequested_ ? 0 : 1; }

  Workspace &workspace() { return workspace_; }
  PositionEncoding encoding() const { return encoding_; }

private:
  // ---- server.cpp: lifecycle, the message loop and the Analyzer, conversions, messages ----
  InitializeResult onInitialize(const InitializeParams &params);
  void onInitialized(const NoParams &);
  Null onShutdown(const NoParams &);
  void onExit(const NoParams &);
  /// Inline mode: does the queued analysis now; both modes: takes the findings and answers made.
  void catchUp();
  /// Inline mode, once the client has been quiet: settle() until a message arrives (the
  /// transport is asked now and then while a fresh parse and lint run). False when one did: the
  /// documents not settled yet wait for the next quiet period.
  bool settleUntilInput();
  void onFindings(Analyzer::Id id, std::shared_ptr<const Findings> findings);
  /// Runs `task` on the worker at the document's current version (answers on this thread).
  void analyzeThen(OpenDocument &doc, Analyzer::Task task);
  void idle();
  void reportProblems();
  void showMessage(MessageType type, const std::string &message);
  // Byte offsets ↔ the client's positions, all through LineIndex.
  std::vector<lsp::Diagnostic> toLsp(const std::vector<asyncfix::Diagnostic> &diagnostics, const LineIndex &lines,
                                     std::int64_t version) const;
  Range toRange(const LineIndex &lines, std::size_t start, std::size_t end) const;
  std::size_t toOffset(const LineIndex &lines, const Position &position) const;
  std::vector<lsp::TextEdit> toLspEdits(const LineIndex &lines, const std::vector<asyncfix::TextEdit> &edits) const;
  WorkspaceEdit documentEdit(const std::string &uri, std::int64_t version, const LineIndex &lines,
                             const std::vector<asyncfix::TextEdit> &edits) const;

  // ---- server_documents.cpp: text synchronization, publishing, diagnostics, hover ----
  void onDidOpen(const DidOpenTextDocumentParams &params);
  void onDidChange(const DidChangeTextDocumentParams &params);
  void onDidClose(const DidCloseTextDocumentParams &params);
  void onDidSave(const DidSaveTextDocumentParams &params);
  void publish(OpenDocument &doc);
  /// Push clients: `doc`'s diagnostics are to be published once its findings are current (a pull
  /// client asks for them instead).
  void publishLater(OpenDocument &doc) {
    if (!pull_) doc.publishLater();
  }
  /// What is published for `doc`'s current findings: its moduleFindings, then the Analyzer's.
  std::vector<lsp::Diagnostic> shownFindings(const OpenDocument &doc) const;
  void onDocumentDiagnostic(const DocumentDiagnosticParams &params, const Reply<DocumentDiagnosticReport> &reply);
  void onWorkspaceDiagnostic(const WorkspaceDiagnosticParams &params, const Reply<WorkspaceDiagnosticReport> &reply);
  /// The report of an open document whose findings are current.
  DocumentDiagnosticReport documentReport(OpenDocument &doc, const std::optional<std::string> &previous);
  void answerWhenCurrent(const std::string &uri, const std::optional<std::string> &previous,
                         const Reply<DocumentDiagnosticReport> &reply);
  DocumentDiagnosticReport openReport(OpenDocument &doc, const std::optional<std::string> &previous);
  std::optional<DocumentDiagnosticReport> diskReport(const std::filesystem::path &path,
                                                     const std::optional<std::string> &previous);
  std::optional<Hover> onHover(const TextDocumentPositionParams &params);
  std::optional<Hover> hoverAt(const std::vector<asyncfix::Diagnostic> &diagnostics, const LineIndex &lines,
                               std::size_t offset) const;

  // ---- server_code_actions.cpp: quick fixes, fix all, noqa, source.fixAll, resolve (on the worker:
  // const, and no logging but into the scope) ----
  void onCodeAction(const CodeActionParams &params, const Reply<std::vector<CodeAction>> &reply);
  void onCodeActionResolve(const CodeAction &action, const Reply<CodeAction> &reply);
  std::vector<CodeAction> codeActionsAt(const Analyzed &at, const std::string &uri, const CodeActionParams &params,
                                        bool unsafe, std::vector<std::string> &warnings) const;
  void pickFindings(const CodeActionParams &params, CodeActionScope &scope) const;
  lsp::Diagnostic diagnosticFor(const CodeActionScope &scope, std::size_t i) const;
  void addQuickFixes(CodeActionScope &scope, std::vector<CodeAction> &actions) const;
  void addFixAllActions(const CodeActionScope &scope, std::vector<CodeAction> &actions) const;
  void addNoqaActions(const CodeActionScope &scope, std::vector<CodeAction> &actions) const;
  void addSourceFixAll(const CodeActionScope &scope, std::vector<CodeAction> &actions) const;
  std::optional<WorkspaceEdit> fixAllEdit(const Analyzed &at, const std::string &uri,
                                          const std::optional<std::string> &code, bool unsafe) const;

  // ---- server_notebooks.cpp: notebookDocument/*, a notebook's cells published, their code actions
  // and hover ----
  void onDidOpenNotebook(const DidOpenNotebookDocumentParams &params);
  void onDidChangeNotebook(const DidChangeNotebookDocumentParams &params);
  void onDidSaveNotebook(const DidSaveNotebookDocumentParams &params);
  void onDidCloseNotebook(const DidCloseNotebookDocumentParams &params);
  /// The cells' new texts after text changes, as (index in `cells`, cell); computed before the
  /// notebook changes, so that a bad change (InvalidParams) leaves it as it was.
  std::vector<std::pair<std::size_t, OpenNotebook::Cell>>
  editedCells(const std::vector<OpenNotebook::Cell> &cells, const std::vector<NotebookCellTextChange> &changes) const;
  void publishNotebook(OpenNotebook &notebook);
  /// The cell a finding of the virtual document lies in (its index), and the finding in the
  /// cell's offsets; nullopt on a boundary line.
  static std::optional<std::pair<std::size_t, asyncfix::Diagnostic>> inCell(const asyncfix::Diagnostic &finding,
                                                                            const NotebookCells &notebook);
  /// A cell's findings: copies with offsets in the cell's text, and their index in the
  /// notebook's virtual document's findings. Findings on boundary lines are left out.
  static std::vector<std::pair<asyncfix::Diagnostic, std::size_t>>
  cellFindings(const std::vector<asyncfix::Diagnostic> &all, const NotebookCells &notebook, std::size_t cell);
  /// The edits, per cell, that make the notebook's virtual text `after`; nullopt when they would
  /// touch IPython syntax or a cell boundary (as the CLI refuses to write such a fix).
  std::optional<WorkspaceEdit> notebookEdit(const NotebookCells &notebook, const std::string &after) const;
  /// codeAction/resolve of a notebook's "Fix all" (its data names the notebook).
  void resolveNotebookFixAll(OpenNotebook &notebook, const CodeAction &action, const Reply<CodeAction> &reply);
  void notebookCodeActions(OpenNotebook &notebook, std::size_t cell, const CodeActionParams &params,
                           const Reply<std::vector<CodeAction>> &reply);
  std::vector<CodeAction> notebookCodeActionsAt(const Analyzed &at, const NotebookCells &notebook, std::size_t cell,
                                                const CodeActionParams &params, bool unsafe) const;
  std::optional<Hover> notebookHover(OpenNotebook &notebook, std::size_t cell,
                                     const TextDocumentPositionParams &params);

  // ---- server_project.cpp: the workspace-wide rename of the project's modules named
  // `async`/`await` ----
  /// A copy of what listing the workspace needs, for the worker.
  WorkspaceSource workspaceSource();
  void forgetWorkspaceProject();
  /// Works out `doc`'s moduleFindings on the worker when its path names a module `async`/`await`
  /// (clears them otherwise); the answer is published when it differs.
  void lookUpModule(OpenDocument &doc);
  /// Makes `found` what `doc` shows of the project (moduleFindings) and has it published.
  void showModuleFindings(OpenDocument &doc, std::vector<asyncfix::Diagnostic> found);
  /// lookUpModule() for every open document (the workspace, its files or its configuration changed).
  void lookUpModules();
  /// `doc`'s moduleFindings as published: no Deprecated tag, and no fix for a client that is
  /// offered no rename.
  std::vector<lsp::Diagnostic> moduleItems(const OpenDocument &doc) const;
  /// A file the editor opened or saved (ProjectCache::noteFile).
  void noteFile(const std::filesystem::path &path);
  /// For a code action asked for on `doc` that may be on an import of such a module (a finding of
  /// AF001/AF002/AF201 on the lines asked for, or any text with `async`/`await` before its first
  /// lint) or on the first line of the module itself, when the client can rename files and the
  /// workspace is not known to have no such module: what the worker needs to look (its folders,
  /// resolver and the open texts). Null otherwise. It looks at nothing but the document's
  /// findings, text and path, and the memory of the worker's last look; never at the disk.
  std::shared_ptr<const ModuleRenameRequest> moduleRenameRequest(const OpenDocument &doc,
                                                                 const CodeActionParams &params);
  bool mayImportModule(const OpenDocument &doc, const CodeActionParams &params) const;
  /// The open documents' texts and versions, copied for the worker.
  std::vector<OpenText> openTexts();
  /// On the worker: "Rename module `pkg.async` to `pkg.asynchronous` and update its imports" for
  /// each module whose import lies on the lines asked for (its edit, or data for resolve), from
  /// the workspace's project view (ProjectCache::get).
  std::vector<CodeAction> moduleRenameActions(const Analyzed &at, const std::string &uri,
                                              const CodeActionParams &params, const ModuleRenameRequest &request,
                                              bool unsafe, const std::function<bool()> &cancelled) const;
  /// On the worker: the workspace's files listed again (one made since the action was offered
  /// gets its edit), then the text edits of every file that imports the module `module`, then the
  /// RenameFile of each file that is it (one module may be in more than one workspace folder);
  /// nullopt when `cancelled` said so. The edits are those of `asyncfix check --fix`
  /// (ProjectView::importEdits): when its safe fixes would leave some place naming the module (a
  /// suppressed import, a string, an open notebook, whose cells it cannot edit), the rename is
  /// unsafe and `unsafeWhy` says where. Throws LspError when the module is no longer there, one of
  /// its files cannot be renamed, or the rename is unsafe and `unsafe` is false.
  std::optional<WorkspaceEdit> moduleRenameEdit(const WorkspaceSource &source, const std::string &module,
                                                const std::vector<OpenText> &open, bool unsafe,
                                                const std::function<bool()> &cancelled,
                                                std::string *unsafeWhy = nullptr) const;
  void resolveModuleRename(OpenDocument &doc, const CodeAction &action, const Reply<CodeAction> &reply);

  // ---- server_workspace.cpp: settings, folders, watched files, commands ----
  void onDidChangeConfiguration(const DidChangeConfigurationParams &params);
  void onDidChangeWorkspaceFolders(const DidChangeWorkspaceFoldersParams &params);
  void onDidChangeWatchedFiles(const DidChangeWatchedFilesParams &params);
  void onExecuteCommand(const ExecuteCommandParams &params, const Reply<Null> &reply);
  void applySettings();
  void refreshDiagnostics();
  /// asyncfix.fixWorkspace: the run of `asyncfix check --fix` over the workspace folders (the open
  /// documents' texts for theirs) that writes nothing, on fixThread_ (inline in drain()'s tests),
  /// then one workspace/applyEdit.
  void fixWorkspace(const Reply<Null> &reply, const std::optional<ProgressToken> &token);
  /// Off the message loop (const, no logging): the run over `fix`'s snapshot, made into one edit.
  WorkspaceFixOutcome fixWorkspaceRun(const WorkspaceFix &fix, RunProgress &progress) const;
  /// On the message loop: the end of the progress, the log, the edit sent, the answer.
  void finishWorkspaceFix(const WorkspaceFix &fix, WorkspaceFixOutcome outcome);
  void progress(const std::optional<ProgressToken> &token, WorkDoneProgress value);

  Transport &transport_;
  Logger &log_;
  Dispatcher dispatcher_;
  Workspace workspace_;
  ClientCapabilities client_;
  PositionEncoding encoding_ = PositionEncoding::Utf16;
  bool pull_ = false;          ///< the client pulls diagnostics: never push them
  bool refreshWanted_ = false; ///< pull clients: findings changed without an edit (a settle)
  Settings initOptions_;
  Settings changedSettings_;
  std::string commandLineDocsUrl_; ///< setDocsUrl()
  std::string docsUrl_;            ///< what the links use: the `docsUrl` setting, else the command line's
  bool shutdownRequested_ = false;
  bool exited_ = false;
  std::int64_t progressTokens_ = 0;
  std::shared_ptr<ProjectCache> projects_ = std::make_shared<ProjectCache>();
  /// The asyncfix.fixWorkspace running off the loop (threaded mode; one at a time), joined by the
  /// main task that ends it, or by the destructor.
  std::thread fixThread_;
  /// Set by shutdown: a workspace fix still running stops.
  std::shared_ptr<std::atomic<bool>> fixStop_ = std::make_shared<std::atomic<bool>>(false);
};

} // namespace asyncfix::lsp
