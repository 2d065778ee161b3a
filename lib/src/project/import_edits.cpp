// import_edits.cpp — what renaming the project's modules named `async`/`await` does to the files
// that import them, and the places that would go on naming a module after it (see
// asyncfix/project_view.h: importEdits, audit).
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <string_view>
#include <thread>
#include <variant>

#include "asyncfix/document.h"
#include "asyncfix/line_index.h"
#include "asyncfix/linter.h"
#include "asyncfix/linter_internals.h"
#include "asyncfix/notebook.h"
#include "asyncfix/project_view.h"
#include "run/workers.h"

namespace asyncfix {
namespace {

namespace fs = std::filesystem;

/// Does the file or directory rename `moved` move `module` (the module itself, or one inside the
/// package it is)? An import of `pkg.async.await` names `pkg.async` too.
bool moves(const FileRename &moved, const ModuleRename &module) {
  const std::string &from = module.path.from;
  return moved.from == from ||
         (moved.from.size() > from.size() && moved.from.starts_with(from) && moved.from[from.size()] == '/');
}

/// Is `file` (a package's `__init__`) in the directory that holds `module`'s file or directory?
bool holds(const std::string &file, const ModuleRename &module) {
  return fs::path(file).lexically_normal().parent_path() == fs::path(module.path.from).parent_path();
}

/// What one file gives: its edit, and the places it leaves naming some of the modules.
struct FileResult {
  std::optional<ImportEdit> edit;
  std::vector<std::pair<std::size_t, std::string>> places; ///< (module index, place)
};

/// One file's part of ProjectView::importEdits.
class ImportEditor {
public:
  ImportEditor(const ProjectView &view, const std::vector<const ModuleRename *> &modules,
               const ConfigResolver &resolver, Applicability applicability)
      : view_(view), modules_(modules), resolver_(resolver), applicability_(applicability) {
    for (const ModuleRename *m : modules) named_.push_back({m->module, m->newModule});
  }

