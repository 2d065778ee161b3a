#include "rules/renames.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

#include "analysis/name_origins.h"
#include "config/rename_table.h"
#include "rules/edits.h"
#include "text/syntax.h"

namespace asyncfix::rules {

using Kind = RenameRow::Kind;

namespace {

using Parts = RenamePath;

std::string join(std::span<const std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) {
    if (!out.empty()) out += '.';
    out += p;
  }
  return out;
}

std::string_view lastComponent(std::string_view path) {
  const auto dot = path.rfind('.');
  return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

/// "kombu 4.2.0" / "kombu".
std::string releasedIn(const RenameRow &r) { return r.since.empty() ? r.library : r.library + " " + r.since; }

/// "`X` is a syntax error since Python 3.7" (or "becomes … in Python 3.7" for older targets).
std::string syntaxError(std::string_view what, const Config &config) {
  std::string m;
  m.append("`").append(what).append("` ");
  m.append(config.keywordsReserved() ? "is a syntax error since Python 3.7" : "becomes a syntax error in Python 3.7");
  return m;
}

/// Which binding-level match a name use takes part in (`from asyncio import async` and its uses).
struct BindingMatch {
  const RenameRow *row = nullptr;
  std::optional<Fix> fix;
};

/// Matches tokens against the table for one file. Memoizes what bindings hold, so that matching
/// many tokens (a rename group) costs one resolution per binding.
class Matcher {
public:
  explicit Matcher(Context &ctx)
      : config_(ctx.config()), text_(ctx.text()), model_(ctx.semantic()), k_(Kinds::get()),
        origins_(text_, model_, config_.package ? std::optional<std::string_view>(*config_.package) : std::nullopt) {}

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
        return matchChain(token, origins_.chainBelow(up(top)));
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
      if (std::optional<AttributeChain> chain = origins_.chainByText(token))
        return matchChain(token, std::move(*chain));
      const TSNode attribute = ts_node_parent(token); // something other than a plain name chain
      TSNode top = attribute;
      for (TSNode p = ts_node_parent(top); symbolOf(p) == k_.attribute && ts_node_eq(fieldOf(p, "object"), top);
           p = ts_node_parent(top))
        top = p;
      return matchChain(token, origins_.chainBelow(top));
    }
    const NameUse *use = model_.nameAt(start);
    if (!use || use->inError) return std::nullopt;
    return matchNameUse(token);
  }

private:
  // ---- rows ----

  /// A row with its paths split into components, once per Matcher.
  struct ParsedRow {
    const RenameRow *row;
    Parts old, replacement, owner;
    bool user; ///< from Config::renames
  };

  /// The user's rows first: they win over a built-in row for the same name.
  const std::vector<ParsedRow> &rows() {
    if (rows_.empty()) {
      for (const RenameRow &r : config_.renames)
        rows_.push_back({&r, splitRenamePath(r.old), splitRenamePath(r.replacement),
                         r.owner.empty() ? Parts{} : splitRenamePath(r.owner), true});
      for (const RenameRow &r : builtinRenames())
        rows_.push_back({&r, splitRenamePath(r.old), splitRenamePath(r.replacement),
                         r.owner.empty() ? Parts{} : splitRenamePath(r.owner), false});
    }
    return rows_;
  }

  /// The module/function row whose old path is a prefix of `path` and covers component `index`:
  /// a user's row first, the longest one of a source first — and first of all one whose rewrite
  /// respells that component: in `pkg.async.async` the module's row respells the second, the
  /// module-level name's row only the third (each fix then edits its own token, and the module's
  /// stays safe where the name's is not).
  const RenameRow *pathRow(const Parts &path, std::size_t index) {
    struct Best {
      const RenameRow *row = nullptr;
      bool user = false;
      std::size_t length = 0;
      void offer(const ParsedRow &p) {
        if (!row || (user == p.user && p.old.size() > length)) { // the users' rows come first
          row = p.row;
          user = p.user;
          length = p.old.size();
        }
      }
    } any, respelling;
    for (const ParsedRow &p : rows()) {
      const RenameRow &r = *p.row;
      if (r.kind != Kind::Module && r.kind != Kind::Function) continue;
      if (p.old.size() <= index || p.old.size() > path.size() || !std::equal(p.old.begin(), p.old.end(), path.begin()))
        continue;
      std::size_t c = 0; // where old and new first differ: pathEdit() respells from there on
      while (c < p.old.size() && c < p.replacement.size() && p.old[c] == p.replacement[c]) ++c;
      any.offer(p);
      if (c <= index) respelling.offer(p);
    }
    return respelling.row ? respelling.row : any.row;
  }

