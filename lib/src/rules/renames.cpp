#include "rules/renames.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>

#include "rules/edits.h"
#include "syntax.h"

namespace asyncfix::rules {

using Kind = RenameRow::Kind;

namespace {

RenameRow makeRow(Kind kind, std::string library, std::string owner, std::string old, std::string replacement,
              std::string since, std::string source) {
  return {kind, std::move(library), std::move(owner), std::move(old), std::move(replacement), std::move(since),
          std::move(source)};
}

} // namespace

std::span<const RenameRow> builtinRenames() {
  // Each row: kind, library, owner (keyword/attribute rows), old, new, the release that brought
  // the new name, and where that is documented. Rule docs (renamed_async_*.cpp) list them too.
  static const std::vector<RenameRow> rows{
      // --- modules (AF201) ---
      makeRow(Kind::Module, "kombu", "", "kombu.async", "kombu.asynchronous", "4.2.0",
          "https://github.com/celery/kombu/pull/839"),
      makeRow(Kind::Module, "Celery", "", "celery.backends.async", "celery.backends.asynchronous", "4.3.0",
          "https://github.com/celery/celery/pull/4852"),
      makeRow(Kind::Module, "Salt", "", "salt.utils.async", "salt.utils.asynchronous", "2019.2.0",
          "https://github.com/saltstack/salt/pull/48705"),
      makeRow(Kind::Module, "pexpect", "", "pexpect.async", "pexpect._async", "4.4",
          "https://pexpect.readthedocs.io/en/stable/history.html#version-4-4"),
      makeRow(Kind::Module, "RPyC", "", "rpyc.core.async", "rpyc.core.async_", "4.0.0",
          "https://github.com/tomerfiliba-org/rpyc/issues/253"),
      // --- functions and attributes (AF202) ---
      makeRow(Kind::Function, "Python", "", "asyncio.async", "asyncio.ensure_future", "3.4.4",
          "https://docs.python.org/3.6/library/asyncio-task.html#asyncio.async"),
      makeRow(Kind::Function, "Pyro4", "", "Pyro4.async", "Pyro4.asyncproxy", "4.70",
          "https://pyro4.readthedocs.io/en/stable/changelog.html"),
      makeRow(Kind::Function, "Pyro4", "", "Pyro4.core.async", "Pyro4.core.asyncproxy", "4.70",
          "https://pyro4.readthedocs.io/en/stable/changelog.html"),
      makeRow(Kind::Function, "RPyC", "", "rpyc.async", "rpyc.async_", "4.0.0",
          "https://github.com/tomerfiliba-org/rpyc/issues/253"),
      makeRow(Kind::Function, "RPyC", "", "rpyc.utils.helpers.async", "rpyc.utils.helpers.async_", "4.0.0",
          "https://github.com/tomerfiliba-org/rpyc/issues/253"),
      makeRow(Kind::Attribute, "Python", "xml.dom.xmlbuilder.DocumentLS", "async", "async_", "3.5",
          "https://peps.python.org/pep-0492/#deprecation-plans"),
      // minidom's Document derives from DocumentLS: whatever minidom makes (parse, parseString,
      // Document(), getDOMImplementation().createDocument(…)).
      makeRow(Kind::Attribute, "Python", "xml.dom.minidom.**", "async", "async_", "3.5",
          "https://peps.python.org/pep-0492/#deprecation-plans"),
      // --- keyword arguments (AF203) ---
      makeRow(Kind::Keyword, "pexpect", "pexpect.**.expect", "async", "async_", "4.4",
          "https://pexpect.readthedocs.io/en/stable/history.html#version-4-4"),
      makeRow(Kind::Keyword, "pexpect", "pexpect.**.expect_exact", "async", "async_", "4.4",
          "https://pexpect.readthedocs.io/en/stable/history.html#version-4-4"),
      makeRow(Kind::Keyword, "pexpect", "pexpect.**.expect_list", "async", "async_", "4.4",
          "https://pexpect.readthedocs.io/en/stable/history.html#version-4-4"),
      makeRow(Kind::Keyword, "kafka-python", "kafka.**.SimpleProducer", "async", "async_send", "1.4.3",
          "https://github.com/dpkp/kafka-python/pull/1454"),
      makeRow(Kind::Keyword, "kafka-python", "kafka.**.KeyedProducer", "async", "async_send", "1.4.3",
          "https://github.com/dpkp/kafka-python/pull/1454"),
      makeRow(Kind::Keyword, "confluent-kafka", "confluent_kafka.**.commit", "async", "asynchronous", "0.11.4",
          "https://github.com/confluentinc/confluent-kafka-python/pull/319"),
      makeRow(Kind::Keyword, "psycopg2", "psycopg2.connect", "async", "async_", "2.7",
          "https://www.psycopg.org/docs/module.html#psycopg2.connect"),
  };
  return rows;
}

std::string_view renameRuleCode(Kind kind) {
  switch (kind) {
  case Kind::Module: return "AF201";
  case Kind::Function:
  case Kind::Attribute: return "AF202";
  case Kind::Keyword: return "AF203";
  }
  return "AF201";
}

namespace {

using Parts = std::vector<std::string_view>;

Parts split(std::string_view path) {
  Parts out;
  for (std::size_t start = 0;;) {
    const std::size_t dot = path.find('.', start);
    out.push_back(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) return out;
    start = dot + 1;
  }
}

std::string join(std::span<const std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) {
    if (!out.empty()) out += '.';
    out += p;
  }
  return out;
}

std::string_view firstComponent(std::string_view path) { return path.substr(0, path.find('.')); }
std::string_view lastComponent(std::string_view path) {
  const auto dot = path.rfind('.');
  return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

bool globMatch(std::span<const std::string_view> pattern, std::span<const std::string_view> path) {
  if (pattern.empty()) return path.empty();
  if (pattern[0] == "**") {
    for (std::size_t i = 0; i <= path.size(); ++i)
      if (globMatch(pattern.subspan(1), path.subspan(i))) return true;
    return false;
  }
  if (path.empty() || (pattern[0] != "*" && pattern[0] != path[0])) return false;
  return globMatch(pattern.subspan(1), path.subspan(1));
}

bool isType(TSNode node, const char *type) {
  return !ts_node_is_null(node) && std::strcmp(ts_node_type(node), type) == 0;
}

bool isKeywordToken(std::string_view s) { return s == "async" || s == "await"; }

/// ts_node_symbol / a field, tolerating a null node (0 is no kind the rules look for).
TSSymbol symbolOf(TSNode n) { return ts_node_is_null(n) ? TSSymbol{0} : ts_node_symbol(n); }
TSNode fieldOf(TSNode n, const char *name) { return ts_node_is_null(n) ? TSNode{} : field(n, name); }

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\\'; }
bool isWordByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

bool bindsName(NameRole role) {
  return role == NameRole::Binding || role == NameRole::Parameter || role == NameRole::FunctionName ||
         role == NameRole::ClassName || role == NameRole::ImportedName;
}

/// "kombu 4.2.0" / "kombu".
std::string releasedIn(const RenameRow &r) { return r.since.empty() ? r.library : r.library + " " + r.since; }

/// "`X` is a syntax error since Python 3.7" (or "becomes … in Python 3.7" for older targets).
std::string syntaxError(std::string_view what, const Config &config) {
  std::string m;
  m.append("`").append(what).append("` ");
  m.append(config.target >= PythonVersion{3, 7} ? "is a syntax error since Python 3.7"
                                                 : "becomes a syntax error in Python 3.7");
  return m;
}

/// What an expression denotes, as far as the file's imports and assignments show.
struct Origin {
  enum class Kind : std::uint8_t {
    Unknown,
    Path,     ///< a module, function or class reached through imports: "pexpect.spawn"
    Instance, ///< what calling `path` gave: an object made by "pexpect.spawn"
    Local,    ///< something the file defines (a function or class of its own)
  };
  Kind kind = Kind::Unknown;
  std::string path;
  /// The path starts at a name the file never binds, spelt as itself (`asyncio.async(…)` with no
  /// `import asyncio`): a star import or a missing import. A guess, so fixes are unsafe.
  bool literal = false;
  friend bool operator==(const Origin &, const Origin &) = default;
};

constexpr int kMaxDepth = 24;

/// Which binding-level match a name use takes part in (`from asyncio import async` and its uses).
struct BindingMatch {
  const RenameRow *row = nullptr;
  std::optional<Fix> fix;
};

/// Matches tokens against the table for one file. Memoizes what bindings hold, so that matching
/// many tokens (a rename group) costs one resolution per binding.
class Resolver {
public:
  explicit Resolver(Context &ctx)
      : ctx_(ctx), config_(ctx.config()), text_(ctx.text()), model_(ctx.semantic()), k_(Kinds::get()) {}

  /// The node the tree walk is at; `ancestors` are its ancestors, root first. (The walk knows
  /// them: tree-sitter's ts_node_parent searches down from the root, linear in the siblings.)
  std::optional<RenameMatch> matchCurrent(TSNode token, std::span<const TSNode> ancestors) {
    if (ancestors.empty()) return std::nullopt;
    const auto up = [&](std::size_t n) {
      return n < ancestors.size() ? ancestors[ancestors.size() - 1 - n] : TSNode{};
    };
    const TSNode parent = up(0);
    if (isIdentifier(token)) {
      const TSSymbol s = symbolOf(parent);
      if (s == k_.dottedName) return matchDottedName(token, parent, up(1), up(2));
      if (s == k_.attribute && ts_node_eq(fieldOf(parent, "attribute"), token)) {
        // The whole chain `a.b.async.c`: up while this is the object of an attribute, then down.
        std::size_t top = 0;
        while (symbolOf(up(top + 1)) == k_.attribute && ts_node_eq(fieldOf(up(top + 1), "object"), up(top))) ++top;
        return matchChain(token, chainBelow(up(top)));
      }
      if (s == k_.keywordArgument && ts_node_eq(fieldOf(parent, "name"), token))
        return matchKeyword(token, fieldOf(up(2), "function"), parent, up(1));
    }
    return matchNameUse(token);
  }

  /// A node the SemanticModel recorded (a member of AF001's rename group): a name, an attribute
  /// name or a keyword argument name. Only whether a row owns it matters; fixes are not built.
  std::optional<RenameMatch> matchRecorded(TSNode token) {
    full_ = false;
    const std::uint32_t start = ts_node_start_byte(token);
    if (const KeywordUse *k = model_.keywordAt(start))
      return k->inError || ts_node_is_null(k->calleeNode) ? std::nullopt
                                                          : matchKeyword(token, k->calleeNode, TSNode{}, TSNode{});
    if (const AttributeUse *a = model_.attributeAt(start)) {
      if (a->inError) return std::nullopt;
      if (std::optional<Chain> chain = chainByText(token)) return matchChain(token, std::move(*chain));
      const TSNode attribute = ts_node_parent(token); // something other than a plain name chain
      TSNode top = attribute;
      for (TSNode p = ts_node_parent(top); symbolOf(p) == k_.attribute && ts_node_eq(fieldOf(p, "object"), top);
           p = ts_node_parent(top))
        top = p;
      return matchChain(token, chainBelow(top));
    }
    const NameUse *use = model_.nameAt(start);
    if (!use || use->inError) return std::nullopt;
    return matchNameUse(token);
  }

private:
  // ---- rows ----

  /// A row with its paths split into components, once per Resolver.
  struct ParsedRow {
    const RenameRow *row;
    Parts old, replacement, owner;
    bool user; ///< from Config::renames
  };

  /// The user's rows first: they win over a built-in row for the same name.
  const std::vector<ParsedRow> &rows() {
    if (rows_.empty()) {
      for (const RenameRow &r : config_.renames)
        rows_.push_back({&r, split(r.old), split(r.replacement), r.owner.empty() ? Parts{} : split(r.owner), true});
      for (const RenameRow &r : builtinRenames())
        rows_.push_back({&r, split(r.old), split(r.replacement), r.owner.empty() ? Parts{} : split(r.owner), false});
    }
    return rows_;
  }

  /// The module/function row whose old path is a prefix of `path` and covers component `index`:
  /// a user's row first, the longest one of a source first.
  const RenameRow *pathRow(const Parts &path, std::size_t index) {
    const RenameRow *found = nullptr;
    bool foundUser = false;
    std::size_t length = 0;
    for (const ParsedRow &p : rows()) {
      const RenameRow &r = *p.row;
      if (r.kind != Kind::Module && r.kind != Kind::Function) continue;
      if (found && foundUser && !p.user) break; // a user's row wins
      if (p.old.size() <= index || p.old.size() > path.size() || p.old.size() <= length ||
          !std::equal(p.old.begin(), p.old.end(), path.begin()))
        continue;
      found = &r;
      foundUser = p.user;
      length = p.old.size();
    }
    return found;
  }

  /// The keyword/attribute row for `old` whose owner pattern matches `path`.
  const RenameRow *ownerRow(Kind kind, std::string_view old, std::string_view path) {
    const Parts parts = split(path);
    for (const ParsedRow &p : rows())
      if (p.row->kind == kind && p.row->old == old && globMatch(p.owner, parts)) return p.row;
    return nullptr;
  }

  std::string pathMessage(const RenameRow &r) const {
    if (!full_) return {}; // only ownership is asked
    return syntaxError(r.old, config_) + "; " + releasedIn(r) + " renamed it `" + r.replacement + "`";
  }

  /// The edit that respells components [c, old.size()) of a path whose component i is written
  /// at nodes[i] (null for the components a name's import covers, i < firstWritten), where c is
  /// where old and new first differ. None when the change reaches into the covered part.
  static std::optional<TextEdit> pathEdit(const std::vector<TSNode> &nodes, std::size_t firstWritten,
                                          const Parts &old, const Parts &replacement) {
    std::size_t c = 0;
    while (c < old.size() && c < replacement.size() && old[c] == replacement[c]) ++c;
    if (c < firstWritten || c >= old.size() || c >= replacement.size() || old.size() > nodes.size())
      return std::nullopt;
    return TextEdit{ts_node_start_byte(nodes[c]), ts_node_end_byte(nodes[old.size() - 1]),
                    join(std::span(replacement).subspan(c))};
  }

  // ---- imports ----

  std::optional<RenameMatch> matchDottedName(TSNode token, TSNode dotted, TSNode holder, TSNode above) {
    if (ts_node_is_null(holder)) return std::nullopt;
    const TSSymbol s = symbolOf(holder);
    if (s == k_.importStatement) return matchModulePath(token, dotted, /*bindsFirst=*/true);
    if (s == k_.aliasedImport) {
      if (symbolOf(above) == k_.importStatement) return matchModulePath(token, dotted, false);
      if (symbolOf(above) == k_.importFromStatement) return matchFromName(token, dotted, above, true);
      return std::nullopt;
    }
    if (s == k_.importFromStatement) {
      if (ts_node_eq(fieldOf(holder, "module_name"), dotted)) return matchModulePath(token, dotted, false);
      return matchFromName(token, dotted, holder, false);
    }
    return std::nullopt; // a relative import, `from __future__ import …`
  }

  /// `import kombu.async`, `import kombu.async.hub as h`, `from kombu.async.hub import Hub`.
  std::optional<RenameMatch> matchModulePath(TSNode token, TSNode dotted, bool bindsFirst) {
    std::vector<TSNode> nodes;
    Parts path;
    std::size_t index = 0;
    for (std::uint32_t i = 0, n = ts_node_named_child_count(dotted); i < n; ++i) {
      const TSNode c = ts_node_named_child(dotted, i);
      if (!isIdentifier(c)) continue;
      if (ts_node_eq(c, token)) index = nodes.size();
      nodes.push_back(c);
      path.push_back(textOf(c, text_));
    }
    const RenameRow *r = pathRow(path, index);
    if (!r) return std::nullopt;
    const Parts old = split(r->old), replacement = split(r->replacement);
    RenameMatch m{r, ts_node_start_byte(nodes.front()), ts_node_end_byte(nodes[old.size() - 1]), pathMessage(*r), {}};
    if (auto edit = pathEdit(nodes, 0, old, replacement)) {
      // `import a.async` binds `a`: a new first component would bind another name.
      const bool rebinds = bindsFirst && old.front() != replacement.front();
      Fix fix{"Replace `" + r->old + "` with `" + r->replacement + "`",
              rebinds ? Applicability::Unsafe : Applicability::Safe, {std::move(*edit)}};
      if (rebinds) fix.title += " (the import then binds `" + std::string(replacement.front()) + "`)";
      m.fix = std::move(fix);
    }
    return m;
  }

  /// The path `from M import NAME` imports and the edits that import the new one instead:
  /// the name alone when the new path has the same parent, else also the module when the
  /// statement imports nothing else. Null row when no row names this path.
  struct FromImport {
    const RenameRow *row = nullptr;
    std::vector<TextEdit> edits; ///< empty when the statement cannot be rewritten
    std::string newName;         ///< the name the statement imports afterwards
  };

  FromImport fromImport(TSNode token, TSNode dotted, TSNode statement) {
    FromImport out;
    const TSNode module = fieldOf(statement, "module_name");
    if (symbolOf(module) != k_.dottedName || ts_node_named_child_count(dotted) != 1) return out;
    Parts path;
    for (std::uint32_t i = 0, n = ts_node_named_child_count(module); i < n; ++i)
      if (const TSNode c = ts_node_named_child(module, i); isIdentifier(c)) path.push_back(textOf(c, text_));
    const std::size_t parentSize = path.size();
    path.push_back(textOf(token, text_));
    for (const ParsedRow &p : rows())
      if ((p.row->kind == Kind::Module || p.row->kind == Kind::Function) && p.old == path) {
        out.row = p.row;
        break;
      }
    if (!out.row) return out;
    const Parts replacement = split(out.row->replacement);
    out.newName = std::string(replacement.back());
    const bool sameParent = replacement.size() == path.size() &&
                            std::equal(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(parentSize),
                                       replacement.begin());
    if (sameParent) {
      out.edits.push_back(replaceNode(token, out.newName));
    } else if (replacement.size() >= 2 && importedNameCount(statement) == 1) {
      out.edits.push_back(replaceNode(module, join(std::span(replacement).first(replacement.size() - 1))));
      out.edits.push_back(replaceNode(token, out.newName));
    }
    return out;
  }

  static std::uint32_t importedNameCount(TSNode statement) {
    std::uint32_t count = 0;
    const TSNode module = fieldOf(statement, "module_name");
    for (std::uint32_t i = 0, n = ts_node_named_child_count(statement); i < n; ++i) {
      const TSNode c = ts_node_named_child(statement, i);
      if (!ts_node_eq(c, module) && !isType(c, "comment")) ++count;
    }
    return count;
  }

  /// `from asyncio import async` (also `… import async as x`).
  std::optional<RenameMatch> matchFromName(TSNode token, TSNode dotted, TSNode statement, bool aliased) {
    if (!aliased) return matchNameUse(token); // the import and the name's uses go together
    FromImport imported = fromImport(token, dotted, statement);
    if (!imported.row) return std::nullopt;
    RenameMatch m{imported.row, ts_node_start_byte(token), ts_node_end_byte(token), pathMessage(*imported.row), {}};
    if (!imported.edits.empty())
      m.fix = Fix{"Import `" + imported.row->replacement + "` instead", Applicability::Safe, std::move(imported.edits)};
    return m;
  }

  /// A use of a name bound by `from M import async` (or that import itself): the binding's
  /// rename — the import, and every use of the name — is one fix.
  std::optional<RenameMatch> matchNameUse(TSNode token) {
    const NameUse *use = model_.nameAt(ts_node_start_byte(token));
    if (!use || use->inError) return std::nullopt;
    const BindingMatch *b = bindingMatch(model_.resolve(*use));
    if (!b) return std::nullopt;
    return RenameMatch{b->row, ts_node_start_byte(token), ts_node_end_byte(token), pathMessage(*b->row), b->fix};
  }

  const BindingMatch *bindingMatch(BindingKey key) {
    const auto memoKey = std::make_pair(key.scope, key.name);
    if (const auto it = bindings_.find(memoKey); it != bindings_.end()) return it->second ? &*it->second : nullptr;
    std::optional<BindingMatch> &result = bindings_[memoKey];
    const std::vector<const NameUse *> uses = model_.usesOf(key);
    const RenameRow *found = nullptr;
    std::string newName;
    bool fixable = true;
    std::vector<TextEdit> edits;
    std::vector<std::uint32_t> imports; // start bytes of the import tokens
    for (const NameUse *u : uses) {
      if (u->role != NameRole::ImportedName) continue;
      const TSNode dotted = ts_node_parent(u->node);
      const TSNode statement = ts_node_is_null(dotted) ? TSNode{} : ts_node_parent(dotted);
      if (ts_node_is_null(statement) || symbolOf(statement) != k_.importFromStatement) {
        fixable = false; // `import async`: a top-level module spelt so
        continue;
      }
      FromImport imported = fromImport(u->node, dotted, statement);
      if (!imported.row) {
        fixable = false; // the same name also imported from elsewhere
        continue;
      }
      if (!found) {
        found = imported.row;
        newName = imported.newName;
      }
      if (imported.edits.empty() || imported.newName != newName) fixable = false;
      edits.insert(edits.end(), imported.edits.begin(), imported.edits.end());
      imports.push_back(ts_node_start_byte(u->node));
    }
    if (!found) return nullptr;
    BindingMatch bm{found, std::nullopt};
    if (fixable) {
      std::size_t renamed = 0;
      for (const NameUse *u : uses) {
        if (std::find(imports.begin(), imports.end(), ts_node_start_byte(u->node)) != imports.end()) continue;
        edits.push_back(replaceNode(u->node, newName));
        ++renamed;
      }
      std::sort(edits.begin(), edits.end(), [](const TextEdit &a, const TextEdit &b) { return a.start < b.start; });
      edits.erase(std::unique(edits.begin(), edits.end()), edits.end());
      Fix fix{renamed == 0 ? "Import `" + found->replacement + "` instead"
                           : "Import `" + found->replacement + "` instead and rename the uses of `" +
                                 std::string(key.name) + "` to `" + newName + "`",
              Applicability::Safe, std::move(edits)};
      if (renameConflicts(key, uses, newName)) {
        fix.applicability = Applicability::Unsafe;
        fix.title += " (the name `" + newName + "` is already used in this file)";
      } else if (model_.seenInError(key.name)) {
        fix.applicability = Applicability::Unsafe;
        fix.title += " (a syntax error elsewhere hides some uses of `" + std::string(key.name) + "`)";
      }
      bm.fix = std::move(fix);
    }
    result = std::move(bm);
    return &*result;
  }

  /// Would the binding `key`, spelt `replacement`, collide with a name already there? (As
  /// AF001's renames: bound where ours is, used where ours would capture it, or shadowing ours.)
  bool renameConflicts(BindingKey key, const std::vector<const NameUse *> &uses, std::string_view replacement) const {
    const auto within = [&](std::uint32_t inner, std::uint32_t outer) {
      for (std::uint32_t s = inner;; s = model_.scopes()[s].parent) {
        if (s == outer) return true;
        if (s == 0) return false;
      }
    };
    for (const std::uint32_t i : model_.namesCalled(replacement)) {
      const NameUse &v = model_.name(i);
      if (model_.resolve(v).scope == key.scope || within(v.scope, key.scope)) return true;
    }
    for (const NameUse *u : uses)
      for (std::uint32_t s = u->scope; s != key.scope && s != 0; s = model_.scopes()[s].parent)
        if (model_.scopes()[s].bound.contains(replacement)) return true;
    return false;
  }

  // ---- attribute paths ----

  /// An attribute chain: `root.written[0].written[1]…`, the token among `written`.
  struct Chain {
    TSNode root{};
    std::vector<TSNode> written;
    std::size_t index = 0; ///< the token's position in `written`
  };

  /// The chain whose outermost attribute is `top`.
  Chain chainBelow(TSNode top) const {
    Chain c;
    TSNode e = top;
    for (int steps = 0; symbolOf(e) == k_.attribute && steps < 4096; ++steps) {
      c.written.push_back(fieldOf(e, "attribute"));
      e = fieldOf(e, "object");
    }
    c.root = e;
    std::reverse(c.written.begin(), c.written.end());
    return c;
  }

  /// The chain around an attribute name, read from the text and the SemanticModel's records
  /// alone (no parent lookups): `name . name . token . name`, names separated by dots and
  /// blanks. Nullopt when the object is anything else (a call, a subscript, a comment between).
  std::optional<Chain> chainByText(TSNode token) const {
    Chain c;
    std::vector<TSNode> before;
    for (std::size_t at = ts_node_start_byte(token);;) {
      std::size_t i = at;
      while (i > 0 && isBlank(text_[i - 1])) --i;
      if (i == 0 || text_[i - 1] != '.') return std::nullopt;
      --i;
      while (i > 0 && isBlank(text_[i - 1])) --i;
      std::size_t start = i;
      while (start > 0 && isWordByte(text_[start - 1])) --start;
      if (start == i) return std::nullopt;
      const auto s = static_cast<std::uint32_t>(start);
      if (const AttributeUse *a = model_.attributeAt(s); a && ts_node_end_byte(a->node) == i) {
        before.push_back(a->node);
        at = start;
        continue;
      }
      const NameUse *root = model_.nameAt(s);
      if (!root || ts_node_end_byte(root->node) != i) return std::nullopt;
      c.root = root->node;
      break;
    }
    c.written.assign(before.rbegin(), before.rend());
    c.index = c.written.size();
    c.written.push_back(token);
    for (std::size_t i = ts_node_end_byte(token);;) {
      while (i < text_.size() && isBlank(text_[i])) ++i;
      if (i >= text_.size() || text_[i] != '.') break;
      ++i;
      while (i < text_.size() && isBlank(text_[i])) ++i;
      const AttributeUse *a = model_.attributeAt(static_cast<std::uint32_t>(i));
      if (!a) break;
      c.written.push_back(a->node);
      i = ts_node_end_byte(a->node);
    }
    return c;
  }

  /// What `root.written[0]…written[count - 1]` holds.
  Origin originOfChain(const Chain &chain, std::size_t count) {
    std::size_t i = 0;
    Origin o;
    if (const std::optional<std::uint32_t> cls = count > 0 ? selfClass(chain.root) : std::nullopt) {
      o = originOfSelfAttribute(*cls, textOf(chain.written[0], text_), 0);
      i = 1;
    } else {
      o = originOf(chain.root, 0);
    }
    for (; i < count; ++i) o = member(std::move(o), textOf(chain.written[i], text_));
    return o;
  }

  static Origin member(Origin o, std::string_view name) {
    if (o.kind == Origin::Kind::Path || o.kind == Origin::Kind::Instance)
      return {Origin::Kind::Path, o.path + "." + std::string(name), o.literal};
    return {o.kind == Origin::Kind::Local ? Origin::Kind::Local : Origin::Kind::Unknown, {}, false};
  }

  /// `kombu.async.Hub`, `asyncio.async(coro)`, `doc.async`.
  std::optional<RenameMatch> matchChain(TSNode token, Chain chain) {
    const auto at =
        std::find_if(chain.written.begin(), chain.written.end(), [&](TSNode n) { return ts_node_eq(n, token); });
    if (at == chain.written.end()) return std::nullopt;
    chain.index = static_cast<std::size_t>(at - chain.written.begin());

    // A module or function path, through what the root is bound to.
    const Origin base = originOf(chain.root, 0);
    if (base.kind == Origin::Kind::Path) {
      Parts path = split(base.path);
      const std::size_t covered = path.size();
      for (const TSNode n : chain.written) path.push_back(textOf(n, text_));
      if (const RenameRow *r = pathRow(path, covered + chain.index)) {
        const Parts old = split(r->old), replacement = split(r->replacement);
        std::vector<TSNode> nodes(covered, TSNode{});
        nodes.insert(nodes.end(), chain.written.begin(), chain.written.end());
        RenameMatch m{r, ts_node_start_byte(chain.root), ts_node_end_byte(nodes[old.size() - 1]), pathMessage(*r), {}};
        if (auto edit = full_ ? pathEdit(nodes, covered, old, replacement) : std::nullopt) {
          Fix fix{"Replace `" + r->old + "` with `" + r->replacement + "`", Applicability::Safe, {std::move(*edit)}};
          if (base.literal) {
            fix.applicability = Applicability::Unsafe;
            fix.title += " (`" + std::string(textOf(chain.root, text_)) + "` is not imported in this file)";
          }
          m.fix = std::move(fix);
        }
        return m;
      }
    }

    // An attribute of objects a library makes: `doc.async` with `doc = minidom.parseString(s)`.
    const std::string_view name = textOf(token, text_);
    if (!anyRow(Kind::Attribute, name)) return std::nullopt;
    const Origin owner = originOfChain(chain, chain.index);
    if ((owner.kind != Origin::Kind::Path && owner.kind != Origin::Kind::Instance) || owner.literal)
      return std::nullopt;
    const RenameRow *r = ownerRow(Kind::Attribute, name, owner.path);
    if (!r) return std::nullopt;
    const std::size_t objectStart = ts_node_start_byte(chain.root);
    const std::size_t objectEnd =
        ts_node_end_byte(chain.index == 0 ? chain.root : chain.written[chain.index - 1]);
    const std::string_view object = text_.substr(objectStart, objectEnd - objectStart);
    const bool shortObject = object.size() <= 40 && object.find('\n') == std::string_view::npos;
    const std::string what = (shortObject ? std::string(object) : std::string("…")) + "." + std::string(name);
    RenameMatch m{r, ts_node_start_byte(token), ts_node_end_byte(token), {}, std::nullopt};
    if (!full_) return m;
    m.message = syntaxError(what, config_) + "; " + releasedIn(*r) + " renamed the attribute `" + r->replacement + "`";
    m.fix = Fix{"Replace `" + std::string(name) + "` with `" + r->replacement + "`", Applicability::Safe,
                  {replaceNode(token, r->replacement)}};
    return m;
  }

  bool anyRow(Kind kind, std::string_view old) {
    return std::any_of(rows().begin(), rows().end(),
                       [&](const ParsedRow &p) { return p.row->kind == kind && p.row->old == old; });
  }

  // ---- keyword arguments ----

  /// `child.expect(pattern, async=True)`, `SimpleProducer(client, async=True)`. `keywordArgument`
  /// and `args` may be null (a recorded node, no fix wanted).
  std::optional<RenameMatch> matchKeyword(TSNode token, TSNode callee, TSNode keywordArgument, TSNode args) {
    if (ts_node_is_null(callee)) return std::nullopt;
    const std::string_view name = textOf(token, text_);
    if (!anyRow(Kind::Keyword, name)) return std::nullopt;
    const Origin origin = originOf(callee, 0);
    const RenameRow *r = nullptr;
    bool resolved = false;
    if (origin.kind == Origin::Kind::Path) {
      r = ownerRow(Kind::Keyword, name, origin.path);
      resolved = r && !origin.literal;
      if (!r && !origin.literal) return std::nullopt; // something else, known
    } else if (origin.kind != Origin::Kind::Unknown) {
      return std::nullopt; // the file's own function or class, or a call of an object
    }
    std::string_view method = isIdentifier(callee)                  ? textOf(callee, text_)
                              : symbolOf(callee) == k_.attribute ? textOf(fieldOf(callee, "attribute"), text_)
                                                                     : std::string_view{};
    if (method.empty() && origin.kind == Origin::Kind::Path) method = lastComponent(origin.path);
    if (!r) {
      // Unresolved: a callee of that name, from a library the file imports — unless the file
      // defines a function so named (then it is AF001's, with the function's parameter).
      if (method.empty() || definesFunction(method)) return std::nullopt;
      for (const ParsedRow &p : rows())
        if (p.row->kind == Kind::Keyword && p.row->old == name && !p.owner.empty() && p.owner.back() == method &&
            imports(p.owner.front())) {
          r = p.row;
          break;
        }
      if (!r) return std::nullopt;
    }
    if (!full_) return RenameMatch{r, ts_node_start_byte(token), ts_node_end_byte(token), {}, {}};
    const std::string callable(method.empty() ? std::string_view("the call") : method);
    std::string message = syntaxError(std::string(name) + "=", config_) + "; " + releasedIn(*r) + " renamed `" +
                          callable + "(" + std::string(name) + "=)` to `" + callable + "(" + r->replacement + "=)`";
    if (!resolved) message += " (if this `" + callable + "` is " + r->library + "'s)";
    RenameMatch m{r, ts_node_start_byte(token), ts_node_end_byte(token), std::move(message), {}};
    if (ts_node_is_null(args)) return m;
    if (hasKeyword(args, r->replacement)) {
      m.fix = Fix{"Remove `" + std::string(name) + "=` (the call already passes `" + r->replacement + "=`)",
                  Applicability::Unsafe, {removeArgument(keywordArgument, text_)}};
    } else {
      Fix fix{"Replace `" + std::string(name) + "=` with `" + r->replacement + "=`",
              resolved ? Applicability::Safe : Applicability::Unsafe, {replaceNode(token, r->replacement)}};
      if (!resolved) fix.title += " (the callee is not resolved to " + r->library + " through this file's imports)";
      m.fix = std::move(fix);
    }
    return m;
  }

  bool hasKeyword(TSNode args, std::string_view keyword) const {
    for (std::uint32_t i = 0, n = ts_node_named_child_count(args); i < n; ++i) {
      const TSNode a = ts_node_named_child(args, i);
      if (symbolOf(a) == k_.keywordArgument && textOf(fieldOf(a, "name"), text_) == keyword) return true;
    }
    return false;
  }

  bool definesFunction(std::string_view name) const {
    return model_.definitionsNamed(name, ScopeKind::Function) > 0;
  }

  /// Does the file import package `package` (anywhere, or by a module-level star import)?
  bool imports(std::string_view package) {
    if (const auto it = imports_.find(std::string(package)); it != imports_.end()) return it->second;
    bool found = model_.importsPackage(package);
    if (!found && ctx_.document().tree()) found = starImports(ts_tree_root_node(ctx_.document().tree()), package, 0);
    imports_.emplace(std::string(package), found);
    return found;
  }

  /// `from package… import *` among the module's statements (and one level into `try`/`if`).
  bool starImports(TSNode block, std::string_view package, int depth) const {
    for (std::uint32_t i = 0, n = ts_node_named_child_count(block); i < n; ++i) {
      const TSNode s = ts_node_named_child(block, i);
      if (symbolOf(s) == k_.importFromStatement) {
        bool star = false;
        for (std::uint32_t j = 0, m = ts_node_named_child_count(s); j < m; ++j)
          star = star || isType(ts_node_named_child(s, j), "wildcard_import");
        const TSNode module = fieldOf(s, "module_name");
        if (star && symbolOf(module) == k_.dottedName && firstComponent(textOf(module, text_)) == package)
          return true;
      } else if (depth < 2 && (isType(s, "try_statement") || isType(s, "if_statement") || isType(s, "block") ||
                               isType(s, "except_clause") || isType(s, "else_clause") || isType(s, "elif_clause") ||
                               isType(s, "finally_clause"))) {
        if (starImports(s, package, depth + 1)) return true;
      }
    }
    return false;
  }

  // ---- what expressions hold ----

  Origin originOf(TSNode e, int depth) {
    if (ts_node_is_null(e) || depth > kMaxDepth) return {};
    const TSSymbol s = symbolOf(e);
    if (isIdentifier(e)) return originOfName(e, depth);
    if (s == k_.attribute) {
      const TSNode object = fieldOf(e, "object");
      const std::string_view name = textOf(fieldOf(e, "attribute"), text_);
      if (const std::optional<std::uint32_t> cls = selfClass(object)) return originOfSelfAttribute(*cls, name, depth);
      return member(originOf(object, depth + 1), name);
    }
    if (s == k_.call) {
      Origin f = originOf(fieldOf(e, "function"), depth + 1);
      if (f.kind == Origin::Kind::Path) return {Origin::Kind::Instance, std::move(f.path), f.literal};
      return {f.kind == Origin::Kind::Local ? Origin::Kind::Local : Origin::Kind::Unknown, {}, false};
    }
    if (s == k_.parenthesizedExpression) {
      for (std::uint32_t i = 0, n = ts_node_named_child_count(e); i < n; ++i)
        if (const TSNode c = ts_node_named_child(e, i); symbolOf(c) != k_.comment) return originOf(c, depth + 1);
    }
    return {};
  }

  /// Every binding of the name must agree; a name the file never binds stands for itself.
  Origin originOfName(TSNode identifier, int depth) {
    const NameUse *use = model_.nameAt(ts_node_start_byte(identifier));
    if (!use || use->inError) return {};
    const BindingKey key = model_.resolve(*use);
    const auto memoKey = std::make_pair(key.scope, key.name);
    if (const auto it = names_.find(memoKey); it != names_.end()) return it->second;
    names_[memoKey] = Origin{}; // a cycle (`a = b`, `b = a`) resolves to unknown
    Origin result;
    bool bound = false;
    for (const NameUse *bp : model_.usesOf(key)) {
      const NameUse &b = *bp;
      if (!bindsName(b.role)) continue;
      Origin o = bindingOrigin(b, depth);
      if (!bound) result = std::move(o);
      else if (!(o == result)) result = Origin{};
      bound = true;
      if (result.kind == Origin::Kind::Unknown) break;
    }
    if (!bound && key.scope == 0) result = Origin{Origin::Kind::Path, std::string(key.name), true};
    names_[memoKey] = result;
    return result;
  }

  Origin bindingOrigin(const NameUse &b, int depth) {
    if (!b.qualified.empty())
      return b.qualified.starts_with('.') ? Origin{} : Origin{Origin::Kind::Path, b.qualified, false};
    if (b.role == NameRole::FunctionName || b.role == NameRole::ClassName) return {Origin::Kind::Local, {}, false};
    if (b.role != NameRole::Binding) return {};
    if (!ts_node_is_null(b.value)) return b.iterated ? Origin{} : originOf(b.value, depth + 1);
    // `with pexpect.spawn(cmd) as child:` — the object the `with` made. (Looks at the text
    // first: parent lookups are not free.)
    std::size_t i = ts_node_start_byte(b.node);
    while (i > 0 && isBlank(text_[i - 1])) --i;
    if (i < 3 || text_.substr(i - 2, 2) != "as" || isWordByte(text_[i - 3])) return {};
    const TSNode target = ts_node_parent(b.node);
    const TSNode pattern = ts_node_is_null(target) ? TSNode{} : ts_node_parent(target);
    if (symbolOf(target) == k_.asPatternTarget && !ts_node_is_null(pattern) &&
        isType(ts_node_parent(pattern), "with_item"))
      return originOf(ts_node_named_child(pattern, 0), depth + 1);
    return {};
  }

  /// The class whose method has `identifier` as its first parameter (`self`), if it is one.
  std::optional<std::uint32_t> selfClass(TSNode identifier) const {
    if (ts_node_is_null(identifier) || !isIdentifier(identifier)) return std::nullopt;
    const NameUse *use = model_.nameAt(ts_node_start_byte(identifier));
    if (!use || use->inError) return std::nullopt;
    const BindingKey key = model_.resolve(*use);
    const Scope &scope = model_.scopes()[key.scope];
    if (scope.kind != ScopeKind::Function || key.scope == 0 ||
        model_.scopes()[scope.parent].kind != ScopeKind::Class)
      return std::nullopt;
    const TSNode params = fieldOf(scope.node, "parameters");
    const TSNode first = ts_node_is_null(params) ? TSNode{} : ts_node_named_child(params, 0);
    if (ts_node_is_null(first) || !isIdentifier(first) || textOf(first, text_) != key.name) return std::nullopt;
    return scope.parent;
  }

  /// `self.NAME`: what the class's methods assign to it, when they all agree.
  Origin originOfSelfAttribute(std::uint32_t cls, std::string_view name, int depth) {
    const auto memoKey = std::make_pair(cls, name);
    if (const auto it = members_.find(memoKey); it != members_.end()) return it->second;
    members_[memoKey] = Origin{};
    Origin result;
    bool assigned = false;
    for (const AttributeUse *ap : model_.attributesCalled(name)) {
      const AttributeUse &a = *ap;
      if (a.inError) continue;
      // `self.NAME = …`, judged on the text before asking for parents (they are not free).
      std::size_t i = ts_node_start_byte(a.node);
      while (i > 0 && isBlank(text_[i - 1])) --i;
      if (i == 0 || text_[i - 1] != '.') continue;
      --i;
      while (i > 0 && isBlank(text_[i - 1])) --i;
      std::size_t start = i;
      while (start > 0 && isWordByte(text_[start - 1])) --start;
      const NameUse *object = start < i ? model_.nameAt(static_cast<std::uint32_t>(start)) : nullptr;
      if (!object || selfClass(object->node) != cls) continue;
      std::size_t j = ts_node_end_byte(a.node);
      while (j < text_.size() && (text_[j] == ' ' || text_[j] == '\t')) ++j;
      if (j + 1 >= text_.size() || text_[j] != '=' || text_[j + 1] == '=') continue;
      const TSNode attribute = ts_node_parent(a.node);
      const TSNode holder = ts_node_parent(attribute);
      const bool isTarget = !ts_node_is_null(holder) && ts_node_eq(fieldOf(holder, "left"), attribute);
      if (!isTarget) continue;
      Origin o = symbolOf(holder) == k_.assignment ? originOf(fieldOf(holder, "right"), depth + 1) : Origin{};
      if (!assigned) result = std::move(o);
      else if (!(o == result)) result = Origin{};
      assigned = true;
      if (result.kind == Origin::Kind::Unknown) break;
    }
    members_[memoKey] = result;
    return result;
  }

  Context &ctx_;
  const Config &config_;
  std::string_view text_;
  const SemanticModel &model_;
  const Kinds &k_;
  // Memos, keyed by scope and a name (the names live in the document's text).
  std::map<std::pair<std::uint32_t, std::string_view>, Origin> names_, members_;
  std::map<std::pair<std::uint32_t, std::string_view>, std::optional<BindingMatch>> bindings_;
  std::vector<ParsedRow> rows_;
  std::map<std::string, bool> imports_;
  std::optional<std::set<std::string_view>> functionNames_;
  bool full_ = true; ///< build messages and fixes (false: only which row owns a token)
};

} // namespace

bool renamePathMatches(std::string_view pattern, std::string_view path) {
  const Parts p = split(pattern), q = split(path);
  return globMatch(p, q);
}

namespace {
/// The file's resolvers, kept in the Context so that their memos (what each binding holds) live
/// as long as the lint of the file: built per token, a file with 100 000 `y.cuda(async=…)`
/// re-traced `y`'s bindings 100 000 times (quadratic).
struct Resolvers {
  std::optional<Resolver> full, ownership;
  /// The token last matched where the walk stands, and its match: AF201–AF203 and the rules
  /// below them in the registry ask about the same token in turn.
  TSNode token{};
  std::optional<RenameMatch> match;
  /// The row that owns each recorded token asked about (by start byte; nullptr: none).
  std::unordered_map<std::uint32_t, const RenameRow *> recorded;
};
constexpr char kResolversKey = 0;

/// The row that owns `token`, a token the SemanticModel recorded anywhere in the file (only
/// ownership: no message, no fix).
const RenameRow *recordedTokenRow(TSNode token, Context &ctx) {
  if (!isKeywordToken(textOf(token, ctx.text()))) return nullptr;
  Resolvers &r = ctx.state<Resolvers>(&kResolversKey);
  const auto [it, fresh] = r.recorded.try_emplace(ts_node_start_byte(token), nullptr);
  if (fresh) {
    if (!r.ownership) r.ownership.emplace(ctx);
    const std::optional<RenameMatch> m = r.ownership->matchRecorded(token);
    it->second = m ? m->row : nullptr;
  }
  return it->second;
}
} // namespace

const std::optional<RenameMatch> &matchRenamedToken(TSNode token, Context &ctx) {
  static const std::optional<RenameMatch> kNone;
  // Cheap tests first: most tokens are not `async`/`await`, and none in ERROR regions count.
  if (ctx.insideError() || !isKeywordToken(textOf(token, ctx.text()))) return kNone;
  Resolvers &r = ctx.state<Resolvers>(&kResolversKey);
  if (!ts_node_is_null(r.token) && ts_node_eq(r.token, token)) return r.match;
  if (!r.full) r.full.emplace(ctx);
  r.match = r.full->matchCurrent(token, ctx.ancestors());
  r.token = token;
  return r.match;
}

// ---- validation of the user's rows ----

namespace {

constexpr std::array<std::string_view, 35> kPythonKeywords{
    "False", "None",   "True",    "and",      "as",   "assert", "async", "await",  "break",
    "class", "continue", "def",   "del",      "elif", "else",   "except", "finally", "for",
    "from",  "global", "if",      "import",   "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",   "raise",   "return",   "try",  "while",  "with",  "yield"};

bool isPythonKeyword(std::string_view s) {
  return std::find(kPythonKeywords.begin(), kPythonKeywords.end(), s) != kPythonKeywords.end();
}

bool isIdentifierText(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

/// A dotted path of identifiers; `wildcards` also allows `*` and `**` components.
bool isDottedPath(std::string_view path, bool wildcards) {
  if (path.empty()) return false;
  for (std::string_view part : split(path))
    if (!isIdentifierText(part) && !(wildcards && (part == "*" || part == "**"))) return false;
  return true;
}

/// A new name: an identifier that compiles everywhere.
bool isUsableName(std::string_view s) { return isIdentifierText(s) && !isPythonKeyword(s); }

} // namespace

std::optional<RenameRowProblem> validateRenameRow(const RenameRow &r) {
  const bool pathRow = r.kind == Kind::Module || r.kind == Kind::Function;
  if (pathRow) {
    if (!isDottedPath(r.old, false))
      return RenameRowProblem{"old", "must be a dotted path such as \"mylib.async\""};
    const Parts old = split(r.old);
    if (std::none_of(old.begin(), old.end(), isKeywordToken))
      return RenameRowProblem{"old", "must have a component `async` or `await` (the names Python 3.7 reserved)"};
    if (!isDottedPath(r.replacement, false))
      return RenameRowProblem{"new", "must be a dotted path such as \"mylib.aio\""};
    const Parts replacement = split(r.replacement);
    if (!std::all_of(replacement.begin(), replacement.end(), isUsableName))
      return RenameRowProblem{"new", "must not contain a Python keyword"};
    return std::nullopt;
  }
  const std::string ownerKey = r.kind == Kind::Keyword ? "callable" : "owner";
  if (!isKeywordToken(r.old)) return RenameRowProblem{"old", "must be \"async\" or \"await\""};
  if (!isUsableName(r.replacement))
    return RenameRowProblem{"new", "must be a Python identifier that is not a keyword"};
  if (!isDottedPath(r.owner, true))
    return RenameRowProblem{ownerKey, "must be a dotted path such as \"mylib.Client.send\" (`*` matches one "
                                      "component, `**` any number)"};
  const Parts owner = split(r.owner);
  if (!isIdentifierText(owner.front()))
    return RenameRowProblem{ownerKey, "must start with the package name, not a wildcard"};
  if (r.kind == Kind::Keyword && !isIdentifierText(owner.back()))
    return RenameRowProblem{ownerKey, "must end with the callable's own name, not a wildcard"};
  if (std::count(owner.begin(), owner.end(), "**") > 2)
    return RenameRowProblem{ownerKey, "may use `**` at most twice"};
  return std::nullopt;
}

// ---- the rule ----

std::vector<TSSymbol> RenamedAsyncRule::subscriptions() const {
  std::vector<TSSymbol> kinds = Kinds::get().identifier;
  kinds.push_back(Kinds::get().anonAwait); // `await(x)` outside a coroutine: the name `await`
  return kinds;
}

void RenamedAsyncRule::check(TSNode node, Context &ctx) const {
  if (ctx.insideError() || !isKeywordToken(textOf(node, ctx.text()))) return;
  if (!ts_node_is_named(node)) {
    // The keyword token of an await expression: only `await(x)` and the like, which mean the name.
    const auto ancestors = ctx.ancestors();
    if (ancestors.empty() || ts_node_symbol(ancestors.back()) != Kinds::get().await ||
        ts_node_child_count(ancestors.back()) < 2 || !operandMakesAName(ancestors.back(), ctx.text()))
      return;
  }
  const std::optional<RenameMatch> &m = matchRenamedToken(node, ctx);
  if (!m || renameRuleCode(m->row->kind) != info_.code) return;
  Diagnostic d;
  d.code = info_.code;
  d.name = info_.name;
  d.severity = keywordSeverity(ctx.config());
  d.message = m->message;
  d.start = m->start;
  d.end = m->end;
  if (m->fix) d.fix = *m->fix;
  ctx.report(std::move(d));
}

bool RenamedAsyncRule::claims(Claim what, TSNode node, Context &ctx) const {
  const RenameRow *row = nullptr;
  if (what == kClaimToken) {
    const std::optional<RenameMatch> &m = matchRenamedToken(node, ctx);
    row = m ? m->row : nullptr;
  } else if (what == kClaimRecordedToken) {
    row = recordedTokenRow(node, ctx);
  }
  return row != nullptr && renameRuleCode(row->kind) == info_.code;
}

} // namespace asyncfix::rules
