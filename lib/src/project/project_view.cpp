// project_view.cpp — the module map of a run and the renames of the project's modules named
// `async`/`await` (see asyncfix/project_view.h).
#include "asyncfix/project_view.h"
#include "asyncfix/platform.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string_view>
#include <system_error>
#include <unordered_map>

#include "asyncfix/rules.h"
#include "config/noqa.h"
#include "project/reexports.h"

namespace asyncfix {
namespace {

namespace fs = std::filesystem;

bool isKeywordName(std::string_view s) { return s == "async" || s == "await"; }

bool isIdentifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s.front())) != 0) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return c == '_' || std::isalnum(static_cast<unsigned char>(c)) != 0 || static_cast<unsigned char>(c) >= 0x80;
  });
}

bool within(const fs::path &dir, const fs::path &root) {
#if defined(_WIN32)
  // A Windows path spells its separators `/` or `\` (fs::absolute keeps an absolute path's `/`,
  // lexically_normal() makes them `\`): compared in one spelling.
  const std::wstring d = dir.generic_wstring(), r = root.generic_wstring();
#else
  const std::string &d = dir.native(), &r = root.native();
#endif
  return d == r || (d.size() > r.size() && d.compare(0, r.size(), r) == 0 && (r.ends_with('/') || d[r.size()] == '/'));
}

std::string join(const std::vector<std::string> &parts, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) out += (i == 0 ? "" : ".") + parts[i];
  return out;
}

std::size_t depth(const std::string &path) {
  return static_cast<std::size_t>(std::count(path.begin(), path.end(), '/'));
}

/// `path` with `rename` applied when it is the renamed file or lies under the renamed directory.
std::string moved(const std::string &path, const FileRename &rename) {
  if (path == rename.from) return rename.to;
  if (path.size() > rename.from.size() && path.starts_with(rename.from) && path[rename.from.size()] == '/')
    return rename.to + path.substr(rename.from.size());
  return path;
}

} // namespace

/// The module a file of the run is.
struct FileModule {
  std::string spelt;     ///< the file, as the run spells paths, normalized
  std::string extension; ///< ".py" / ".pyi"
  const ResolvedConfig *config = nullptr;
  bool init = false;              ///< a package's `__init__`
  bool uncertain = false;         ///< it lies in a namespace package: its name is not certain
  std::vector<std::string> parts; ///< the module's components: {"pkg", "kfac"}
  std::size_t directoryParts = 0; ///< how many of them are directories
  std::string module;             ///< "pkg.kfac"
  std::string package;            ///< the package its relative imports start from: "pkg"
};

/// Which module each file of the run is: the module map, worked out per directory on demand
/// (a walk gives thousands of files, and path arithmetic costs system calls and allocations).
class ModuleMap {
public:
  ModuleMap(const ConfigResolver &resolver, const std::vector<fs::path> &defaultBases)
      : resolver_(resolver), defaultBases_(defaultBases) {}

