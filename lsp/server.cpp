// lsp/server.cpp — the Server's construction (the map from each LSP method to its handler), the
// message loop and the Analyzer's findings, the lifecycle (initialize … exit), and the
// conversions between byte offsets and the client's positions. The handlers by area:
// server_documents.cpp, server_code_actions.cpp, server_notebooks.cpp, server_project.cpp,
// server_workspace.cpp.
#include "server.h"

#include <algorithm>
#include <chrono>
#include <system_error>

#include "asyncfix/config.h"
#include "asyncfix/rules.h"
#include "asyncfix/suppression.h"
#include "code_actions.h"
#include "text_diff.h"
#include "uri.h"

#ifndef ASYNCFIX_VERSION
#define ASYNCFIX_VERSION "unknown"
#endif

namespace asyncfix::lsp {
namespace fs = std::filesystem;
namespace {

DiagnosticSeverity severityOf(Severity s) {
  switch (s) {
  case Severity::Error: return DiagnosticSeverity::Error;
  case Severity::Warning: return DiagnosticSeverity::Warning;
  case Severity::Info: return DiagnosticSeverity::Information;
  case Severity::Hint: return DiagnosticSeverity::Hint;
  }
  return DiagnosticSeverity::Error;
}

std::string encodingName(PositionEncoding encoding) {
  switch (encoding) {
  case PositionEncoding::Utf8: return "utf-8";
  case PositionEncoding::Utf16: return "utf-16";
  case PositionEncoding::Utf32: return "utf-32";
  }
  return "utf-16";
}

} // namespace

bool isConfigFile(const fs::path &path) {
  const std::string name = path.filename().string();
  return name == "pyproject.toml" || name == "asyncfix.toml" || name == ".asyncfix.toml";
}

std::optional<std::string> readLogged(const fs::path &path, Logger &log) {
  std::string why;
  std::optional<std::string> text = readPythonFile(path, &why);
  if (!text) log.warn(why);
  return text;
}

Server::Server(Transport &transport, Logger &log) : transport_(transport), log_(log), dispatcher_(transport, log) {
  // The map from each method to its handler, grouped by the file that holds the handlers.
  Dispatcher &d = dispatcher_;
  // lifecycle (this file)
  d.bind("initialize", this, &Server::onInitialize);
  d.bindNotification("initialized", this, &Server::onInitialized);
  d.bind("shutdown", this, &Server::onShutdown);
  d.bindNotification("exit", this, &Server::onExit);
  // documents (server_documents.cpp): text synchronization, diagnostics, hover
  d.bindNotification("textDocument/didOpen", this, &Server::onDidOpen);
  d.bindNotification("textDocument/didChange", this, &Server::onDidChange);
  d.bindNotification("textDocument/didClose", this, &Server::onDidClose);
  d.bindNotification("textDocument/didSave", this, &Server::onDidSave);
  d.bindAsync("textDocument/diagnostic", this, &Server::onDocumentDiagnostic);
  d.bindAsync("workspace/diagnostic", this, &Server::onWorkspaceDiagnostic);
  d.bind("textDocument/hover", this, &Server::onHover);
  // code actions (server_code_actions.cpp; a notebook's in server_notebooks.cpp, the module
  // rename in server_project.cpp)
  d.bindAsync("textDocument/codeAction", this, &Server::onCodeAction);
  d.bindAsync("codeAction/resolve", this, &Server::onCodeActionResolve);
  // notebooks (server_notebooks.cpp)
  d.bindNotification("notebookDocument/didOpen", this, &Server::onDidOpenNotebook);
  d.bindNotification("notebookDocument/didChange", this, &Server::onDidChangeNotebook);
  d.bindNotification("notebookDocument/didSave", this, &Server::onDidSaveNotebook);
  d.bindNotification("notebookDocument/didClose", this, &Server::onDidCloseNotebook);
  // workspace (server_workspace.cpp): settings, folders, watched files, commands
  d.bindNotification("workspace/didChangeConfiguration", this, &Server::onDidChangeConfiguration);
  d.bindNotification("workspace/didChangeWorkspaceFolders", this, &Server::onDidChangeWorkspaceFolders);
  d.bindNotification("workspace/didChangeWatchedFiles", this, &Server::onDidChangeWatchedFiles);
  d.bindAsync("workspace/executeCommand", this, &Server::onExecuteCommand);
  // Errors and warnings also go to the client's log (an editor's output panel), once it can
  // receive notifications.
  log_.setForward([this](LogLevel level, std::string_view message) {
    if (dispatcher_.state() != Dispatcher::State::Running) return;
    dispatcher_.notify("window/logMessage",
                       LogMessageParams{.type = level == LogLevel::Error ? MessageType::Error : MessageType::Warning,
                                        .message = std::string(message)});
  });
  // What failed on the worker (handed over on this thread): an error for the log and the client.
  workspace_.analyzer().setErrorSink([this](const std::string &message) { log_.error("analysis: " + message); });
}

Server::~Server() {
  log_.setForward(nullptr);
  fixStop_->store(true);
  if (fixThread_.joinable()) fixThread_.join(); // its main tasks are never run: the loop is over
}

// ---- the message loop ----

int Server::run() {
  if (!inlineAnalysis) workspace_.analyzer().start(quietMs);
  // Inline (no threads: the WebAssembly build, docs/wasm.md), this loop settles the documents
  // itself, once the client has been quiet for quietMs, as the settler thread would: a settle
  // is a fresh parse and lint of a whole document, and between two keystrokes it would hold up
  // the second one. A message that arrives while it runs stops it (settleUntilInput()). Set when
  // a message was handled since the last settle, or the last settle was stopped.
  bool unsettled = false;
  while (!exited_) {
    catchUp();
    if (!transport_.hasPending() && !dispatcher_.hasQueued()) {
      idle();
      if (workspace_.analyzer().threaded()) {
        // Until a message arrives or the worker has findings or answers to hand over.
        if (!transport_.hasPending()) transport_.waitPending(-1, workspace_.analyzer().wakeFd());
      } else if (unsettled) {
        if (!transport_.waitPending(quietMs)) unsettled = !settleUntilInput();
      } else {
        transport_.waitPending(-1);
      }
      continue;
    }
    std::optional<std::string> body = dispatcher_.takeQueued();
    if (!body) body = transport_.read();
    if (!body) {
      log_.info("end of input without exit");
      break;
    }
    dispatcher_.handle(*body);
    unsettled = true;
  }
  return exitCode();
}

void Server::drain() {
  while (!exited_) {
    std::optional<std::string> body = dispatcher_.takeQueued();
    if (!body && transport_.hasPending()) body = transport_.read();
    if (!body) break;
    dispatcher_.handle(*body);
  }
  if (!exited_) idle();
}

void Server::settle() {
  workspace_.analyzer().settle();
  idle();
}

bool Server::settleUntilInput() {
  // Looking costs a system call (under WASI, a call into JavaScript), and a fresh parse asks
  // every few microseconds: the transport is asked at most every millisecond.
  constexpr auto kLookEvery = std::chrono::milliseconds(1);
  const auto start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point next{};
  int asked = 0, looked = 0;
  const bool done = workspace_.analyzer().settle([&] {
    ++asked;
    const auto now = std::chrono::steady_clock::now();
    if (now < next) return false;
    next = now + kLookEvery;
    ++looked;
    return transport_.hasPending();
  });
  if (log_.enabled(LogLevel::Debug)) {
    const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    log_.debug(std::string(done ? "settled" : "settle stopped: a message is waiting") + " after " + std::to_string(ms) +
               " ms (asked " + std::to_string(asked) + " times, looked " + std::to_string(looked) + ")");
  }
  idle();
  return done;
}

void Server::catchUp() {
  workspace_.analyzer().runQueued(); // inline mode only
  workspace_.analyzer().deliver(
      [this](Analyzer::Id id, std::shared_ptr<const Findings> findings) { onFindings(id, std::move(findings)); });
}

void Server::onFindings(Analyzer::Id id, std::shared_ptr<const Findings> findings) {
  OpenDocument *doc = workspace_.findByAnalysis(id);
  if (!doc) return; // closed meanwhile
  if (!workspace_.accept(*doc, std::move(findings))) return;
  // A settle changed the findings of the current version: tell the client again (notebook cells
  // are always pushed).
  for (auto &[uri, nb] : workspace_.notebooks())
    if (nb.virtualDoc.get() == doc) nb.publishLater();
  if (pull_) refreshWanted_ = true;
  else doc->publishLater();
}

void Server::analyzeThen(OpenDocument &doc, Analyzer::Task task) {
  workspace_.analyzer().post(doc.analysis, std::move(task));
  catchUp(); // inline mode: answered now
}

void Server::idle() {
  catchUp();
  // Pulls the client cancelled while they waited for findings: answered now.
  const auto sweep = [](OpenDocument &doc) {
    std::vector<OpenDocument::Waiting> cancelled;
    for (auto it = doc.waiting.begin(); it != doc.waiting.end();)
      if (it->cancelled()) {
        cancelled.push_back(std::move(*it));
        it = doc.waiting.erase(it);
      } else {
        ++it;
      }
    for (const auto &w : cancelled) w.answer();
  };
  for (auto &[uri, doc] : workspace_.documents()) {
    sweep(doc);
    if (doc.moduleLookUp) lookUpModule(doc);
  }
  for (auto &[uri, nb] : workspace_.notebooks()) sweep(*nb.virtualDoc);
  reportProblems();
  // Published once current: a version the worker skipped (edited again) is never published.
  // Notebook cells are pushed to every client (VS Code's language client 9 does not pull them).
  for (auto &[uri, nb] : workspace_.notebooks())
    if (nb.publishDue()) publishNotebook(nb);
  if (pull_) {
    if (refreshWanted_ && client_.diagnosticRefresh)
      dispatcher_.request<NoParams, Null>("workspace/diagnostic/refresh", NoParams{},
                                          [](const Null *, const LspError *) {});
    refreshWanted_ = false;
    return;
  }
  for (auto &[uri, doc] : workspace_.documents())
    if (doc.publishDue()) publish(doc);
  reportProblems();
}

// ---- lifecycle ----

InitializeResult Server::onInitialize(const InitializeParams &params) {
  client_ = params.capabilities;
  const auto offers = [&](std::string_view name) {
    return std::find(client_.positionEncodings.begin(), client_.positionEncodings.end(), name) !=
           client_.positionEncodings.end();
  };
  encoding_ = offers("utf-8")    ? PositionEncoding::Utf8
              : offers("utf-32") ? PositionEncoding::Utf32
                                 : PositionEncoding::Utf16;
  pull_ = client_.pullDiagnostics;
  if (params.trace) dispatcher_.setTrace(*params.trace);
  for (const WorkspaceFolder &folder : params.workspaceFolders)
    if (const auto path = uriToPath(folder.uri)) workspace_.addFolder(*path);
  if (params.workspaceFolders.empty()) {
    if (params.rootUri) {
      if (const auto path = uriToPath(*params.rootUri)) workspace_.addFolder(*path);
    } else if (params.rootPath && !params.rootPath->empty()) {
      workspace_.addFolder(*params.rootPath);
    }
  }
  initOptions_ = params.initializationOptions;
  applySettings();
  dispatcher_.setState(Dispatcher::State::Running);
  log_.info("initialized for " + params.clientName.value_or("an unnamed client") + ": " + encodingName(encoding_) +
            " positions, " + (pull_ ? "pull" : "push") + " diagnostics");

  InitializeResult result;
  ServerCapabilities &caps = result.capabilities;
  caps.positionEncoding = encodingName(encoding_);
  caps.pullDiagnostics = pull_;
  caps.codeActionResolve = client_.codeActionResolveEdit;
  caps.codeActionKinds = {kQuickFix, kSourceFixAll, kNotebookFixAll};
  caps.commands = {kApplyAutofix, kFixWorkspace};
  result.serverName = "asyncfix";
  result.serverVersion = ASYNCFIX_VERSION;
  return result;
}

void Server::onInitialized(const NoParams &) {
  if (client_.watchedFilesRegistration) {
    RegistrationParams registration;
    registration.id = "asyncfix-config-files";
    registration.watchers = {{"**/pyproject.toml"}, {"**/asyncfix.toml"}, {"**/.asyncfix.toml"}};
    dispatcher_.request<RegistrationParams, Null>(
        "client/registerCapability", registration, [this](const Null *, const LspError *error) {
          if (error) log_.warn(std::string("watching configuration files: ") + error->what());
        });
  }
}

Null Server::onShutdown(const NoParams &) {
  shutdownRequested_ = true;
  fixStop_->store(true); // a workspace fix in progress stops (its request is answered RequestCancelled)
  dispatcher_.setState(Dispatcher::State::ShutDown);
  return {};
}

void Server::onExit(const NoParams &) { exited_ = true; }

// ---- messages to the user ----

void Server::reportProblems() {
  for (const std::string &problem : workspace_.takeProblems()) {
    log_.info("configuration: " + problem); // shown to the user below
    showMessage(MessageType::Warning, "asyncfix configuration: " + problem);
  }
  for (const std::string &notice : workspace_.takeNotices()) {
    log_.info(notice);
    showMessage(MessageType::Info, "asyncfix: " + notice);
  }
}

void Server::showMessage(MessageType type, const std::string &message) {
  dispatcher_.notify("window/showMessage", LogMessageParams{.type = type, .message = message});
}

// ---- conversions: byte offsets ↔ the client's positions, all through LineIndex ----

Range Server::toRange(const LineIndex &lines, std::size_t start, std::size_t end) const {
  const asyncfix::Position s = lines.position(start, encoding_), e = lines.position(end, encoding_);
  return {{s.line, s.column}, {e.line, e.column}};
}

std::size_t Server::toOffset(const LineIndex &lines, const Position &position) const {
  return lines.offset({position.line, position.character}, encoding_);
}

std::vector<lsp::Diagnostic> Server::toLsp(const std::vector<asyncfix::Diagnostic> &diagnostics, const LineIndex &lines,
                                           std::int64_t version) const {
  std::vector<lsp::Diagnostic> out;
  out.reserve(diagnostics.size());
  for (const asyncfix::Diagnostic &d : diagnostics) {
    lsp::Diagnostic item;
    item.range = toRange(lines, d.start, d.end);
    item.severity = severityOf(d.severity);
    item.code = std::string(d.code);
    item.source = "asyncfix";
    item.message = d.message;
    if (const RuleInfo *rule = findRule(d.code)) {
      item.codeDescriptionHref = ruleUrl(*rule, docsUrl_);
      if (rule->deprecatedApi) item.tags.push_back(DiagnosticTag::Deprecated);
    }
    item.data =
        DiagnosticData{.version = version,
                       .start = d.start,
                       .end = d.end,
                       .fix = d.fix ? std::optional<std::string>(toString(d.fix->applicability)) : std::nullopt};
    out.push_back(std::move(item));
  }
  return out;
}

std::vector<lsp::TextEdit> Server::toLspEdits(const LineIndex &lines,
                                              const std::vector<asyncfix::TextEdit> &edits) const {
  std::vector<lsp::TextEdit> out;
  out.reserve(edits.size());
  for (const asyncfix::TextEdit &e : edits) out.push_back({toRange(lines, e.start, e.end), e.content});
  return out;
}

WorkspaceEdit Server::documentEdit(const std::string &uri, std::int64_t version, const LineIndex &lines,
                                   const std::vector<asyncfix::TextEdit> &edits) const {
  WorkspaceEdit edit;
  edit.documentChanges = client_.documentChanges;
  edit.edits.push_back({{uri, version}, toLspEdits(lines, edits)});
  return edit;
}

} // namespace asyncfix::lsp
