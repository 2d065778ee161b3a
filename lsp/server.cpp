#include "server.h"

#include <algorithm>
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

constexpr const char *kApplyAutofix = "asyncfix.applyAutofix";
constexpr const char *kFixWorkspace = "asyncfix.fixWorkspace";

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

bool isConfigFile(const fs::path &path) {
  const std::string name = path.filename().string();
  return name == "pyproject.toml" || name == "asyncfix.toml" || name == ".asyncfix.toml";
}

/// readPythonFile(), its failure logged.
std::optional<std::string> readLogged(const fs::path &path, Logger &log) {
  std::string why;
  std::optional<std::string> text = readPythonFile(path, &why);
  if (!text) log.warn(why);
  return text;
}

} // namespace

std::string hoverText(const asyncfix::Diagnostic &d) {
  const RuleInfo *rule = findRule(d.code);
  std::string text = "**" + std::string(d.code) + "** `" + std::string(d.name) + "`: " + d.message + "\n\n";
  if (rule) text += std::string(rule->doc) + "\n[" + std::string(d.code) + " documentation](" + ruleUrl(*rule) + ")\n";
  return text;
}

Server::Server(Transport &transport, Logger &log) : transport_(transport), log_(log), dispatcher_(transport, log) {
  Dispatcher &d = dispatcher_;
  d.bind("initialize", this, &Server::onInitialize);
  d.bindNotification("initialized", this, &Server::onInitialized);
  d.bind("shutdown", this, &Server::onShutdown);
  d.bindNotification("exit", this, &Server::onExit);
  d.bindNotification("textDocument/didOpen", this, &Server::onDidOpen);
  d.bindNotification("textDocument/didChange", this, &Server::onDidChange);
  d.bindNotification("textDocument/didClose", this, &Server::onDidClose);
  d.bindNotification("textDocument/didSave", this, &Server::onDidSave);
  d.bindNotification("notebookDocument/didOpen", this, &Server::onDidOpenNotebook);
  d.bindNotification("notebookDocument/didChange", this, &Server::onDidChangeNotebook);
  d.bindNotification("notebookDocument/didSave", this, &Server::onDidSaveNotebook);
  d.bindNotification("notebookDocument/didClose", this, &Server::onDidCloseNotebook);
  d.bindNotification("workspace/didChangeConfiguration", this, &Server::onDidChangeConfiguration);
  d.bindNotification("workspace/didChangeWorkspaceFolders", this, &Server::onDidChangeWorkspaceFolders);
  d.bindNotification("workspace/didChangeWatchedFiles", this, &Server::onDidChangeWatchedFiles);
  d.bindAsync("workspace/executeCommand", this, &Server::onExecuteCommand);
  d.bindAsync("textDocument/diagnostic", this, &Server::onDocumentDiagnostic);
  d.bindAsync("workspace/diagnostic", this, &Server::onWorkspaceDiagnostic);
  d.bindAsync("textDocument/codeAction", this, &Server::onCodeAction);
  d.bindAsync("codeAction/resolve", this, &Server::onCodeActionResolve);
  d.bind("textDocument/hover", this, &Server::onHover);
  // Errors and warnings also go to the client's log (an editor's output panel), once it can
  // receive notifications.
  log_.setForward([this](LogLevel level, std::string_view message) {
    if (dispatcher_.state() != Dispatcher::State::Running) return;
    dispatcher_.notify(
        "window/logMessage",
        LogMessageParams{level == LogLevel::Error ? MessageType::Error : MessageType::Warning, std::string(message)});
  });
  // What failed on the worker (handed over on this thread): an error for the log and the client.
  workspace_.analyzer().setErrorSink([this](const std::string &message) { log_.error("analysis: " + message); });
}

Server::~Server() { log_.setForward(nullptr); }

// ---- the message loop ----