  /// The module `file` (as the walk spelt it) is; nullopt for a file that is no module (a
  /// notebook, a name that is not an identifier, a configuration error).
  std::optional<FileModule> of(const std::string &file) {
    const bool plain = !file.starts_with("./") && !file.starts_with("../") && file.find("/./") == std::string::npos &&
                       file.find("/../") == std::string::npos && file.find("//") == std::string::npos;
    FileModule m;
    m.spelt = plain ? file : normalizedPath(file);
    const std::string &spelt = m.spelt;
    const std::size_t dot = spelt.rfind('.'), slash = spelt.rfind('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return std::nullopt;
    m.extension = spelt.substr(dot);
    if (m.extension != ".py" && m.extension != ".pyi") return std::nullopt; // notebooks are not modules
    const std::string stem =
        spelt.substr(slash == std::string::npos ? 0 : slash + 1, dot - (slash == std::string::npos ? 0 : slash + 1));
    const Directory &holder = directoryOf(spelt);
    if (!holder.config || !holder.parts) return std::nullopt;
    m.config = &*holder.config;
    m.init = stem == "__init__";
    m.uncertain = holder.uncertain;
    m.parts = *holder.parts;
    m.directoryParts = m.parts.size();
    if (!m.init) m.parts.push_back(stem);
    if (m.parts.empty() || !isIdentifier(m.parts.back())) return std::nullopt;
    m.module = join(m.parts, m.parts.size());
    m.package = join(m.parts, m.init ? m.parts.size() : m.parts.size() - 1);
    return m;
  }

  /// A Python file that is no module because its name is no identifier (`pkg/sub/rpc@v2.py`), in
  /// a directory that is a package: the file as the run spells paths, normalized, and that package
  /// ("pkg.sub"); nullopt for every other file.
  std::optional<std::pair<std::string, std::string>> stray(const std::string &file) {
    std::string spelt = normalizedPath(file);
    const std::size_t dot = spelt.rfind('.'), slash = spelt.rfind('/');
    if (dot == std::string::npos || slash == std::string::npos || dot < slash) return std::nullopt;
    const std::string_view extension = std::string_view(spelt).substr(dot);
    if (extension != ".py" && extension != ".pyi") return std::nullopt;
    if (isIdentifier(std::string_view(spelt).substr(slash + 1, dot - slash - 1))) return std::nullopt;
    const Directory &holder = directoryOf(spelt);
    if (!holder.config || !holder.parts || holder.parts->empty()) return std::nullopt;
    return std::make_pair(std::move(spelt), join(*holder.parts, holder.parts->size()));
  }

  /// Whether `file`'s own configuration (its per-file ignores too) enables the rule `code`.
  bool selects(const std::string &file, std::string_view code) const {
    const auto resolved = resolver_.forFile(file);
    const auto *config = std::get_if<ResolvedConfig>(&resolved);
    return config != nullptr && config->config.rules.enables(code);
  }

private:
  /// What every file of a directory shares.
  struct Directory {
    std::optional<ResolvedConfig> config;          ///< nullopt: a configuration error (reported elsewhere)
    std::optional<std::vector<std::string>> parts; ///< its components below the base; nullopt: not a package path
    bool uncertain = false;
  };

  bool hasInit(const fs::path &dir) { // one stat per directory
    const auto [it, fresh] = initIn_.try_emplace(dir.native(), false);
    if (fresh) {
      std::error_code ec;
      it->second = fs::exists(dir / "__init__.py", ec) || fs::exists(dir / "__init__.pyi", ec);
    }
    return it->second;
  }

  const Directory &directoryOf(const std::string &spelt) {
    const std::size_t slash = spelt.rfind('/');
    const std::string key = slash == std::string::npos ? std::string(".") : spelt.substr(0, slash + 1);
    const auto [it, fresh] = directories_.try_emplace(key);
    Directory &d = it->second;
    if (!fresh) return d;
    auto resolved = resolver_.forFile(spelt);
    if (auto *config = std::get_if<ResolvedConfig>(&resolved)) d.config = std::move(*config);
    else return d;
    std::error_code ec;
    const fs::path dir = fs::absolute(pathFromUtf8(spelt), ec).parent_path();
    if (ec) return d;
    // Where its top-level package starts: above the topmost directory of a chain of regular
    // packages, else at the deepest `src` root that holds it (a namespace package below it, or
    // a top-level module in it), else in the directory itself.
    fs::path base;
    if (hasInit(dir)) {
      base = dir;
      while (base.has_parent_path() && base.parent_path() != base && hasInit(base.parent_path()))
        base = base.parent_path();
      base = base.parent_path();
    } else {
      auto [known, first] = roots_.try_emplace(d.config->source);
      if (first && (!d.config->source.empty() || defaultBases_.empty())) {
        known->second = d.config->srcRoots();
      } else if (first) { // no configuration file: `src` is relative to each of the default bases
        for (const fs::path &folder : defaultBases_)
          for (const std::string &src : d.config->src) {
            fs::path root = (folder / src).lexically_normal();
            if (!root.has_filename() && root != root.root_path()) root = root.parent_path();
            known->second.push_back(std::move(root));
          }
      }
      for (const fs::path &root : known->second)
        if (within(dir, root) && root.native().size() >= base.native().size()) base = root;
      if (base.empty()) base = dir;
      d.uncertain = base != dir;
    }
    std::vector<std::string> parts;
    for (const fs::path &part : dir.lexically_relative(base))
      if (part != ".") parts.push_back(part.string());
    if (std::all_of(parts.begin(), parts.end(), isIdentifier)) d.parts = std::move(parts);
    return d;
  }

  const ConfigResolver &resolver_;
  const std::vector<fs::path> &defaultBases_;
  std::unordered_map<fs::path::string_type, bool> initIn_; ///< directory → holds an __init__.py
  std::unordered_map<std::string, Directory> directories_;
  std::map<fs::path, std::vector<fs::path>> roots_; ///< configuration file → its `src` roots
};

ProjectView ProjectView::build(const std::vector<std::string> &files, const ConfigResolver &resolver,
                               const std::vector<std::pair<std::string, PublicNames>> &names,
                               const std::vector<fs::path> &defaultBases, const ProjectText &text) {
  ProjectView view;
  const bool modules =
      std::any_of(files.begin(), files.end(), [](const std::string &f) { return mentionsKeywordModule(f); });
  const bool parameters =
      std::any_of(names.begin(), names.end(), [](const auto &n) { return !n.second.parameters.empty(); });
  const bool defined = std::any_of(names.begin(), names.end(), [](const auto &n) {
    return !n.second.globals.empty() || !n.second.attributes.empty();
  });
  if (!modules && !parameters && !defined) return view;
  ModuleMap map(resolver, defaultBases);
  if (modules) view.addModuleRenames(files, map, text);
  std::vector<std::optional<FileModule>> named;
  if (parameters || defined) named = view.mapNamed(names, map);
  if (parameters) view.addPublicNames(names, named, files, map, text);
  if (defined) view.addNameRenames(names, named);
  std::sort(view.packages_.begin(), view.packages_.end());
  view.packages_.erase(std::unique(view.packages_.begin(), view.packages_.end()), view.packages_.end());
  // One entry per file (two spellings of one path give two), with its module if it has one.
  std::sort(view.named_.begin(), view.named_.end());
  std::vector<std::pair<std::string, std::string>> unique;
  for (auto &entry : view.named_) {
    if (!unique.empty() && unique.back().first == entry.first) {
      if (unique.back().second.empty()) unique.back().second = std::move(entry.second);
      continue;
    }
    unique.push_back(std::move(entry));
  }
  view.named_ = std::move(unique);
  return view;
}

std::vector<std::optional<FileModule>>
ProjectView::mapNamed(const std::vector<std::pair<std::string, PublicNames>> &names, ModuleMap &map) {
  std::vector<std::optional<FileModule>> modules;
  modules.reserve(names.size());
  for (const auto &[file, found] : names) {
    modules.push_back(found.empty() ? std::nullopt : map.of(file));
    if (const std::optional<FileModule> &m = modules.back()) {
      named_.emplace_back(m->spelt, "");
      packages_.emplace_back(m->spelt, m->package);
    }
  }
  return modules;
}

namespace {

/// The modules of the run's `files` by name, for Reexports: a `.py` beside its `.pyi` is the
/// module (the stub is not run); two other files of one module (in two roots) make it unknown.
std::map<std::string, Reexports::Module, std::less<>> moduleIndex(const std::vector<std::string> &files,
                                                                  ModuleMap &map) {
  std::map<std::string, Reexports::Module, std::less<>> index;
  std::set<std::string, std::less<>> stubs; // modules known from a `.pyi` alone so far
  for (const std::string &file : files) {
    std::optional<FileModule> m = map.of(file);
    if (!m) continue;
    const bool stub = m->extension == ".pyi";
    const auto [it, fresh] = index.try_emplace(m->module, Reexports::Module{m->spelt, m->package});
    if (fresh) {
      if (stub) stubs.insert(m->module);
      continue;
    }
    if (it->second.file == m->spelt || stub) continue;
    if (stubs.erase(m->module) != 0) it->second.file = m->spelt;
    else it->second.file.clear();
  }
  return index;
}

} // namespace

void ProjectView::addPublicNames(const std::vector<std::pair<std::string, PublicNames>> &names,
                                 const std::vector<std::optional<FileModule>> &modules,
                                 const std::vector<std::string> &files, ModuleMap &map, const ProjectText &text) {
  struct Definition {
    PublicRename rename;
    std::string method;       ///< the name its callers write: "Kfac", "step"
    bool constructor = false; ///< `__init__`'s: `super().__init__(…)` may reach it
    /// The paths its callers reach it by through re-exports ("pkg.helper" for
    /// "pkg.impl.helper"): each gets a row of its own, which their files' fixes match.
    std::set<std::string> aliases;
    /// The other files with a call that may reach it through an import the view cannot follow:
    /// its rename (unsafe) goes to them too, so their `NAME=` is renamed with it, not kept.
    std::vector<std::string> reaching;
  };
  std::map<std::pair<std::string, std::string>, Definition> definitions; // (owner, name) →
  std::set<std::string, std::less<>> tops;                               // the top-level packages that define one
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::optional<FileModule> &m = modules[i];
    if (!m) continue;
    for (const PublicParameter &p : names[i].second.parameters) {
      Definition &d = definitions[{m->module + "." + p.owner, p.name}];
      const std::string replacement = m->config->config.renamed(p.name);
      if (d.rename.files.empty()) {
        d.rename.owner = m->module + "." + p.owner;
        d.rename.name = p.name;
        d.rename.replacement = replacement;
        d.method = p.owner.substr(p.owner.rfind('.') + 1);
        d.constructor = p.constructor;
        tops.insert(m->parts.front());
      } else if (d.rename.replacement != replacement && d.rename.unresolved.empty()) {
        d.rename.unresolved = "its files ask for different rename styles";
      }
      d.rename.files.push_back(m->spelt);
      if (m->uncertain && d.rename.unresolved.empty())
        d.rename.unresolved = "it lies in a namespace package, which an installed one could share";
    }
    // It defines a renamed parameter: build() keeps this entry of the file, which names its module.
    if (!names[i].second.parameters.empty()) named_.emplace_back(m->spelt, m->module);
  }
  if (definitions.empty()) return;

