#include "protocol.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "asyncfix/settings.h"

namespace asyncfix::lsp {
namespace {

[[noreturn]] void fail(const std::string &path, const std::string &problem) {
  throw LspError(ErrorCode::InvalidParams, path + ": " + problem);
}

std::string typeName(const Json &j) { return j.is_null() ? "null" : j.type_name(); }

void requireObject(const Json &j, const std::string &path) {
  if (!j.is_object()) fail(path, "expected an object, got " + typeName(j));
}

// Declared up front so that the templates below see every overload.
void fromJSON(const Json &j, ProgressToken &out, const std::string &path);
void fromJSON(const Json &j, TextDocumentIdentifier &out, const std::string &path);
void fromJSON(const Json &j, WorkspaceFolder &out, const std::string &path);
void fromJSON(const Json &j, CommandArgument &out, const std::string &path);
void fromJSON(const Json &j, PreviousResultId &out, const std::string &path);
void fromJSON(const Json &j, FileEvent &out, const std::string &path);
void fromJSON(const Json &j, TextDocumentContentChangeEvent &out, const std::string &path);
void fromJSON(const Json &j, DiagnosticData &out, const std::string &path);
void fromJSON(const Json &j, CodeActionData &out, const std::string &path);

// Scalars.
void fromJSON(const Json &j, std::string &out, const std::string &path) {
  if (!j.is_string()) fail(path, "expected a string, got " + typeName(j));
  out = j.get<std::string>();
}
void fromJSON(const Json &j, bool &out, const std::string &path) {
  if (!j.is_boolean()) fail(path, "expected a boolean, got " + typeName(j));
  out = j.get<bool>();
}
void fromJSON(const Json &j, std::int64_t &out, const std::string &path) {
  if (j.is_number_integer()) {
    out = j.get<std::int64_t>();
    return;
  }
  fail(path, "expected an integer, got " + typeName(j));
}
void fromJSON(const Json &j, std::uint32_t &out, const std::string &path) {
  if (j.is_number_unsigned() && j.get<std::uint64_t>() <= UINT32_MAX) {
    out = static_cast<std::uint32_t>(j.get<std::uint64_t>());
    return;
  }
  fail(path, "expected an unsigned 32-bit integer, got " + (j.is_number() ? j.dump() : typeName(j)));
}
void fromJSON(const Json &j, std::size_t &out, const std::string &path) {
  if (!j.is_number_unsigned()) fail(path, "expected an unsigned integer, got " + typeName(j));
  out = j.get<std::size_t>();
}
template <class T> void fromJSON(const Json &j, std::vector<T> &out, const std::string &path) {
  if (!j.is_array()) fail(path, "expected an array, got " + typeName(j));
  out.clear();
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    T item{};
    fromJSON(j[i], item, path + "[" + std::to_string(i) + "]");
    out.push_back(std::move(item));
  }
}

/// Field access with paths: required fields throw when absent, optional ones read null as absent.
class Fields {
public:
  Fields(const Json &j, std::string path) : j_(j), path_(std::move(path)) { requireObject(j_, path_); }
  template <class T> void required(const char *key, T &out) const {
    const auto it = j_.find(key);
    if (it == j_.end()) fail(path_ + "." + key, "missing");
    fromJSON(*it, out, path_ + "." + key);
  }
  template <class T> void optional(const char *key, std::optional<T> &out) const {
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return;
    T value{};
    fromJSON(*it, value, path_ + "." + key);
    out = std::move(value);
  }
  /// Absent or null leaves `out` as it is.
  template <class T> void optional(const char *key, T &out) const {
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return;
    fromJSON(*it, out, path_ + "." + key);
  }
  const Json *find(const char *key) const {
    const auto it = j_.find(key);
    return it == j_.end() || it->is_null() ? nullptr : &*it;
  }

private:
  const Json &j_;
  std::string path_; // a copy: callers pass temporaries ("params" + ".textDocument")
};

/// j["a"]["b"]... or nullptr when any step is missing or not an object.
const Json *dig(const Json &j, std::initializer_list<const char *> keys) {
  const Json *at = &j;
  for (const char *key : keys) {
    if (!at->is_object()) return nullptr;
    const auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

bool truthy(const Json *j) { return j && j->is_boolean() && j->get<bool>(); }

bool arrayContains(const Json *j, std::string_view value) {
  if (!j || !j->is_array()) return false;
  for (const Json &item : *j)
    if (item.is_string() && item.get<std::string>() == value) return true;
  return false;
}

Json toJSON(const ProgressToken &token) {
  return std::visit([](const auto &v) { return Json(v); }, token);
}

void fromJSON(const Json &j, ProgressToken &out, const std::string &path) {
  if (j.is_number_integer()) out = j.get<std::int64_t>();
  else if (j.is_string()) out = j.get<std::string>();
  else fail(path, "expected an integer or a string, got " + typeName(j));
}

void fromJSON(const Json &j, TextDocumentIdentifier &out, const std::string &path) {
  Fields(j, path).required("uri", out.uri);
}

void fromJSON(const Json &j, WorkspaceFolder &out, const std::string &path) {
  const Fields f(j, path);
  f.required("uri", out.uri);
  f.optional("name", out.name);
}

void fromJSON(const Json &j, CommandArgument &out, const std::string &path) {
  if (j.is_string()) {
    out.uri = j.get<std::string>();
    return;
  }
  const Fields f(j, path);
  f.required("uri", out.uri);
  f.optional("version", out.version);
}

void fromJSON(const Json &j, PreviousResultId &out, const std::string &path) {
  const Fields f(j, path);
  f.required("uri", out.uri);
  f.required("value", out.value);
}

void fromJSON(const Json &j, FileEvent &out, const std::string &path) {
  const Fields f(j, path);
  f.required("uri", out.uri);
  std::int64_t type = 0;
  f.required("type", type);
  out.type = static_cast<int>(type);
}

void fromJSON(const Json &j, TextDocumentContentChangeEvent &out, const std::string &path) {
  const Fields f(j, path);
  f.optional("range", out.range);
  f.required("text", out.text);
}

void fromJSON(const Json &j, DiagnosticData &out, const std::string &path) {
  const Fields f(j, path);
  f.required("version", out.version);
  f.required("start", out.start);
  f.required("end", out.end);
  f.optional("fix", out.fix);
}

void fromJSON(const Json &j, CodeActionData &out, const std::string &path) {
  const Fields f(j, path);
  f.required("uri", out.uri);
  f.required("version", out.version);
  f.required("action", out.action);
  f.optional("code", out.code);
  f.optional("module", out.module);
}

// ---- settings: lenient ----

void readSelectors(const Json &j, const char *key, std::optional<std::vector<std::string>> &out,
                   std::vector<std::string> &problems) {
  std::vector<std::string> values;
  const auto addSplit = [&](const std::string &text) {
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t comma = text.find(',', start);
      if (comma == std::string::npos) comma = text.size();
      values.push_back(text.substr(start, comma - start));
      start = comma + 1;
    }
  };
  if (j.is_string()) {
    addSplit(j.get<std::string>());
  } else if (j.is_array() && std::all_of(j.begin(), j.end(), [](const Json &v) { return v.is_string(); })) {
    for (const Json &v : j) addSplit(v.get<std::string>());
  } else {
    problems.push_back(std::string("`") + key + "` must be a list of rule codes, not " + j.dump());
    return;
  }
  out = cleanSelectors(values); // blanks around an entry and empty entries, as the command takes them
}

template <class T>
void readScalar(const Json &j, const char *key, std::optional<T> &out, std::vector<std::string> &problems,
                const char *expected) {
  if constexpr (std::is_same_v<T, bool>) {
    if (j.is_boolean()) {
      out = j.get<bool>();
      return;
    }
  } else {
    if (j.is_string()) {
      out = j.get<std::string>();
      return;
    }
  }
  problems.push_back(std::string("`") + key + "` must be " + expected + ", not " + j.dump());
}

} // namespace

void fromJSON(const Json &, NoParams &, const std::string &) {}
void fromJSON(const Json &, Null &, const std::string &) {}

void fromJSON(const Json &j, Position &out, const std::string &path) {
  const Fields f(j, path);
  f.required("line", out.line);
  f.required("character", out.character);
}

void fromJSON(const Json &j, Range &out, const std::string &path) {
  const Fields f(j, path);
  f.required("start", out.start);
  f.required("end", out.end);
}

void fromJSON(const Json &j, Settings &out, const std::string &) {
  out = {};
  if (!j.is_object()) {
    if (!j.is_null()) out.problems.push_back("settings must be an object, not " + j.dump());
    return;
  }
  const Json *root = &j;
  if (const auto it = j.find("asyncfix"); it != j.end() && it->is_object()) root = &*it;
  const auto lookup = [&](const char *camel, const char *kebab) -> const Json * {
    for (const char *key : {camel, kebab}) {
      const auto it = root->find(key);
      if (it != root->end() && !it->is_null()) return &*it;
    }
    return nullptr;
  };
  if (const Json *v = lookup("select", "select")) readSelectors(*v, "select", out.select, out.problems);
  if (const Json *v = lookup("extendSelect", "extend-select"))
    readSelectors(*v, "extendSelect", out.extendSelect, out.problems);
  if (const Json *v = lookup("ignore", "ignore")) readSelectors(*v, "ignore", out.ignore, out.problems);
  if (const Json *v = lookup("targetVersion", "target-version"))
    readScalar(*v, "targetVersion", out.targetVersion, out.problems, "a string such as \"py38\"");
  if (const Json *v = lookup("renameStyle", "rename-style"))
    readScalar(*v, "renameStyle", out.renameStyle, out.problems, "a string such as \"async_\"");
  if (const Json *v = lookup("unsafeFixes", "unsafe-fixes"))
    readScalar(*v, "unsafeFixes", out.unsafeFixes, out.problems, "true or false");
  if (const Json *v = lookup("docsUrl", "docs-url"))
    readScalar(*v, "docsUrl", out.docsUrl, out.problems, "a URL such as \"https://example.org/asyncfix/docs\"");
}

void fromJSON(const Json &j, InitializeParams &out, const std::string &path) {
  const Fields f(j, path);
  f.optional("rootUri", out.rootUri);
  f.optional("rootPath", out.rootPath);
  f.optional("workspaceFolders", out.workspaceFolders);
  f.optional("trace", out.trace);
  if (const Json *info = f.find("clientInfo"); info && info->is_object())
    if (const auto it = info->find("name"); it != info->end() && it->is_string())
      out.clientName = it->get<std::string>();
  if (const Json *options = f.find("initializationOptions"))
    fromJSON(*options, out.initializationOptions, path + ".initializationOptions");
  const Json *caps = f.find("capabilities");
  if (!caps) return;
  if (!caps->is_object()) fail(path + ".capabilities", "expected an object, got " + typeName(*caps));
  ClientCapabilities &c = out.capabilities;
  if (const Json *enc = dig(*caps, {"general", "positionEncodings"}); enc && enc->is_array())
    for (const Json &e : *enc)
      if (e.is_string()) c.positionEncodings.push_back(e.get<std::string>());
  c.pullDiagnostics =
      dig(*caps, {"textDocument", "diagnostic"}) != nullptr && dig(*caps, {"textDocument", "diagnostic"})->is_object();
  c.codeActionResolveEdit =
      arrayContains(dig(*caps, {"textDocument", "codeAction", "resolveSupport", "properties"}), "edit");
  const Json *formats = dig(*caps, {"textDocument", "hover", "contentFormat"});
  c.hoverMarkdown = !formats || !formats->is_array() || arrayContains(formats, "markdown");
  c.workDoneProgress = truthy(dig(*caps, {"window", "workDoneProgress"}));
  c.applyEdit = truthy(dig(*caps, {"workspace", "applyEdit"}));
  c.documentChanges = truthy(dig(*caps, {"workspace", "workspaceEdit", "documentChanges"}));
  c.renameFiles =
      c.documentChanges && arrayContains(dig(*caps, {"workspace", "workspaceEdit", "resourceOperations"}), "rename");
  c.diagnosticRefresh = truthy(dig(*caps, {"workspace", "diagnostics", "refreshSupport"}));
  c.watchedFilesRegistration = truthy(dig(*caps, {"workspace", "didChangeWatchedFiles", "dynamicRegistration"}));
  c.relatedInformation = truthy(dig(*caps, {"textDocument", "publishDiagnostics", "relatedInformation"}));
}

void fromJSON(const Json &j, SetTraceParams &out, const std::string &path) {
  Fields(j, path).required("value", out.value);
}

void fromJSON(const Json &j, DidOpenTextDocumentParams &out, const std::string &path) {
  Fields(j, path).required("textDocument", out.textDocument);
}

void fromJSON(const Json &j, DidChangeTextDocumentParams &out, const std::string &path) {
  const Fields f(j, path);
  f.required("textDocument", out.textDocument);
  f.required("contentChanges", out.contentChanges);
}

void fromJSON(const Json &j, TextDocumentItem &out, const std::string &path) {
  const Fields doc(j, path);
  doc.required("uri", out.uri);
  doc.optional("languageId", out.languageId);
  doc.required("version", out.version);
  doc.required("text", out.text);
}

void fromJSON(const Json &j, NotebookCell &out, const std::string &path) {
  const Fields f(j, path);
  f.required("kind", out.kind);
  f.required("document", out.document);
}

void fromJSON(const Json &j, VersionedTextDocumentIdentifier &out, const std::string &path) {
  const Fields f(j, path);
  f.required("uri", out.uri);
  f.required("version", out.version);
}

void fromJSON(const Json &j, NotebookDocument &out, const std::string &path) {
  const Fields f(j, path);
  f.required("uri", out.uri);
  f.optional("notebookType", out.notebookType);
  f.required("version", out.version);
  f.required("cells", out.cells);
}

void fromJSON(const Json &j, NotebookCellTextChange &out, const std::string &path) {
  const Fields f(j, path);
  f.required("document", out.document);
  f.required("changes", out.changes);
}

void fromJSON(const Json &j, NotebookCellArrayChange &out, const std::string &path) {
  const Fields f(j, path);
  f.required("start", out.start);
  f.required("deleteCount", out.deleteCount);
  f.optional("cells", out.cells);
  if (out.start < 0 || out.deleteCount < 0) fail(path, "start and deleteCount must not be negative");
}

void fromJSON(const Json &j, DidOpenNotebookDocumentParams &out, const std::string &path) {
  const Fields f(j, path);
  f.required("notebookDocument", out.notebookDocument);
  f.optional("cellTextDocuments", out.cellTextDocuments);
}

void fromJSON(const Json &j, DidChangeNotebookDocumentParams &out, const std::string &path) {
  const Fields f(j, path);
  f.required("notebookDocument", out.notebookDocument);
  const Json *change = f.find("change");
  if (!change) fail(path + ".change", "missing");
  const Fields c(*change, path + ".change");
  const Json *cells = c.find("cells");
  if (!cells) return; // metadata only
  const std::string cellsPath = path + ".change.cells";
  const Fields cs(*cells, cellsPath);
  if (const Json *structure = cs.find("structure")) {
    const Fields st(*structure, cellsPath + ".structure");
    NotebookCellArrayChange array;
    st.required("array", array);
    out.structure = std::move(array);
    st.optional("didOpen", out.didOpen);
    st.optional("didClose", out.didClose);
  }
  cs.optional("data", out.data);
  cs.optional("textContent", out.textContent);
}

void fromJSON(const Json &j, DidSaveNotebookDocumentParams &out, const std::string &path) {
  Fields(j, path).required("notebookDocument", out.notebookDocument);
}

void fromJSON(const Json &j, DidCloseNotebookDocumentParams &out, const std::string &path) {
  const Fields f(j, path);
  f.required("notebookDocument", out.notebookDocument);
  f.optional("cellTextDocuments", out.cellTextDocuments);
}

void fromJSON(const Json &j, DidCloseTextDocumentParams &out, const std::string &path) {
  Fields(j, path).required("textDocument", out.textDocument);
}

void fromJSON(const Json &j, DidSaveTextDocumentParams &out, const std::string &path) {
  const Fields f(j, path);
  f.required("textDocument", out.textDocument);
  f.optional("text", out.text);
}

void fromJSON(const Json &j, DidChangeConfigurationParams &out, const std::string &path) {
  if (j.is_object()) {
    if (const auto it = j.find("settings"); it != j.end()) fromJSON(*it, out.settings, path + ".settings");
  }
}

void fromJSON(const Json &j, DidChangeWorkspaceFoldersParams &out, const std::string &path) {
  requireObject(j, path);
  const auto it = j.find("event");
  if (it == j.end()) fail(path + ".event", "missing");
  const Fields event(*it, path + ".event");
  event.required("added", out.added);
  event.required("removed", out.removed);
}

void fromJSON(const Json &j, DidChangeWatchedFilesParams &out, const std::string &path) {
  Fields(j, path).required("changes", out.changes);
}

void fromJSON(const Json &j, ExecuteCommandParams &out, const std::string &path) {
  const Fields f(j, path);
  f.required("command", out.command);
  f.optional("arguments", out.arguments);
  f.optional("workDoneToken", out.workDoneToken);
}

void fromJSON(const Json &j, ApplyWorkspaceEditResult &out, const std::string &path) {
  const Fields f(j, path);
  f.required("applied", out.applied);
  f.optional("failureReason", out.failureReason);
}

void fromJSON(const Json &j, Diagnostic &out, const std::string &path) {
  const Fields f(j, path);
  f.required("range", out.range);
  f.required("message", out.message);
  if (const Json *severity = f.find("severity"); severity && severity->is_number_integer()) {
    const auto value = severity->get<std::int64_t>();
    if (value >= 1 && value <= 4) out.severity = static_cast<DiagnosticSeverity>(value);
  }
  if (const Json *code = f.find("code")) {
    if (code->is_string()) out.code = code->get<std::string>();
    else if (code->is_number_integer()) out.code = std::to_string(code->get<std::int64_t>());
  }
  if (const Json *source = f.find("source"); source && source->is_string()) out.source = source->get<std::string>();
  if (const Json *href = dig(j, {"codeDescription", "href"}); href && href->is_string())
    out.codeDescriptionHref = href->get<std::string>();
  if (const Json *tags = f.find("tags"); tags && tags->is_array())
    for (const Json &t : *tags)
      if (t.is_number_integer() && (t.get<int>() == 1 || t.get<int>() == 2))
        out.tags.push_back(static_cast<DiagnosticTag>(t.get<int>()));
  if (const Json *data = f.find("data")) {
    // Another server's (or an old) `data` shape is not an error: the diagnostic is matched by
    // code and line instead.
    try {
      DiagnosticData parsed;
      fromJSON(*data, parsed, path + ".data");
      out.data = parsed;
    } catch (const LspError &) {}
  }
}

void fromJSON(const Json &j, DocumentDiagnosticParams &out, const std::string &path) {
  const Fields f(j, path);
  f.required("textDocument", out.textDocument);
  f.optional("previousResultId", out.previousResultId);
}

void fromJSON(const Json &j, WorkspaceDiagnosticParams &out, const std::string &path) {
  const Fields f(j, path);
  f.optional("previousResultIds", out.previousResultIds);
}

void fromJSON(const Json &j, CodeActionParams &out, const std::string &path) {
  const Fields f(j, path);
  f.required("textDocument", out.textDocument);
  f.required("range", out.range);
  const auto it = j.find("context");
  if (it == j.end()) fail(path + ".context", "missing");
  const Fields context(*it, path + ".context");
  context.required("diagnostics", out.context.diagnostics);
  context.optional("only", out.context.only);
}

void fromJSON(const Json &j, CodeAction &out, const std::string &path) {
  const Fields f(j, path);
  f.required("title", out.title);
  f.optional("kind", out.kind);
  f.optional("diagnostics", out.diagnostics);
  f.optional("isPreferred", out.isPreferred);
  f.optional("data", out.data);
}

void fromJSON(const Json &j, TextDocumentPositionParams &out, const std::string &path) {
  const Fields f(j, path);
  f.required("textDocument", out.textDocument);
  f.required("position", out.position);
}

// ---- toJSON ----

Json toJSON(const Null &) { return nullptr; }
Json toJSON(const NoParams &) { return nullptr; }

Json toJSON(const Position &p) { return {{"line", p.line}, {"character", p.character}}; }

Json toJSON(const Range &r) { return {{"start", toJSON(r.start)}, {"end", toJSON(r.end)}}; }

Json toJSON(const InitializeResult &r) {
  const ServerCapabilities &c = r.capabilities;
  Json caps = {
      {"positionEncoding", c.positionEncoding},
      {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
      {"hoverProvider", true},
      {"codeActionProvider", {{"codeActionKinds", c.codeActionKinds}, {"resolveProvider", c.codeActionResolve}}},
      {"executeCommandProvider", {{"commands", c.commands}}},
      {"workspace", {{"workspaceFolders", {{"supported", true}, {"changeNotifications", true}}}}},
  };
  if (c.notebooks)
    caps["notebookDocumentSync"] = {
        {"notebookSelector", Json::array({{{"notebook", {{"notebookType", "jupyter-notebook"}}},
                                           {"cells", Json::array({{{"language", "python"}}})}}})},
        {"save", true}};
  if (c.pullDiagnostics)
    caps["diagnosticProvider"] = {
        {"identifier", "asyncfix"}, {"interFileDependencies", false}, {"workspaceDiagnostics", true}};
  return {{"capabilities", caps}, {"serverInfo", {{"name", r.serverName}, {"version", r.serverVersion}}}};
}

Json toJSON(const LogMessageParams &p) { return {{"type", static_cast<int>(p.type)}, {"message", p.message}}; }

Json toJSON(const LogTraceParams &p) {
  Json j = {{"message", p.message}};
  if (p.verbose) j["verbose"] = *p.verbose;
  return j;
}

Json toJSON(const RegistrationParams &p) {
  Json watchers = Json::array();
  for (const FileSystemWatcher &w : p.watchers) watchers.push_back({{"globPattern", w.globPattern}});
  return {{"registrations", Json::array({{{"id", p.id},
                                          {"method", "workspace/didChangeWatchedFiles"},
                                          {"registerOptions", {{"watchers", watchers}}}}})}};
}

namespace {
Json toJSON(const TextEdit &e) { return {{"range", toJSON(e.range)}, {"newText", e.newText}}; }
Json toJSON(const std::vector<TextEdit> &edits) {
  Json out = Json::array();
  for (const TextEdit &e : edits) out.push_back(toJSON(e));
  return out;
}
Json toJSON(const DiagnosticData &d) {
  Json j = {{"version", d.version}, {"start", d.start}, {"end", d.end}};
  if (d.fix) j["fix"] = *d.fix;
  return j;
}
Json toJSON(const CodeActionData &d) {
  Json j = {{"uri", d.uri}, {"version", d.version}, {"action", d.action}};
  if (d.code) j["code"] = *d.code;
  if (d.module) j["module"] = *d.module;
  return j;
}
Json toJSON(const std::vector<Diagnostic> &items) {
  Json out = Json::array();
  for (const Diagnostic &d : items) out.push_back(toJSON(d));
  return out;
}
Json reportJSON(const DocumentDiagnosticReport &r) {
  if (r.unchanged) return {{"kind", "unchanged"}, {"resultId", r.resultId}};
  return {{"kind", "full"}, {"resultId", r.resultId}, {"items", toJSON(r.items)}};
}
} // namespace

Json toJSON(const WorkspaceEdit &e) {
  if (e.documentChanges) {
    Json changes = Json::array();
    for (const TextDocumentEdit &d : e.edits)
      changes.push_back({{"textDocument",
                          {{"uri", d.textDocument.uri},
                           {"version", d.textDocument.version ? Json(*d.textDocument.version) : Json(nullptr)}}},
                         {"edits", toJSON(d.edits)}});
    for (const RenameFile &r : e.renames)
      changes.push_back({{"kind", "rename"},
                         {"oldUri", r.oldUri},
                         {"newUri", r.newUri},
                         {"options", {{"overwrite", false}, {"ignoreIfExists", false}}}});
    return {{"documentChanges", changes}};
  }
  Json changes = Json::object();
  for (const TextDocumentEdit &d : e.edits) {
    Json &list = changes[d.textDocument.uri];
    if (list.is_null()) list = Json::array();
    for (const TextEdit &t : d.edits) list.push_back(toJSON(t));
  }
  return {{"changes", changes}};
}

Json toJSON(const ApplyWorkspaceEditParams &p) { return {{"label", p.label}, {"edit", toJSON(p.edit)}}; }

Json toJSON(const WorkDoneProgressCreateParams &p) { return {{"token", toJSON(p.token)}}; }

Json toJSON(const ProgressParams &p) {
  static constexpr const char *kKinds[] = {"begin", "report", "end"};
  Json value = {{"kind", kKinds[static_cast<int>(p.value.kind)]}};
  if (p.value.title) value["title"] = *p.value.title;
  if (p.value.cancellable) value["cancellable"] = *p.value.cancellable;
  if (p.value.message) value["message"] = *p.value.message;
  if (p.value.percentage) value["percentage"] = *p.value.percentage;
  return {{"token", toJSON(p.token)}, {"value", value}};
}

Json toJSON(const Diagnostic &d) {
  Json j = {{"range", toJSON(d.range)}, {"message", d.message}};
  if (d.severity) j["severity"] = static_cast<int>(*d.severity);
  if (d.code) j["code"] = *d.code;
  if (d.codeDescriptionHref) j["codeDescription"] = {{"href", *d.codeDescriptionHref}};
  if (d.source) j["source"] = *d.source;
  if (!d.tags.empty()) {
    Json tags = Json::array();
    for (DiagnosticTag t : d.tags) tags.push_back(static_cast<int>(t));
    j["tags"] = tags;
  }
  if (d.data) j["data"] = toJSON(*d.data);
  if (!d.relatedInformation.empty()) {
    Json related = Json::array();
    for (const DiagnosticRelatedInformation &r : d.relatedInformation)
      related.push_back({{"location", {{"uri", r.uri}, {"range", toJSON(r.range)}}}, {"message", r.message}});
    j["relatedInformation"] = related;
  }
  return j;
}

Json toJSON(const PublishDiagnosticsParams &p) {
  Json j = {{"uri", p.uri}, {"diagnostics", toJSON(p.diagnostics)}};
  if (p.version) j["version"] = *p.version;
  return j;
}

namespace {

/// Appends `s` as a JSON string: as Dispatcher::send's dump() writes it (invalid UTF-8 replaced).
void appendString(std::string &out, std::string_view s) {
  const bool plain = std::all_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x7F && c != '"' && c != '\\';
  });
  if (!plain) {
    out += Json(std::string(s)).dump(-1, ' ', false, Json::error_handler_t::replace);
    return;
  }
  out += '"';
  out += s;
  out += '"';
}

void appendPosition(std::string &out, const Position &p) {
  out += "{\"character\":";
  out += std::to_string(p.character);
  out += ",\"line\":";
  out += std::to_string(p.line);
  out += '}';
}

void appendRange(std::string &out, const Range &r) {
  out += "{\"end\":";
  appendPosition(out, r.end);
  out += ",\"start\":";
  appendPosition(out, r.start);
  out += '}';
}

// Keys in nlohmann's order (sorted), as toJSON(const Diagnostic &) makes them.
void appendDiagnostic(std::string &out, const Diagnostic &d) {
  out += '{';
  if (d.code) {
    out += "\"code\":";
    appendString(out, *d.code);
    out += ',';
  }
  if (d.codeDescriptionHref) {
    out += "\"codeDescription\":{\"href\":";
    appendString(out, *d.codeDescriptionHref);
    out += "},";
  }
  if (d.data) {
    out += "\"data\":{\"end\":";
    out += std::to_string(d.data->end);
    if (d.data->fix) {
      out += ",\"fix\":";
      appendString(out, *d.data->fix);
    }
    out += ",\"start\":";
    out += std::to_string(d.data->start);
    out += ",\"version\":";
    out += std::to_string(d.data->version);
    out += "},";
  }
  out += "\"message\":";
  appendString(out, d.message);
  out += ",\"range\":";
  appendRange(out, d.range);
  if (!d.relatedInformation.empty()) {
    out += ",\"relatedInformation\":[";
    for (std::size_t i = 0; i < d.relatedInformation.size(); ++i) {
      const DiagnosticRelatedInformation &r = d.relatedInformation[i];
      out += i > 0 ? ",{\"location\":{\"range\":" : "{\"location\":{\"range\":";
      appendRange(out, r.range);
      out += ",\"uri\":";
      appendString(out, r.uri);
      out += "},\"message\":";
      appendString(out, r.message);
      out += '}';
    }
    out += ']';
  }
  if (d.severity) {
    out += ",\"severity\":";
    out += std::to_string(static_cast<int>(*d.severity));
  }
  if (d.source) {
    out += ",\"source\":";
    appendString(out, *d.source);
  }
  if (!d.tags.empty()) {
    out += ",\"tags\":[";
    for (std::size_t i = 0; i < d.tags.size(); ++i) {
      if (i > 0) out += ',';
      out += std::to_string(static_cast<int>(d.tags[i]));
    }
    out += ']';
  }
  out += '}';
}

} // namespace

