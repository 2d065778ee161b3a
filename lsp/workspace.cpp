#include "workspace.h"

#include "asyncfix/encoding.h"
#include "asyncfix/run.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>

#include "asyncfix/line_diff.h"
#include "uri.h"

namespace asyncfix::lsp {
namespace fs = std::filesystem;
namespace {

/// A key that differs for two Configs that can lint differently.
std::string configKey(const Config &c) {
  std::string key;
  const auto list = [&](const std::vector<std::string> &items) {
    for (const std::string &item : items) key += item + ",";
    key += ";";
  };
  list(c.rules.select);
  list(c.rules.extendSelect);
  list(c.rules.ignore);
  key += c.target.toString() + ";" + c.renameTemplate + ";";
  for (const auto &[code, severity] : c.severity) key += code + "=" + std::string(toString(severity)) + ",";
  return key;
}

} // namespace

Workspace::Workspace() = default;
Workspace::~Workspace() = default;

// ---- configuration ----

void Workspace::setOverrides(ConfigOverrides overrides) {
  overrides_ = std::move(overrides);
  reloadConfigFiles();
}

void Workspace::reloadConfigFiles() {
  resolver_.reset();
  overridesOnly_.reset();
  linters_.clear();
  reported_.clear();
  ++configGeneration_;
  invalidateAll();
}

ConfigResolver &Workspace::resolver() {
  if (!resolver_)
    resolver_ = std::make_shared<ConfigResolver>(ConfigResolver::Options{overrides_, std::nullopt, false});
  return *resolver_;
}

std::shared_ptr<const ConfigResolver> Workspace::sharedResolver() {
  resolver();
  return resolver_;
}

FileSettings Workspace::settingsFor(const std::string &uri) {
  if (const OpenDocument *doc = find(uri); doc && doc->path) return settingsForPath(*doc->path);
  if (const auto path = uriToPath(uri)) return settingsForPath(*path);
  if (!overridesOnly_)
    overridesOnly_ = std::make_unique<ConfigResolver>(ConfigResolver::Options{overrides_, std::nullopt, true});
  const auto resolved = overridesOnly_->forFile(fs::path("untitled.py"));
  const auto *config = std::get_if<ResolvedConfig>(&resolved);
  if (!config) return {linterFor(Config{}), false};
  return {linterFor(config->config), config->unsafeFixes};
}

FileSettings Workspace::settingsForPath(const fs::path &path) {
  auto resolved = resolver().forFile(path);
  if (const auto *error = std::get_if<ConfigError>(&resolved)) {
    const std::string problem = error->toString();
    if (std::find(reported_.begin(), reported_.end(), problem) == reported_.end()) {
      reported_.push_back(problem);
      problems_.push_back(problem + " (using the editor's settings alone)");
    }
    if (!overridesOnly_)
      overridesOnly_ = std::make_unique<ConfigResolver>(ConfigResolver::Options{overrides_, std::nullopt, true});
    resolved = overridesOnly_->forFile(path);
  }
  const auto *config = std::get_if<ResolvedConfig>(&resolved);
  if (!config) return {linterFor(Config{}), false};
  return {linterFor(config->config), config->unsafeFixes};
}

std::vector<std::string> Workspace::takeNotices() {
  std::vector<std::string> out;
  out.swap(notices_);
  return out;
}

std::vector<std::string> Workspace::takeProblems() {
  std::vector<std::string> out;
  out.swap(problems_);
  return out;
}

std::shared_ptr<const Linter> Workspace::linterFor(const Config &config) {
  auto &slot = linters_[configKey(config)];
  if (!slot) slot = std::make_shared<const Linter>(config);
  return slot;
}

// ---- folders ----

fs::path folderPath(const fs::path &folder) {
  fs::path normal = folder.lexically_normal();
  if (!normal.has_filename() && normal != normal.root_path()) normal = normal.parent_path(); // "dir/" → "dir"
  return normal;
}

void Workspace::addFolder(const fs::path &folder) {
  const fs::path normal = folderPath(folder);
  if (std::find(folders_.begin(), folders_.end(), normal) == folders_.end()) folders_.push_back(normal);
}

void Workspace::removeFolder(const fs::path &folder) { std::erase(folders_, folderPath(folder)); }

std::optional<std::string> readPythonFile(const fs::path &path, std::string *why) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (why != nullptr) *why = "cannot read " + path.string();
    return std::nullopt;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  SourceText source = decodeSource(std::move(buffer).str());
  if (source.error) {
    if (why != nullptr) *why = path.string() + ": " + *source.error;
    return std::nullopt;
  }
  return std::move(source.text);
}

std::vector<fs::path> Workspace::pythonFiles() { return pythonFilesUnder(folders_, resolver()); }

