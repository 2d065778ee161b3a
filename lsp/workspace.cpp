#include "workspace.h"

#include <algorithm>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <system_error>

#include "uri.h"

#include <nlohmann/json.hpp>

namespace asyncfix::lsp {
namespace fs = std::filesystem;
namespace {

bool isPythonFile(const fs::path &path) {
  const auto ext = path.extension();
  return ext == ".py" || ext == ".pyi";
}

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
    resolver_ = std::make_unique<ConfigResolver>(ConfigResolver::Options{overrides_, std::nullopt, false});
  return *resolver_;
}

FileSettings Workspace::settingsFor(const std::string &uri) {
  if (const OpenDocument *doc = find(uri); doc && doc->path) return settingsForPath(*doc->path);
  if (const auto path = uriToPath(uri)) return settingsForPath(*path);
  if (!overridesOnly_)
    overridesOnly_ = std::make_unique<ConfigResolver>(ConfigResolver::Options{overrides_, std::nullopt, true});
  const auto resolved = overridesOnly_->forFile(fs::path("untitled.py"));
  const auto *config = std::get_if<ResolvedConfig>(&resolved);
  if (!config) return {&linterFor(Config{}), false};
  return {&linterFor(config->config), config->unsafeFixes};
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
  if (!config) return {&linterFor(Config{}), false};
  return {&linterFor(config->config), config->unsafeFixes};
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

const Linter &Workspace::linterFor(const Config &config) {
  auto &slot = linters_[configKey(config)];
  if (!slot) slot = std::make_unique<Linter>(config);
  return *slot;
}

// ---- folders ----

void Workspace::addFolder(const fs::path &folder) {
  const fs::path normal = folder.lexically_normal();
  if (std::find(folders_.begin(), folders_.end(), normal) == folders_.end()) folders_.push_back(normal);
}

void Workspace::removeFolder(const fs::path &folder) { std::erase(folders_, folder.lexically_normal()); }

std::vector<fs::path> Workspace::pythonFiles() {
  std::vector<fs::path> files;
  const auto excluded = [&](const fs::path &path) {
    const auto resolved = resolver().forFile(path);
    const auto *config = std::get_if<ResolvedConfig>(&resolved);
    return config != nullptr && config->excluded(path);
  };
  for (const fs::path &folder : folders_) {
    std::vector<fs::path> pending{folder};
    while (!pending.empty()) {
      const fs::path dir = std::move(pending.back());
      pending.pop_back();
      std::error_code ec;
      fs::directory_iterator it(dir, ec);
      if (ec) continue;
      for (const fs::directory_iterator end; it != end; it.increment(ec)) {
        std::error_code statError;
        const fs::file_status status = it->symlink_status(statError);
        if (statError || fs::is_symlink(status)) continue;
        const fs::path &path = it->path();
        if (fs::is_directory(status)) {
          if (!path.filename().string().starts_with('.') && !excluded(path)) pending.push_back(path);
        } else if (fs::is_regular_file(status) && isPythonFile(path) && !excluded(path)) {
          files.push_back(path);
        }
      }
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

// ---- documents ----

OpenDocument &Workspace::open(const std::string &uri, std::int64_t version, std::string text) {
  documents_.erase(uri);
  OpenDocument &doc = documents_.try_emplace(uri, uri, version, std::move(text)).first->second;
  doc.path = uriToPath(uri);
  touch(doc);
  return doc;
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

void Workspace::close(const std::string &uri) { documents_.erase(uri); }

void Workspace::edit(OpenDocument &doc, std::size_t start, std::size_t end, std::string_view text) {
  doc.lint.willEdit(doc.doc, start, end, text); // before the text changes: what the edit touches
  doc.doc.edit(start, end, text);
  doc.settled = false;
  touch(doc);
}

void Workspace::replaceText(OpenDocument &doc, std::string text) {
  doc.doc.reset(std::move(text));
  doc.lint.reset();
  doc.settled = true;
  touch(doc);
}

const std::vector<asyncfix::Diagnostic> &Workspace::diagnostics(OpenDocument &doc) {
  if (!doc.diagnostics && doc.doc.text().size() > maxLintBytes) {
    // Never parsed: a document's tree is made on first use, and nothing here asks for it.
    doc.lint.reset();
    doc.diagnostics.emplace();
    if (!doc.tooLargeNoticed) {
      doc.tooLargeNoticed = true;
      notices_.push_back(doc.uri + " is " + std::to_string(doc.doc.text().size() >> 20) +
                         " MB, more than the " + std::to_string(maxLintBytes >> 20) +
                         " MB asyncfix lints as you type: run `asyncfix check` on it");
    }
  }
  if (!doc.diagnostics) {
    const Linter &linter = *settingsFor(doc.uri).linter;
    if (doc.linter != &linter) doc.lint.reset(); // another configuration: start over
    doc.linter = &linter;
    // A lint from scratch passes the CLI's prefilter first (a text it rejects is not even
    // parsed); after that, keystrokes are linted incrementally, and settle() restores agreement.
    if (!doc.lint.holdsResults() && !linter.mayHaveFindings(doc.doc.text()))
      doc.diagnostics.emplace();
    else
      doc.diagnostics = doc.lint.update(linter, doc.doc, /*contain=*/true);
  }
  doc.lastUsed = ++useClock_;
  if (doc.doc.holdsTree()) trimTrees();
  return *doc.diagnostics;
}

bool Workspace::settle(OpenDocument &doc) {
  if (doc.settled) return false;
  doc.settled = true;
  if (!doc.diagnostics || !doc.linter || !doc.lint.holdsResults()) return false;
  const std::vector<asyncfix::Diagnostic> before = *doc.diagnostics;
  // A contained keystroke result (a statement left open) becomes exact: the document is parsed.
  if (!doc.lint.exact()) doc.diagnostics = doc.lint.update(*doc.linter, doc.doc);
  if (doc.doc.holdsTree() && doc.doc.syntaxErrorCount() > 0) {
    doc.doc.reset(std::string(doc.doc.text()));
    doc.lint.reset();
    doc.diagnostics.reset();
    diagnostics(doc);
  }
  if (*doc.diagnostics == before) return false;
  doc.stamp = nextStamp_++; // a new result for pull clients
  return true;
}

void Workspace::trimTrees() {
  constexpr std::size_t kTreesKept = 8;
  std::vector<OpenDocument *> holding;
  for (auto &[uri, d] : documents_)
    if (d.doc.holdsTree()) holding.push_back(&d);
  if (holding.size() <= kTreesKept) return;
  std::nth_element(holding.begin(), holding.end() - kTreesKept, holding.end(),
                   [](const OpenDocument *a, const OpenDocument *b) { return a->lastUsed < b->lastUsed; });
  for (auto it = holding.begin(); it != holding.end() - kTreesKept; ++it) {
    (*it)->doc.releaseTree();
    (*it)->lint.reset(); // the next tree is a full parse
    (*it)->settled = true;
  }
#if defined(__GLIBC__)
  malloc_trim(0); // give the freed trees back to the system, not only to malloc's free lists
#endif
}

void Workspace::touch(OpenDocument &doc) {
  doc.stamp = nextStamp_++;
  doc.diagnostics.reset();
}

void Workspace::invalidateAll() {
  for (auto &[uri, doc] : documents_) touch(doc);
  for (auto &[uri, nb] : notebooks_) touch(*nb.virtualDoc);
}

} // namespace asyncfix::lsp

namespace asyncfix::lsp {

// ---- notebooks ----

std::optional<std::size_t> OpenNotebook::cellIndex(std::string_view cellUri) const {
  for (std::size_t i = 0; i < cells.size(); ++i)
    if (cells[i].uri == cellUri) return i;
  return std::nullopt;
}

std::optional<std::pair<std::size_t, std::size_t>> OpenNotebook::cellAt(std::size_t at) const {
  if (!layout) return std::nullopt;
  std::size_t inCell = 0;
  const NotebookCell *cell = layout->cellAt(at, &inCell);
  if (!cell || cell->number == 0 || cell->number > cells.size()) return std::nullopt;
  return std::pair{cell->number - 1, inCell};
}

std::optional<std::size_t> OpenNotebook::virtualStart(std::size_t index) const {
  if (!layout) return std::nullopt;
  for (const NotebookCell &cell : layout->codeCells())
    if (cell.number == index + 1) return cell.virtualStart;
  return std::nullopt;
}

namespace {

/// The cells as nbformat 4 JSON, for asyncfix::Notebook to join exactly as the CLI does: code
/// cells are the Python ones, everything else is markdown (not linted).
std::string notebookJson(const std::vector<OpenNotebook::Cell> &cells) {
  nlohmann::json j = {{"cells", nlohmann::json::array()}, {"nbformat", 4}, {"nbformat_minor", 5}, {"metadata", nlohmann::json::object()}};
  for (const OpenNotebook::Cell &cell : cells) {
    const bool python = cell.code && (cell.language.empty() || cell.language == "python");
    j["cells"].push_back({{"cell_type", python ? "code" : "markdown"}, {"source", cell.text}, {"metadata", nlohmann::json::object()}});
  }
  return j.dump();
}

} // namespace

OpenNotebook &Workspace::openNotebook(const std::string &uri, std::int64_t version, std::vector<OpenNotebook::Cell> cells) {
  notebooks_.erase(uri);
  OpenNotebook &nb = notebooks_[uri];
  nb.uri = uri;
  nb.version = version;
  nb.cells = std::move(cells);
  nb.virtualDoc = std::make_unique<OpenDocument>(uri, version, std::string());
  nb.virtualDoc->path = uriToPath(uri);
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

void Workspace::closeNotebook(const std::string &uri) { notebooks_.erase(uri); }

bool Workspace::syncNotebook(OpenNotebook &nb) {
  auto parsed = Notebook::parse(notebookJson(nb.cells));
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
  std::size_t prefix = 0;
  const std::size_t shorter = std::min(before.size(), after.size());
  while (prefix < shorter && before[prefix] == after[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < shorter - prefix && before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix]) ++suffix;
  const auto continuation = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; };
  while (prefix > 0 && ((prefix < before.size() && continuation(before[prefix])) ||
                        (prefix < after.size() && continuation(after[prefix]))))
    --prefix; // whole characters
  while (suffix > 0 && continuation(before[before.size() - suffix])) --suffix;
  edit(doc, prefix, before.size() - suffix, std::string_view(after).substr(prefix, after.size() - suffix - prefix));
  return true;
}

} // namespace asyncfix::lsp
