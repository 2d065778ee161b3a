// lsp/workspace.h — open documents, workspace folders and the configuration of each file.
//
// No JSON and no LSP types here: documents are engine Documents, positions are byte offsets.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "analyzer.h"
#include "asyncfix/diagnostic.h"
#include "asyncfix/document.h"
#include "asyncfix/linter.h"
#include "asyncfix/notebook.h"
#include "asyncfix/settings.h"

namespace asyncfix::lsp {

/// A document the client has opened, on the message loop's side: its text (for positions; never
/// parsed here), the client's version, and the latest findings the Analyzer made for it — for
/// this version, or for an earlier one while the worker catches up.
///
/// Its counters (version, revision, stamp) and whether it is to be published change only through
/// its methods: the Workspace calls changed()/relinted()/restamp() as it tells the Analyzer, the
/// Server publishLater()/published() as it pushes diagnostics.
class OpenDocument {
public:
  OpenDocument(std::string documentUri, std::int64_t documentVersion, std::string text)
      : uri(std::move(documentUri)), doc(std::move(text)), version_(documentVersion) {}

  /// The client's version of the text (the last didOpen/didChange).
  std::int64_t version() const { return version_; }
  /// Counts the changes told to the Analyzer (edits, new text, new linter, new version); the
  /// findings made after a change carry its revision.
  std::uint64_t revision() const { return revision_; }
  /// Changes with every edit, configuration change and settle: the result id of a pulled report.
  std::uint64_t stamp() const { return stamp_; }
  /// The client made `version` (an edit, a new text, or only a new number); `stamp` is the
  /// Workspace's next. Returns the revision the Analyzer is to get for it.
  std::uint64_t changed(std::int64_t version, std::uint64_t stamp) {
    version_ = version;
    stamp_ = stamp;
    return ++revision_;
  }
  /// The document is analyzed afresh at its version (opened, or a new linter); returns the
  /// revision for the Analyzer.
  std::uint64_t relinted(std::uint64_t stamp) {
    stamp_ = stamp;
    return ++revision_;
  }
  /// What is published for it changed, its text did not (a settle, the project's finding).
  void restamp(std::uint64_t stamp) { stamp_ = stamp; }

  /// Push clients: publish its diagnostics once its findings are current (publishDue()).
  void publishLater() { publishPending_ = true; }
  bool publishDue() const { return publishPending_ && current() != nullptr; }
  /// Its diagnostics were pushed.
  void published() { publishPending_ = false; }

  std::string uri;
  Document doc;                              ///< the text; its tree is the Analyzer's
  std::optional<std::filesystem::path> path; ///< for file: URIs
  Analyzer::Id analysis = 0;                 ///< the document in the Analyzer
  std::shared_ptr<const Findings> findings;  ///< the latest ones (for `findings->version`)
  /// The edits since `findings` were made (their revision, the bytes they replaced, the length of
  /// what they inserted), to move those findings onto the current text.
  struct Shift {
    std::uint64_t revision;
    std::size_t start, end, length;
  };
  std::vector<Shift> since;
  /// The project's finding on the file itself, as `check` reports it: a module named
  /// `async`/`await` (or such a package's `__init__.py`) cannot be imported (AF201 at its first
  /// line). Worked out on the worker from the workspace's module map (Server::lookUpModule) and
  /// published before the Analyzer's findings.
  std::vector<asyncfix::Diagnostic> moduleFindings;
  bool moduleLookUp = false;    ///< moduleFindings are to be worked out again (the last try was cut short)
  bool tooLargeNoticed = false; ///< the size notice was given
  /// A request waiting for the findings of the current version (a pull): answered when they
  /// come, when the document closes, or (RequestCancelled) as soon as the client cancels it.
  struct Waiting {
    std::function<bool()> cancelled;
    std::function<void()> answer;
  };
  std::vector<Waiting> waiting;