  // Every call the files list: one that resolves to a definition joins its rename; one that may
  // reach it without resolving makes its rename unsafe.
  const auto taint = [&](const std::string &why, const auto &matches) {
    for (auto &[key, d] : definitions)
      if (d.rename.unresolved.empty() && matches(d)) d.rename.unresolved = why;
  };
  std::optional<Reexports> reexports; // made for the first call that names a module of the run
  const auto follow = [&](const std::string &path) {
    if (!reexports) reexports.emplace(moduleIndex(files, map), text);
    return reexports->resolve(path);
  };
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string &file = modules[i] ? modules[i]->spelt : names[i].first;
    for (const KeywordCall &call : names[i].second.calls) {
      std::string path = call.callee;
      if (path.starts_with('.'))
        path = modules[i] ? resolveRelative(path, modules[i]->package).value_or("") : std::string();
      // Through the run's modules to what it names: `pkg.helper` is `pkg.impl.helper` when
      // `pkg/__init__.py` imports it from there.
      const std::string written = path;
      std::string unfollowed; // why the path cannot be followed with certainty
      if (!path.empty() && !call.local && !definitions.contains({path, call.keyword})) {
        Reexports::Target target = follow(path);
        path = std::move(target.path);
        unfollowed = std::move(target.unresolved);
        // A package of the project whose module the run does not hold (`check pkg/a.py pkg/b.py`
        // leaves `pkg/__init__.py` out): what it hands on is not known.
        if (unfollowed.empty() && path == written && tops.contains(std::string_view(path).substr(0, path.find('.'))) &&
            !reexports->holds(path.substr(0, path.rfind('.'))))
          unfollowed = "`" + path + "` lies in no module of the run";
      }
      const bool project = !path.empty() && tops.contains(std::string_view(path).substr(0, path.find('.')));
      const auto named = [&](const Definition &d) {
        return call.method.empty() || call.method == d.method || (d.constructor && call.method == "__init__");
      };
      const std::string where = "`" + (call.method.empty() ? std::string("a call") : call.method) + "(" +
                                (call.keyword.empty() ? std::string("**…") : call.keyword + "=") + ")` in `" + file +
                                "`";
      if (call.keyword.empty()) { // `f(**mapping)`: the mapping may hold the keyword
        if (call.local) {
          taint(where + " may pass it", [&](const Definition &d) {
            return !call.method.empty() && call.method == d.method &&
                   std::find(d.rename.files.begin(), d.rename.files.end(), file) != d.rename.files.end();
          });
        } else if (!unfollowed.empty()) {
          taint(where + " may pass it (" + unfollowed + ")", named);
        } else if (!path.empty()) {
          taint(where + " may pass it", [&](const Definition &d) { return d.rename.owner == path; });
        } else if (!call.method.empty()) {
          taint(where + " may pass it", named);
        }
        continue;
      }
      if (call.local) continue;  // the file's own function: AF001 renames its calls in the file
      if (!unfollowed.empty()) { // it may be any of them: each is renamed, unsafely, with this call
        for (auto &[key, d] : definitions) {
          if (d.rename.name != call.keyword) continue;
          if (d.rename.unresolved.empty()) d.rename.unresolved = where + " may reach it: " + unfollowed;
          if (std::find(d.rename.files.begin(), d.rename.files.end(), file) == d.rename.files.end() &&
              std::find(d.reaching.begin(), d.reaching.end(), file) == d.reaching.end())
            d.reaching.push_back(file);
        }
        continue;
      }
      if (const auto it = definitions.find({path, call.keyword}); !path.empty() && it != definitions.end()) {
        PublicRename &r = it->second.rename;
        if (std::find(r.files.begin(), r.files.end(), file) == r.files.end() &&
            std::find(r.callers.begin(), r.callers.end(), file) == r.callers.end())
          r.callers.push_back(file);
        if (written != path) it->second.aliases.insert(written);
        continue;
      }
      if (project) // another function of the project, which may forward it (`**kwargs`)
        taint(where + " may forward it", [&](const Definition &d) { return d.rename.name == call.keyword; });
      else if (path.empty()) // a callee that does not resolve
        taint(where + " does not resolve",
              [&](const Definition &d) { return d.rename.name == call.keyword && named(d); });
    }
  }

  for (auto &[key, d] : definitions) {
    PublicRename &r = d.rename;
    // Called from no other file of the run: nothing to tie together. The parameter is renamed
    // file by file as before, unsafe (callers outside the run may pass it).
    if (r.callers.empty() && d.reaching.empty()) continue;
    std::sort(r.callers.begin(), r.callers.end());
    std::sort(d.reaching.begin(), d.reaching.end());
    RenameRow row;
    // The new name must be free in every file the rename touches (the per-file check sees the
    // defining file alone): a file that already uses it makes every part unsafe, in every file.
    for (std::size_t i = 0; i < names.size() && row.unresolved.empty(); ++i) {
      const std::string &file = modules[i] ? modules[i]->spelt : names[i].first;
      const std::vector<std::string> &words = names[i].second.words;
      if ((std::find(r.files.begin(), r.files.end(), file) != r.files.end() ||
           std::find(r.callers.begin(), r.callers.end(), file) != r.callers.end() ||
           std::find(d.reaching.begin(), d.reaching.end(), file) != d.reaching.end()) &&
          std::find(words.begin(), words.end(), r.replacement) != words.end())
        row.unresolved = "the name `" + r.replacement + "` is already used in `" + file + "`";
    }
    if (!row.unresolved.empty()) r.unresolved = row.unresolved;
    row.kind = RenameRow::Kind::Keyword;
    row.library = "this project";
    row.owner = r.owner;
    row.old = r.name;
    row.replacement = r.replacement;
    row.touches = r.files;
    row.touches.insert(row.touches.end(), r.callers.begin(), r.callers.end());
    for (const std::string &file : d.reaching)
      if (std::find(row.touches.begin(), row.touches.end(), file) == row.touches.end()) row.touches.push_back(file);
    row.uncertain = !r.unresolved.empty();
    if (row.unresolved.empty() && !d.reaching.empty()) row.unresolved = r.unresolved; // the title says why
    // The same row under each path a caller reaches it by through re-exports, for its fixes.
    for (const std::string &alias : d.aliases) {
      RenameRow copy = row;
      copy.owner = alias;
      rows_.push_back(std::move(copy));
    }
    rows_.push_back(std::move(row));
    publics_.push_back(std::move(r));
  }
}