std::string toJSONText(const PublishDiagnosticsParams &p) {
  std::string out = "{\"diagnostics\":[";
  out.reserve(256 * (p.diagnostics.size() + 1));
  for (std::size_t i = 0; i < p.diagnostics.size(); ++i) {
    if (i > 0) out += ',';
    appendDiagnostic(out, p.diagnostics[i]);
  }
  out += "],\"uri\":";
  appendString(out, p.uri);
  if (p.version) {
    out += ",\"version\":";
    out += std::to_string(*p.version);
  }
  out += '}';
  return out;
}

Json toJSON(const DocumentDiagnosticReport &r) { return reportJSON(r); }

Json toJSON(const WorkspaceDiagnosticReport &r) {
  Json items = Json::array();
  for (const WorkspaceDocumentDiagnosticReport &item : r.items) {
    Json j = reportJSON(item.report);
    j["uri"] = item.uri;
    j["version"] = item.version ? Json(*item.version) : Json(nullptr);
    items.push_back(j);
  }
  return {{"items", items}};
}

Json toJSON(const CodeAction &a) {
  Json j = {{"title", a.title}, {"kind", a.kind}};
  if (!a.diagnostics.empty()) j["diagnostics"] = toJSON(a.diagnostics);
  if (a.isPreferred) j["isPreferred"] = *a.isPreferred;
  if (a.edit) j["edit"] = toJSON(*a.edit);
  if (a.data) j["data"] = toJSON(*a.data);
  return j;
}

Json toJSON(const std::vector<CodeAction> &actions) {
  Json out = Json::array();
  for (const CodeAction &a : actions) out.push_back(toJSON(a));
  return out;
}

Json toJSON(const std::optional<Hover> &h) {
  if (!h) return nullptr;
  Json j = {{"contents", {{"kind", h->contents.kind}, {"value", h->contents.value}}}};
  if (h->range) j["range"] = toJSON(*h->range);
  return j;
}

} // namespace asyncfix::lsp
