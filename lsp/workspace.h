// lsp/workspace.h — open documents, workspace folders and the configuration of each file.
//
// No JSON and no LSP types here: documents are engine Documents, positions are byte offsets.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "asyncfix/diagnostic.h"
#include "asyncfix/document.h"
#include "asyncfix/incremental.h"
#include "asyncfix/linter.h"
#include "asyncfix/notebook.h"
#include "asyncfix/settings.h"

namespace asyncfix::lsp {

/// A document the client has opened: its text and tree (re-parsed incrementally on each edit,
/// also when it has syntax errors), the client's version, and the lint results for the current
/// text, kept per top-level statement across edits (IncrementalLint).
struct OpenDocument {
  OpenDocument(std::string documentUri, std::int64_t documentVersion, std::string text)
      : uri(std::move(documentUri)), version(documentVersion), doc(std::move(text)) {}
  std::string uri;
  std::int64_t version;
  Document doc;
  std::optional<std::filesystem::path> path;                    ///< for file: URIs
  std::uint64_t stamp = 0;                                      ///< changes with every edit and configuration change
  std::optional<std::vector<asyncfix::Diagnostic>> diagnostics; ///< for the current text and stamp
  IncrementalLint lint;                                         ///< per-statement results across edits
  const Linter *linter = nullptr;                               ///< the one `lint` holds results of
  bool publishPending = false;                                  ///< push clients: publish at the next idle moment
  bool settled = true;  ///< the tree is a fresh parse, or a clean one (an incremental parse of broken text may differ)
  bool tooLargeNoticed = false;                                 ///< the size notice was given
  std::uint64_t lastUsed = 0;                                   ///< when its diagnostics were last asked for
};

/// A notebook the client has opened (LSP 3.17 notebookDocument/*): its cells in order, and one
/// virtual Python document made of its code cells exactly as the CLI makes it (asyncfix::Notebook:
/// cells joined with a boundary line, IPython lines masked), linted incrementally like any open
/// document. Cells are addressed by their own URIs; positions map through the cell map.
struct OpenNotebook {
  struct Cell {
    std::string uri;
    bool code = true;       ///< a code cell (else markup)
    std::string language;   ///< its text document's languageId
    std::int64_t version = 0;
    std::string text;
  };
  std::string uri;
  std::int64_t version = 0;
  std::vector<Cell> cells;
  std::unique_ptr<OpenDocument> virtualDoc; ///< the code cells as one Python text
  std::optional<Notebook> layout;           ///< where each code cell lies in it
  bool publishPending = false;
  /// What was last published for each cell (its version and diagnostics, serialized): a
  /// keystroke republishes only the cells whose findings or version changed.
  std::map<std::string, std::string> published;

  /// The index in `cells` of the cell with this URI (nullopt when none).
  std::optional<std::size_t> cellIndex(std::string_view cellUri) const;
  /// The cell holding virtual offset `at`, and the offset within its text (nullopt on a boundary).
  std::optional<std::pair<std::size_t, std::size_t>> cellAt(std::size_t at) const;
  /// Where cell `index` starts in the virtual text (nullopt for a markup cell).
  std::optional<std::size_t> virtualStart(std::size_t index) const;
};

/// The settings that apply to one document.
struct FileSettings {
  const Linter *linter = nullptr; ///< owned by the Workspace; valid until the next configuration change
  bool unsafeFixes = false;
};

class Workspace {
public:
  Workspace();
  ~Workspace();

  // ---- configuration ----
  /// Replaces the editor's overrides (they win over configuration files) and forgets cached
  /// configuration files; every open document is re-linted.
  void setOverrides(ConfigOverrides overrides);
  /// Forgets cached configuration files (one changed on disk); every open document is re-linted.
  void reloadConfigFiles();
  /// The seam between the server and configuration: the nearest pyproject.toml / asyncfix.toml
  /// above the file (like the CLI), then the overrides. A document without a path, or one whose
  /// configuration file is broken, gets the overrides alone; the problem goes to `problems()`.
  FileSettings settingsFor(const std::string &uri);
  FileSettings settingsForPath(const std::filesystem::path &path);
  /// Configuration problems met since the last call (each reported once).
  std::vector<std::string> takeProblems();
  /// Other things the user should know, met since the last call (each reported once).
  std::vector<std::string> takeNotices();