void ProjectView::addNameRenames(const std::vector<std::pair<std::string, PublicNames>> &names,
                                 const std::vector<std::optional<FileModule>> &modules) {
  std::map<std::string, NameRename> globals;    // "pkg.m.async" →
  std::map<std::string, NameRename> attributes; // "async" →
  std::set<std::string, std::less<>> tops;      // the top-level packages of the files that name something
  std::set<std::string, std::less<>> classes;   // the project's classes: "pkg.m.C"
  std::map<std::string, std::string> moduleOf;  // file → module
  const auto define = [](NameRename &r, const FileModule &m, NameRename::Kind kind, std::string path,
                         const std::string &name) {
    const std::string replacement = m.config->config.renamed(name);
    if (r.files.empty()) {
      r.kind = kind;
      r.path = std::move(path);
      r.name = name;
      r.replacement = replacement;
    } else if (r.replacement != replacement) {
      r.unresolved.emplace_back("its files ask for different rename styles");
    }
    if (std::find(r.files.begin(), r.files.end(), m.spelt) == r.files.end()) r.files.push_back(m.spelt);
    if (m.uncertain) r.unresolved.push_back("`" + m.spelt + "` lies in a namespace package");
  };
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::optional<FileModule> &m = modules[i];
    if (!m) continue;
    const PublicNames &found = names[i].second;
    moduleOf[m->spelt] = m->module;
    tops.insert(m->parts.front());
    for (const std::string &c : found.classes) classes.insert(m->module + "." + c);
    // A string of the defining module that spells the name (`__all__ = ['async']`,
    // `getattr(self, 'async')`) goes on naming the old one; a star import follows `__all__`.
    const std::vector<std::string> &strings = found.quoted;
    const auto quoted = [&](NameRename &r, const std::string &name) {
      std::string why = "`" + m->spelt + "` spells `" + name + "` in a string, which the rename leaves as is";
      if (std::find(strings.begin(), strings.end(), name) != strings.end() &&
          std::find(r.unresolved.begin(), r.unresolved.end(), why) == r.unresolved.end())
        r.unresolved.push_back(std::move(why));
    };
    for (const std::string &name : found.globals) {
      NameRename &r = globals[m->module + "." + name];
      define(r, *m, NameRename::Kind::Global, m->module + "." + name, name);
      if (found.all) r.unresolved.push_back("`" + m->spelt + "` has an `__all__`, which star imports follow");
      quoted(r, name);
    }
    for (const auto &[owner, name] : found.attributes) {
      NameRename &r = attributes[name];
      define(r, *m, NameRename::Kind::Attribute, name, name);
      quoted(r, name);
    }
  }
  if (globals.empty() && attributes.empty()) return;

  // A path that names one of the project's modules being renamed, and no name it defines, is
  // AF201's.
  const auto renamedModule = [&](std::string_view path) {
    return std::any_of(renames_.begin(), renames_.end(),
                       [&](const ModuleRename &r) { return path == r.module || insideModule(path, r.module); });
  };
  const auto use = [](NameRename &r, const std::string &file) {
    if (std::find(r.files.begin(), r.files.end(), file) == r.files.end() &&
        std::find(r.users.begin(), r.users.end(), file) == r.users.end())
      r.users.push_back(file);
  };
  const auto taint = [&](const std::string &name, const std::string &where, bool global, bool attribute) {
    if (global)
      for (auto &[path, g] : globals)
        if (g.name == name) g.unresolved.push_back(where);
    if (attribute)
      if (const auto it = attributes.find(name); it != attributes.end()) it->second.unresolved.push_back(where);
  };
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::optional<FileModule> &m = modules[i];
    const std::string &file = m ? m->spelt : names[i].first;
    for (const NameReference &ref : names[i].second.references) {
      const std::string where = "`" + ref.written + "` in `" + file + ":" + std::to_string(ref.line) + "`";
      std::string path = ref.path;
      if (path.starts_with('.')) path = m ? resolveRelative(path, m->package).value_or("") : std::string();
      const auto attribute = attributes.find(ref.name);
      switch (ref.kind) {
      case NameReference::Kind::Own:
        if (attribute != attributes.end()) use(attribute->second, file);
        break;
      case NameReference::Kind::Instance:
        if (attribute == attributes.end()) break;
        if (classes.contains(path)) use(attribute->second, file);
        else taint(ref.name, where + " (an object of `" + (path.empty() ? ref.path : path) + "`)", false, true);
        break;
      case NameReference::Kind::Path: {
        if (path.empty()) break;
        // A module-level name of a module being renamed (`from pkg.async import await`) is
        // renamed with it: the two fixes edit different tokens of the import.
        bool reached = false;
        for (auto &[key, g] : globals)
          if (path == key || (path.starts_with(key) && path[key.size()] == '.')) {
            use(g, file);
            reached = true;
          }
        if (reached || renamedModule(path)) break;
        const std::string_view parent = std::string_view(path).substr(0, path.rfind('.'));
        if (classes.contains(parent)) { // `C.async`: the class's attribute
          if (attribute != attributes.end()) use(attribute->second, file);
          break;
        }
        // Something of the project that defines no such name: it may take it from another module
        // (`from .m import async` in `pkg/__init__.py`, a star import).
        if (tops.contains(std::string_view(path).substr(0, path.find('.'))))
          taint(ref.name, where + " does not resolve", true, true);
        break;
      }
      case NameReference::Kind::Unresolved: taint(ref.name, where + " does not resolve", true, true); break;
      }
    }
  }

  // The new name must be free in every file the rename touches: a file that already uses it
  // makes every part unsafe, in every file (the per-file check sees that file alone).
  std::map<std::string, const std::vector<std::string> *, std::less<>> words; // file → its words
  for (std::size_t i = 0; i < names.size(); ++i)
    words.emplace(modules[i] ? modules[i]->spelt : names[i].first, &names[i].second.words);
  const auto taken = [&](NameRename &r) {
    std::vector<std::string> files = r.files;
    files.insert(files.end(), r.users.begin(), r.users.end());
    for (const std::string &file : files)
      if (const auto it = words.find(file);
          it != words.end() && std::find(it->second->begin(), it->second->end(), r.replacement) != it->second->end())
        r.unresolved.insert(r.unresolved.begin(), "the name `" + r.replacement + "` is already used in `" + file + "`");
  };
  const auto rowFor = [](const NameRename &r) {
    RenameRow row;
    row.library = "this project";
    row.old = r.path;
    row.replacement = r.replacement;
    row.touches = r.files;
    row.touches.insert(row.touches.end(), r.users.begin(), r.users.end());
    row.uncertain = !r.unresolved.empty();
    row.unresolved = placesSummary(r.unresolved);
    return row;
  };
  for (auto &[key, g] : globals) {
    // Used by no other file of the run: nothing to tie together; renamed file by file as before,
    // unsafe (importers outside the run may use it).
    if (g.users.empty()) continue;
    std::sort(g.users.begin(), g.users.end());
    taken(g);
    RenameRow row = rowFor(g);
    row.kind = RenameRow::Kind::Function;
    row.replacement = key.substr(0, key.rfind('.') + 1) + g.replacement;
    rows_.push_back(std::move(row));
    for (const std::string &file : g.files) named_.emplace_back(file, moduleOf[file]);
    names_.push_back(std::move(g));
  }
  for (auto &[name, a] : attributes) {
    if (a.files.size() + a.users.size() < 2) continue; // one file: renamed there as before
    std::sort(a.users.begin(), a.users.end());
    taken(a);
    RenameRow row = rowFor(a);
    row.kind = RenameRow::Kind::Attribute;
    memberRows_.push_back(std::move(row));
    names_.push_back(std::move(a));
  }
}