int Server::run() {
  workspace_.analyzer().start(quietMs);
  while (!exited_) {
    catchUp();
    if (!transport_.hasPending() && !dispatcher_.hasQueued()) {
      idle();
      // Until a message arrives or the worker has findings or answers to hand over.
      if (!transport_.hasPending()) transport_.waitPending(-1, workspace_.analyzer().wakeFd());
      continue;
    }
    std::optional<std::string> body = dispatcher_.takeQueued();
    if (!body) body = transport_.read();
    if (!body) {
      log_.info("end of input without exit");
      break;
    }
    dispatcher_.handle(*body);
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
  dispatcher_.setState(Dispatcher::State::ShutDown);
  return {};
}

void Server::onExit(const NoParams &) { exited_ = true; }

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
    dispatcher_.notify("textDocument/publishDiagnostics",
                       PublishDiagnosticsParams{params.textDocument.uri, std::nullopt, {}});
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

// ---- workspace ----

void Server::onDidChangeConfiguration(const DidChangeConfigurationParams &params) {
  changedSettings_ = params.settings;
  applySettings();
  refreshDiagnostics();
}

void Server::onDidChangeWorkspaceFolders(const DidChangeWorkspaceFoldersParams &params) {
  forgetWorkspaceProject();
  for (const WorkspaceFolder &folder : params.removed)
    if (const auto path = uriToPath(folder.uri)) workspace_.removeFolder(*path);
  for (const WorkspaceFolder &folder : params.added)
    if (const auto path = uriToPath(folder.uri)) workspace_.addFolder(*path);
  lookUpModules();
}

void Server::onDidChangeWatchedFiles(const DidChangeWatchedFilesParams &params) {
  forgetWorkspaceProject(); // a module may have come, gone or moved
  const bool configChanged = std::any_of(params.changes.begin(), params.changes.end(), [](const FileEvent &e) {
    const auto path = uriToPath(e.uri);
    return path && isConfigFile(*path);
  });
  if (!configChanged) return lookUpModules();
  workspace_.reloadConfigFiles();
  refreshDiagnostics();
}

/// The editor's settings: initializationOptions, then the last didChangeConfiguration on top
/// (key by key). Invalid values are reported and left out.
void Server::applySettings() {
  std::vector<std::string> problems = initOptions_.problems;
  problems.insert(problems.end(), changedSettings_.problems.begin(), changedSettings_.problems.end());
  const auto pick = [&](auto member) {
    return (changedSettings_.*member) ? (changedSettings_.*member) : (initOptions_.*member);
  };
  const auto selectors = [&](const std::optional<std::vector<std::string>> &list, const char *key) {
    std::optional<std::vector<std::string>> valid;
    if (!list) return valid;
    valid.emplace();
    for (const std::string &entry : *list) {
      RuleSelection probe;
      probe.select = {entry};
      if (probe.unknownEntries().empty()) valid->push_back(entry);
      else problems.push_back(std::string("`") + key + "`: unknown rule selector `" + entry + "`");
    }
    return valid;
  };
  ConfigOverrides overrides;
  overrides.select = selectors(pick(&Settings::select), "select");
  if (auto extend = selectors(pick(&Settings::extendSelect), "extendSelect"))
    overrides.extendSelect = std::move(*extend);
  overrides.ignore = selectors(pick(&Settings::ignore), "ignore");
  if (const auto target = pick(&Settings::targetVersion)) {
    if (const auto version = PythonVersion::parse(*target)) overrides.target = version;
    else problems.push_back("`targetVersion`: `" + *target + "` is not a Python version from py35 to py314");
  }
  if (const auto style = pick(&Settings::renameStyle)) {
    if (auto tmpl = Config::renameTemplateFor(*style)) overrides.renameTemplate = std::move(tmpl);
    else problems.push_back("`renameStyle`: `" + *style + "` is not async_, is_async or a template such as {name}_");
  }
  overrides.unsafeFixes = pick(&Settings::unsafeFixes);
  workspace_.setOverrides(std::move(overrides));
  for (const std::string &problem : problems) {
    log_.info("settings: " + problem); // shown to the user below; not mirrored to logMessage too
    showMessage(MessageType::Warning, "asyncfix settings: " + problem);
  }
}

void Server::refreshDiagnostics() {
  lookUpModules(); // the configuration changed: the module's new name, its rule, its severity
  if (!pull_) {
    for (auto &[uri, doc] : workspace_.documents()) doc.publishLater();
    for (auto &[uri, nb] : workspace_.notebooks()) nb.publishLater();
    return;
  }
  if (client_.diagnosticRefresh)
    dispatcher_.request<NoParams, Null>("workspace/diagnostic/refresh", NoParams{},
                                        [](const Null *, const LspError *) {});
}

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
  dispatcher_.notify("window/showMessage", LogMessageParams{type, message});
}

