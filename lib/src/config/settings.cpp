#include "asyncfix/settings.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "asyncfix/platform.h"
#include "asyncfix/rules.h"
#include "config/rename_table.h"
#include "files/given_path.h"

namespace fs = std::filesystem;

namespace asyncfix {

const std::vector<std::string> kDefaultExcludes{"__pycache__", ".git",  "node_modules", ".venv", "venv",
                                                "env",         ".eggs", "build",        "dist"};

std::string ConfigError::toString() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
  return out + ": " + message;
}

namespace {

/// What one configuration file says; unset keys stay unset so that layers can be merged.
struct FileSettings {
  fs::path source;
  std::optional<std::vector<std::string>> select, extendSelect, ignore, exclude, extendExclude;
  std::vector<std::pair<std::string, std::vector<std::string>>> perFileIgnores;
  std::optional<bool> respectGitignore, unsafeFixes;
  std::optional<PythonVersion> target;
  bool targetFromRequiresPython = false;
  std::optional<std::string> renameTemplate;
  std::map<std::string, Severity, std::less<>> severity;
  std::optional<std::vector<RenameRow>> renames;
  std::optional<std::vector<std::string>> src;
  std::optional<std::string> moduleRenameStyle;
  std::optional<std::string> docsUrl;
};

/// "asynchronous" or a template with "{name}" whose result for `async` and `await` is a Python
/// identifier that is not a keyword.
bool isValidModuleRenameStyle(std::string_view style) {
  if (style == "asynchronous") return true;
  return style.find("{name}") != std::string_view::npos && Config::isValidRenameTemplate(style);
}

class Parser {
public:
  explicit Parser(const fs::path &path) : path_(path) {}

  ConfigError error(const toml::source_region &where, std::string message) const {
    return {path_.string(), where.begin.line, where.begin.column, std::move(message)};
  }

  /// An array of rule selectors; unknown entries are errors.
  std::variant<std::vector<std::string>, ConfigError> selectors(const toml::node &node, std::string_view key) const {
    const toml::array *array = node.as_array();
    if (!array) return error(node.source(), "`" + std::string(key) + "` must be an array of rule codes");
    std::vector<std::string> out;
    for (const toml::node &item : *array) {
      const auto value = item.value<std::string>();
      if (!value) return error(item.source(), "`" + std::string(key) + "` must hold strings");
      RuleSelection probe;
      probe.select = {*value};
      if (!probe.unknownEntries().empty())
        return error(item.source(), "unknown rule code `" + *value + "` in `" + std::string(key) + "`");
      out.push_back(*value);
    }
    return out;
  }

  std::variant<std::vector<std::string>, ConfigError> strings(const toml::node &node, std::string_view key) const {
    const toml::array *array = node.as_array();
    if (!array) return error(node.source(), "`" + std::string(key) + "` must be an array of strings");
    std::vector<std::string> out;
    for (const toml::node &item : *array) {
      const auto value = item.value<std::string>();
      if (!value) return error(item.source(), "`" + std::string(key) + "` must hold strings");
      out.push_back(*value);
    }
    return out;
  }