  /// The keyword/attribute row for `old` whose owner pattern matches `path`.
  const RenameRow *ownerRow(Kind kind, std::string_view old, std::string_view path) {
    const Parts parts = splitRenamePath(path);
    for (const ParsedRow &p : rows())
      if (p.row->kind == kind && p.row->old == old && !p.owner.empty() && renamePathMatches(p.owner, parts))
        return p.row; // (the project's attributes have no owner: AF001/AF002 rename them)
    return nullptr;
  }

  std::string pathMessage(const RenameRow &r) const {
    if (!full_) return {}; // only ownership is asked
    if (!r.files.empty())
      return syntaxError(r.old, config_) + "; rename the project's module to `" + r.replacement + "`";
    if (!r.touches.empty()) // a module-level name of the project's, renamed where it is defined
      return syntaxError(r.old, config_) + "; the project's `" + r.touches.front() + "` defines it as `" +
             std::string(lastComponent(r.replacement)) + "` once renamed";
    return syntaxError(r.old, config_) + "; " + releasedIn(r) + " renamed it `" + r.replacement + "`";
  }

  /// The edit that respells components [c, old.size()) of a path whose component i is written
  /// at nodes[i] (null for the components a name's import covers, i < firstWritten), where c is
  /// where old and new first differ. None when the change reaches into the covered part.
  static std::optional<TextEdit> pathEdit(const std::vector<TSNode> &nodes, std::size_t firstWritten, const Parts &old,
                                          const Parts &replacement) {
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
    // `from .async import x`: resolved when the front end says which package the file is in.
    if (isType(holder, "relative_import") && symbolOf(above) == k_.importFromStatement)
      return matchModulePath(token, holder, false);
    return std::nullopt; // `from __future__ import …`
  }

  /// The module a statement names: a dotted name as written, or a relative import resolved
  /// against Config::package. Component i is written at nodes[i], except the first `covered`
  /// ones, which the leading dots stand for (null nodes).
  struct ModuleName {
    Parts path;
    std::vector<TSNode> nodes;
    std::size_t covered = 0;
  };

  std::optional<ModuleName> moduleName(TSNode module) const {
    ModuleName out;
    TSNode dotted = module;
    if (isType(module, "relative_import")) {
      if (!config_.package) return std::nullopt;
      dotted = TSNode{};
      std::size_t dots = 0;
      for (std::uint32_t i = 0, n = ts_node_named_child_count(module); i < n; ++i) {
        const TSNode c = ts_node_named_child(module, i);
        if (symbolOf(c) == k_.dottedName) dotted = c;
        else if (isType(c, "import_prefix")) {
          const std::string_view prefix = textOf(c, text_);
          dots = static_cast<std::size_t>(std::count(prefix.begin(), prefix.end(), '.'));
        }
      }
      Parts base = config_.package->empty() ? Parts{} : splitRenamePath(*config_.package);
      if (dots == 0 || dots - 1 > base.size()) return std::nullopt; // beyond the top-level package
      base.resize(base.size() - (dots - 1));
      out.covered = base.size();
      out.path = std::move(base);
      out.nodes.assign(out.covered, TSNode{});
      if (ts_node_is_null(dotted)) return out;
    } else if (symbolOf(module) != k_.dottedName) {
      return std::nullopt;
    }
    for (std::uint32_t i = 0, n = ts_node_named_child_count(dotted); i < n; ++i) {
      const TSNode c = ts_node_named_child(dotted, i);
      if (!isIdentifier(c)) continue;
      out.nodes.push_back(c);
      out.path.push_back(textOf(c, text_));
    }
    return out;
  }