void Server::publish(OpenDocument &doc) {
  doc.published();
  dispatcher_.notify("textDocument/publishDiagnostics",
                     PublishDiagnosticsParams{doc.uri, doc.version(), shownFindings(doc)});
}

// ---- commands ----

void Server::onExecuteCommand(const ExecuteCommandParams &params, const Reply<Null> &reply) {
  if (params.command != kApplyAutofix && params.command != kFixWorkspace)
    throw LspError(ErrorCode::InvalidParams, "unknown command `" + params.command + "`");
  if (!client_.applyEdit)
    throw LspError(ErrorCode::RequestFailed, "the client cannot apply edits (workspace.applyEdit)");

  if (params.command == kFixWorkspace) {
    std::optional<ProgressToken> token = params.workDoneToken;
    if (token || !client_.workDoneProgress) return fixWorkspace(reply, token);
    token = "asyncfix/fixWorkspace/" + std::to_string(++progressTokens_);
    dispatcher_.request<WorkDoneProgressCreateParams, Null>("window/workDoneProgress/create",
                                                            WorkDoneProgressCreateParams{*token},
                                                            [this, reply, token](const Null *, const LspError *error) {
                                                              fixWorkspace(reply, error ? std::nullopt : token);
                                                            });
    return;
  }

  if (params.arguments.empty()) throw LspError(ErrorCode::InvalidParams, "params.arguments: expected a document URI");
  const CommandArgument &target = params.arguments.front();
  OpenDocument *doc = workspace_.find(target.uri);
  if (!doc) throw LspError(ErrorCode::InvalidParams, "params.arguments[0]: the document is not open: " + target.uri);
  if (target.version && *target.version != doc->version())
    throw LspError(ErrorCode::ContentModified, "the document changed since version " + std::to_string(*target.version));
  const bool unsafe = workspace_.settingsFor(doc->uri).unsafeFixes;
  analyzeThen(*doc, [this, reply, uri = doc->uri, unsafe](const Analyzed *at) -> Analyzer::MainTask {
    if (!at) return [reply] { reply.error(ErrorCode::ContentModified, "the document changed"); };
    std::optional<WorkspaceEdit> edit = fixAllEdit(*at, uri, std::nullopt, unsafe);
    return [this, reply, edit = std::move(edit)]() mutable {
      if (edit) {
        dispatcher_.request<ApplyWorkspaceEditParams, ApplyWorkspaceEditResult>(
            "workspace/applyEdit", ApplyWorkspaceEditParams{"asyncfix: fix all problems", std::move(*edit)},
            [this](const ApplyWorkspaceEditResult *result, const LspError *error) {
              if (error || !result->applied)
                log_.warn("the client did not apply the fixes: " +
                          (error ? std::string(error->what()) : result->failureReason.value_or("no reason given")));
            });
      }
      reply(Null{});
    };
  });
}

void Server::progress(const std::optional<ProgressToken> &token, WorkDoneProgress value) {
  if (token) dispatcher_.notify("$/progress", ProgressParams{*token, std::move(value)});
}