  /// `[renames]`: `module`, `function`, `keyword`, `attribute` and `api`, each an array of tables
  /// `{ old = "…", new = "…" }` (+ `callable` for keyword rows, `owner` for attribute rows;
  /// `message` instead of `new` for an api row that was removed; optional `library`, `since`,
  /// `source`). Errors name the key: `renames.module[0].old`.
  std::variant<std::vector<RenameRow>, ConfigError> renames(const toml::node &node) const {
    const toml::table *kinds = node.as_table();
    if (!kinds)
      return error(node.source(),
                   "`renames` must be a table of `module`, `function`, `keyword`, `attribute` and `api` rows");
    std::vector<RenameRow> out;
    for (auto &&[kindKey, rowsNode] : *kinds) {
      const std::string_view kindName = kindKey.str();
      RenameRow::Kind kind{};
      std::string ownerKey; // the extra field of keyword and attribute rows
      if (kindName == "module") {
        kind = RenameRow::Kind::Module;
      } else if (kindName == "function") {
        kind = RenameRow::Kind::Function;
      } else if (kindName == "keyword") {
        kind = RenameRow::Kind::Keyword;
        ownerKey = "callable";
      } else if (kindName == "attribute") {
        kind = RenameRow::Kind::Attribute;
        ownerKey = "owner";
      } else if (kindName == "api") {
        kind = RenameRow::Kind::Api;
      } else {
        return error(kindKey.source(), "unknown key `renames." + std::string(kindName) +
                                           "` (expected `module`, `function`, `keyword`, `attribute` or `api`)");
      }
      const std::string where = "renames." + std::string(kindName);
      const toml::array *rows = rowsNode.as_array();
      const std::string shape = ownerKey.empty() ? "{ old = \"…\", new = \"…\" }"
                                                 : "{ " + ownerKey + " = \"…\", old = \"async\", new = \"…\" }";
      if (!rows) return error(rowsNode.source(), "`" + where + "` must be an array of tables such as " + shape);
      for (std::size_t i = 0; i < rows->size(); ++i) {
        const toml::node &item = *rows->get(i);
        const std::string at = where + "[" + std::to_string(i) + "]";
        const toml::table *fields = item.as_table();
        if (!fields) return error(item.source(), "`" + at + "` must be a table such as " + shape);
        RenameRow r;
        r.kind = kind;
        const auto slotFor = [&](std::string_view f) -> std::string * {
          if (f == "old") return &r.old;
          if (f == "new") return &r.replacement;
          if (f == "library") return &r.library;
          if (f == "since") return &r.since;
          if (f == "source") return &r.source;
          if (!ownerKey.empty() && f == ownerKey) return &r.owner;
          if (kind == RenameRow::Kind::Api && f == "message") return &r.message;
          return nullptr;
        };
        std::map<std::string, const toml::node *, std::less<>> seen;
        for (auto &&[fieldKey, value] : *fields) {
          const std::string_view f = fieldKey.str();
          std::string *slot = slotFor(f);
          if (!slot) return error(fieldKey.source(), "unknown key `" + at + "." + std::string(f) + "`");
          const auto text = value.value<std::string>();
          if (!text || !value.is_string())
            return error(value.source(), "`" + at + "." + std::string(f) + "` must be a string");
          *slot = *text;
          seen.emplace(std::string(f), &value);
        }
        // An api row without `new` is a removal, which says what to write instead.
        const bool removal = kind == RenameRow::Kind::Api && seen.contains("message");
        if (removal && seen.contains("new"))
          return error(seen.at("message")->source(),
                       "`" + at + "` has `new` and `message`: a renamed API takes `new`, a removed one `message`");
        for (const std::string &required : {std::string("old"), std::string(removal ? "message" : "new"), ownerKey})
          if (!required.empty() && !seen.contains(required))
            return error(item.source(), "`" + at + "` needs `" + required + "`");
        if (const auto problem = rules::validateRenameRow(r))
          return error(seen.at(problem->field)->source(), "`" + at + "." + problem->field + "` " + problem->message);
        const std::string &path = r.owner.empty() ? r.old : r.owner;
        if (r.library.empty()) r.library = path.substr(0, path.find('.'));
        out.push_back(std::move(r));
      }
    }
    return out;
  }

