// lsp/protocol.h — the LSP 3.17 types the server uses, as plain structs, with fromJSON/toJSON.
//
// Field names keep LSP's spelling. Only what the server reads or writes is modelled ("doesn't
// mirror LSP"). Absent optionals are omitted from the JSON, never written as null. fromJSON throws
// LspError(InvalidParams) naming the path of the offending field ("params.textDocument.uri").
// This header and protocol.cpp are, with the dispatcher, the only code that sees LSP's JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace asyncfix::lsp {

using Json = nlohmann::json;

// ---- JSON-RPC -------------------------------------------------------------------------------

enum class ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestFailed = -32803,
  RequestCancelled = -32800,
  ContentModified = -32801,
};

/// An error a request is answered with. Thrown by fromJSON and by handlers.
class LspError : public std::runtime_error {
public:
  LspError(ErrorCode errorCode, const std::string &message) : std::runtime_error(message), code(errorCode) {}
  ErrorCode code;
};

/// The `params` of a method without parameters (or whose parameters the server ignores).
struct NoParams {};
/// A `null` result.
struct Null {};

// ---- basic structures -----------------------------------------------------------------------

/// A position as the client counts it: 0-based line, column in the negotiated encoding's units.
struct Position {
  std::uint32_t line = 0;
  std::uint32_t character = 0;
  friend bool operator==(const Position &, const Position &) = default;
};

struct Range {
  Position start;
  Position end;
  friend bool operator==(const Range &, const Range &) = default;
};

struct TextEdit {
  Range range;
  std::string newText;
};

struct TextDocumentIdentifier {
  std::string uri;
};

struct VersionedTextDocumentIdentifier {
  std::string uri;
  std::int64_t version = 0;
};

/// `version` is written as null when absent (the spec's `integer | null`).
struct OptionalVersionedTextDocumentIdentifier {
  std::string uri;
  std::optional<std::int64_t> version;
};

struct TextDocumentItem {
  std::string uri;
  std::string languageId;
  std::int64_t version = 0;
  std::string text;
};

struct TextDocumentEdit {
  OptionalVersionedTextDocumentIdentifier textDocument;
  std::vector<TextEdit> edits;
};

/// A `RenameFile` resource operation (a file or a directory), never over an existing target.
struct RenameFile {
  std::string oldUri;
  std::string newUri;
};

/// Written as `documentChanges` when the client supports them (then `version` guards against
/// applying an edit to a text that changed), else as `changes`. The renames (only with
/// documentChanges and a client that declares the `rename` resource operation) come after every
/// text edit, which names its file as it is before them.
struct WorkspaceEdit {
  bool documentChanges = false;
  std::vector<TextDocumentEdit> edits;
  std::vector<RenameFile> renames{};
};

using ProgressToken = std::variant<std::int64_t, std::string>;

// ---- settings (initializationOptions, workspace/didChangeConfiguration) --------------------

/// The keys a client may set, flat or nested under "asyncfix"; camelCase or kebab-case
/// (`extendSelect` / `extend-select`). Parsing never fails: a value of the wrong type is left
/// unset and described in `problems`.
struct Settings {
  std::optional<std::vector<std::string>> select; ///< list, or a comma-separated string
  std::optional<std::vector<std::string>> extendSelect;
  std::optional<std::vector<std::string>> ignore;
  std::optional<std::string> targetVersion; ///< "py38" / "3.8"
  std::optional<std::string> renameStyle;   ///< "async_" / "is_async" / "{name}_"
  std::optional<bool> unsafeFixes;
  std::optional<std::string> docsUrl; ///< the address of the manual, for the links to rule pages
  std::vector<std::string> problems;
  bool empty() const {
    return !select && !extendSelect && !ignore && !targetVersion && !renameStyle && !unsafeFixes && !docsUrl;
  }
};

// ---- lifecycle ------------------------------------------------------------------------------

/// The client capabilities the server looks at, flattened.
struct ClientCapabilities {
  std::vector<std::string> positionEncodings; ///< general.positionEncodings
  bool pullDiagnostics = false;               ///< textDocument.diagnostic present
  bool codeActionResolveEdit = false;         ///< codeAction.resolveSupport.properties ∋ "edit"
  bool hoverMarkdown = false;                 ///< hover.contentFormat ∋ "markdown" (or absent)
  bool workDoneProgress = false;              ///< window.workDoneProgress
  bool applyEdit = false;                     ///< workspace.applyEdit
  bool documentChanges = false;               ///< workspace.workspaceEdit.documentChanges
  bool renameFiles = false;                   ///< documentChanges, and resourceOperations ∋ "rename"
  bool diagnosticRefresh = false;             ///< workspace.diagnostics.refreshSupport
  bool watchedFilesRegistration = false;      ///< workspace.didChangeWatchedFiles.dynamicRegistration
  bool relatedInformation = false;            ///< textDocument.publishDiagnostics.relatedInformation
};