  /// The findings of the current version, or null while the worker has not made them yet.
  const Findings *current() const { return findings && findings->revision == revision_ ? findings.get() : nullptr; }
  /// The latest findings moved onto the current text through the edits since; those an edit
  /// touched are left out. Empty before the first findings.
  std::vector<asyncfix::Diagnostic> latest() const;

private:
  std::int64_t version_;
  std::uint64_t revision_ = 0;
  std::uint64_t stamp_ = 0;
  bool publishPending_ = false;
};

/// A finding as a cell's publishDiagnostics shows it: no fix edits (they lie in the virtual text
/// and move when a cell before this one changes), only whether there is a fix.
struct PublishedFinding {
  explicit PublishedFinding(const asyncfix::Diagnostic &d)
      : code(d.code), start(d.start), end(d.end), severity(d.severity), message(d.message),
        fix(d.fix ? std::optional<Applicability>(d.fix->applicability) : std::nullopt) {}
  std::string_view code;
  std::size_t start, end;
  Severity severity;
  std::string message;
  std::optional<Applicability> fix;
  friend bool operator==(const PublishedFinding &, const PublishedFinding &) = default;
};

/// A notebook's cells in order, and where its code cells lie in its virtual document (a copy is
/// what a task on the worker sees of the notebook).
struct NotebookCells {
  struct Cell {
    std::string uri;
    bool code = true;     ///< a code cell (else markup)
    std::string language; ///< its text document's languageId
    std::int64_t version = 0;
    std::string text;
    /// What was last published for the cell (its version and findings): a keystroke republishes
    /// only the cells whose findings or version changed.
    std::optional<std::pair<std::int64_t, std::vector<PublishedFinding>>> published;
    /// A Python code cell: part of the virtual text (any other cell is left out, like markdown).
    bool python() const { return code && (language.empty() || language == "python"); }
  };
  std::string uri;
  std::vector<Cell> cells;
  std::optional<Notebook> layout; ///< where each code cell lies in the virtual text

  /// The index in `cells` of the cell with this URI (nullopt when none).
  std::optional<std::size_t> cellIndex(std::string_view cellUri) const;
  /// The cell holding virtual offset `at`, and the offset within its text (nullopt on a boundary).
  std::optional<std::pair<std::size_t, std::size_t>> cellAt(std::size_t at) const;
  /// Where cell `index` starts in the virtual text (nullopt for a markup cell).
  std::optional<std::size_t> virtualStart(std::size_t index) const;
};

/// A notebook the client has opened (LSP 3.17 notebookDocument/*): its cells, and one virtual
/// Python document made of its code cells exactly as the CLI makes it (asyncfix::Notebook: cells
/// joined with a boundary line, IPython lines masked), analyzed incrementally like any open
/// document. Cells are addressed by their own URIs; positions map through the cell map.
struct OpenNotebook : NotebookCells {
  std::int64_t version = 0;
  std::unique_ptr<OpenDocument> virtualDoc; ///< the code cells as one Python text