  std::variant<FileSettings, ConfigError> parse(const toml::table &table, const toml::table &root) const {
    FileSettings s;
    s.source = path_;
    for (auto &&[key, node] : table) {
      const std::string_view k = key.str();
      std::optional<ConfigError> problem;
      auto take = [&](auto result, auto &slot) {
        if (auto *e = std::get_if<ConfigError>(&result)) problem = *e;
        else slot = std::get<0>(std::move(result));
      };
      if (k == "select") take(selectors(node, k), s.select);
      else if (k == "extend-select") take(selectors(node, k), s.extendSelect);
      else if (k == "ignore") take(selectors(node, k), s.ignore);
      else if (k == "exclude") take(strings(node, k), s.exclude);
      else if (k == "extend-exclude") take(strings(node, k), s.extendExclude);
      else if (k == "src") take(strings(node, k), s.src);
      else if (k == "module-rename-style") {
        const auto value = node.value<std::string>();
        if (!value || !node.is_string() || !isValidModuleRenameStyle(*value))
          problem = error(node.source(), "`module-rename-style` must be `asynchronous` or a template such as "
                                         "`_{name}` that gives a Python identifier");
        else s.moduleRenameStyle = *value;
      } else if (k == "docs-url") {
        const auto value = node.value<std::string>();
        if (!value || !node.is_string() || !isAbsoluteUrl(*value))
          problem =
              error(node.source(), "`docs-url` must be an absolute URL such as `https://example.org/asyncfix/docs`");
        else s.docsUrl = *value;
      } else if (k == "respect-gitignore" || k == "unsafe-fixes") {
        const auto value = node.value<bool>();
        if (!value || !node.is_boolean())
          problem = error(node.source(), "`" + std::string(k) + "` must be true or false");
        else (k == "unsafe-fixes" ? s.unsafeFixes : s.respectGitignore) = *value;
      } else if (k == "target-version") {
        const auto value = node.value<std::string>();
        const auto version = value ? PythonVersion::parse(*value) : std::nullopt;
        if (!version) problem = error(node.source(), "`target-version` must be one of py35 … py314");
        else s.target = version;
      } else if (k == "rename-style") {
        const auto value = node.value<std::string>();
        const auto tmpl = value ? Config::renameTemplateFor(*value) : std::nullopt;
        if (!tmpl)
          problem = error(node.source(), "`rename-style` must be `async_`, `is_async` or a template such as "
                                         "`{name}_flag` that gives a Python identifier");
        else s.renameTemplate = tmpl;
      } else if (k == "per-file-ignores") {
        const toml::table *globs = node.as_table();
        if (!globs) problem = error(node.source(), "`per-file-ignores` must be a table of glob = [codes]");
        else
          for (auto &&[glob, codes] : *globs) {
            auto parsed = selectors(codes, "per-file-ignores");
            if (auto *e = std::get_if<ConfigError>(&parsed)) {
              problem = *e;
              break;
            }
            s.perFileIgnores.emplace_back(std::string(glob.str()), std::get<0>(std::move(parsed)));
          }
      } else if (k == "renames") {
        take(renames(node), s.renames);
      } else if (k == "severity") {
        const toml::table *codes = node.as_table();
        if (!codes) problem = error(node.source(), "`severity` must be a table of CODE = \"error|warning|info|hint\"");
        else
          for (auto &&[code, level] : *codes) {
            const auto value = level.value<std::string>();
            const std::optional<Severity> severity = !value                ? std::nullopt
                                                     : *value == "error"   ? std::optional(Severity::Error)
                                                     : *value == "warning" ? std::optional(Severity::Warning)
                                                     : *value == "info"    ? std::optional(Severity::Info)
                                                     : *value == "hint"    ? std::optional(Severity::Hint)
                                                                           : std::nullopt;
            if (!findRule(code.str())) {
              problem = error(code.source(), "unknown rule code `" + std::string(code.str()) + "` in `severity`");
              break;
            }
            if (!severity) {
              problem = error(level.source(), "severity must be \"error\", \"warning\", \"info\" or \"hint\"");
              break;
            }
            s.severity.emplace(std::string(code.str()), *severity);
          }
      } else {
        problem = error(key.source(), "unknown key `" + std::string(k) + "`");
      }
      if (problem) return *problem;
    }
    // Like Ruff: without target-version, the project's minimum Python decides.
    if (!s.target)
      if (const auto spec = root["project"]["requires-python"].value<std::string>()) {
        // The lowest version a `>=`, `~=`, `==` or `>` clause allows: ">=3.8", "<3.12,>=3.6".
        std::optional<PythonVersion> lowest;
        for (std::size_t from = 0; from <= spec->size();) {
          const std::size_t comma = std::min(spec->find(',', from), spec->size());
          const std::string clause = spec->substr(from, comma - from);
          from = comma + 1;
          const auto op = clause.find_first_not_of(" \t");
          if (op == std::string::npos || clause[op] == '<' || clause.compare(op, 2, "!=") == 0) continue;
          const auto digit = clause.find_first_of("0123456789", op);
          if (digit == std::string::npos) continue;
          const auto end = clause.find_first_not_of("0123456789.", digit);
          std::string version = clause.substr(digit, end == std::string::npos ? std::string::npos : end - digit);
          if (std::count(version.begin(), version.end(), '.') > 1)
            version.erase(version.find('.', version.find('.') + 1));
          const auto v = PythonVersion::parse(version);
          if (v && (!lowest || *v < *lowest)) lowest = v;
        }
        if ((s.target = lowest)) s.targetFromRequiresPython = true;
      }
    return s;
  }

private:
  fs::path path_;
};

/// nullopt: the file holds no asyncfix configuration (a pyproject.toml without the table).
std::optional<std::variant<FileSettings, ConfigError>> parseSettings(const fs::path &path, std::string_view text) {
  toml::table root;
  try {
    root = toml::parse(text, path.string());
  } catch (const toml::parse_error &e) {
    return ConfigError{path.string(), e.source().begin.line, e.source().begin.column, std::string(e.description())};
  }
  const Parser parser(path);
  if (path.filename() == "pyproject.toml") {
    const toml::table *table = root["tool"]["asyncfix"].as_table();
    if (!table) return std::nullopt;
    return parser.parse(*table, root);
  }
  return parser.parse(root, root);
}

/// `*` stops at `/`; `**/` stands for any number of directories, none included (as in Ruff and
/// .gitignore): the glob is tried with each `**/` either crossing directories or dropped.
bool globMatches(const std::string &glob, const std::string &path) {
  const std::size_t at = glob.find("**/");
  if (at == std::string::npos) {
    const int flags = glob.find("**") == std::string::npos ? kGlobPathname : 0;
    return globMatch(glob.c_str(), path.c_str(), flags);
  }
  std::string none = glob; // `**/` matching no directory at all
  none.erase(at, 3);
  if (globMatches(none, path)) return true;
  return globMatch(glob.c_str(), path.c_str(), 0); // `**/` crossing one or more
}

/// Does `glob` match `relative` (a path relative to the configuration's directory)? A glob
/// without `/` matches the entry's own name, at any depth (like `.gitignore`): a walk meets every
/// directory on the way down, so an excluded directory is never entered.
bool pathMatches(const std::string &glob, const fs::path &relative) {
  if (glob.find('/') == std::string::npos)
    return globMatch(glob.c_str(), pathText(relative.filename()).c_str(), kGlobPeriod);
  std::string g = glob;
  while (g.starts_with("./")) g.erase(0, 2);
  if (g.ends_with("/")) g.pop_back();
  const std::string rel = relative.generic_string();
  if (globMatches(g, rel)) return true;
  // `dir/` or `dir` also covers everything under it.
  for (fs::path prefix; const fs::path &part : relative) {
    prefix /= part;
    if (globMatches(g, prefix.generic_string())) return true;
  }
  return false;
}

/// `path` relative to `base`, lexically (no file system calls: walks never follow symlinks).
fs::path relativeTo(const fs::path &path, const fs::path &base) {
  if (base.empty()) return path;
  std::error_code ec;
  const fs::path rel =
      fs::absolute(path, ec).lexically_normal().lexically_relative(fs::absolute(base, ec).lexically_normal());
  return ec || rel.empty() ? path : rel;
}

ResolvedConfig resolve(const FileSettings *file, const ConfigOverrides &o, const fs::path &forFile) {
  ResolvedConfig r;
  auto origin = [&](const char *key, bool fromFile, bool fromOverride) {
    r.origins[key] = fromOverride ? "override" : fromFile ? file->source.string() : "default";
  };
  const FileSettings empty;
  const FileSettings &f = file ? *file : empty;
  RuleSelection &rules = r.config.rules;
  if (f.select) rules.select = *f.select;
  if (o.select) rules.select = *o.select;
  origin("select", f.select.has_value(), o.select.has_value());
  if (f.extendSelect) rules.extendSelect = *f.extendSelect;
  rules.extendSelect.insert(rules.extendSelect.end(), o.extendSelect.begin(), o.extendSelect.end());
  origin("extend-select", f.extendSelect.has_value(), !o.extendSelect.empty());
  // Like Ruff, flags are a layer on top of the file: --ignore adds to the file's `ignore`.
  if (f.ignore) rules.ignore = *f.ignore;
  if (o.ignore) rules.ignore.insert(rules.ignore.end(), o.ignore->begin(), o.ignore->end());
  origin("ignore", f.ignore.has_value(), o.ignore.has_value());
  if (f.target) r.config.target = *f.target;
  if (o.target) r.config.target = *o.target;
  origin("target-version", f.target.has_value(), o.target.has_value());
  if (f.targetFromRequiresPython && !o.target) r.origins["target-version"] += " (project.requires-python)";
  if (f.renameTemplate) r.config.renameTemplate = *f.renameTemplate;
  if (o.renameTemplate) r.config.renameTemplate = *o.renameTemplate;
  origin("rename-style", f.renameTemplate.has_value(), o.renameTemplate.has_value());
  r.unsafeFixes = o.unsafeFixes.value_or(f.unsafeFixes.value_or(false));
  origin("unsafe-fixes", f.unsafeFixes.has_value(), o.unsafeFixes.has_value());
  r.config.severity = f.severity;
  origin("severity", !f.severity.empty(), false);
  if (f.renames) r.config.renames = *f.renames;
  origin("renames", f.renames.has_value(), false);
  r.respectGitignore = o.respectGitignore.value_or(f.respectGitignore.value_or(true));
  origin("respect-gitignore", f.respectGitignore.has_value(), o.respectGitignore.has_value());
  r.exclude = f.exclude.value_or(kDefaultExcludes);
  if (f.extendExclude) r.exclude.insert(r.exclude.end(), f.extendExclude->begin(), f.extendExclude->end());
  origin("exclude", f.exclude.has_value() || f.extendExclude.has_value(), false);
  r.perFileIgnores = f.perFileIgnores;
  origin("per-file-ignores", !f.perFileIgnores.empty(), false);
  r.source = f.source;
  if (f.src) r.src = *f.src;
  origin("src", f.src.has_value(), false);
  if (f.moduleRenameStyle) r.moduleRenameStyle = *f.moduleRenameStyle;
  origin("module-rename-style", f.moduleRenameStyle.has_value(), false);
  r.docsUrl = o.docsUrl.value_or(f.docsUrl.value_or(""));
  origin("docs-url", f.docsUrl.has_value(), o.docsUrl.has_value());
  if (!forFile.empty()) {
    const fs::path rel = relativeTo(forFile, f.source.empty() ? fs::path{} : f.source.parent_path());
    for (const auto &[glob, codes] : r.perFileIgnores)
      if (pathMatches(glob, rel)) rules.ignore.insert(rules.ignore.end(), codes.begin(), codes.end());
  }
  return r;
}

std::optional<std::string> readText(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace

std::vector<fs::path> ResolvedConfig::srcRoots() const {
  std::error_code ec;
  const fs::path base = fs::absolute(source.empty() ? fs::path(".") : source.parent_path(), ec);
  std::vector<fs::path> roots;
  for (const std::string &root : src) {
    fs::path normal = (base / root).lexically_normal();
    if (!normal.has_filename() && normal != normal.root_path()) normal = normal.parent_path(); // "dir/" → "dir"
    roots.push_back(std::move(normal));
  }
  return roots;
}

std::string ResolvedConfig::renamedModule(std::string_view name) const {
  if (moduleRenameStyle == "asynchronous") return name == "await" ? "awaitable" : "asynchronous";
  std::string out = moduleRenameStyle;
  for (std::size_t at = out.find("{name}"); at != std::string::npos; at = out.find("{name}", at + name.size()))
    out.replace(at, 6, name);
  return out;
}

bool ResolvedConfig::excluded(const fs::path &path) const {
  const fs::path rel = relativeTo(path, source.empty() ? fs::path{} : source.parent_path());
  for (const std::string &glob : exclude)
    if (pathMatches(glob, rel)) return true;
  return false;
}

ExcludeMatcher::ExcludeMatcher(const ResolvedConfig &config, const fs::path &directory)
    : directory_(directory), base_(config.source.empty() ? fs::path{} : config.source.parent_path()) {
  for (const std::string &glob : config.exclude) {
    if (glob.find('/') != std::string::npos) pathGlobs_.push_back(glob);
    else if (glob.find_first_of("*?[\\") == std::string::npos) literalNames_.push_back(glob);
    else nameGlobs_.push_back(glob);
  }
  if (pathGlobs_.empty()) return;
  relative_ = relativeTo(directory_, base_);
  if (!base_.empty()) {
    // relativeTo(dir / name) is relativeTo(dir) / name, or name when dir is the base; when the
    // base lies below dir (a --config file deeper than the walk), each path is computed in full.
    std::error_code ec;
    std::string dir = fs::absolute(directory_, ec).lexically_normal().generic_string();
    std::string base = ec ? std::string() : fs::absolute(base_, ec).lexically_normal().generic_string();
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    atBase_ = !ec && dir == base;
    exact_ = ec || relative_.empty() || (!atBase_ && base.starts_with(dir));
  }
}

bool ExcludeMatcher::excluded(std::string_view name) const {
  for (const std::string &literal : literalNames_)
    if (literal == name) return true;
  if (!nameGlobs_.empty() || !pathGlobs_.empty()) {
    const std::string nameText(name);
    for (const std::string &glob : nameGlobs_)
      if (globMatch(glob.c_str(), nameText.c_str(), kGlobPeriod)) return true;
    if (pathGlobs_.empty()) return false;
    fs::path rel;
    if (exact_) rel = relativeTo(directory_ / nameText, base_);
    else if (atBase_) rel = nameText;
    else rel = relative_ / nameText;
    for (const std::string &glob : pathGlobs_)
      if (pathMatches(glob, rel)) return true;
  }
  return false;
}

std::optional<std::variant<ResolvedConfig, ConfigError>> parseConfigFile(const fs::path &path, std::string_view text) {
  auto parsed = parseSettings(path, text);
  if (!parsed) return std::nullopt;
  if (auto *e = std::get_if<ConfigError>(&*parsed)) return *e;
  return resolve(&std::get<FileSettings>(*parsed), {}, {});
}

namespace {

bool insertInto(toml::table &table, const std::string &key, const nlohmann::json &value, std::string &where);
bool pushInto(toml::array &array, const nlohmann::json &value, std::string &where);

/// A JSON value as the TOML value the configuration parser reads, handed to `put`; false for
/// `null` (TOML has none), with `where` naming the key that holds it. (Recursion goes through the
/// two non-template functions above, so only three instantiations exist.)
template <class Put> bool jsonToToml(const nlohmann::json &value, std::string &where, Put &&put) {
  using Type = nlohmann::json::value_t;
  switch (value.type()) {
  case Type::object: {
    toml::table table;
    for (const auto &[key, item] : value.items())
      if (!insertInto(table, key, item, where)) return false;
    put(std::move(table));
    return true;
  }
  case Type::array: {
    toml::array array;
    for (std::size_t i = 0; i < value.size(); ++i) {
      const std::size_t size = where.size();
      where += "[" + std::to_string(i) + "]";
      if (!pushInto(array, value[i], where)) return false;
      where.resize(size);
    }
    put(std::move(array));
    return true;
  }
  case Type::string: put(value.get<std::string>()); return true;
  case Type::boolean: put(value.get<bool>()); return true;
  case Type::number_integer:
  case Type::number_unsigned: put(value.get<std::int64_t>()); return true;
  case Type::number_float: put(value.get<double>()); return true;
  default: return false; // null, binary, discarded
  }
}

bool insertInto(toml::table &table, const std::string &key, const nlohmann::json &value, std::string &where) {
  const std::size_t size = where.size();
  where += (where.empty() ? "" : ".") + key;
  if (!jsonToToml(value, where, [&](auto &&node) { table.insert_or_assign(key, std::forward<decltype(node)>(node)); }))
    return false;
  where.resize(size);
  return true;
}

bool pushInto(toml::array &array, const nlohmann::json &value, std::string &where) {
  return jsonToToml(value, where, [&](auto &&node) { array.push_back(std::forward<decltype(node)>(node)); });
}

} // namespace

std::variant<ResolvedConfig, ConfigError> parseJsonSettings(std::string_view json, const fs::path &forFile) {
  static const std::string kName = "options";
  if (json.find_first_not_of(" \t\r\n") == std::string_view::npos) return resolve(nullptr, {}, forFile);
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(json);
  } catch (const nlohmann::json::parse_error &e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 9: syntax error …"
    std::string what = e.what();
    if (const auto at = what.find("] "); at != std::string::npos) what.erase(0, at + 2);
    return ConfigError{kName, 0, 0, "invalid JSON: " + what};
  }
  if (!parsed.is_object()) return ConfigError{kName, 0, 0, "must be a JSON object such as {\"select\": [\"AF1\"]}"};
  toml::table table;
  std::string where;
  const auto keep = [&](auto &&node) {
    if constexpr (std::is_same_v<std::decay_t<decltype(node)>, toml::table>) table = std::forward<decltype(node)>(node);
  };
  if (!jsonToToml(parsed, where, keep)) return ConfigError{kName, 0, 0, "`" + where + "` must not be null"};
  auto settings = Parser(kName).parse(table, table);
  if (auto *e = std::get_if<ConfigError>(&settings)) return *e;
  FileSettings &file = std::get<FileSettings>(settings);
  file.source.clear(); // no configuration file: per-file-ignores match `forFile` as given
  return resolve(&file, {}, forFile);
}

struct ConfigResolver::Impl {
  Options options;
  mutable std::mutex mutex;
  /// directory → the settings that apply in it (nullptr: none), or the error that stops it.
  mutable std::unordered_map<std::string, std::shared_ptr<const std::variant<FileSettings, ConfigError>>> byDir;
  /// The settings of a configuration file (by its entry in byDir; nullptr: none) resolved under
  /// the overrides, for no file in particular (forEntriesOf()).
  mutable std::unordered_map<const void *, std::shared_ptr<const std::variant<ResolvedConfig, ConfigError>>> resolved;
  std::shared_ptr<const std::variant<FileSettings, ConfigError>> explicitFile;

