// lsp/server_workspace.cpp — the Server's handlers for the workspace: the editor's settings
// (initializationOptions, didChangeConfiguration), workspace folders, watched configuration files,
// and the commands (asyncfix.applyAutofix, asyncfix.fixWorkspace with $/progress).
#include <algorithm>
#include <system_error>

#include "asyncfix/config.h"
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
    if (url->find("://") != std::string::npos) docsUrl_ = *url;
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
  dispatcher_.notify("window/logMessage",
                     LogMessageParams{.type = MessageType::Info, .message = "asyncfix: " + summary});
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

} // namespace asyncfix::lsp
