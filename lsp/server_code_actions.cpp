// lsp/server_code_actions.cpp — the Server's code actions on a document: a quick fix per finding,
// "Fix all AFxxx", "Disable AFxxx for this line" (noqa), source.fixAll.asyncfix, and their
// codeAction/resolve. They are computed on the worker, at the version asked for. A notebook's are
// server_notebooks.cpp's, the module rename server_project.cpp's.
#include <algorithm>
#include <map>

#include "asyncfix/suppression.h"
#include "code_actions.h"
#include "server.h"
#include "text_diff.h"

namespace asyncfix::lsp {

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
    if (!resolved.edit) resolved.edit = WorkspaceEdit{.documentChanges = client_.documentChanges, .edits = {}};
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

} // namespace asyncfix::lsp