  using Entry = std::shared_ptr<const std::variant<FileSettings, ConfigError>>;
  using Shared = std::shared_ptr<const std::variant<ResolvedConfig, ConfigError>>;

  /// A directory forEntriesOf() was asked about: its path as given, its settings.
  struct Asked {
    std::string given;
    Entry entry;
    Shared resolved;
  };
  /// The directories forEntriesOf() was asked about last, each an entry of the one before: a walk
  /// asks about a directory right after its parent or another of the parent's descendants, so a
  /// directory whose listing holds no configuration file finds its parent's settings here, by
  /// its spelling, with no lookup of a path.
  mutable std::vector<Asked> chain;

  /// Cuts `chain` back to the directory spelt `parent`; false (and an empty chain) when it holds
  /// none. Under `mutex`.
  bool chainTo(std::string_view parent) const {
    while (!chain.empty() && chain.back().given != parent) chain.pop_back();
    return !chain.empty();
  }

  static Entry load(const fs::path &path) {
    const auto text = readText(path);
    if (!text)
      return std::make_shared<const std::variant<FileSettings, ConfigError>>(
          ConfigError{path.string(), 0, 0, "cannot read the configuration file"});
    auto parsed = parseSettings(path, *text);
    if (!parsed) return nullptr;
    return std::make_shared<const std::variant<FileSettings, ConfigError>>(std::move(*parsed));
  }