struct WorkspaceFolder {
  std::string uri;
  std::string name;
};

struct InitializeParams {
  std::optional<std::string> rootUri;
  std::optional<std::string> rootPath;
  std::vector<WorkspaceFolder> workspaceFolders;
  ClientCapabilities capabilities;
  Settings initializationOptions;
  std::optional<std::string> trace;
  std::optional<std::string> clientName;
};

struct ServerCapabilities {
  std::string positionEncoding = "utf-16";
  bool pullDiagnostics = false; ///< advertise diagnosticProvider (only to pull clients)
  bool codeActionResolve = false;
  std::vector<std::string> codeActionKinds;
  std::vector<std::string> commands;
  bool notebooks = true; ///< notebookDocumentSync for Jupyter notebooks' Python cells
};

struct InitializeResult {
  ServerCapabilities capabilities;
  std::string serverName;
  std::string serverVersion;
};

struct SetTraceParams {
  std::string value;
};

enum class MessageType : int { Error = 1, Warning = 2, Info = 3, Log = 4 };

struct LogMessageParams {
  MessageType type = MessageType::Info;
  std::string message;
};

struct LogTraceParams {
  std::string message;
  std::optional<std::string> verbose;
};

// ---- text synchronization -------------------------------------------------------------------

struct DidOpenTextDocumentParams {
  TextDocumentItem textDocument;
};

struct TextDocumentContentChangeEvent {
  std::optional<Range> range; ///< absent: `text` is the whole new document
  std::string text;
};

struct DidChangeTextDocumentParams {
  VersionedTextDocumentIdentifier textDocument;
  std::vector<TextDocumentContentChangeEvent> contentChanges;
};

struct DidCloseTextDocumentParams {
  TextDocumentIdentifier textDocument;
};

struct DidSaveTextDocumentParams {
  TextDocumentIdentifier textDocument;
  std::optional<std::string> text;
};

// ---- notebooks (LSP 3.17 notebookDocument/*) ------------------------------------------------

/// A cell of a notebook: markup (1) or code (2), and the URI of its text document.
struct NotebookCell {
  std::int64_t kind = 2;
  std::string document;
};

struct NotebookDocument {
  std::string uri;
  std::string notebookType;
  std::int64_t version = 0;
  std::vector<NotebookCell> cells;
};

struct DidOpenNotebookDocumentParams {
  NotebookDocument notebookDocument;
  std::vector<TextDocumentItem> cellTextDocuments;
};

/// Cells [start, start + deleteCount) replaced by `cells`.
struct NotebookCellArrayChange {
  std::int64_t start = 0;
  std::int64_t deleteCount = 0;
  std::vector<NotebookCell> cells;
};

struct NotebookCellTextChange {
  VersionedTextDocumentIdentifier document;
  std::vector<TextDocumentContentChangeEvent> changes;
};

/// `change.metadata` is not modelled: nothing here reads it.
struct DidChangeNotebookDocumentParams {
  VersionedTextDocumentIdentifier notebookDocument;
  std::optional<NotebookCellArrayChange> structure;
  std::vector<TextDocumentItem> didOpen;        ///< cells' text documents opened by the change
  std::vector<TextDocumentIdentifier> didClose; ///< and closed
  std::vector<NotebookCell> data;               ///< cells whose kind or metadata changed
  std::vector<NotebookCellTextChange> textContent;
};

struct DidSaveNotebookDocumentParams {
  TextDocumentIdentifier notebookDocument;
};

struct DidCloseNotebookDocumentParams {
  TextDocumentIdentifier notebookDocument;
  std::vector<TextDocumentIdentifier> cellTextDocuments;
};

// ---- workspace ------------------------------------------------------------------------------

struct DidChangeConfigurationParams {
  Settings settings;
};

struct DidChangeWorkspaceFoldersParams {
  std::vector<WorkspaceFolder> added;
  std::vector<WorkspaceFolder> removed;
};

struct FileEvent {
  std::string uri;
  int type = 0; ///< 1 created, 2 changed, 3 deleted
};

struct DidChangeWatchedFilesParams {
  std::vector<FileEvent> changes;
};