namespace {

/// An extension module in `directory` that `import name` would load (`name.so`, `name.<tag>.so`,
/// and the same with `.pyd`); its path. Only asked for the new names of keyword modules.
std::optional<std::string> extensionModuleNamed(const fs::path &directory, const std::string &name) {
  std::error_code ec;
  fs::directory_iterator it(directory.empty() ? fs::path(".") : directory, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string entry = it->path().filename().string();
    if (!entry.starts_with(name + ".") || !(entry.ends_with(".so") || entry.ends_with(".pyd"))) continue;
    std::error_code type;
    if (!it->is_directory(type)) return (directory / entry).generic_string();
  }
  return std::nullopt;
}

/// The refusals that follow from others: a module's twins in other roots, and the modules inside
/// a package that cannot be renamed.
void refuseRelated(std::vector<ModuleRename> &renames) {
  // One module in two roots (`check a b` with `a/pkg/async.py` and `b/pkg/async.py`): an import
  // of it cannot tell them apart, so it is renamed everywhere or nowhere (else the imports of the
  // root whose rename is refused would be rewritten to the module that is in the way).
  for (ModuleRename &r : renames) {
    if (r.refusal) continue;
    const auto refused = std::find_if(renames.begin(), renames.end(),
                                      [&](const ModuleRename &o) { return o.module == r.module && o.refusal; });
    if (refused == renames.end()) continue;
    // Left alone in one file (a `.py` beside its `.pyi`, another root) and not in this one: not
    // renamed either, and reported as refused, saying why (only where it is opted out it is quiet).
    r.refusal = "cannot rename `" + r.path.from + "` to `" + r.path.to + "`: the same module `" + r.module + "` at `" +
                refused->path.from + "` cannot be renamed (" +
                (refused->taken.empty() ? *refused->refusal : "`" + refused->taken + "` exists") + ")";
  }
  // A module inside a package that cannot be renamed: its rows would spell the package's new name.
  for (ModuleRename &r : renames) {
    if (r.refusal) continue;
    const auto refused = std::find_if(renames.begin(), renames.end(), [&](const ModuleRename &o) {
      return o.refusal && insideModule(r.module, o.module);
    });
    if (refused == renames.end()) continue;
    r.refusal = "cannot rename `" + r.path.from + "` to `" + r.path.to + "`: the package `" + refused->module +
                "` it lies in cannot be renamed (" + *refused->refusal + ")";
  }
}

} // namespace