  FileResult edit(const std::string &file, const std::optional<ProjectSource> &source, const std::string &why) const {
    FileResult out;
    if (!source) { // it may import the modules: nobody can tell
      noteAll(out, "`" + file + "` " + why);
      return out;
    }
    const std::string &text = source->text;
    if (text.find("async") == std::string::npos && text.find("await") == std::string::npos) return out;
    const bool readOnly = !source->readOnly.empty();
    const bool notebook = std::string_view(file).ends_with(".ipynb");
    std::optional<Notebook> book;
    if (notebook && !readOnly) {
      auto parsed = Notebook::parse(text);
      if (const auto *error = std::get_if<std::string>(&parsed)) {
        noteAll(out, "`" + file + "` cannot be read as a notebook: " + *error);
        return out;
      }
      book = std::move(std::get<Notebook>(parsed));
    }
    const std::string_view python = book ? std::string_view(book->virtualText()) : std::string_view(text);
    const auto resolved = resolver_.forFile(file);
    const auto *settings = std::get_if<ResolvedConfig>(&resolved);
    if (settings == nullptr) {
      noteAll(out, "the configuration of `" + file + "` cannot be read");
      return out;
    }
    Config config = settings->config;
    view_.configure(file, config);
    // What still names a module after the fixes, whatever hides it: AF201 alone, no suppression.
    Config only = config;
    only.rules = RuleSelection{{"AF201"}, {}, {}};
    const Linter af201(only);
    // Neither an `async`/`await` name nor a module's path (in a string): it names none of them.
    // A package's `__init__` may list a module of it by its name alone (`__all__ = ["async"]`).
    const bool init = fs::path(file).stem() == "__init__";
    if (!af201.mayHaveFindings(python) && !mentionsRenamedModule(python, named_) &&
        std::none_of(modules_.begin(), modules_.end(), [&](const ModuleRename *m) {
          return !relativeModuleStrings(python, m->module, init && holds(file, *m)).empty();
        }))
      return out;

    // The renames' part in this file: the AF201 fixes that carry one of the modules' renames.
    const Linter linter(config);
    FixOptions options;
    options.unsafe = applicability_ != Applicability::Safe;
    options.filter = [&](const Diagnostic &d) {
      return d.code == "AF201" && d.fix && std::any_of(modules_.begin(), modules_.end(), [&](const ModuleRename *m) {
               return std::find(d.fix->renames.begin(), d.fix->renames.end(), m->path) != d.fix->renames.end();
             });
    };
    const FixResult fixed = fix(linter, python, options);
    const Document after(fixed.text);
    const auto where = [&](std::size_t offset) {
      if (notebook) return "`" + file + "`";
      return "`" + file + ":" + std::to_string(after.lines().lineOf(offset) + 1) + "`";
    };

    const std::vector<Diagnostic> found = LinterInternals::lintUnsuppressed(af201, after);
    // Per module, lazily: the findings without that module's rows, to tell whose a finding with
    // no fix is (one that a row of another module or of a library makes is still there).
    std::vector<std::optional<std::vector<Diagnostic>>> without(modules_.size());
    for (const Diagnostic &d : found) {
      if (d.code != "AF201") continue;
      for (std::size_t i = 0; i < modules_.size(); ++i) {
        bool names = false;
        if (d.fix && !d.fix->renames.empty()) {
          names = std::any_of(d.fix->renames.begin(), d.fix->renames.end(),
                              [&](const FileRename &r) { return moves(r, *modules_[i]); });
        } else if (!d.fix) {
          if (!without[i]) {
            Config rows = only;
            std::erase_if(rows.renames, [&](const RenameRow &r) {
              return std::any_of(r.files.begin(), r.files.end(),
                                 [&](const FileRename &f) { return moves(f, *modules_[i]); });
            });
            without[i] = LinterInternals::lintUnsuppressed(Linter(rows), after);
          }
          names = std::none_of(without[i]->begin(), without[i]->end(),
                               [&](const Diagnostic &o) { return o.code == d.code && o.start == d.start; });
        }
        if (names) out.places.emplace_back(i, where(d.start) + " would still import it");
      }
    }
    for (std::size_t i = 0; i < modules_.size(); ++i) {
      for (const Diagnostic &d : moduleStrings(fixed.text, {named_[i]}, Severity::Warning))
        out.places.emplace_back(i, where(d.start) + " names it in a string");
      for (const std::size_t at :
           relativeModuleStrings(fixed.text, modules_[i]->module, init && holds(file, *modules_[i])))
        out.places.emplace_back(i, where(at) + " names it in a string");
    }

    if (fixed.text == python) return out;
    if (readOnly) {
      noteAll(out, "`" + file + "` " + source->readOnly);
    } else if (!book) {
      out.edit = ImportEdit{file, text, fixed.text};
    } else if (std::optional<std::string> json = book->withVirtualText(fixed.text)) {
      out.edit = ImportEdit{file, text, std::move(*json)};
    } else {
      noteAll(out, "the fix of `" + file + "` would change a line between two cells");
    }
    return out;
  }

private:
  void noteAll(FileResult &out, const std::string &place) const {
    for (std::size_t i = 0; i < modules_.size(); ++i) out.places.emplace_back(i, place);
  }