  /// Its cells are to be published once the virtual document's findings are current (cells are
  /// pushed to every client); see OpenDocument::publishLater.
  void publishLater() { publishPending_ = true; }
  bool publishDue() const { return publishPending_ && virtualDoc->current() != nullptr; }
  void published() { publishPending_ = false; }

private:
  bool publishPending_ = false;
};

/// The settings that apply to one document.
struct FileSettings {
  std::shared_ptr<const Linter> linter;
  bool unsafeFixes = false;
};

/// A workspace folder's path as folders() holds it: normalized, with no trailing separator (a
/// folder URI may end in `/`).
std::filesystem::path folderPath(const std::filesystem::path &folder);

/// A Python file from disk as the CLI accepts it, as UTF-8 text (decoded when it declares another
/// encoding, PEP 263: positions are the characters an editor shows); nullopt when it cannot be
/// read or decoded, with the reason in `why` (when given).
std::optional<std::string> readPythonFile(const std::filesystem::path &path, std::string *why = nullptr);

/// The Python files (.py, .pyi; with `notebooks`, .ipynb too) under `folders` as `asyncfix check`
/// walks them (asyncfix::Run::files(): `exclude` of the configuration that applies in each
/// directory, .gitignore unless it says otherwise, no hidden directory, no symlink, one name per
/// file), in the run's path order. A folder that cannot be walked gives no files. It reads
/// directories only, and is safe on any thread (with a thread-safe resolver:
/// Workspace::sharedResolver()).
std::vector<std::filesystem::path> pythonFilesUnder(const std::vector<std::filesystem::path> &folders,
                                                    const ConfigResolver &resolver, bool notebooks = false);

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
  /// The resolver of configuration files, for work on another thread (it is thread-safe; a
  /// configuration change replaces it, leaving this one to its holders).
  std::shared_ptr<const ConfigResolver> sharedResolver();
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
  /// pythonFilesUnder(folders()).
  std::vector<std::filesystem::path> pythonFiles();

  // ---- documents ----
  OpenDocument &open(const std::string &uri, std::int64_t version, const std::string &text);
  OpenDocument *find(const std::string &uri);
  /// The open document of a filesystem path, if any (URIs may spell one path differently).
  OpenDocument *findByPath(const std::filesystem::path &path);
  /// The document (or notebook's virtual document) the Analyzer knows as `id`.
  OpenDocument *findByAnalysis(Analyzer::Id id);
  void close(const std::string &uri);
  /// Replaces bytes [start, end) of the document (clamped), making `version`; the Analyzer
  /// follows.
  void edit(OpenDocument &doc, std::int64_t version, std::size_t start, std::size_t end, std::string_view text);
  void replaceText(OpenDocument &doc, std::int64_t version, std::string text);
  /// A new version of the same text (a didChange without changes).
  void renumber(OpenDocument &doc, std::int64_t version);
  /// A new result id for pull clients: what is published for `doc` changed, its text did not.
  void restamp(OpenDocument &doc) { doc.restamp(nextStamp_++); }
  /// Takes new findings from the Analyzer. True when they are the current version's and differ
  /// from what it had for this version (a settle changed them).
  bool accept(OpenDocument &doc, std::shared_ptr<const Findings> findings);
  std::map<std::string, OpenDocument> &documents() { return documents_; }
  Analyzer &analyzer() { return analyzer_; }

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
  /// The same after only the text of cell `index` changed, at the cost of that cell: its part of
  /// the virtual document is edited in place.
  bool syncNotebookCell(OpenNotebook &notebook, std::size_t index);
  std::map<std::string, OpenNotebook> &notebooks() { return notebooks_; }

private:
  void analyze(OpenDocument &doc);
  /// Tells the Analyzer the document is gone; returns the requests still waiting on it.
  std::vector<OpenDocument::Waiting> forget(OpenDocument &doc);
  void invalidateAll();
  std::shared_ptr<const Linter> linterFor(const Config &config);
  ConfigResolver &resolver();

  std::map<std::string, OpenDocument> documents_;
  std::map<std::string, OpenNotebook> notebooks_;
  std::vector<std::filesystem::path> folders_;
  ConfigOverrides overrides_;
  std::shared_ptr<ConfigResolver> resolver_;                     ///< nearest configuration file per directory
  std::unique_ptr<ConfigResolver> overridesOnly_;                ///< for documents without a file path
  std::map<std::string, std::shared_ptr<const Linter>> linters_; ///< by configuration
  std::vector<std::string> problems_;
  std::vector<std::string> notices_;
  std::vector<std::string> reported_;
  std::uint64_t configGeneration_ = 1;
  std::uint64_t nextStamp_ = 1;
  std::map<Analyzer::Id, OpenDocument *> analyzed_;
  Analyzer analyzer_; ///< last: destroyed (its worker joined) first
};

} // namespace asyncfix::lsp