void Server::fixWorkspace(const Reply<Null> &reply, const std::optional<ProgressToken> &token) {
  if (reply.cancelled()) return reply.error(ErrorCode::RequestCancelled, "request cancelled");
  const std::vector<fs::path> files = workspace_.pythonFiles();
  const auto count = static_cast<std::uint32_t>(files.size());
  progress(token, {WorkDoneProgress::Kind::Begin, "asyncfix: fixing the workspace", true,
                   "0/" + std::to_string(count) + " files", 0u});
  WorkspaceEdit edit;
  edit.documentChanges = client_.documentChanges;
  std::size_t fixed = 0;
  std::uint32_t lastPercent = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    dispatcher_.pollIncoming(); // a $/cancelRequest (or shutdown) that arrived meanwhile counts now
    if (reply.cancelled()) {
      progress(token, {WorkDoneProgress::Kind::End, std::nullopt, std::nullopt, "Cancelled", std::nullopt});
      return reply.error(ErrorCode::RequestCancelled, "request cancelled");
    }
    const fs::path &path = files[i];
    OpenDocument *open = workspace_.findByPath(path);
    std::optional<std::string> text = open ? std::optional<std::string>(open->doc.text()) : readLogged(path, log_);
    if (text) {
      const FileSettings settings = workspace_.settingsForPath(path);
      FixOptions options;
      options.unsafe = settings.unsafeFixes;
      const FixResult result = fix(*settings.linter, *text, options);
      if (result.changed) {
        const LineIndex lines(*text);
        edit.edits.push_back(
            {{open ? open->uri : pathToUri(path), open ? std::optional(open->version()) : std::nullopt},
             toLspEdits(lines, diffEdits(*text, result.text))});
        fixed += result.fixedDiagnostics;
      }
    }
    const std::uint32_t percent = (i + 1) * 100 / count;
    if (percent != lastPercent) {
      lastPercent = percent;
      progress(token, {WorkDoneProgress::Kind::Report, std::nullopt, std::nullopt,
                       std::to_string(i + 1) + "/" + std::to_string(count) + " files", percent});
    }
  }
  const std::string summary = "Fixed " + std::to_string(fixed) + (fixed == 1 ? " problem" : " problems") + " in " +
                              std::to_string(edit.edits.size()) + (edit.edits.size() == 1 ? " file" : " files");
  progress(token, {WorkDoneProgress::Kind::End, std::nullopt, std::nullopt, summary, std::nullopt});
  log_.info(summary);
  dispatcher_.notify("window/logMessage", LogMessageParams{MessageType::Info, "asyncfix: " + summary});
  if (!edit.edits.empty()) {
    dispatcher_.request<ApplyWorkspaceEditParams, ApplyWorkspaceEditResult>(
        "workspace/applyEdit", ApplyWorkspaceEditParams{"asyncfix: fix the workspace", std::move(edit)},
        [this](const ApplyWorkspaceEditResult *result, const LspError *error) {
          if (error || !result->applied)
            log_.warn("the client did not apply the fixes: " +
                      (error ? std::string(error->what()) : result->failureReason.value_or("no reason given")));
        });
  }
  reply(Null{});
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
                    std::to_string(mtime.time_since_epoch().count()) + ":" + std::to_string(size);
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
      result.items.push_back({doc->uri, doc->version(), openReport(*doc, previous(doc->uri))});
    } else if (const std::string uri = pathToUri(path); auto report = diskReport(path, previous(uri))) {
      result.items.push_back({uri, std::nullopt, std::move(*report)});
    }
  }
  for (auto &[uri, doc] : workspace_.documents()) // open documents outside the workspace folders
    if (std::find(reported.begin(), reported.end(), &doc) == reported.end())
      result.items.push_back({uri, doc.version(), openReport(doc, previous(uri))});
  reportProblems();
  reply(result);
}

// ---- code actions ----

/// What one code-action request is about: a version of a document, on the worker.
struct CodeActionScope {
  const Analyzed &at;
  const std::string &uri;
  const std::vector<asyncfix::Diagnostic> &all;  ///< the document's findings
  std::vector<std::size_t> picked;               ///< indices into `all`, in order
  std::map<std::size_t, lsp::Diagnostic> echoed; ///< the client's copy of a picked finding
  bool unsafe = false;                           ///< unsafe fixes allowed
  std::vector<std::string> warnings;             ///< for the log, on the message loop
  std::int64_t version() const { return at.findings.version; }
  const LineIndex &lines() const { return at.doc.lines(); }
};

