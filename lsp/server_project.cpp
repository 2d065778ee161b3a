// lsp/server_project.cpp — the workspace-wide rename of the project's own modules named
// `async`/`await` (asyncfix/project_view.h), offered on an import of such a module as one code
// action: a WorkspaceEdit whose text edits rewrite every import in the workspace, then a RenameFile.
//
// Only for clients that declare documentChanges and the `rename` resource operation. Everything
// that touches the disk runs on the worker: the module map comes from the workspace's file names
// (and the headers of the files named `async`/`await`), listed when such an action is first asked
// for or such a file is opened, and kept (ProjectCache) to decide what to offer and what the
// module's own file shows (Server::lookUpModule); the edit lists the files again, then reads,
// lints and fixes those that may import the module, in codeAction/resolve when the client
// supports it. The message loop copies what the worker needs (the folders, the resolver, the open
// texts) and never walks.
#include <algorithm>
#include <filesystem>
#include <system_error>

#include "asyncfix/project_view.h"
#include "code_actions.h"
#include "server.h"
#include "text_diff.h"
#include "uri.h"

namespace asyncfix::lsp {
namespace fs = std::filesystem;

namespace {

constexpr const char *kRenameModule = "renameModule";

bool isModuleCode(std::string_view code) { return code == "AF001" || code == "AF002" || code == "AF201"; }

/// Whether the files the view was built from still stand as it saw them: every module to rename
/// is there, a target it offers is free, and what took a refused one's name is still there.
bool stillTrue(const ProjectView &view) {
  const auto exists = [](const std::string &path) {
    std::error_code ec;
    return fs::symlink_status(path, ec).type() != fs::file_type::not_found && !ec;
  };
  return std::all_of(view.renames().begin(), view.renames().end(), [&](const ModuleRename &r) {
    return exists(r.path.from) && (r.refusal ? r.taken.empty() || exists(r.taken) : !exists(r.path.to));
  });
}

/// The renames of the module `module` (one per file that is it: two workspace folders may hold
/// the same module) with the whole package it lies in: the topmost package of its path that is
/// renamed too, and every module in it that is (`pkg.async.await` spells its new path
/// `pkg.asynchronous.awaitable`: renamed alone, its imports would name a package that is not
/// there; `pkg/async/async.py` would move with the directory and keep its name). None when the
/// module or a package it lies in is refused; a refused module inside keeps its name, as `check`
/// leaves it.
std::vector<const ModuleRename *> renamesOf(const ProjectView &view, const std::string &module) {
  std::string top = module;
  for (const ModuleRename &r : view.renames())
    if (insideModule(top, r.module)) top = r.module;
  std::vector<const ModuleRename *> group;
  for (const ModuleRename &r : view.renames()) {
    if (r.module != top && !insideModule(r.module, top)) continue;
    if (r.refusal) {
      if (r.module == module || insideModule(module, r.module)) return {};
      continue;
    }
    group.push_back(&r);
  }
  return group;
}

/// " (with `pkg.async`)": the other modules `group` renames with `module`.
std::string alsoRenamed(const std::vector<const ModuleRename *> &group, const std::string &module) {
  std::vector<std::string> others;
  for (const ModuleRename *r : group)
    if (r->module != module && std::find(others.begin(), others.end(), r->module) == others.end())
      others.push_back(r->module);
  std::string out;
  for (const std::string &other : others) out += (out.empty() ? " (with `" : ", `") + other + "`";
  return out.empty() ? out : out + ")";
}

/// The workspace's files as they are now on disk, and their project view.
std::shared_ptr<const WorkspaceProject> listProject(const WorkspaceSource &source) {
  auto project = std::make_shared<WorkspaceProject>();
  for (const fs::path &path : pythonFilesUnder(source.folders, *source.resolver, /*notebooks=*/true))
    project->files.push_back(normalizedPath(path));
  std::sort(project->files.begin(), project->files.end()); // for noteFile()
  project->resolver = source.resolver;
  // A namespace package under no configuration file lies under its workspace folder's `src`
  // roots (the server's current directory means nothing to the workspace).
  // The headers of the files that stand for modules named `async`/`await` as saved on disk (a
  // `# asyncfix: skip-file` leaves such a module alone, as `check` does).
  const ProjectText saved = [](const std::string &file, std::string &why) -> std::optional<ProjectSource> {
    std::optional<std::string> text = readPythonFile(file, &why);
    if (!text) return std::nullopt;
    return ProjectSource{std::move(*text), {}};
  };
  project->view = ProjectView::build(project->files, *project->resolver, {}, source.folders, saved);
  // As `check --fix` refuses it: a module is renamed only when every importer can be updated.
  project->view.refuseStranded(*project->resolver, saved);
  project->configGeneration = source.configGeneration;
  project->folders = source.folders;
  return project;
}

/// The workspace's files as the rename reads them: an open document's unsaved text, else the
/// disk's. An open notebook's cells are the editor's, which a text edit of its file cannot reach.
ProjectText textsOf(const std::vector<OpenText> &open) {
  return [&open](const std::string &file, std::string &why) -> std::optional<ProjectSource> {
    const auto opened = std::find_if(open.begin(), open.end(), [&](const OpenText &o) { return o.path == file; });
    if (opened != open.end())
      return ProjectSource{
          opened->text, opened->notebook ? "is open in a notebook editor, whose cells the rename does not edit" : ""};
    std::optional<std::string> text = readPythonFile(file, &why);
    if (!text) {
      why = "cannot be read: " + why;
      return std::nullopt;
    }
    return ProjectSource{std::move(*text), {}};
  };
}

} // namespace

std::shared_ptr<const WorkspaceProject> ProjectCache::get(const WorkspaceSource &source) {
  std::shared_ptr<const WorkspaceProject> known;
  std::uint64_t dropped = 0;
  {
    const std::lock_guard lock(mutex_);
    known = project_;
    dropped = dropped_;
  }
  // Unlocked: the message loop's noteFile() and forget() never wait for the disk.
  if (known && known->configGeneration == source.configGeneration && known->folders == source.folders &&
      stillTrue(known->view))
    return known;
  std::shared_ptr<const WorkspaceProject> project = listProject(source);
  const std::lock_guard lock(mutex_);
  // Kept only if nothing dropped the view while the files were listed (a save may have changed
  // what the listing read): the next look lists them again.
  if (dropped_ == dropped) project_ = project;
  return project;
}

bool ProjectCache::knownEmpty(std::uint64_t configGeneration, const std::vector<fs::path> &folders) {
  const std::lock_guard lock(mutex_);
  return project_ && project_->configGeneration == configGeneration && project_->folders == folders &&
         project_->view.renames().empty();
}

void ProjectCache::forget() {
  const std::lock_guard lock(mutex_);
  project_.reset();
  ++dropped_;
}

void ProjectCache::noteFile(const fs::path &path, const std::vector<fs::path> &folders) {
  if (path.extension() != ".py" && path.extension() != ".pyi") return;
  const std::string file = normalizedPath(path);
  const bool inFolder = std::any_of(folders.begin(), folders.end(), [&](const fs::path &f) {
    const fs::path relative = fs::path(file).lexically_relative(f);
    return !relative.empty() && *relative.begin() != "..";
  });
  if (!inFolder) return;
  const std::lock_guard lock(mutex_);
  // With no view there is nothing to drop: every didOpen comes here, and counting those would
  // keep a listing in progress (an editor restoring its tabs) from ever being kept.
  if (!project_ || std::binary_search(project_->files.begin(), project_->files.end(), file)) return;
  project_.reset();
  ++dropped_;
}

WorkspaceSource Server::workspaceSource() {
  return {workspace_.folders(), workspace_.sharedResolver(), workspace_.configGeneration()};
}

void Server::forgetWorkspaceProject() { projects_->forget(); }

void Server::noteFile(const fs::path &path) { projects_->noteFile(path, workspace_.folders()); }

void Server::lookUpModule(OpenDocument &doc) {
  doc.moduleLookUp = false;
  if (!doc.path || !ProjectView::mentionsKeywordModule(normalizedPath(*doc.path))) {
    if (!doc.moduleFindings.empty()) showModuleFindings(doc, {});
    return;
  }
  // On the worker: the module map lists the workspace (once; ProjectCache keeps it).
  Analyzer::Task task = [this, source = workspaceSource(), path = normalizedPath(*doc.path),
                         uri = doc.uri](const Analyzed *at) -> Analyzer::MainTask {
    // Edited again (asked again once the loop is idle) or closed (no disk work on this thread).
    if (!at)
      return [this, uri] {
        if (OpenDocument *open = workspace_.find(uri)) open->moduleLookUp = true;
      };
    std::vector<asyncfix::Diagnostic> found;
    try {
      // Kept while used: the message loop may drop the cache's copy meanwhile (forget()).
      const std::shared_ptr<const WorkspaceProject> project = projects_->get(source);
      for (const ModuleRename &r : project->view.renames())
        if (r.reportedIn == path && !r.ignored) found.push_back(ProjectView::moduleDiagnostic(r));
    } catch (const std::exception &e) { // the listing failed: the file's own findings stand
      return [this, why = std::string(e.what())] { log_.warn("listing the workspace's modules: " + why); };
    }
    return [this, uri, found = std::move(found)]() mutable {
      if (OpenDocument *open = workspace_.find(uri); open && open->moduleFindings != found)
        showModuleFindings(*open, std::move(found));
    };
  };
  workspace_.analyzer().post(doc.analysis, std::move(task));
}

void Server::showModuleFindings(OpenDocument &doc, std::vector<asyncfix::Diagnostic> found) {
  doc.moduleFindings = std::move(found);
  workspace_.restamp(doc);
  publishLater(doc);
  refreshWanted_ = refreshWanted_ || pull_;
}

void Server::lookUpModules() {
  for (auto &[uri, doc] : workspace_.documents()) lookUpModule(doc);
}

std::vector<lsp::Diagnostic> Server::moduleItems(const OpenDocument &doc) const {
  std::vector<lsp::Diagnostic> items = toLsp(doc.moduleFindings, doc.doc.lines(), doc.version());
  for (lsp::Diagnostic &item : items) {
    item.tags.clear(); // nothing in the file is deprecated (AF201's tag is for imports of a renamed module)
    if (!client_.renameFiles && item.data) item.data->fix.reset(); // no rename is offered to it
  }
  return items;
}

std::shared_ptr<const ModuleRenameRequest> Server::moduleRenameRequest(const OpenDocument &doc,
                                                                       const CodeActionParams &params) {
  if (!client_.renameFiles || !doc.path || !wanted(params.context.only, kQuickFix)) return nullptr;
  if (!(params.range.start.line == 0 && ProjectView::mentionsKeywordModule(doc.path->generic_string())) &&
      !mayImportModule(doc, params))
    return nullptr;
  // A workspace already seen to have no such module (the memory of the worker's last look).
  if (projects_->knownEmpty(workspace_.configGeneration(), workspace_.folders())) return nullptr;
  auto request = std::make_shared<ModuleRenameRequest>();
  request->source = workspaceSource();
  request->open = openTexts();
  request->path = normalizedPath(*doc.path);
  return request;
}

bool Server::mayImportModule(const OpenDocument &doc, const CodeActionParams &params) const {
  if (std::any_of(params.context.diagnostics.begin(), params.context.diagnostics.end(), [](const lsp::Diagnostic &d) {
        return (!d.source || *d.source == "asyncfix") && d.code && isModuleCode(*d.code);
      }))
    return true;
  const Findings *current = doc.current();
  if (current == nullptr) { // the worker has not linted this version yet: the text may tell
    const std::string &text = doc.doc.text();
    return text.find("async") != std::string::npos || text.find("await") != std::string::npos;
  }
  const LineIndex &lines = doc.doc.lines();
  const std::vector<asyncfix::Diagnostic> &found = current->diagnostics;
  return std::any_of(found.begin(), found.end(), [&](const asyncfix::Diagnostic &d) {
    return isModuleCode(d.code) && lines.lineOf(d.end) >= params.range.start.line &&
           lines.lineOf(d.start) <= params.range.end.line;
  });
}

std::vector<OpenText> Server::openTexts() {
  std::vector<OpenText> out;
  for (auto &[uri, doc] : workspace_.documents())
    if (doc.path) out.push_back({normalizedPath(*doc.path), uri, doc.version(), doc.doc.text()});
  for (auto &[uri, notebook] : workspace_.notebooks())
    if (const std::optional<fs::path> path = uriToPath(uri); path && notebook.virtualDoc)
      out.push_back({normalizedPath(*path), uri, notebook.version, notebook.virtualDoc->doc.text(), true});
  return out;
}

std::vector<CodeAction> Server::moduleRenameActions(const Analyzed &at, const std::string &uri,
                                                    const CodeActionParams &params, const ModuleRenameRequest &request,
                                                    bool unsafe, const std::function<bool()> &cancelled) const {
  const std::shared_ptr<const WorkspaceProject> known = projects_->get(request.source);
  const WorkspaceProject &project = *known;
  if (project.view.renamedModules().empty()) return {};
  // The document as the CLI lints it in this workspace: with the renames' rows, AF201 fixes its
  // imports of the project's modules (each fix names the file rename it goes with).
  Config config = at.linter.config();
  project.view.configure(request.path, config);
  const Linter linter(config);
  const std::vector<asyncfix::Diagnostic> found = linter.lint(at.doc);
  const LineIndex &lines = at.doc.lines();
  std::vector<std::uint32_t> echoedLines;
  for (const lsp::Diagnostic &d : params.context.diagnostics)
    if ((!d.source || *d.source == "asyncfix") && d.code && isModuleCode(*d.code))
      echoedLines.push_back(d.range.start.line);
  // The modules to offer, each with the findings its action fixes. A module is one dotted path:
  // when two folders both hold `pkg/async.py`, an import of `pkg.async` may mean either (the
  // AF201 fix names both files), so the action renames both, as `asyncfix check a b` does.
  std::vector<std::pair<const ModuleRename *, std::vector<asyncfix::Diagnostic>>> chosen;
  const auto pick = [&](const ModuleRename &r, std::vector<asyncfix::Diagnostic> shown) {
    if (std::none_of(chosen.begin(), chosen.end(), [&](const auto &c) { return c.first->module == r.module; }))
      chosen.emplace_back(&r, std::move(shown));
  };
  // The module's own file (a package's __init__.py), whose first line the CLI reports it on.
  if (params.range.start.line == 0)
    for (const ModuleRename &r : project.view.renames())
      if (!r.refusal && r.reportedIn == request.path) pick(r, {ProjectView::moduleDiagnostic(r)});
  for (const asyncfix::Diagnostic &d : found) {
    if (d.code != "AF201" || !d.fix || d.fix->renames.empty()) continue;
    const std::uint32_t first = lines.lineOf(d.start), last = lines.lineOf(d.end);
    const bool picked = (last >= params.range.start.line && first <= params.range.end.line) ||
                        std::any_of(echoedLines.begin(), echoedLines.end(),
                                    [&](std::uint32_t line) { return first <= line && line <= last; });
    if (!picked) continue;
    const auto r =
        std::find_if(project.view.renames().begin(), project.view.renames().end(), [&](const ModuleRename &m) {
          return !m.refusal && std::find(d.fix->renames.begin(), d.fix->renames.end(), m.path) != d.fix->renames.end();
        });
    if (r == project.view.renames().end()) continue;
    std::vector<asyncfix::Diagnostic> shown;
    for (const asyncfix::Diagnostic &original : at.findings.diagnostics)
      if (original.start < d.end && d.start < original.end) shown.push_back(original);
    pick(*r, std::move(shown));
  }
  std::vector<CodeAction> actions;
  for (const auto &[r, shown] : chosen) {
    const std::vector<const ModuleRename *> group = renamesOf(project.view, r->module);
    if (group.empty()) continue; // another folder's file of the module cannot be renamed
    bool safe = std::all_of(group.begin(), group.end(),
                            [](const ModuleRename *m) { return m->applicability() == Applicability::Safe; });
    if (!safe && !unsafe) continue;
    CodeAction action;
    action.kind = kQuickFix;
    action.diagnostics = toLsp(shown, lines, at.findings.version);
    for (std::size_t i = 0; i < shown.size(); ++i) // the module's own finding, as moduleItems() has it
      if (shown[i] == ProjectView::moduleDiagnostic(*r)) action.diagnostics[i].tags.clear();
    std::string why = safe ? "" : "unsafe";
    if (client_.codeActionResolveEdit) {
      // Whether some place would still name the module is known once the files are read: at resolve.
      action.data = CodeActionData{uri, at.findings.version, kRenameModule, std::nullopt, r->module};
    } else {
      std::string leftBehind;
      try {
        action.edit = moduleRenameEdit(request.source, r->module, request.open, unsafe, cancelled, &leftBehind);
      } catch (const LspError &) { // unsafe, or the files changed since the view was made
        continue;
      }
      if (!action.edit) continue;
      if (!leftBehind.empty()) {
        safe = false;
        why = "unsafe: " + leftBehind;
      }
    }
    action.title = "Rename module `" + r->module + "` to `" + r->newModule + "`" + alsoRenamed(group, r->module) +
                   " and update its imports" + (why.empty() ? "" : " (" + why + ")");
    action.isPreferred = safe;
    actions.push_back(std::move(action));
  }
  return actions;
}

std::optional<WorkspaceEdit> Server::moduleRenameEdit(const WorkspaceSource &source, const std::string &module,
                                                      const std::vector<OpenText> &open, bool unsafe,
                                                      const std::function<bool()> &cancelled,
                                                      std::string *unsafeWhy) const {
  // The files as they are now: an importer created since the action was offered gets its edit.
  const std::shared_ptr<const WorkspaceProject> listed = listProject(source);
  const WorkspaceProject &project = *listed;
  for (const ModuleRename &r : project.view.renames())
    if (r.module == module && r.refusal) throw LspError(ErrorCode::RequestFailed, *r.refusal);
  const std::vector<const ModuleRename *> group = renamesOf(project.view, module);
  if (group.empty()) throw LspError(ErrorCode::RequestFailed, "no module `" + module + "` to rename");
  const bool uncertain = std::any_of(group.begin(), group.end(), [](const ModuleRename *r) { return r->uncertain; });
  // Importers outside the workspace folders keep the old name: the folders must hold the
  // module's package and its configuration file's directory.
  std::vector<fs::path> folders;
  for (const fs::path &folder : source.folders) folders.push_back(folder.lexically_normal());
  std::vector<std::string> outside;
  for (const ModuleRename *r : group)
    if (std::optional<std::string> place = ProjectView::uncovered(*r, folders, "the workspace", false))
      outside.push_back(std::move(*place));
  if (uncertain && !unsafe)
    throw LspError(ErrorCode::RequestFailed, "renaming `" + module +
                                                 "` is an unsafe fix (it lies in a namespace package, which an "
                                                 "installed one could share): it needs unsafeFixes");
  // The edits `asyncfix check --fix` makes: safe ones first; a place they leave naming the module
  // makes the rename unsafe.
  const ProjectText texts = textsOf(open);
  Applicability applicability = uncertain ? Applicability::Unsafe : Applicability::Safe;
  ImportEdits found =
      project.view.importEdits(project.files, group, *project.resolver, texts, applicability, cancelled);
  if (cancelled()) return std::nullopt;
  std::vector<std::string> places = outside;
  for (const std::vector<std::string> &left : found.leftBehind)
    for (const std::string &place : left)
      if (std::find(places.begin(), places.end(), place) == places.end()) places.push_back(place);
  if (!places.empty()) {
    const std::string why = ProjectView::placesSummary(places);
    if (!unsafe)
      throw LspError(ErrorCode::RequestFailed,
                     "renaming `" + module + "` is an unsafe fix (" + why + "): it needs unsafeFixes");
    if (unsafeWhy != nullptr) *unsafeWhy = why;
    if (applicability == Applicability::Safe) {
      found =
          project.view.importEdits(project.files, group, *project.resolver, texts, Applicability::Unsafe, cancelled);
      if (cancelled()) return std::nullopt;
    }
  }
  WorkspaceEdit edit;
  edit.documentChanges = true;
  for (const ImportEdit &file : found.files) {
    const auto opened = std::find_if(open.begin(), open.end(), [&](const OpenText &o) { return o.path == file.file; });
    TextDocumentEdit change;
    change.textDocument = opened != open.end()
                              ? OptionalVersionedTextDocumentIdentifier{opened->uri, opened->version}
                              : OptionalVersionedTextDocumentIdentifier{pathToUri(file.file), std::nullopt};
    change.edits = toLspEdits(LineIndex(file.before), diffEdits(file.before, file.after));
    edit.edits.push_back(std::move(change));
  }
  // Every text edit names its file as it is before the renames, which come last, deepest first
  // (`pkg/async/await.py` moves while `pkg/async/` still has its name).
  std::vector<const ModuleRename *> order = group;
  sortDeepestFirst(order);
  for (const ModuleRename *r : order) edit.renames.push_back({pathToUri(r->path.from), pathToUri(r->path.to)});
  return edit;
}

void Server::resolveModuleRename(OpenDocument &doc, const CodeAction &action, const Reply<CodeAction> &reply) {
  dispatcher_.pollIncoming(); // a $/cancelRequest already sent counts before the work starts
  if (reply.cancelled()) return reply.error(ErrorCode::RequestCancelled, "request cancelled");
  const bool unsafe = workspace_.settingsFor(doc.uri).unsafeFixes;
  analyzeThen(
      doc,
      [this, action, reply, source = workspaceSource(), unsafe,
       open = std::make_shared<const std::vector<OpenText>>(openTexts())](const Analyzed *at) -> Analyzer::MainTask {
        const CodeActionData &asked = *action.data;
        if (!at || at->findings.version != asked.version)
          return [reply, version = asked.version] {
            reply.error(ErrorCode::ContentModified, "the document changed since version " + std::to_string(version));
          };
        const auto cancelled = [&reply] { return reply.cancelled(); };
        CodeAction resolved = action;
        try {
          resolved.edit = moduleRenameEdit(source, asked.module.value_or(""), *open, unsafe, cancelled);
        } catch (const LspError &e) {
          return [reply, code = e.code, message = std::string(e.what())] { reply.error(code, message); };
        }
        if (!resolved.edit) return [reply] { reply.error(ErrorCode::RequestCancelled, "request cancelled"); };
        return [reply, resolved = std::move(resolved)] { reply(resolved); };
      });
}

} // namespace asyncfix::lsp