std::vector<fs::path> pythonFilesUnder(const std::vector<fs::path> &folders, const ConfigResolver &resolver,
                                       bool notebooks) {
  RunOptions options;
  for (const fs::path &folder : folders) options.roots.push_back(folder.string());
  const FileList list = Run(resolver, std::move(options)).files(); // a folder that is gone: none of its files
  std::vector<fs::path> files;
  files.reserve(list.files.size());
  for (const std::string &file : list.files)
    if (notebooks || !isNotebookFile(file)) files.emplace_back(file);
  return files;
}

// ---- documents ----

std::vector<asyncfix::Diagnostic> OpenDocument::latest() const {
  if (!findings) return {};
  std::vector<asyncfix::Diagnostic> out;
  for (asyncfix::Diagnostic d : findings->diagnostics) {
    bool kept = true;
    for (const Shift &shift : since) {
      if (shift.revision <= findings->revision) continue;
      if (d.end < shift.start) continue;
      if (d.start < shift.end || (d.start == shift.start && shift.start == shift.end)) {
        kept = false; // the edit touched it
        break;
      }
      d.start = d.start - shift.end + shift.start + shift.length;
      d.end = d.end - shift.end + shift.start + shift.length;
    }
    if (!kept) continue;
    d.fix.reset(); // made for another text
    out.push_back(std::move(d));
  }
  return out;
}

OpenDocument &Workspace::open(const std::string &uri, std::int64_t version, const std::string &text) {
  close(uri);
  OpenDocument &doc = documents_.try_emplace(uri, uri, version, text).first->second;
  doc.path = uriToPath(uri);
  analyze(doc);
  return doc;
}

void Workspace::analyze(OpenDocument &doc) {
  const std::uint64_t revision = doc.relinted(nextStamp_++);
  doc.analysis = analyzer_.open(doc.version(), revision, doc.doc.text(), settingsFor(doc.uri).linter, maxLintBytes);
  analyzed_[doc.analysis] = &doc;
}

OpenDocument *Workspace::find(const std::string &uri) {
  const auto it = documents_.find(uri);
  return it == documents_.end() ? nullptr : &it->second;
}

OpenDocument *Workspace::findByPath(const fs::path &path) {
  const fs::path normal = path.lexically_normal();
  for (auto &[uri, doc] : documents_)
    if (doc.path && doc.path->lexically_normal() == normal) return &doc;
  return nullptr;
}

OpenDocument *Workspace::findByAnalysis(Analyzer::Id id) {
  const auto it = analyzed_.find(id);
  return it == analyzed_.end() ? nullptr : it->second;
}

void Workspace::close(const std::string &uri) {
  const auto it = documents_.find(uri);
  if (it == documents_.end()) return;
  std::vector<OpenDocument::Waiting> waiting = forget(it->second);
  documents_.erase(it);
  for (const auto &w : waiting) w.answer(); // they find the document closed
}

std::vector<OpenDocument::Waiting> Workspace::forget(OpenDocument &doc) {
  analyzed_.erase(doc.analysis);
  analyzer_.close(doc.analysis);
  std::vector<OpenDocument::Waiting> waiting;
  waiting.swap(doc.waiting);
  return waiting;
}

void Workspace::edit(OpenDocument &doc, std::int64_t version, std::size_t start, std::size_t end,
                     std::string_view text) {
  const std::size_t size = doc.doc.text().size();
  end = std::min(end, size);
  start = std::min(start, end);
  doc.doc.edit(start, end, text);
  const std::uint64_t revision = doc.changed(version, nextStamp_++);
  doc.since.push_back({.revision = revision, .start = start, .end = end, .length = text.size()});
  analyzer_.edit(doc.analysis, version, revision, start, end, std::string(text));
}

void Workspace::replaceText(OpenDocument &doc, std::int64_t version, std::string text) {
  doc.doc.reset(text);
  const std::uint64_t revision = doc.changed(version, nextStamp_++);
  doc.since.push_back({.revision = revision, .start = 0, .end = std::size_t(-1) / 2, .length = 0}); // touches all
  analyzer_.replace(doc.analysis, version, revision, std::move(text));
}

void Workspace::renumber(OpenDocument &doc, std::int64_t version) {
  analyzer_.renumber(doc.analysis, version, doc.changed(version, nextStamp_++));
}

bool Workspace::accept(OpenDocument &doc, std::shared_ptr<const Findings> findings) {
  const bool resettled = doc.findings && doc.findings->revision == findings->revision &&
                         doc.findings->diagnostics != findings->diagnostics;
  doc.findings = std::move(findings);
  std::erase_if(doc.since, [&](const OpenDocument::Shift &s) { return s.revision <= doc.findings->revision; });
  if (!doc.current()) return false;
  if (doc.findings->tooLarge && !doc.tooLargeNoticed) {
    doc.tooLargeNoticed = true;
    notices_.push_back(doc.uri + " is " + std::to_string(doc.doc.text().size() >> 20) + " MB, more than the " +
                       std::to_string(maxLintBytes >> 20) +
                       " MB asyncfix lints as you type: run `asyncfix check` on it");
  }
  if (resettled) doc.restamp(nextStamp_++); // a new result for pull clients
  std::vector<OpenDocument::Waiting> waiting;
  waiting.swap(doc.waiting);
  for (const auto &w : waiting) w.answer();
  return resettled;
}