void ProjectView::addModuleRenames(const std::vector<std::string> &files, ModuleMap &map, const ProjectText &text) {
  ProjectView &view = *this;
  std::map<std::string, std::size_t> byPath; // a rename's `from` → its index in renames_
  for (const std::string &file : files) {
    const std::optional<FileModule> module = map.of(file);
    if (!module) {
      if (auto stray = map.stray(file)) view.strays_.push_back(std::move(*stray));
      continue;
    }
    const std::string &spelt = module->spelt;
    const std::string_view extension = module->extension;
    const ResolvedConfig *config = module->config;
    const bool init = module->init;
    const bool uncertain = module->uncertain;
    const std::vector<std::string> &parts = module->parts;
    const std::size_t dirParts = module->directoryParts;
    view.packages_.emplace_back(spelt, module->package);

    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (!isKeywordName(parts[i])) continue;
      const bool directory = i < dirParts;
      fs::path from = spelt;
      if (directory) {
        from = from.parent_path();
        for (std::size_t up = dirParts - 1; up > i; --up) from = from.parent_path();
      }
      const std::string newName = config->renamedModule(parts[i]);
      fs::path to = from.parent_path() / (directory ? newName : newName + std::string(extension));
      const std::string key = from.generic_string();
      auto [slot, fresh] = byPath.try_emplace(key, view.renames_.size());
      if (!fresh) {
        ModuleRename &known = view.renames_[slot->second];
        if (init && i + 1 == parts.size()) known.reportedIn = spelt; // the package's __init__.py
        continue;
      }
      ModuleRename r;
      r.module = join(parts, i + 1);
      std::vector<std::string> renamed(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(i + 1));
      for (std::string &part : renamed)
        if (isKeywordName(part)) part = config->renamedModule(part);
      r.newModule = join(renamed, renamed.size());
      r.path = {key, to.generic_string()};
      r.directory = directory;
      r.uncertain = uncertain;
      r.reportedIn = spelt;
      std::error_code ec;
      fs::path base = fs::absolute(spelt, ec).lexically_normal().parent_path();
      for (std::size_t up = 0; up < dirParts; ++up) base = base.parent_path();
      r.base = base.generic_string();
      if (!config->source.empty()) // the project's root: `src = ["src"]` leaves tests/ beside it
        r.root = fs::absolute(config->source, ec).lexically_normal().parent_path().generic_string();
      r.severity = config->config.keywordsReserved() ? Severity::Error : Severity::Warning;
      if (const auto chosen = config->config.severity.find("AF201"); chosen != config->config.severity.end())
        r.severity = chosen->second; // `[tool.asyncfix.severity]`, as for the imports' findings
      // The new name is taken by whatever would import as it: the target itself, a module file
      // beside a package directory, or a package directory beside a module file.
      const fs::path stem = from.parent_path() / newName;
      const auto suffixed = [&](const char *suffix) { return fs::path(stem) += suffix; };
      for (const fs::path &taken : {to, stem, suffixed(".py"), suffixed(".pyi")}) {
        std::error_code exists;
        if (fs::symlink_status(taken, exists).type() != fs::file_type::not_found && !exists) {
          r.taken = taken.generic_string();
          r.refusal = "cannot rename `" + r.path.from + "` to `" + r.path.to + "`: `" + r.taken + "` exists";
          break;
        }
      }
      // An extension module of that name (`asynchronous.cpython-311-x86_64-linux-gnu.so`,
      // `asynchronous.abi3.so`, `asynchronous.pyd`): Python's finder tries those before sources,
      // so it would be imported in place of the renamed module.
      if (!r.refusal)
        if (std::optional<std::string> binary = extensionModuleNamed(from.parent_path(), newName)) {
          r.taken = std::move(*binary);
          r.refusal = "cannot rename `" + r.path.from + "` to `" + r.path.to + "`: the extension module `" + r.taken +
                      "` would be imported in its place";
        }
      view.renames_.push_back(std::move(r));
    }
  }

  // A module whose report AF201 is not selected for (`--ignore AF201`, a per-file ignore of the
  // file that stands for it) is neither reported nor renamed: its imports, not rewritten where the
  // rule is off, would name a module that is gone. The same where that file's header opts out.
  // Also when its new name is taken: a module left alone is not reported, refused or not.
  for (ModuleRename &r : view.renames_) {
    const auto ignore = [&r](std::string why) {
      r.ignored = true;
      r.refusal = std::move(why);
      r.taken.clear();
    };
    if (!map.selects(r.reportedIn, "AF201")) {
      ignore("AF201 is not selected for `" + r.reportedIn + "`");
      continue;
    }
    std::string why;
    const std::optional<ProjectSource> source = text ? text(r.reportedIn, why) : std::nullopt;
    if (!source) continue; // unread: audit() says so for the files it reads
    const Suppressions header = headerSuppressions(source->text);
    if (header.skipFile || header.fileAll ||
        std::find(header.fileCodes.begin(), header.fileCodes.end(), "AF201") != header.fileCodes.end())
      ignore("`" + r.reportedIn + "` opts out of AF201 in its header");
  }

  refuseRelated(view.renames_);

  // One row per module path, in each spelling a fix in progress can leave its ancestors in
  // (`pkg.async.await` and `pkg.asynchronous.await`): fixing converges whatever the order.
  std::map<std::string, RenameRow> rows;
  for (const ModuleRename &r : view.renames_) {
    if (r.refusal) continue;
    std::vector<std::string> oldParts, newParts;
    for (std::size_t from = 0; from <= r.module.size();) {
      const std::size_t dot = std::min(r.module.find('.', from), r.module.size());
      oldParts.push_back(r.module.substr(from, dot - from));
      from = dot + 1;
    }
    for (std::size_t from = 0; from <= r.newModule.size();) {
      const std::size_t dot = std::min(r.newModule.find('.', from), r.newModule.size());
      newParts.push_back(r.newModule.substr(from, dot - from));
      from = dot + 1;
    }
    std::vector<std::size_t> ancestors;
    for (std::size_t i = 0; i + 1 < oldParts.size(); ++i)
      if (oldParts[i] != newParts[i]) ancestors.push_back(i);
    for (std::size_t mask = 0; mask < (std::size_t{1} << ancestors.size()); ++mask) {
      std::vector<std::string> spelling = oldParts;
      for (std::size_t b = 0; b < ancestors.size(); ++b)
        if ((mask >> b & 1U) != 0) spelling[ancestors[b]] = newParts[ancestors[b]];
      RenameRow &row = rows[join(spelling, spelling.size())];
      row.kind = RenameRow::Kind::Module;
      row.library = "this project";
      row.old = join(spelling, spelling.size());
      row.replacement = r.newModule;
      row.files.push_back(r.path);
      row.uncertain = row.uncertain || r.uncertain;
    }
  }
  for (auto &[old, row] : rows) view.rows_.push_back(std::move(row));
  for (const ModuleRename &r : view.renames_)
    if (!r.refusal && std::none_of(view.modules_.begin(), view.modules_.end(),
                                   [&](const RenamedModule &m) { return m.old == r.module; }))
      view.modules_.push_back({r.module, r.newModule});
}

