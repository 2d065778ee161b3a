#include "workspace.h"

#include <algorithm>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <system_error>

#include "uri.h"

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
}

} // namespace asyncfix::lsp