struct FileSystemWatcher {
  std::string globPattern;
};

/// client/registerCapability for workspace/didChangeWatchedFiles (the only one registered).
struct RegistrationParams {
  std::string id;
  std::vector<FileSystemWatcher> watchers;
};

/// One argument of an asyncfix command: a document URI, as a string or as {uri, version}.
struct CommandArgument {
  std::string uri;
  std::optional<std::int64_t> version;
};

struct ExecuteCommandParams {
  std::string command;
  std::vector<CommandArgument> arguments;
  std::optional<ProgressToken> workDoneToken;
};

struct ApplyWorkspaceEditParams {
  std::string label;
  WorkspaceEdit edit;
};

struct ApplyWorkspaceEditResult {
  bool applied = false;
  std::optional<std::string> failureReason;
};

struct WorkDoneProgressCreateParams {
  ProgressToken token;
};

/// The value of a `$/progress` notification for work-done progress.
struct WorkDoneProgress {
  enum class Kind : std::uint8_t { Begin, Report, End } kind = Kind::Begin;
  std::optional<std::string> title;
  std::optional<bool> cancellable;
  std::optional<std::string> message;
  std::optional<std::uint32_t> percentage;
};

struct ProgressParams {
  ProgressToken token;
  WorkDoneProgress value;
};

// ---- diagnostics ----------------------------------------------------------------------------

enum class DiagnosticSeverity : int { Error = 1, Warning = 2, Information = 3, Hint = 4 };
enum class DiagnosticTag : int { Unnecessary = 1, Deprecated = 2 };

/// What the server puts in a diagnostic's `data` so that a code action can find the finding again
/// in the current document: the document version it was computed for and the byte range of the
/// finding; `fix` names the applicability of its fix ("safe", "unsafe", "display-only"), absent
/// when there is none.
struct DiagnosticData {
  std::int64_t version = 0;
  std::size_t start = 0;
  std::size_t end = 0;
  std::optional<std::string> fix;
};

/// A place a diagnostic's message names (its Location: the document's own URI and a range).
struct DiagnosticRelatedInformation {
  std::string uri;
  Range range;
  std::string message;
};

struct Diagnostic {
  Range range;
  std::optional<DiagnosticSeverity> severity;
  std::optional<std::string> code;
  std::optional<std::string> codeDescriptionHref;
  std::optional<std::string> source;
  std::string message;
  std::vector<DiagnosticTag> tags;
  std::optional<DiagnosticData> data;                             ///< a client's unparseable `data` reads as absent
  std::vector<DiagnosticRelatedInformation> relatedInformation{}; ///< sent, never read
};

struct PublishDiagnosticsParams {
  std::string uri;
  std::optional<std::int64_t> version;
  std::vector<Diagnostic> diagnostics;
};

struct DocumentDiagnosticParams {
  TextDocumentIdentifier textDocument;
  std::optional<std::string> previousResultId;
};

/// A full report (`items`) or, when `unchanged`, a report that only repeats the result id.
struct DocumentDiagnosticReport {
  bool unchanged = false;
  std::string resultId;
  std::vector<Diagnostic> items;
};

struct PreviousResultId {
  std::string uri;
  std::string value;
};

struct WorkspaceDiagnosticParams {
  std::vector<PreviousResultId> previousResultIds;
};

struct WorkspaceDocumentDiagnosticReport {
  std::string uri;
  std::optional<std::int64_t> version; ///< written as null for a file that is not open
  DocumentDiagnosticReport report;
};

struct WorkspaceDiagnosticReport {
  std::vector<WorkspaceDocumentDiagnosticReport> items;
};

// ---- code actions and hover -----------------------------------------------------------------

struct CodeActionContext {
  std::vector<Diagnostic> diagnostics;
  std::optional<std::vector<std::string>> only;
};

struct CodeActionParams {
  TextDocumentIdentifier textDocument;
  Range range;
  CodeActionContext context;
};

/// What a code action sent without an edit needs to compute it in codeAction/resolve.
struct CodeActionData {
  std::string uri;
  std::int64_t version = 0;
  std::string action;                ///< "fixAll", "sourceFixAll" or "renameModule"
  std::optional<std::string> code;   ///< fixAll: the rule's code
  std::optional<std::string> module; ///< renameModule: the module's dotted path
};

struct CodeAction {
  std::string title;
  std::string kind;
  std::vector<Diagnostic> diagnostics;
  std::optional<bool> isPreferred;
  std::optional<WorkspaceEdit> edit;
  std::optional<CodeActionData> data;
};