std::string ProjectView::configure(const std::string &file, Config &config) const {
  if (!active()) return {};
  config.renames.insert(config.renames.begin(), rows_.begin(), rows_.end());
  const std::string key = normalizedPath(file);
  // An attribute's row goes to the files that use it on objects the project knows.
  std::string members;
  for (const RenameRow &row : memberRows_)
    if (std::find(row.touches.begin(), row.touches.end(), key) != row.touches.end()) {
      config.renames.insert(config.renames.begin(), row);
      members += "\nattribute " + row.old;
    }
  const auto at = std::lower_bound(packages_.begin(), packages_.end(), std::make_pair(key, std::string()));
  if (at == packages_.end() || at->first != key) return "\nproject" + members;
  // Relative imports reach a renamed module only from its own top-level package, and a renamed
  // parameter or name only from the files that use it: the other files share one Linter.
  const auto named = std::lower_bound(named_.begin(), named_.end(), std::make_pair(key, std::string()));
  const bool calls = named != named_.end() && named->first == key;
  const std::string_view top = std::string_view(at->second).substr(0, at->second.find('.'));
  if (!calls && std::none_of(modules_.begin(), modules_.end(), [&](const RenamedModule &m) {
        return std::string_view(m.old).substr(0, m.old.find('.')) == top;
      }))
    return "\nproject" + members;
  config.package = at->second;
  if (!calls || named->second.empty()) return "\nproject package " + at->second + members;
  config.module = named->second; // it defines a renamed parameter or module-level name
  return "\nproject package " + at->second + "\nmodule " + named->second + members;
}