void Server::onCodeAction(const CodeActionParams &params, const Reply<std::vector<CodeAction>> &reply) {
  catchUp();
  OpenDocument *doc = workspace_.find(params.textDocument.uri);
  if (!doc) {
    if (OpenNotebook *nb = workspace_.notebookOfCell(params.textDocument.uri))
      return notebookCodeActions(*nb, *nb->cellIndex(params.textDocument.uri), params, reply);
    return reply({});
  }
  // An import of the workspace's own module `async`, or that module itself: the workspace-wide
  // rename (its module map is made on the worker, from file names, only when such a line is
  // asked about).
  std::shared_ptr<const ModuleRenameRequest> module = moduleRenameRequest(*doc, params);
  // The common case on every cursor move: no findings, answered at once.
  if (const Findings *findings = doc->current(); findings && findings->diagnostics.empty() && !module) return reply({});
  const bool unsafe = workspace_.settingsFor(doc->uri).unsafeFixes;
  analyzeThen(*doc, [this, params, reply, uri = doc->uri, unsafe, module](const Analyzed *at) -> Analyzer::MainTask {
    if (!at) return [reply] { reply.error(ErrorCode::ContentModified, "the document changed"); };
    if (reply.cancelled()) return [reply] { reply.error(ErrorCode::RequestCancelled, "request cancelled"); };
    std::vector<std::string> warnings;
    std::vector<CodeAction> actions = codeActionsAt(*at, uri, params, unsafe, warnings);
    if (module) {
      std::vector<CodeAction> renames =
          moduleRenameActions(*at, uri, params, *module, unsafe, [&reply] { return reply.cancelled(); });
      if (reply.cancelled()) return [reply] { reply.error(ErrorCode::RequestCancelled, "request cancelled"); };
      actions.insert(actions.begin(), std::make_move_iterator(renames.begin()), std::make_move_iterator(renames.end()));
    }
    return [this, reply, actions = std::move(actions), warnings = std::move(warnings)] {
      for (const std::string &warning : warnings) log_.warn(warning);
      reply(actions);
    };
  });
}

std::vector<CodeAction> Server::codeActionsAt(const Analyzed &at, const std::string &uri,
                                              const CodeActionParams &params, bool unsafe,
                                              std::vector<std::string> &warnings) const {
  if (at.findings.diagnostics.empty()) return {};
  CodeActionScope scope{at, uri, at.findings.diagnostics, {}, {}, unsafe, {}};
  pickFindings(params, scope);
  std::vector<CodeAction> actions;
  if (wanted(params.context.only, kQuickFix)) {
    addQuickFixes(scope, actions);
    addFixAllActions(scope, actions);
    // A provisional result (a statement left open; IncrementalLint) offers no fixes, and a noqa
    // comment would need the whole document parsed in its broken state: wait for the exact one.
    if (at.findings.exact) addNoqaActions(scope, actions);
  }
  if (params.context.only && wanted(params.context.only, kSourceFixAll)) addSourceFixAll(scope, actions);
  warnings = std::move(scope.warnings);
  return actions;
}

/// The findings on the requested lines, and those the client echoes in context.diagnostics —
/// matched by code and `data` (or by code and line: some clients echo columns in other units),
/// never by exact range.
void Server::pickFindings(const CodeActionParams &params, CodeActionScope &scope) const {
  const LineIndex &lines = scope.lines();
  const auto &all = scope.all;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (lines.lineOf(all[i].end) >= params.range.start.line && lines.lineOf(all[i].start) <= params.range.end.line)
      scope.picked.push_back(i);
  for (const lsp::Diagnostic &given : params.context.diagnostics) {
    if ((given.source && *given.source != "asyncfix") || !given.code) continue;
    std::optional<std::size_t> match;
    if (given.data && given.data->version == scope.version()) {
      for (std::size_t i = 0; i < all.size() && !match; ++i)
        if (all[i].code == *given.code && all[i].start == given.data->start && all[i].end == given.data->end) match = i;
    } else {
      // Same code on the same line; of several, the one whose start column agrees in our units or
      // in bytes (what Neovim 0.7 sends), else the first not matched yet.
      for (std::size_t i = 0; i < all.size(); ++i) {
        if (all[i].code != *given.code || scope.echoed.contains(i) ||
            lines.lineOf(all[i].start) != given.range.start.line)
          continue;
        const bool sameColumn =
            lines.position(all[i].start, encoding_).column == given.range.start.character ||
            lines.position(all[i].start, PositionEncoding::Utf8).column == given.range.start.character;
        if (!match || sameColumn) match = i;
        if (sameColumn) break;
      }
    }
    if (!match) continue;
    scope.echoed[*match] = given;
    if (std::find(scope.picked.begin(), scope.picked.end(), *match) == scope.picked.end())
      scope.picked.push_back(*match);
  }
  std::sort(scope.picked.begin(), scope.picked.end());
}