void Workspace::invalidateAll() {
  const auto relint = [&](OpenDocument &doc) {
    analyzer_.relint(doc.analysis, doc.relinted(nextStamp_++), settingsFor(doc.uri).linter);
  };
  for (auto &[uri, doc] : documents_) relint(doc);
  for (auto &[uri, nb] : notebooks_) relint(*nb.virtualDoc);
}

} // namespace asyncfix::lsp

namespace asyncfix::lsp {

// ---- notebooks ----

std::optional<std::size_t> NotebookCells::cellIndex(std::string_view cellUri) const {
  for (std::size_t i = 0; i < cells.size(); ++i)
    if (cells[i].uri == cellUri) return i;
  return std::nullopt;
}

std::optional<std::pair<std::size_t, std::size_t>> NotebookCells::cellAt(std::size_t at) const {
  if (!layout) return std::nullopt;
  std::size_t inCell = 0;
  const NotebookCell *cell = layout->cellAt(at, &inCell);
  if (!cell || cell->number == 0 || cell->number > cells.size()) return std::nullopt;
  return std::pair{cell->number - 1, inCell};
}

std::optional<std::size_t> NotebookCells::virtualStart(std::size_t index) const {
  if (!layout) return std::nullopt;
  for (const NotebookCell &cell : layout->codeCells())
    if (cell.number == index + 1) return cell.virtualStart;
  return std::nullopt;
}

OpenNotebook &Workspace::openNotebook(const std::string &uri, std::int64_t version,
                                      std::vector<OpenNotebook::Cell> cells) {
  closeNotebook(uri);
  OpenNotebook &nb = notebooks_[uri];
  nb.uri = uri;
  nb.version = version;
  nb.cells = std::move(cells);
  nb.virtualDoc = std::make_unique<OpenDocument>(uri, 1, std::string());
  nb.virtualDoc->path = uriToPath(uri);
  analyze(*nb.virtualDoc);
  syncNotebook(nb);
  return nb;
}

OpenNotebook *Workspace::findNotebook(const std::string &uri) {
  const auto it = notebooks_.find(uri);
  return it == notebooks_.end() ? nullptr : &it->second;
}

OpenNotebook *Workspace::notebookOfCell(const std::string &cellUri) {
  for (auto &[uri, nb] : notebooks_)
    if (nb.cellIndex(cellUri)) return &nb;
  return nullptr;
}

void Workspace::closeNotebook(const std::string &uri) {
  const auto it = notebooks_.find(uri);
  if (it == notebooks_.end()) return;
  std::vector<OpenDocument::Waiting> waiting = forget(*it->second.virtualDoc);
  notebooks_.erase(it);
  for (const auto &w : waiting) w.answer();
}

bool Workspace::syncNotebook(OpenNotebook &nb) {
  // Joined exactly as the CLI joins an .ipynb file: the Python code cells are linted, everything
  // else is left out like markdown.
  std::vector<NotebookCellSource> sources;
  sources.reserve(nb.cells.size());
  for (const OpenNotebook::Cell &cell : nb.cells) sources.push_back({cell.python(), cell.text});
  auto parsed = Notebook::fromCells(sources);
  if (auto *error = std::get_if<std::string>(&parsed)) {
    problems_.push_back(nb.uri + ": " + *error);
    return false;
  }
  nb.layout = std::move(std::get<Notebook>(parsed));
  const std::string &after = nb.layout->virtualText();
  OpenDocument &doc = *nb.virtualDoc;
  const std::string &before = doc.doc.text();
  if (before == after) return true;
  // One edit: from the first byte that differs to the last.
  const ChangedSpan span = changedSpan(before, after);
  edit(doc, doc.version() + 1, span.start, span.beforeEnd,
       std::string_view(after).substr(span.start, span.afterEnd - span.start));
  return true;
}

bool Workspace::syncNotebookCell(OpenNotebook &nb, std::size_t index) {
  if (!nb.layout || index >= nb.cells.size()) return syncNotebook(nb);
  if (!nb.cells[index].python()) return true; // not in the virtual text
  // The cell's place among the code cells (numbered 1.. among all the cells).
  const std::vector<NotebookCell> &code = nb.layout->codeCells();
  const auto at = std::lower_bound(code.begin(), code.end(), index + 1,
                                   [](const NotebookCell &cell, std::size_t number) { return cell.number < number; });
  if (at == code.end() || at->number != index + 1) return syncNotebook(nb);
  const auto change = nb.layout->replaceCellSource(static_cast<std::size_t>(at - code.begin()), nb.cells[index].text);
  if (!change) return syncNotebook(nb);
  if (change->empty()) return true;
  OpenDocument &doc = *nb.virtualDoc;
  edit(doc, doc.version() + 1, change->start, change->end,
       std::string_view(nb.layout->virtualText()).substr(change->start, change->length));
  return true;
}

} // namespace asyncfix::lsp