  const ProjectView &view_;
  const std::vector<const ModuleRename *> &modules_;
  const ConfigResolver &resolver_;
  Applicability applicability_;
  std::vector<RenamedModule> named_;
};

} // namespace

ImportEdits ProjectView::importEdits(const std::vector<std::string> &files,
                                     const std::vector<const ModuleRename *> &modules, const ConfigResolver &resolver,
                                     const ProjectText &text, Applicability applicability,
                                     const std::function<bool()> &cancelled, unsigned jobs) const {
  const ImportEditor editor(*this, modules, resolver, applicability);
  std::vector<FileResult> results(files.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stopped{false};
  const auto work = [&] {
    for (std::size_t i = next++; i < files.size() && !stopped; i = next++) {
      if (cancelled && cancelled()) {
        stopped = true;
        break;
      }
      std::string why;
      try {
        const std::optional<ProjectSource> source = text(files[i], why);
        results[i] = editor.edit(files[i], source, why);
      } catch (const std::exception &e) { // out of memory on a huge file: it may name a module
        results[i] = FileResult{};
        for (std::size_t m = 0; m < modules.size(); ++m)
          results[i].places.emplace_back(m, "`" + files[i] + "` cannot be read: " + e.what());
      }
    }
  };
  std::vector<std::thread> pool;
  startWorkers(pool, std::max(jobs, 1U) - 1, work);
  work();
  for (std::thread &thread : pool) thread.join();

  ImportEdits out;
  out.leftBehind.resize(modules.size());
  for (FileResult &result : results) {
    if (result.edit) out.files.push_back(std::move(*result.edit));
    for (auto &[i, place] : result.places) {
      std::vector<std::string> &left = out.leftBehind[i];
      if (std::find(left.begin(), left.end(), place) == left.end()) left.push_back(std::move(place));
    }
  }
  return out;
}

std::vector<std::vector<std::string>> ProjectView::strandedImporters(const ConfigResolver &resolver,
                                                                     const ProjectText &text, unsigned jobs) const {
  std::vector<std::vector<std::string>> out(renames_.size());
  if (!text) return out;
  std::vector<std::vector<std::pair<std::size_t, std::string>>> found(strays_.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t s = next++; s < strays_.size(); s = next++) {
      const auto &[file, package] = strays_[s];
      std::string why;
      std::optional<ProjectSource> source;
      try {
        source = text(file, why);
      } catch (const std::exception &) {
        continue; // importEdits() says that it cannot be read
      }
      if (!source ||
          (source->text.find("async") == std::string::npos && source->text.find("await") == std::string::npos))
        continue;
      const auto resolved = resolver.forFile(file);
      const auto *settings = std::get_if<ResolvedConfig>(&resolved);
      if (settings == nullptr) continue; // importEdits() says so
      Config config = settings->config;
      configure(file, config);
      config.rules = RuleSelection{{"AF201"}, {}, {}};
      Config asModule = config; // what its relative imports would name were it a module
      asModule.package = package;
      const Document doc(source->text);
      const std::vector<Diagnostic> relative = LinterInternals::lintUnsuppressed(Linter(asModule), doc);
      const std::vector<Diagnostic> plain = LinterInternals::lintUnsuppressed(Linter(config), doc);
      const std::string stem = fs::path(file).stem().string();
      for (const Diagnostic &d : relative) {
        if (d.code != "AF201" || !d.fix || d.fix->renames.empty()) continue;
        if (std::any_of(plain.begin(), plain.end(), [&](const Diagnostic &o) { return o.start == d.start && o.fix; }))
          continue; // an absolute import: rewritten as in any other file
        for (std::size_t i = 0; i < renames_.size(); ++i)
          if (!renames_[i].refusal && std::any_of(d.fix->renames.begin(), d.fix->renames.end(),
                                                  [&](const FileRename &r) { return moves(r, renames_[i]); }))
            found[s].emplace_back(i, "`" + file + ":" + std::to_string(doc.lines().lineOf(d.start) + 1) +
                                         "` imports it relatively but is no module (`" + stem + "` is no identifier)");
      }
    }
  };
  std::vector<std::thread> pool;
  const std::size_t threads = std::min<std::size_t>(std::max(jobs, 1U), std::max<std::size_t>(strays_.size(), 1));
  startWorkers(pool, static_cast<unsigned>(threads - 1), work);
  work();
  for (std::thread &thread : pool) thread.join();
  for (auto &places : found)
    for (auto &[i, place] : places)
      if (std::find(out[i].begin(), out[i].end(), place) == out[i].end()) out[i].push_back(std::move(place));
  return out;
}

std::optional<std::string> ProjectView::uncovered(const ModuleRename &r, const std::vector<fs::path> &walked,
                                                  std::string_view who, bool relative) {
  for (const std::string &need : {r.base, r.root}) {
    if (need.empty()) continue;
    const fs::path dir(need);
    const bool covered = std::any_of(walked.begin(), walked.end(), [&](const fs::path &root) {
      const fs::path below = dir.lexically_relative(root);
      return !below.empty() && *below.begin() != "..";
    });
    if (covered) continue;
    std::error_code ec;
    const fs::path here = relative ? fs::current_path(ec) : fs::path();
    const fs::path shown = !relative || ec ? dir : dir.lexically_relative(here);
    return std::string(who) + " does not walk `" + (shown.empty() ? dir : shown).generic_string() +
           "`, whose other files may import it";
  }
  return std::nullopt;
}

void ProjectView::refuseStranded(const ConfigResolver &resolver, const ProjectText &text, unsigned jobs) {
  if (renames_.empty()) return;
  // An importer that no fix can rewrite refuses the rename (a refused module has no rows, so its
  // imports are reported without a fix).
  const std::vector<std::vector<std::string>> stranded = strandedImporters(resolver, text, jobs);
  refuseModules([&](const ModuleRename &r) -> std::optional<std::string> {
    const std::vector<std::string> &places = stranded[static_cast<std::size_t>(&r - renames_.data())];
    if (places.empty()) return std::nullopt;
    return placesSummary(places) + ", so " + (places.size() == 1 ? "that import" : "those imports") +
           " cannot be rewritten";
  });
}

void ProjectView::audit(const std::vector<std::string> &files, const std::vector<std::string> &roots,
                        const ConfigResolver &resolver, const ProjectText &text, unsigned jobs) {
  if (renames_.empty()) return;
  refuseStranded(resolver, text, jobs);
  // Importers outside the run keep the old name: the run must walk the module's base and root.
  std::error_code ec;
  std::vector<fs::path> walked;
  for (const std::string &root : roots)
    if (fs::is_directory(root, ec)) walked.push_back(fs::absolute(root, ec).lexically_normal());
  bool any = false;
  for (ModuleRename &r : renames_)
    if (std::optional<std::string> place = uncovered(r, walked, "the run", true)) {
      r.leftBehind.push_back(std::move(*place));
      any = true;
    }
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<const ModuleRename *> safe;
    for (const ModuleRename &r : renames_)
      if (!r.refusal && r.applicability() == Applicability::Safe) safe.push_back(&r);
    if (!safe.empty()) {
      ImportEdits found = importEdits(files, safe, resolver, text, Applicability::Safe, {}, jobs);
      for (std::size_t k = 0; k < safe.size(); ++k) {
        if (found.leftBehind[k].empty()) continue;
        // Every file of the module: an import cannot tell two roots' `pkg.async` apart.
        for (ModuleRename &r : renames_)
          if (r.module == safe[k]->module && r.leftBehind.empty()) r.leftBehind = found.leftBehind[k];
        changed = true;
      }
    }
    // The modules inside one that keeps its name: their new paths spell the package's new name.
    for (ModuleRename &r : renames_)
      for (const ModuleRename &o : renames_)
        if (r.leftBehind.empty() && !o.leftBehind.empty() && insideModule(r.module, o.module)) {
          r.leftBehind.push_back("the package `" + o.module + "` it lies in would keep its name");
          changed = true;
        }
    any = any || changed;
  }
  if (!any) return;
  // Their rows make the fixes of their imports unsafe, saying why.
  for (RenameRow &row : rows_)
    for (const ModuleRename &r : renames_)
      if (!r.leftBehind.empty() && std::find(row.files.begin(), row.files.end(), r.path) != row.files.end()) {
        row.uncertain = true;
        if (row.unresolved.empty()) row.unresolved = placesSummary(r.leftBehind);
      }
}

std::string ProjectView::placesSummary(const std::vector<std::string> &places) {
  std::string out;
  for (std::size_t i = 0; i < places.size() && i < 3; ++i) out += (i == 0 ? "" : ", ") + places[i];
  if (places.size() > 3) out += " and " + std::to_string(places.size() - 3) + " more";
  return out;
}

} // namespace asyncfix