  /// Documents larger than this are not linted as you type (a parse of tens of megabytes takes
  /// seconds, during which no other document would be served): they get no diagnostics and one
  /// notice. `asyncfix check` handles them. Tests lower it.
  std::size_t maxLintBytes = std::size_t{8} << 20;
  /// Changes with every configuration change.
  std::uint64_t configGeneration() const { return configGeneration_; }

  // ---- folders ----
  void addFolder(const std::filesystem::path &folder);
  void removeFolder(const std::filesystem::path &folder);
  const std::vector<std::filesystem::path> &folders() const { return folders_; }
  /// The Python files (.py, .pyi) under the folders, sorted: hidden directories, symlinks and
  /// whatever the applicable configuration's `exclude` names (by default the CLI's list:
  /// `__pycache__`, `.git`, `venv`, `build`, ...) are skipped.
  std::vector<std::filesystem::path> pythonFiles();

  // ---- documents ----
  OpenDocument &open(const std::string &uri, std::int64_t version, std::string text);
  OpenDocument *find(const std::string &uri);
  /// The open document of a filesystem path, if any (URIs may spell one path differently).
  OpenDocument *findByPath(const std::filesystem::path &path);
  void close(const std::string &uri);
  /// Replaces bytes [start, end) of the document (clamped) and re-parses incrementally.
  void edit(OpenDocument &doc, std::size_t start, std::size_t end, std::string_view text);
  void replaceText(OpenDocument &doc, std::string text);
  /// The diagnostics of the document's current text (linted now if needed, incrementally: only
  /// the statements an edit can have changed).
  const std::vector<asyncfix::Diagnostic> &diagnostics(OpenDocument &doc);
  /// After an incremental re-parse of text with syntax errors, tree-sitter may have recovered
  /// differently from a fresh parse (what the CLI does). When the document is quiet: parse it
  /// afresh and lint it again. True when its diagnostics changed (publish them again).
  bool settle(OpenDocument &doc);
  std::map<std::string, OpenDocument> &documents() { return documents_; }

  // ---- notebooks ----
  OpenNotebook &openNotebook(const std::string &uri, std::int64_t version, std::vector<OpenNotebook::Cell> cells);
  OpenNotebook *findNotebook(const std::string &uri);
  /// The notebook one of whose cells has this URI.
  OpenNotebook *notebookOfCell(const std::string &cellUri);
  void closeNotebook(const std::string &uri);
  /// Makes the virtual document follow the cells after they changed (one edit: the bytes that
  /// differ), so that it is linted incrementally. False when a cell's text cannot be read as a
  /// notebook (it never fails for text the client sent; kept for safety).
  bool syncNotebook(OpenNotebook &notebook);
  std::map<std::string, OpenNotebook> &notebooks() { return notebooks_; }

private:
  void touch(OpenDocument &doc);
  /// Keeps the trees of the kTreesKept most recently used documents and frees the others' (a
  /// tree costs tens of times its text); a document whose tree was freed is re-parsed on use.
  void trimTrees();
  void invalidateAll();
  const Linter &linterFor(const Config &config);
  ConfigResolver &resolver();

  std::map<std::string, OpenDocument> documents_;
  std::map<std::string, OpenNotebook> notebooks_;
  std::vector<std::filesystem::path> folders_;
  ConfigOverrides overrides_;
  std::unique_ptr<ConfigResolver> resolver_;               ///< nearest configuration file per directory
  std::unique_ptr<ConfigResolver> overridesOnly_;          ///< for documents without a file path
  std::map<std::string, std::unique_ptr<Linter>> linters_; ///< by configuration
  std::vector<std::string> problems_;
  std::vector<std::string> notices_;
  std::vector<std::string> reported_;
  std::uint64_t configGeneration_ = 1;
  std::uint64_t nextStamp_ = 1;
  std::uint64_t useClock_ = 0;
};

} // namespace asyncfix::lsp
