// import_edits.cpp — what renaming the project's modules named `async`/`await` does to the files
// that import them, and the places that would go on naming a module after it (see
// asyncfix/project_view.h: importEdits, audit).
#include <algorithm>
#include <string_view>
#include <variant>

#include "asyncfix/document.h"
#include "asyncfix/linter.h"
#include "asyncfix/linter_internals.h"
#include "asyncfix/notebook.h"
#include "asyncfix/project_view.h"

namespace asyncfix {
namespace {

/// The `async`/`await` components of a dotted module path: a file that spells none of them
/// cannot name the module.
void addKeywordParts(std::string_view module, std::vector<std::string> &words) {
  for (std::size_t from = 0; from <= module.size();) {
    const std::size_t dot = std::min(module.find('.', from), module.size());
    const std::string_view part = module.substr(from, dot - from);
    if ((part == "async" || part == "await") && std::find(words.begin(), words.end(), part) == words.end())
      words.emplace_back(part);
    from = dot + 1;
  }
}

bool spellsAny(std::string_view text, const std::vector<std::string> &words) {
  return std::any_of(words.begin(), words.end(), [&](const std::string &w) { return text.find(w) != std::string_view::npos; });
}

std::string_view lastComponent(std::string_view path) {
  const std::size_t dot = path.rfind('.');
  return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

/// Does the file or directory rename `moved` move `module` (the module itself, or one inside the
/// package it is)? An import of `pkg.async.await` names `pkg.async` too.
bool moves(const FileRename &moved, const ModuleRename &module) {
  const std::string &from = module.path.from;
  return moved.from == from ||
         (moved.from.size() > from.size() && moved.from.starts_with(from) && moved.from[from.size()] == '/');
}

std::string where(const std::string &file, bool notebook, std::string_view text, std::size_t offset) {
  if (notebook) return "`" + file + "`";
  const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
  return "`" + file + ":" + std::to_string(line) + "`";
}

std::string summary(const std::vector<std::string> &places) {
  std::string out;
  for (std::size_t i = 0; i < places.size() && i < 3; ++i) out += (i == 0 ? "" : ", ") + places[i];
  if (places.size() > 3) out += " and " + std::to_string(places.size() - 3) + " more";
  return out;
}

} // namespace

ImportEdits ProjectView::importEdits(const std::vector<std::string> &files,
                                     const std::vector<const ModuleRename *> &modules, const ConfigResolver &resolver,
                                     const ProjectText &text, Applicability applicability,
                                     const std::function<bool()> &cancelled) const {
  ImportEdits out;
  out.leftBehind.resize(modules.size());
  std::vector<std::string> words;
  for (const ModuleRename *m : modules) addKeywordParts(m->module, words);
  const auto note = [&](std::size_t i, std::string place) {
    std::vector<std::string> &left = out.leftBehind[i];
    if (std::find(left.begin(), left.end(), place) == left.end()) left.push_back(std::move(place));
  };
  const auto noteAll = [&](const std::string &place) {
    for (std::size_t i = 0; i < modules.size(); ++i) note(i, place);
  };
  for (const std::string &file : files) {
    if (cancelled && cancelled()) break;
    std::string why;
    const std::optional<std::string> got = text(file, why);
    if (!got) { // it may import the module: nobody can tell
      noteAll("`" + file + "` " + why);
      continue;
    }
    if (!spellsAny(*got, words)) continue;
    const bool notebook = std::string_view(file).ends_with(".ipynb");
    std::optional<Notebook> book;
    if (notebook) {
      auto parsed = Notebook::parse(*got);
      if (const auto *error = std::get_if<std::string>(&parsed)) {
        noteAll("`" + file + "` cannot be read as a notebook (" + *error + ")");
        continue;
      }
      book = std::move(std::get<Notebook>(parsed));
    }
    const std::string_view python = book ? std::string_view(book->virtualText()) : std::string_view(*got);
    const auto resolved = resolver.forFile(file);
    const auto *settings = std::get_if<ResolvedConfig>(&resolved);
    if (settings == nullptr) {
      noteAll("the configuration of `" + file + "` cannot be read");
      continue;
    }
    Config config = settings->config;
    configure(file, config);

    // The rename's part in this file: the AF201 fixes that carry one of the modules' renames.
    const Linter linter(config);
    FixOptions options;
    options.unsafe = applicability != Applicability::Safe;
    options.filter = [&](const Diagnostic &d) {
      return d.code == "AF201" && d.fix && std::any_of(modules.begin(), modules.end(), [&](const ModuleRename *m) {
               return std::find(d.fix->renames.begin(), d.fix->renames.end(), m->path) != d.fix->renames.end();
             });
    };
    const FixResult fixed = fix(linter, python, options);

    // What still names a module afterwards, whatever hides it: AF201 alone, no suppression.
    Config only = config;
    only.rules = RuleSelection{{"AF201"}, {}, {}};
    const Linter af201(only);
    const Document after(fixed.text);
    const std::vector<Diagnostic> found = LinterInternals::lintUnsuppressed(af201, after);
    std::optional<std::vector<Diagnostic>> library; // the same without the project's module rows
    for (const Diagnostic &d : found) {
      if (d.code != "AF201") continue;
      for (std::size_t i = 0; i < modules.size(); ++i) {
        bool names = false;
        if (d.fix && !d.fix->renames.empty()) {
          names = std::any_of(d.fix->renames.begin(), d.fix->renames.end(),
                              [&](const FileRename &r) { return moves(r, *modules[i]); });
        } else if (!d.fix && lastComponent(fixed.text.substr(d.start, d.end - d.start)) ==
                                 lastComponent(modules[i]->module)) {
          // A finding with no fix: the project's row made it unless a library's row does too.
          if (!library) {
            Config rows = only;
            std::erase_if(rows.renames, [](const RenameRow &r) { return !r.files.empty(); });
            library = LinterInternals::lintUnsuppressed(Linter(rows), after);
          }
          names = std::none_of(library->begin(), library->end(),
                               [&](const Diagnostic &o) { return o.code == d.code && o.start == d.start; });
        }
        if (names) note(i, where(file, notebook, fixed.text, d.start) + " would still import it");
      }
    }
    for (std::size_t i = 0; i < modules.size(); ++i)
      for (const Diagnostic &d :
           moduleStrings(fixed.text, {{modules[i]->module, modules[i]->newModule}}, Severity::Warning))
        note(i, where(file, notebook, fixed.text, d.start) + " names it in a string");

    if (fixed.text == python) continue;
    if (!book) {
      out.files.push_back({file, *got, fixed.text});
    } else if (std::optional<std::string> json = book->withVirtualText(fixed.text)) {
      out.files.push_back({file, *got, std::move(*json)});
    } else {
      noteAll("the fix of `" + file + "` would change a line between two cells");
    }
  }
  return out;
}

void ProjectView::audit(const std::vector<std::string> &files, const ConfigResolver &resolver,
                        const ProjectText &text) {
  for (;;) {
    std::vector<const ModuleRename *> safe;
    for (const ModuleRename &r : renames_)
      if (!r.refusal && r.applicability() == Applicability::Safe) safe.push_back(&r);
    if (safe.empty()) return;
    ImportEdits found = importEdits(files, safe, resolver, text, Applicability::Safe);
    bool changed = false;
    for (std::size_t k = 0; k < safe.size(); ++k) {
      if (found.leftBehind[k].empty()) continue;
      // Every file of the module: an import cannot tell two roots' `pkg.async` apart.
      for (ModuleRename &r : renames_)
        if (r.module == safe[k]->module && r.leftBehind.empty()) r.leftBehind = found.leftBehind[k];
      changed = true;
    }
    if (!changed) return;
    // Its rows make the fixes of its imports unsafe, saying why.
    for (RenameRow &row : rows_)
      for (const ModuleRename &r : renames_)
        if (!r.leftBehind.empty() && std::find(row.files.begin(), row.files.end(), r.path) != row.files.end()) {
          row.uncertain = true;
          if (row.unresolved.empty()) row.unresolved = summary(r.leftBehind);
        }
  }
}

std::string ProjectView::leftBehindSummary(const std::vector<std::string> &places) { return summary(places); }

} // namespace asyncfix