lsp::Diagnostic Server::diagnosticFor(const CodeActionScope &scope, std::size_t i) const {
  if (const auto it = scope.echoed.find(i); it != scope.echoed.end()) return it->second;
  return toLsp({scope.all[i]}, scope.lines(), scope.version()).front();
}

/// One quick fix per fix (a rename is reported at each occurrence of the name but fixes once),
/// each verified on the current text before it is offered.
void Server::addQuickFixes(CodeActionScope &scope, std::vector<CodeAction> &actions) const {
  std::vector<const Fix *> offered;
  for (const std::size_t i : scope.picked) {
    const asyncfix::Diagnostic &d = scope.all[i];
    if (!fixAllowed(d, scope.unsafe)) continue;
    if (std::any_of(offered.begin(), offered.end(), [&](const Fix *f) { return *f == *d.fix; })) continue;
    offered.push_back(&*d.fix);
    if (!verifyFix(scope.at.doc, *d.fix)) {
      scope.warnings.push_back("fix `" + d.fix->title + "` for " + std::string(d.code) + " in " + scope.uri +
                               " dropped: it breaks the syntax");
      continue;
    }
    const bool safe = d.fix->applicability == Applicability::Safe;
    CodeAction action;
    action.title = d.fix->title + (safe ? "" : " (unsafe)");
    action.kind = kQuickFix;
    action.diagnostics = {diagnosticFor(scope, i)};
    action.isPreferred = safe;
    action.edit = documentEdit(scope.uri, scope.version(), scope.lines(), d.fix->edits);
    actions.push_back(std::move(action));
  }
}

/// "Fix all AFxxx problems in this file" for each code picked that has more than one fix.
void Server::addFixAllActions(const CodeActionScope &scope, std::vector<CodeAction> &actions) const {
  std::vector<std::string_view> codes;
  for (const std::size_t i : scope.picked)
    if (std::find(codes.begin(), codes.end(), scope.all[i].code) == codes.end()) codes.push_back(scope.all[i].code);
  for (const std::string_view code : codes) {
    std::vector<const Fix *> fixes;
    for (const asyncfix::Diagnostic &d : scope.all)
      if (d.code == code && fixAllowed(d, scope.unsafe) &&
          std::none_of(fixes.begin(), fixes.end(), [&](const Fix *f) { return *f == *d.fix; }))
        fixes.push_back(&*d.fix);
    if (fixes.size() < 2) continue;
    CodeAction action;
    action.title = "Fix all " + std::string(code) + " problems in this file";
    action.kind = kQuickFix;
    if (client_.codeActionResolveEdit) {
      action.data = CodeActionData{scope.uri, scope.version(), "fixAll", std::string(code), std::nullopt};
    } else {
      action.edit = fixAllEdit(scope.at, scope.uri, std::string(code), scope.unsafe);
      if (!action.edit) continue;
    }
    actions.push_back(std::move(action));
  }
}

/// "Disable AFxxx for this line": one per code and line, adding or extending `# noqa: AFxxx`.
void Server::addNoqaActions(const CodeActionScope &scope, std::vector<CodeAction> &actions) const {
  const LineIndex &lines = scope.lines();
  std::vector<std::pair<std::string_view, std::uint32_t>> done;
  for (const std::size_t i : scope.picked) {
    const asyncfix::Diagnostic &d = scope.all[i];
    const std::pair key{d.code, lines.lineOf(d.start)};
    if (std::find(done.begin(), done.end(), key) != done.end()) continue;
    done.push_back(key);
    const asyncfix::TextEdit edit = noqaEdit(scope.at.doc, d.start, d.code);
    if (edit.start == edit.end && edit.content.empty()) continue; // already suppressed
    CodeAction action;
    action.title = "Disable " + std::string(d.code) + " for this line";
    action.kind = kQuickFix;
    action.diagnostics = {diagnosticFor(scope, i)};
    action.edit = documentEdit(scope.uri, scope.version(), lines, {edit});
    actions.push_back(std::move(action));
  }
}

