// lsp/server_workspace.cpp — the Server's handlers for the workspace: the editor's settings
// (initializationOptions, didChangeConfiguration), workspace folders, watched configuration files,
// and the commands (asyncfix.applyAutofix; asyncfix.fixWorkspace, a run of `asyncfix check --fix`
// that collects its fixes into one workspace/applyEdit, with $/progress).
#include <algorithm>
#include <map>
#include <mutex>
#include <system_error>

#include "asyncfix/config.h"
#include "asyncfix/run.h"
#include "server.h"
#include "text_diff.h"
#include "uri.h"

namespace asyncfix::lsp {
namespace fs = std::filesystem;

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
  docsUrl_ = commandLineDocsUrl_;
  if (const auto url = pick(&Settings::docsUrl)) {
    if (isAbsoluteUrl(*url)) docsUrl_ = *url;
    else
      problems.push_back("`docsUrl`: `" + *url + "` is not an absolute URL such as https://example.org/asyncfix/docs");
  }
  workspace_.setOverrides(std::move(overrides));
  for (const std::string &problem : problems) {
    log_.info("settings: " + problem); // shown to the user below; not mirrored to logMessage too
    showMessage(MessageType::Warning, "asyncfix settings: " + problem);
  }
}

void Server::setDocsUrl(std::string url) {
  commandLineDocsUrl_ = std::move(url);
  docsUrl_ = commandLineDocsUrl_; // until the settings say otherwise (applySettings)
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

/// What a workspace fix works from, copied on the message loop: the folders, the configuration,
/// the open documents' texts, what the client can apply.
struct WorkspaceFix {
  Reply<Null> reply;
  std::optional<ProgressToken> token;
  std::vector<fs::path> folders;
  std::shared_ptr<const ConfigResolver> resolver; ///< thread-safe
  std::vector<OpenText> open;
  bool documentChanges = false;
  bool renameFiles = false;
  std::shared_ptr<std::atomic<bool>> stop; ///< shutdown
};

/// What a workspace fix made, for the message loop.
struct WorkspaceFixOutcome {
  bool cancelled = false;
  WorkspaceEdit edit;
  std::string summary;               ///< "Fixed 2 problems in 1 file"
  std::vector<std::string> messages; ///< the run's "error: …" / "warning: …" lines, for the log
};

namespace {

constexpr const char *kNotebookOpen = "is open in a notebook editor, whose cells a workspace fix does not edit";

/// A workspace fix's progress, told from the run's threads: "i/n files" each time the percentage
/// moves, handed to the message loop in order (Analyzer::deliverLater).
class FixProgress final : public RunProgress {
public:
  using Send = std::function<void(WorkDoneProgress)>; ///< on the message loop
  FixProgress(Analyzer &analyzer, Send send) : analyzer_(analyzer), send_(std::move(send)) {}

  void start(std::size_t files) override {
    const std::lock_guard lock(mutex_);
    total_ = files;
    report();
  }
  void advance() override {
    const std::lock_guard lock(mutex_);
    ++done_;
    if (total_ > 0 && percent() != last_) report();
  }

private:
  std::uint32_t percent() const {
    return total_ == 0 ? 100 : static_cast<std::uint32_t>(std::min(done_, total_) * 100 / total_);
  }
  void report() { // mutex_ held: the reports reach the loop in the order they were made
    last_ = percent();
    WorkDoneProgress value{WorkDoneProgress::Kind::Report, std::nullopt, std::nullopt,
                           std::to_string(done_) + "/" + std::to_string(total_) + " files", last_};
    analyzer_.deliverLater([send = send_, value = std::move(value)] { send(value); });
  }

  Analyzer &analyzer_;
  Send send_;
  std::mutex mutex_;
  std::size_t total_ = 0, done_ = 0;
  std::uint32_t last_ = 0;
};

std::string counted(std::size_t n, const char *one, const char *many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

} // namespace

void Server::fixWorkspace(const Reply<Null> &reply, const std::optional<ProgressToken> &token) {
  dispatcher_.pollIncoming(); // a $/cancelRequest (or shutdown) sent with the request counts now
  progress(token, {WorkDoneProgress::Kind::Begin, "asyncfix: fixing the workspace", true, std::nullopt, 0u});
  if (reply.cancelled() || fixStop_->load()) {
    progress(token, {WorkDoneProgress::Kind::End, std::nullopt, std::nullopt, "Cancelled", std::nullopt});
    return reply.error(ErrorCode::RequestCancelled, "request cancelled");
  }
  if (fixThread_.joinable()) {
    progress(token, {WorkDoneProgress::Kind::End, std::nullopt, std::nullopt, "Already running", std::nullopt});
    return reply.error(ErrorCode::RequestFailed, "asyncfix is already fixing the workspace");
  }
  auto fix = std::make_shared<WorkspaceFix>(WorkspaceFix{.reply = reply,
                                                         .token = token,
                                                         .folders = workspace_.folders(),
                                                         .resolver = workspace_.sharedResolver(),
                                                         .open = openTexts(),
                                                         .documentChanges = client_.documentChanges,
                                                         .renameFiles = client_.renameFiles,
                                                         .stop = fixStop_});
  Analyzer &analyzer = workspace_.analyzer();
  const auto work = [this, fix, &analyzer] {
    FixProgress bar(analyzer,
                    [this, token = fix->token](WorkDoneProgress value) { progress(token, std::move(value)); });
    Analyzer::MainTask then;
    try {
      then = [this, fix, outcome = fixWorkspaceRun(*fix, bar)]() mutable {
        finishWorkspaceFix(*fix, std::move(outcome));
      };
    } catch (const std::exception &e) {
      then = [this, fix, why = std::string(e.what())] {
        progress(fix->token, {WorkDoneProgress::Kind::End, std::nullopt, std::nullopt, "Failed", std::nullopt});
        fix->reply.error(ErrorCode::InternalError, "fixing the workspace failed: " + why);
      };
    }
    // The thread is done once this runs on the loop: it is joined there.
    analyzer.deliverLater([this, then = std::move(then)] {
      if (fixThread_.joinable()) fixThread_.join();
      if (then) then();
    });
  };
  if (!analyzer.threaded()) {
    work(); // drain()'s tests: deterministic, on this thread
    catchUp();
    return;
  }
  fixThread_ = std::thread(work);
}

WorkspaceFixOutcome Server::fixWorkspaceRun(const WorkspaceFix &fix, RunProgress &progress) const {
  std::map<std::string, const OpenText *> open;
  for (const OpenText &o : fix.open) open.emplace(o.path, &o);
  RunOptions options;
  for (const fs::path &folder : fix.folders) options.roots.push_back(folder.string());
  options.fixMode = FixMode::Collect;
  options.openText = [&open](const std::string &path) -> std::optional<ProjectSource> {
    const auto it = open.find(normalizedPath(path));
    if (it == open.end()) return std::nullopt;
    return ProjectSource{it->second->text, it->second->notebook ? kNotebookOpen : ""};
  };
  options.cancelled = [&fix] { return fix.reply.cancelled() || fix.stop->load(); };
  options.defaultBases = fix.folders;
  options.renameModules = fix.renameFiles; // a client that cannot rename files gets the imports unchanged
  RunResult result;
  if (!options.roots.empty()) result = Run(*fix.resolver, std::move(options)).check(progress);
  WorkspaceFixOutcome out;
  if (result.cancelled || fix.reply.cancelled() || fix.stop->load()) {
    out.cancelled = true;
    return out;
  }
  WorkspaceEdit &edit = out.edit;
  edit.documentChanges = fix.documentChanges;
  std::size_t fixed = 0, files = 0, notebooks = 0;
  std::vector<std::string> &messages = out.messages;
  for (const PathError &error : result.pathErrors) messages.push_back("error: " + error.path + ": " + error.reason);
  for (const FileReport &report : result.reports) {
    messages.insert(messages.end(), report.messages.begin(), report.messages.end());
    const auto opened = open.find(normalizedPath(report.path));
    if (opened != open.end() && opened->second->notebook) ++notebooks;
    if (!report.changed) continue;
    fixed += report.fixed;
    ++files;
    if (report.before == report.after) continue; // a module renamed, its text unchanged
    const OptionalVersionedTextDocumentIdentifier document =
        opened != open.end() ? OptionalVersionedTextDocumentIdentifier{opened->second->uri, opened->second->version}
                             : OptionalVersionedTextDocumentIdentifier{pathToUri(report.path), std::nullopt};
    edit.edits.push_back({document, toLspEdits(LineIndex(report.before), diffEdits(report.before, report.after))});
  }
  // Every text edit names its file as it is before the renames, which come last, deepest first.
  std::vector<const ModuleRename *> renames;
  for (const ModuleRename &r : result.project.renames())
    if (moduleRenameApplies(r, result.unsafe)) renames.push_back(&r);
  sortDeepestFirst(renames);
  for (const ModuleRename *r : renames) edit.renames.push_back({pathToUri(r->path.from), pathToUri(r->path.to)});

  std::string &summary = out.summary;
  summary = "Fixed " + counted(fixed, "problem", "problems") + " in " + counted(files, "file", "files");
  if (!result.keptModules.empty()) {
    std::string names;
    for (const std::string &module : result.keptModules) names += (names.empty() ? "`" : ", `") + module + "`";
    summary += "; not renamed (the editor cannot rename files): " + names;
  }
  if (notebooks > 0)
    summary += "; " + counted(notebooks, "notebook", "notebooks") + " open in a notebook editor left out";
  return out;
}

void Server::finishWorkspaceFix(const WorkspaceFix &fix, WorkspaceFixOutcome outcome) {
  if (outcome.cancelled) {
    progress(fix.token, {WorkDoneProgress::Kind::End, std::nullopt, std::nullopt, "Cancelled", std::nullopt});
    return fix.reply.error(ErrorCode::RequestCancelled, "request cancelled");
  }
  for (const std::string &message : outcome.messages) log_.info(message);
  progress(fix.token, {WorkDoneProgress::Kind::End, std::nullopt, std::nullopt, outcome.summary, std::nullopt});
  log_.info(outcome.summary);
  dispatcher_.notify("window/logMessage",
                     LogMessageParams{.type = MessageType::Info, .message = "asyncfix: " + outcome.summary});
  if (!outcome.edit.edits.empty() || !outcome.edit.renames.empty()) {
    dispatcher_.request<ApplyWorkspaceEditParams, ApplyWorkspaceEditResult>(
        "workspace/applyEdit", ApplyWorkspaceEditParams{"asyncfix: fix the workspace", std::move(outcome.edit)},
        [this](const ApplyWorkspaceEditResult *result, const LspError *error) {
          if (error || !result->applied)
            log_.warn("the client did not apply the fixes: " +
                      (error ? std::string(error->what()) : result->failureReason.value_or("no reason given")));
        });
  }
  fix.reply(Null{});
}

} // namespace asyncfix::lsp