  /// The nearest configuration for directory `dir`, cached for it and every directory walked.
  /// `listing` says which files `dir` holds (the directories above are looked at name by name).
  Entry forDirectory(const fs::path &dir, const DirectoryListing &listing = {}) const {
    {
      const std::lock_guard lock(mutex);
      if (const auto it = byDir.find(dir.string()); it != byDir.end()) return it->second;
    }
    Entry found;
    std::error_code ec;
    for (const char *name : {".asyncfix.toml", "asyncfix.toml", "pyproject.toml"}) {
      if (!listing.mayHold(name)) continue;
      const fs::path candidate = dir / name;
      if (fs::is_regular_file(candidate, ec) && (found = load(candidate))) break;
    }
    if (!found && dir.has_parent_path() && dir.parent_path() != dir) found = forDirectory(dir.parent_path());
    const std::lock_guard lock(mutex);
    return byDir.emplace(dir.string(), found).first->second;
  }
};

ConfigResolver::ConfigResolver(Options options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  if (impl_->options.configFile) {
    impl_->explicitFile = Impl::load(*impl_->options.configFile);
    if (!impl_->explicitFile) // a pyproject.toml without [tool.asyncfix] given explicitly
      impl_->explicitFile = std::make_shared<const std::variant<FileSettings, ConfigError>>(
          ConfigError{impl_->options.configFile->string(), 0, 0, "no [tool.asyncfix] table in this file"});
  }
}

ConfigResolver::~ConfigResolver() = default;

std::variant<ResolvedConfig, ConfigError> ConfigResolver::forFile(const fs::path &file) const {
  return forFile(file, DirectoryListing{});
}

std::variant<ResolvedConfig, ConfigError> ConfigResolver::forFile(const fs::path &file,
                                                                  const DirectoryListing &listing) const {
  const Options &o = impl_->options;
  if (o.isolated) return resolve(nullptr, o.overrides, file);
  std::error_code ec;
  const fs::path absolute = fs::absolute(file, ec).lexically_normal(); // `proj/../other/f.py`: other's
  // The directory holding the entry decides, for a file as for a directory being walked.
  const Impl::Entry entry = o.configFile ? impl_->explicitFile : impl_->forDirectory(absolute.parent_path(), listing);
  if (!entry) return resolve(nullptr, o.overrides, file);
  if (const auto *e = std::get_if<ConfigError>(entry.get())) return *e;
  return resolve(&std::get<FileSettings>(*entry), o.overrides, file);
}

std::shared_ptr<const std::variant<ResolvedConfig, ConfigError>>
ConfigResolver::forEntriesOf(const fs::path &directory, const DirectoryListing &listing) const {
  using Shared = Impl::Shared;
  const Options &o = impl_->options;
  if (o.isolated) {
    const std::lock_guard lock(impl_->mutex);
    Shared &slot = impl_->resolved[nullptr];
    if (!slot)
      slot = std::make_shared<const std::variant<ResolvedConfig, ConfigError>>(resolve(nullptr, o.overrides, {}));
    return slot;
  }
  Impl::Entry entry = impl_->explicitFile;
#if !defined(_WIN32)
  const std::string &text = directory.native();
  const std::optional<GivenEntry> plain = entryOfGiven(text);
#endif
  if (!o.configFile) {
#if !defined(_WIN32)
    // A directory the walk listed below one asked about before, holding no configuration file:
    // its parent's settings, found without making its absolute path.
    if (plain && !listing.mayHold(".asyncfix.toml") && !listing.mayHold("asyncfix.toml") &&
        !listing.mayHold("pyproject.toml")) {
      const std::lock_guard lock(impl_->mutex);
      if (impl_->chainTo(plain->parent)) {
        Impl::Asked next = impl_->chain.back();
        next.given = text;
        impl_->chain.push_back(std::move(next));
        return impl_->chain.back().resolved;
      }
    }
#endif
    // The directory as forFile() finds it from any of its entries (`dir/..`, `dir/` included).
    std::error_code ec;
    const fs::path absolute = fs::absolute(directory / "_", ec).lexically_normal();
    entry = impl_->forDirectory(absolute.parent_path(), listing);
  }
  Shared shared;
  {
    const std::lock_guard lock(impl_->mutex);
    if (const auto it = impl_->resolved.find(entry.get()); it != impl_->resolved.end()) shared = it->second;
  }
  if (!shared) {
    Shared made;
    if (!entry)
      made = std::make_shared<const std::variant<ResolvedConfig, ConfigError>>(resolve(nullptr, o.overrides, {}));
    else if (const auto *e = std::get_if<ConfigError>(entry.get()))
      made = std::make_shared<const std::variant<ResolvedConfig, ConfigError>>(*e);
    else
      made = std::make_shared<const std::variant<ResolvedConfig, ConfigError>>(
          resolve(&std::get<FileSettings>(*entry), o.overrides, {}));
    const std::lock_guard lock(impl_->mutex);
    shared = impl_->resolved.emplace(entry.get(), std::move(made)).first->second;
  }
#if !defined(_WIN32)
  if (!o.configFile) {
    const std::lock_guard lock(impl_->mutex);
    if (!plain || !impl_->chainTo(plain->parent)) impl_->chain.clear();
    impl_->chain.push_back({text, entry, shared});
  }
#endif
  return shared;
}

} // namespace asyncfix