  /// `import kombu.async`, `import kombu.async.hub as h`, `from kombu.async.hub import Hub`,
  /// `from .async import x` (`module` is the dotted name or the relative import).
  std::optional<RenameMatch> matchModulePath(TSNode token, TSNode module, bool bindsFirst) {
    std::optional<ModuleName> name = moduleName(module);
    if (!name) return std::nullopt;
    const std::vector<TSNode> &nodes = name->nodes;
    std::size_t index = nodes.size();
    for (std::size_t i = name->covered; i < nodes.size(); ++i)
      if (ts_node_eq(nodes[i], token)) index = i;
    if (index == nodes.size()) return std::nullopt;
    const RenameRow *r = pathRow(name->path, index);
    if (!r) return std::nullopt;
    // `import async` of the project's top-level module binds the name: one rename with its uses.
    if (bindsFirst && name->path.size() == 1 && !r->files.empty())
      if (std::optional<RenameMatch> binding = matchNameUse(token)) return binding;
    const Parts old = splitRenamePath(r->old), replacement = splitRenamePath(r->replacement);
    RenameMatch m{
        r, ts_node_start_byte(nodes[name->covered]), ts_node_end_byte(nodes[old.size() - 1]), pathMessage(*r), {}};
    // The leading dots stand for the file's own package, which moves with the file: only the
    // written components are respelt.
    std::optional<TextEdit> edit = pathEdit(nodes, name->covered, old, replacement);
    if (!edit && name->covered > 0 && old.size() == replacement.size() &&
        !std::equal(old.begin() + static_cast<std::ptrdiff_t>(name->covered), old.end(),
                    replacement.begin() + static_cast<std::ptrdiff_t>(name->covered)))
      edit = TextEdit{ts_node_start_byte(nodes[name->covered]), ts_node_end_byte(nodes[old.size() - 1]),
                      join(std::span(replacement).subspan(name->covered))};
    if (edit) {
      // `import a.async` binds `a`: a new first component would bind another name.
      const bool rebinds = bindsFirst && old.front() != replacement.front();
      Fix fix{"Replace `" + r->old + "` with `" + r->replacement + "`",
              rebinds ? Applicability::Unsafe : Applicability::Safe,
              {std::move(*edit)}};
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
    if (ts_node_named_child_count(dotted) != 1) return out;
    std::optional<ModuleName> name = moduleName(module); // `from pkg import async`, `from . import async`
    if (!name) return out;
    Parts path = std::move(name->path);
    const std::size_t parentSize = path.size();
    const auto covered = static_cast<std::ptrdiff_t>(name->covered); // moves with the file
    path.push_back(textOf(token, text_));
    for (const ParsedRow &p : rows())
      if ((p.row->kind == Kind::Module || p.row->kind == Kind::Function) && p.old == path) {
        out.row = p.row;
        break;
      }
    if (!out.row) return out;
    const Parts replacement = splitRenamePath(out.row->replacement);
    out.newName = std::string(replacement.back());
    const bool sameParent = replacement.size() == path.size() &&
                            std::equal(path.begin() + covered, path.begin() + static_cast<std::ptrdiff_t>(parentSize),
                                       replacement.begin() + covered);
    if (sameParent) {
      out.edits.push_back(replaceNode(token, out.newName));
    } else if (replacement.size() >= 2 && importedNameCount(statement) == 1 && name->covered == 0) {
      out.edits.push_back(replaceNode(module, join(std::span(replacement).first(replacement.size() - 1))));
      out.edits.push_back(replaceNode(token, out.newName));
    }
    return out;
  }

  /// The project's row for `import async` (a plain import of a top-level module of the project
  /// named so), or null.
  const RenameRow *topLevelProjectModule(TSNode token, TSNode dotted, TSNode statement) {
    if (symbolOf(statement) != k_.importStatement || symbolOf(dotted) != k_.dottedName ||
        ts_node_named_child_count(dotted) != 1)
      return nullptr;
    const std::string_view name = textOf(token, text_);
    for (const ParsedRow &p : rows())
      if (p.row->kind == Kind::Module && !p.row->files.empty() && p.old.size() == 1 && p.old.front() == name)
        return p.row;
    return nullptr;
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
      if (const RenameRow *top = topLevelProjectModule(u->node, dotted, statement)) {
        // `import async` of the project's own top-level module: the import and every use of the
        // name it binds are respelt together.
        if (!found) {
          found = top;
          newName = top->replacement;
        }
        if (top->replacement != newName) fixable = false;
        edits.push_back(replaceNode(u->node, top->replacement));
        imports.push_back(ts_node_start_byte(u->node));
        continue;
      }
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

  /// `kombu.async.Hub`, `asyncio.async(coro)`, `doc.async`.
  std::optional<RenameMatch> matchChain(TSNode token, AttributeChain chain) {
    const auto at =
        std::find_if(chain.written.begin(), chain.written.end(), [&](TSNode n) { return ts_node_eq(n, token); });
    if (at == chain.written.end()) return std::nullopt;
    chain.index = static_cast<std::size_t>(at - chain.written.begin());

    // A module or function path, through what the root is bound to.
    const Origin base = origins_.of(chain.root);
    if (base.kind == Origin::Kind::Path) {
      Parts path = splitRenamePath(base.path);
      const std::size_t covered = path.size();
      for (const TSNode n : chain.written) path.push_back(textOf(n, text_));
      if (const RenameRow *r = pathRow(path, covered + chain.index)) {
        const Parts old = splitRenamePath(r->old), replacement = splitRenamePath(r->replacement);
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
    const Origin owner = origins_.ofChain(chain, chain.index);
    if ((owner.kind != Origin::Kind::Path && owner.kind != Origin::Kind::Instance) || owner.literal)
      return std::nullopt;
    const RenameRow *r = ownerRow(Kind::Attribute, name, owner.path);
    if (!r) return std::nullopt;
    const std::size_t objectStart = ts_node_start_byte(chain.root);
    const std::size_t objectEnd = ts_node_end_byte(chain.index == 0 ? chain.root : chain.written[chain.index - 1]);
    const std::string_view object = text_.substr(objectStart, objectEnd - objectStart);
    const bool shortObject = object.size() <= 40 && object.find_first_of("\r\n") == std::string_view::npos;
    const std::string what = (shortObject ? std::string(object) : std::string("…")) + "." + std::string(name);
    RenameMatch m{r, ts_node_start_byte(token), ts_node_end_byte(token), {}, std::nullopt};
    if (!full_) return m;
    m.message = syntaxError(what, config_) + "; " + releasedIn(*r) + " renamed the attribute `" + r->replacement + "`";
    m.fix = Fix{"Replace `" + std::string(name) + "` with `" + r->replacement + "`",
                Applicability::Safe,
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
    const Origin origin = origins_.of(callee);
    const RenameRow *r = nullptr;
    bool resolved = false;
    if (origin.kind == Origin::Kind::Path) {
      r = ownerRow(Kind::Keyword, name, origin.path);
      resolved = r && !origin.literal;
      if (!r && !origin.literal) return std::nullopt; // something else, known
    } else if (origin.kind != Origin::Kind::Unknown) {
      return std::nullopt; // the file's own function or class, or a call of an object
    }
    std::string_view method = isIdentifier(callee)               ? textOf(callee, text_)
                              : symbolOf(callee) == k_.attribute ? textOf(fieldOf(callee, "attribute"), text_)
                                                                 : std::string_view{};
    if (method.empty() && origin.kind == Origin::Kind::Path) method = lastComponent(origin.path);
    if (!r) {
      // Unresolved: a callee of that name, from a library the file imports — unless the file
      // defines a function so named (then it is AF001's, with the function's parameter).
      if (method.empty() || definesFunction(method)) return std::nullopt;
      for (const ParsedRow &p : rows())
        if (p.row->kind == Kind::Keyword && p.row->old == name && !p.owner.empty() && p.owner.back() == method &&
            origins_.imports(p.owner.front())) {
          r = p.row;
          break;
        }
      if (!r) return std::nullopt;
    }
    if (!full_) return RenameMatch{r, ts_node_start_byte(token), ts_node_end_byte(token), {}, {}};
    const std::string callable(method.empty() ? std::string_view("the call") : method);
    const bool project = !r->touches.empty(); // the project's own function, renamed with it
    std::string message = syntaxError(std::string(name) + "=", config_) + "; ";
    if (project)
      message += "the project's `" + r->owner + "` takes it as `" + r->replacement + "=` once its parameter in `" +
                 r->touches.front() + "` is renamed";
    else
      message += releasedIn(*r) + " renamed `" + callable + "(" + std::string(name) + "=)` to `" + callable + "(" +
                 r->replacement + "=)`";
    if (!resolved) message += " (if this `" + callable + "` is " + r->library + "'s)";
    RenameMatch m{r, ts_node_start_byte(token), ts_node_end_byte(token), std::move(message), {}};
    if (ts_node_is_null(args)) return m;
    if (hasKeyword(args, r->replacement)) {
      m.fix = Fix{"Remove `" + std::string(name) + "=` (the call already passes `" + r->replacement + "=`)",
                  Applicability::Unsafe,
                  {removeArgument(keywordArgument, text_)}};
    } else {
      Fix fix{"Replace `" + std::string(name) + "=` with `" + r->replacement + "=`",
              resolved ? Applicability::Safe : Applicability::Unsafe,
              {replaceNode(token, r->replacement)}};
      if (project) fix.title += " (with the parameter of `" + r->owner + "` in `" + r->touches.front() + "`)";
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

  bool definesFunction(std::string_view name) const { return model_.definitionsNamed(name, ScopeKind::Function) > 0; }

  const Config &config_;
  std::string_view text_;
  const SemanticModel &model_;
  const Kinds &k_;
  NameOrigins origins_;
  // Memos, keyed by scope and a name (the names live in the document's text).
  std::map<std::pair<std::uint32_t, std::string_view>, std::optional<BindingMatch>> bindings_;
  std::vector<ParsedRow> rows_;
  bool full_ = true; ///< build messages and fixes (false: only which row owns a token)
};

} // namespace

namespace {
/// The file's matchers, kept in the Context so that their memos (what each binding holds) live
/// as long as the lint of the file: matchers built per token would trace a binding once per use,
/// quadratic in a file with 100 000 `y.cuda(async=…)`.
struct Matchers {
  std::optional<Matcher> full, ownership;
  /// The token last matched where the walk stands, and its match: AF201–AF203 and the rules
  /// below them in the registry ask about the same token in turn.
  TSNode token{};
  std::optional<RenameMatch> match;
  /// The row that owns each recorded token asked about (by start byte; nullptr: none).
  std::unordered_map<std::uint32_t, const RenameRow *> recorded;
};
constexpr char kMatchersKey = 0;

/// The row that owns `token`, a token the SemanticModel recorded anywhere in the file (only
/// ownership: no message, no fix).
const RenameRow *recordedTokenRow(TSNode token, Context &ctx) {
  if (!isAsyncOrAwait(textOf(token, ctx.text()))) return nullptr;
  Matchers &r = ctx.state<Matchers>(&kMatchersKey);
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
  if (ctx.insideError() || !isAsyncOrAwait(textOf(token, ctx.text()))) return kNone;
  Matchers &r = ctx.state<Matchers>(&kMatchersKey);
  if (!ts_node_is_null(r.token) && ts_node_eq(r.token, token)) return r.match;
  if (!r.full) r.full.emplace(ctx);
  r.match = r.full->matchCurrent(token, ctx.ancestors());
  r.token = token;
  return r.match;
}

// ---- the rule ----

std::vector<TSSymbol> RenamedAsyncRule::subscriptions() const {
  std::vector<TSSymbol> kinds = Kinds::get().identifier;
  kinds.push_back(Kinds::get().anonAwait); // `await(x)` outside a coroutine: the name `await`
  return kinds;
}

void RenamedAsyncRule::check(TSNode node, Context &ctx) const {
  if (ctx.insideError() || !isAsyncOrAwait(textOf(node, ctx.text()))) return;
  if (!ts_node_is_named(node)) {
    // The keyword token of an await expression: only `await(x)` and the like, which mean the name.
    const auto ancestors = ctx.ancestors();
    if (ancestors.empty() || ts_node_symbol(ancestors.back()) != Kinds::get().await ||
        ts_node_child_count(ancestors.back()) < 2 || !operandMakesAName(ancestors.back(), ctx.text()))
      return;
  }
  const std::optional<RenameMatch> &m = matchRenamedToken(node, ctx);
  if (!m || renameRuleCode(m->row->kind) != info_.code) return;
  // A path with two keyword components (`mylib.async.await`) is one finding, made at the first.
  const std::uint32_t at = ts_node_start_byte(node);
  if (m->start < at) {
    const std::string_view before = ctx.text().substr(m->start, at - m->start);
    for (std::size_t from = 0; from < before.size();) {
      const std::size_t dot = std::min(before.find('.', from), before.size());
      std::string_view part = before.substr(from, dot - from);
      while (!part.empty() && std::isspace(static_cast<unsigned char>(part.front())) != 0) part.remove_prefix(1);
      while (!part.empty() && std::isspace(static_cast<unsigned char>(part.back())) != 0) part.remove_suffix(1);
      if (isAsyncOrAwait(part)) return;
      from = dot + 1;
    }
  }
  Diagnostic d;
  d.code = info_.code;
  d.name = info_.name;
  d.severity = keywordSeverity(ctx.config());
  d.message = m->message;
  d.start = m->start;
  d.end = m->end;
  if (m->fix) {
    Fix fix = *m->fix;
    const bool global = m->row->kind == RenameRow::Kind::Function && !m->row->touches.empty();
    if (global) fix.title += " (with its definition in `" + m->row->touches.front() + "`)";
    if (!m->row->touches.empty() && m->row->uncertain && fix.applicability == Applicability::Safe) {
      // The project's function or name: a use elsewhere may reach it without resolving to it.
      fix.applicability = Applicability::Unsafe;
      fix.title += global || !m->row->unresolved.empty()
                       ? " (" + m->row->unresolved + ")"
                       : " (a call elsewhere in the project may pass it without resolving to the function)";
    }
    if (!m->row->files.empty()) {
      // A module of the project: the fix is this file's part of renaming it (with every import).
      fix.renames = m->row->files;
      if (m->row->uncertain && fix.applicability == Applicability::Safe) {
        fix.applicability = Applicability::Unsafe;
        fix.title += m->row->unresolved.empty()
                         ? " (the module lies in a namespace package, which an installed one could share)"
                         : " (" + m->row->unresolved + ")";
      }
    }
    d.fix = std::move(fix);
  }
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