/// source.fixAll.asyncfix: every safe fix of the file (never unsafe ones: it runs on save).
void Server::addSourceFixAll(const CodeActionScope &scope, std::vector<CodeAction> &actions) const {
  CodeAction action;
  action.title = "Fix all auto-fixable asyncfix problems";
  action.kind = kSourceFixAll;
  if (client_.codeActionResolveEdit) {
    if (std::none_of(scope.all.begin(), scope.all.end(),
                     [](const asyncfix::Diagnostic &d) { return fixAllowed(d, false); }))
      return;
    action.data = CodeActionData{scope.uri, scope.version(), "sourceFixAll", std::nullopt, std::nullopt};
  } else if (!(action.edit = fixAllEdit(scope.at, scope.uri, std::nullopt, false))) {
    return;
  }
  actions.push_back(std::move(action));
}

void Server::onCodeActionResolve(const CodeAction &action, const Reply<CodeAction> &reply) {
  if (!action.data) return reply(action);
  catchUp();
  const CodeActionData &data = *action.data;
  if (data.action != "fixAll" && data.action != "sourceFixAll" && data.action != "renameModule")
    throw LspError(ErrorCode::InvalidParams, "params.data.action: unknown action `" + data.action + "`");
  OpenDocument *doc = workspace_.find(data.uri);
  if (!doc) {
    if (OpenNotebook *nb = workspace_.findNotebook(data.uri)) return resolveNotebookFixAll(*nb, action, reply);
    throw LspError(ErrorCode::InvalidParams, "params.data.uri: the document is not open: " + data.uri);
  }
  const auto modified = [reply, version = data.version] {
    reply.error(ErrorCode::ContentModified, "the document changed since version " + std::to_string(version));
  };
  if (doc->version() != data.version) return modified();
  if (data.action == "renameModule") {
    if (!data.module) throw LspError(ErrorCode::InvalidParams, "params.data.module: missing");
    return resolveModuleRename(*doc, action, reply);
  }
  const bool unsafe = data.action == "fixAll" && workspace_.settingsFor(doc->uri).unsafeFixes;
  analyzeThen(*doc, [this, action, reply, modified, unsafe](const Analyzed *at) -> Analyzer::MainTask {
    const CodeActionData &asked = *action.data;
    if (!at || at->findings.version != asked.version) return modified;
    if (reply.cancelled()) return [reply] { reply.error(ErrorCode::RequestCancelled, "request cancelled"); };
    CodeAction resolved = action;
    resolved.edit = fixAllEdit(*at, asked.uri, asked.action == "fixAll" ? asked.code : std::nullopt, unsafe);
    if (!resolved.edit) resolved.edit = WorkspaceEdit{client_.documentChanges, {}};
    return [reply, resolved = std::move(resolved)] { reply(resolved); };
  });
}

/// fix() over the document (one rule's fixes, or all), as minimal edits; nullopt when nothing
/// changes. fix() verifies every fix it applies.
std::optional<WorkspaceEdit> Server::fixAllEdit(const Analyzed &at, const std::string &uri,
                                                const std::optional<std::string> &code, bool unsafe) const {
  FixOptions options;
  options.unsafe = unsafe;
  if (code) options.filter = [&](const asyncfix::Diagnostic &d) { return d.code == *code; };
  const std::string &text = at.doc.text();
  const FixResult result = fix(at.linter, text, options);
  if (!result.changed) return std::nullopt;
  return documentEdit(uri, at.findings.version, at.doc.lines(), diffEdits(text, result.text));
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
    hover->contents.value += hoverText(d);
  }
  return hover;
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
      item.codeDescriptionHref = ruleUrl(*rule);
      if (rule->deprecatedApi) item.tags.push_back(DiagnosticTag::Deprecated);
    }
    item.data = DiagnosticData{version, d.start, d.end,
                               d.fix ? std::optional<std::string>(toString(d.fix->applicability)) : std::nullopt};
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