void ProjectView::refuseModules(const std::function<std::optional<std::string>(const ModuleRename &)> &why) {
  bool any = false;
  for (ModuleRename &r : renames_) {
    if (r.refusal) continue;
    if (std::optional<std::string> reason = why(r)) {
      r.refusal = "cannot rename `" + r.path.from + "` to `" + r.path.to + "`: " + *reason;
      any = true;
    }
  }
  if (!any) return;
  refuseRelated(renames_);
  const auto refused = [&](const FileRename &path) {
    return std::any_of(renames_.begin(), renames_.end(),
                       [&](const ModuleRename &r) { return r.refusal && r.path == path; });
  };
  std::erase_if(rows_, [&](const RenameRow &row) {
    return row.kind == RenameRow::Kind::Module && std::any_of(row.files.begin(), row.files.end(), refused);
  });
  std::erase_if(modules_, [&](const RenamedModule &m) {
    return std::none_of(renames_.begin(), renames_.end(),
                        [&](const ModuleRename &r) { return !r.refusal && r.module == m.old; });
  });
}

std::string normalizedPath(const fs::path &path) { return path.lexically_normal().generic_string(); }

bool ProjectView::mentionsKeywordModule(std::string_view path) {
  // Asked of every file of a run: most paths spell neither word anywhere (memmem skips through a
  // path by pairs of bytes; find() stops at each of its many `a`s).
  if (!containsBytes(path, "async") && !containsBytes(path, "await")) return false;
  for (std::size_t from = 0; from <= path.size();) {
    const std::size_t slash = std::min(path.find('/', from), path.size());
    std::string_view part = path.substr(from, slash - from);
    if (slash == path.size()) {
      if (part.ends_with(".py")) part.remove_suffix(3);
      else if (part.ends_with(".pyi")) part.remove_suffix(4);
    }
    if (isKeywordName(part)) return true;
    from = slash + 1;
  }
  return false;
}

Diagnostic ProjectView::moduleDiagnostic(const ModuleRename &r) {
  const RuleInfo *rule = findRule("AF201");
  Diagnostic d;
  d.code = rule->code;
  d.name = rule->name;
  d.severity = r.severity;
  const std::string_view last = std::string_view(r.module).substr(r.module.rfind('.') + 1);
  d.message = "The project's " + std::string(r.directory ? "package" : "module") + " `" + r.module +
              "` cannot be imported since Python 3.7 (`" + std::string(last) + "` is a reserved keyword)";
  if (r.refusal) {
    d.message += "; " + *r.refusal;
    return d;
  }
  d.message += "; rename it `" + r.newModule + "`";
  Fix fix{"Rename `" + r.path.from + "` to `" + r.path.to + "` and update its imports", r.applicability(), {}, {}};
  if (r.uncertain) fix.title += " (it lies in a namespace package, which an installed one could share)";
  if (!r.leftBehind.empty()) fix.title += " (" + placesSummary(r.leftBehind) + ")";
  fix.renames.push_back(r.path);
  d.fix = std::move(fix);
  return d;
}

bool insideModule(std::string_view inner, std::string_view outer) {
  return inner.size() > outer.size() && inner.starts_with(outer) && inner[outer.size()] == '.';
}

void sortDeepestFirst(std::vector<const ModuleRename *> &renames) {
  std::stable_sort(renames.begin(), renames.end(), [](const ModuleRename *a, const ModuleRename *b) {
    return depth(a->path.from) > depth(b->path.from);
  });
}

std::string ProjectView::movedPath(const std::string &path, bool unsafe) const {
  std::vector<const ModuleRename *> order;
  for (const ModuleRename &r : renames_)
    if (!r.refusal && (unsafe || r.applicability() == Applicability::Safe)) order.push_back(&r);
  sortDeepestFirst(order);
  std::string out = normalizedPath(path);
  for (const ModuleRename *r : order) out = moved(out, r->path);
  return out;
}

} // namespace asyncfix