struct TextDocumentPositionParams {
  TextDocumentIdentifier textDocument;
  Position position;
};

struct MarkupContent {
  std::string kind; ///< "markdown" or "plaintext"
  std::string value;
};

struct Hover {
  MarkupContent contents;
  std::optional<Range> range;
};

// ---- JSON conversion ------------------------------------------------------------------------
// fromJSON(json, out, path) throws LspError(InvalidParams, "<path>: <problem>").

void fromJSON(const Json &j, NoParams &out, const std::string &path);
void fromJSON(const Json &j, Position &out, const std::string &path);
void fromJSON(const Json &j, Range &out, const std::string &path);
void fromJSON(const Json &j, Settings &out, const std::string &path);
void fromJSON(const Json &j, InitializeParams &out, const std::string &path);
void fromJSON(const Json &j, SetTraceParams &out, const std::string &path);
void fromJSON(const Json &j, DidOpenTextDocumentParams &out, const std::string &path);
void fromJSON(const Json &j, DidChangeTextDocumentParams &out, const std::string &path);
void fromJSON(const Json &j, DidCloseTextDocumentParams &out, const std::string &path);
void fromJSON(const Json &j, DidSaveTextDocumentParams &out, const std::string &path);
void fromJSON(const Json &j, TextDocumentItem &out, const std::string &path);
void fromJSON(const Json &j, VersionedTextDocumentIdentifier &out, const std::string &path);
void fromJSON(const Json &j, NotebookDocument &out, const std::string &path);
void fromJSON(const Json &j, NotebookCell &out, const std::string &path);
void fromJSON(const Json &j, NotebookCellTextChange &out, const std::string &path);
void fromJSON(const Json &j, NotebookCellArrayChange &out, const std::string &path);
void fromJSON(const Json &j, DidOpenNotebookDocumentParams &out, const std::string &path);
void fromJSON(const Json &j, DidChangeNotebookDocumentParams &out, const std::string &path);
void fromJSON(const Json &j, DidSaveNotebookDocumentParams &out, const std::string &path);
void fromJSON(const Json &j, DidCloseNotebookDocumentParams &out, const std::string &path);
void fromJSON(const Json &j, DidChangeConfigurationParams &out, const std::string &path);
void fromJSON(const Json &j, DidChangeWorkspaceFoldersParams &out, const std::string &path);
void fromJSON(const Json &j, DidChangeWatchedFilesParams &out, const std::string &path);
void fromJSON(const Json &j, ExecuteCommandParams &out, const std::string &path);
void fromJSON(const Json &j, ApplyWorkspaceEditResult &out, const std::string &path);
void fromJSON(const Json &j, Diagnostic &out, const std::string &path);
void fromJSON(const Json &j, DocumentDiagnosticParams &out, const std::string &path);
void fromJSON(const Json &j, WorkspaceDiagnosticParams &out, const std::string &path);
void fromJSON(const Json &j, CodeActionParams &out, const std::string &path);
void fromJSON(const Json &j, CodeAction &out, const std::string &path);
void fromJSON(const Json &j, TextDocumentPositionParams &out, const std::string &path);
void fromJSON(const Json &j, Null &out, const std::string &path);

Json toJSON(const Null &);
Json toJSON(const NoParams &); ///< null: the message gets no `params`
Json toJSON(const Position &);
Json toJSON(const Range &);
Json toJSON(const InitializeResult &);
Json toJSON(const LogMessageParams &);
Json toJSON(const LogTraceParams &);
Json toJSON(const RegistrationParams &);
Json toJSON(const WorkspaceEdit &);
Json toJSON(const ApplyWorkspaceEditParams &);
Json toJSON(const WorkDoneProgressCreateParams &);
Json toJSON(const ProgressParams &);
Json toJSON(const Diagnostic &);
Json toJSON(const PublishDiagnosticsParams &);
Json toJSON(const DocumentDiagnosticReport &);
Json toJSON(const WorkspaceDiagnosticReport &);
Json toJSON(const CodeAction &);
Json toJSON(const std::optional<Hover> &);
Json toJSON(const std::vector<CodeAction> &actions);

/// The message text of toJSON(p) as Dispatcher::send writes it (the same keys in the same order,
/// the same escaping), written directly. A keystroke publishes every finding of the file: at
/// 20 000 lines, building and freeing nlohmann's objects for them was most of the message
/// loop's work per keystroke.
std::string toJSONText(const PublishDiagnosticsParams &p);

} // namespace asyncfix::lsp
