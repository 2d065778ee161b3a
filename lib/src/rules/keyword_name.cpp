#include "rules/keyword_name.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_set>
#include <utility>

#include "project/public_callable.h"
#include "text/prefilter.h"
#include "text/syntax.h"

namespace asyncfix::rules {
namespace {

/// A rename: the nodes to rewrite, what they denote, and whether the result is visible outside
/// the file.
struct RenameGroup {
  std::vector<TSNode> nodes;
  std::vector<TSNode> keywordNodes;  ///< the `NAME` of `f(NAME=…)` among `nodes`
  std::optional<BindingKey> binding; ///< set for a variable's rename
  bool member = false;               ///< attribute spellings are part of it
  bool fixable = true;
  bool visibleOutside = false;
  /// A parameter the project view renames with its keyword arguments in other files: the row
  /// that says how, and in which files.
  const RenameRow *projectRow = nullptr;
};

/// A rename computed once per file and shared by every occurrence it covers, so that N uses of
/// one binding cost O(N), not O(N²): the group, the start bytes of its nodes, and the one Fix all
/// their diagnostics hold.
struct Rename {
  RenameGroup group;
  std::unordered_set<std::uint32_t> starts; ///< of the group's nodes, before AF201–AF203's are taken out
  SharedFix fix;
};

/// The renames of one file (a Context state of the rule).
struct RenameCache {
  using Key = std::pair<std::uint32_t, std::string_view>; ///< a binding: scope, name
  std::map<Key, Rename> bindings;
  std::optional<Rename> member;
  std::optional<std::string> renamedElsewhere; ///< fileBlocker(), once per file
};

bool isPrivateName(std::string_view name) {
  return name.starts_with("_") && !(name.starts_with("__") && name.ends_with("__"));
}

bool isLocalScope(ScopeKind kind) {
  return kind == ScopeKind::Function || kind == ScopeKind::Lambda || kind == ScopeKind::Comprehension;
}

/// True when scope `inner` is `outer` or nested inside it.
bool within(const SemanticModel &model, std::uint32_t inner, std::uint32_t outer) {
  for (std::uint32_t s = inner;; s = model.scopes()[s].parent) {
    if (s == outer) return true;
    if (s == 0) return false;
  }
}

/// The binding of the identifier `node` (nullopt when it is not a recorded name).
std::optional<BindingKey> bindingAt(const SemanticModel &model, TSNode node) {
  if (ts_node_is_null(node)) return std::nullopt;
  const NameUse *use = model.nameAt(ts_node_start_byte(node));
  if (!use) return std::nullopt;
  return model.resolve(*use);
}

/// The scope whose parameters a call of `scope`'s function binds: itself, or for `__init__` the
/// class (callers write `Class(…)`). Returns the scope that names the callee.
const Scope &calleeScope(const SemanticModel &model, const Scope &scope) {
  if (scope.kind == ScopeKind::Function && scope.name == "__init__" && scope.parent != 0 &&
      model.scopes()[scope.parent].kind == ScopeKind::Class)
    return model.scopes()[scope.parent];
  return scope;
}

/// Adds `NAME=` at the calls of the function (or lambda) `scope` whose parameter is renamed.
/// A call by plain name is tied to the function through name resolution. A call through an
/// attribute (`obj.f(…)`) cannot be: it is included only when `f` is the only function so named
/// in the file, and either way the group becomes unsafe.
void linkCallSites(const SemanticModel &model, const Scope &scope, std::string_view name, RenameGroup &group) {
  const Scope &callee = calleeScope(model, scope);
  if (callee.name.empty()) return;
  const std::optional<BindingKey> calleeKey = bindingAt(model, callee.nameNode);
  const std::size_t definitions = model.definitionsNamed(callee.name);
  for (const KeywordUse *kp : model.keywordsCalled(name)) {
    const KeywordUse &k = *kp;
    if (k.inError || k.callee != callee.name) continue;
    if (k.calleeIsName) {
      if (calleeKey && bindingAt(model, k.calleeNode) == calleeKey) {
        group.nodes.push_back(k.node);
        group.keywordNodes.push_back(k.node);
      }
      continue; // another function that happens to share the name
    }
    group.visibleOutside = true; // a receiver we cannot check
    if (definitions == 1) {
      group.nodes.push_back(k.node);
      group.keywordNodes.push_back(k.node);
    }
  }
}

/// The project's row for parameter `name` of the function scope `scope` (RenameRow::touches:
/// the project view renames it with `name=` at its calls in other files), or null.
const RenameRow *projectRow(const SemanticModel &model, std::uint32_t scope, std::string_view name,
                            const Config &config) {
  if (!config.module || config.renames.empty()) return nullptr;
  const std::optional<std::string> callable = publicCallable(model, scope);
  if (!callable) return nullptr;
  const std::string owner = config.module->empty() ? *callable : *config.module + "." + *callable;
  for (const RenameRow &r : config.renames)
    if (r.kind == RenameRow::Kind::Keyword && !r.touches.empty() && r.old == name && r.owner == owner) return &r;
  return nullptr;
}

/// The project's row for the module-level name `name` of the linted module (a function row the
/// project view adds when other files use it), or null.
const RenameRow *projectGlobalRow(std::string_view name, const Config &config) {
  if (!config.module || config.renames.empty()) return nullptr;
  const std::string path = *config.module + "." + std::string(name);
  for (const RenameRow &r : config.renames)
    if (r.kind == RenameRow::Kind::Function && !r.touches.empty() && r.old == path) return &r;
  return nullptr;
}

/// The project's row for the attribute `name` (an attribute row the project view gives the files
/// that use it on objects it knows), or null.
const RenameRow *projectAttributeRow(std::string_view name, const Config &config) {
  for (const RenameRow &r : config.renames)
    if (r.kind == RenameRow::Kind::Attribute && !r.touches.empty() && r.owner.empty() && r.old == name) return &r;
  return nullptr;
}

void addAttributeUses(const SemanticModel &model, std::string_view name, RenameGroup &group) {
  group.member = true;
  for (const AttributeUse *a : model.attributesCalled(name))
    if (!a->inError) group.nodes.push_back(a->node);
}

/// All uses of the binding `use` refers to, plus what is tied to it: call-site keywords of a
/// parameter, attribute spellings of a class member.
RenameGroup bindingGroup(const SemanticModel &model, const NameUse &use, const Config &config) {
  RenameGroup group;
  const BindingKey key = model.resolve(use);
  group.binding = key;
  const Scope &scope = model.scopes()[key.scope];
  bool isParameter = false, boundHere = false;
  for (const NameUse *u : model.usesOf(key)) {
    group.nodes.push_back(u->node);
    if (u->role == NameRole::ImportedName) group.fixable = false;
    if (u->role == NameRole::Parameter) isParameter = true;
    if (u->role != NameRole::Reference && u->role != NameRole::AwaitName && u->role != NameRole::Declaration)
      boundHere = true;
  }
  group.visibleOutside = !isLocalScope(scope.kind) || !boundHere;
  if (isParameter) {
    if (const RenameRow *row = projectRow(model, key.scope, key.name, config)) {
      // The project view found its callers in other files: safe when every one resolves to it.
      group.projectRow = row;
      group.visibleOutside = group.visibleOutside || row->uncertain;
    } else {
      // Callers outside the file can pass it by keyword when the function has a public name.
      if (scope.kind == ScopeKind::Function && !isPrivateName(scope.name)) group.visibleOutside = true;
      if (scope.kind == ScopeKind::Lambda && !scope.name.empty() && !isPrivateName(scope.name) &&
          bindingAt(model, scope.nameNode).value_or(BindingKey{1, {}}).scope == 0)
        group.visibleOutside = true;
    }
    linkCallSites(model, scope, key.name, group);
  } else if (key.scope == 0 && boundHere && group.fixable) {
    // A module-level name other modules of the project use: safe when every use resolves to it.
    if (const RenameRow *row = projectGlobalRow(key.name, config)) {
      group.projectRow = row;
      group.visibleOutside = row->uncertain;
    }
  }
  if (scope.kind == ScopeKind::Class) {
    addAttributeUses(model, key.name, group);
    if (const RenameRow *row = projectAttributeRow(key.name, config)) {
      group.projectRow = row;
      group.visibleOutside = row->uncertain;
    }
  }
  return group;
}

/// `obj.NAME`: every attribute spelt NAME and every class-level binding of NAME.
RenameGroup memberGroup(const SemanticModel &model, std::string_view name, const Config &config) {
  RenameGroup group;
  group.visibleOutside = true;
  if (const RenameRow *row = projectAttributeRow(name, config)) {
    // The project view found its uses in other files on objects it knows.
    group.projectRow = row;
    group.visibleOutside = row->uncertain;
  }
  addAttributeUses(model, name, group);
  for (std::uint32_t i : model.namesCalled(name)) {
    const NameUse &use = model.name(i);
    if (use.inError || model.scopes()[use.scope].kind != ScopeKind::Class) continue;
    const BindingKey key = model.resolve(use);
    if (model.scopes()[key.scope].kind != ScopeKind::Class) continue;
    for (const NameUse *u : model.usesOf(key)) {
      group.nodes.push_back(u->node);
      if (u->role == NameRole::ImportedName) group.fixable = false;
    }
  }
  return group;
}

/// Would spelling the group `replacement` collide with a name already there?
bool renameConflicts(const SemanticModel &model, const RenameGroup &group, std::string_view replacement,
                     std::string_view text) {
  // `f(async=1, async_=2)` would pass the same keyword twice.
  for (const TSNode k : group.keywordNodes) {
    const TSNode args = ts_node_parent(ts_node_parent(k));
    for (std::uint32_t i = 0, n = ts_node_named_child_count(args); i < n; ++i) {
      const TSNode arg = ts_node_named_child(args, i);
      if (ts_node_symbol(arg) == Kinds::get().keywordArgument && textOf(field(arg, "name"), text) == replacement)
        return true;
    }
  }
  if (group.member) {
    // Attributes live on objects: any `obj.async_` or class-level `async_` may be the same one.
    if (!model.attributesCalled(replacement).empty()) return true;
    for (std::uint32_t i : model.namesCalled(replacement))
      if (model.scopes()[model.name(i).scope].kind == ScopeKind::Class) return true;
  }
  if (!group.binding) return false;
  const std::uint32_t owner = group.binding->scope;
  for (std::uint32_t i : model.namesCalled(replacement)) {
    const NameUse &v = model.name(i);
    // The new name is already bound where ours is, or is used in code our binding would capture.
    if (model.resolve(v).scope == owner || within(model, v.scope, owner)) return true;
  }
  // A use of ours would see another binding of the new name first.
  for (const TSNode n : group.nodes) {
    const NameUse *u = model.nameAt(ts_node_start_byte(n));
    if (!u) continue;
    for (std::uint32_t s = u->scope; s != owner && s != 0; s = model.scopes()[s].parent)
      if (model.scopes()[s].bound.contains(replacement)) return true;
  }
  return false;
}

std::string_view roleWords(NameRole role) {
  switch (role) {
  case NameRole::Reference:
  case NameRole::Binding: return "a variable name";
  case NameRole::Parameter: return "a parameter name";
  case NameRole::FunctionName: return "a function name";
  case NameRole::ClassName: return "a class name";
  case NameRole::Declaration: return "a declared name";
  case NameRole::ImportedName: return "an imported name";
  case NameRole::AwaitName: return "a name outside `async def`";
  }
  return "a name";
}

/// What a project row adds to the title of its rename: the other files it edits, and why it is
/// unsafe.
std::string projectTitle(const RenameRow &row) {
  const auto files = [&](std::size_t from) {
    std::string out;
    for (std::size_t i = from; i < row.touches.size(); ++i)
      out += (i == from ? "" : i + 1 == row.touches.size() ? " and " : ", ") + ("`" + row.touches[i] + "`");
    return out;
  };
  if (row.kind == RenameRow::Kind::Keyword) {
    std::string out = " with `" + row.old + "=` at its calls in " + files(1);
    if (row.uncertain)
      out += " (" +
             (row.unresolved.empty() ? "a call elsewhere in the project may pass it without resolving to this function"
                                     : row.unresolved) +
             ")";
    return out;
  }
  std::string out = row.kind == RenameRow::Kind::Function ? " with its uses in " + files(1) : " in " + files(0);
  if (row.uncertain)
    out += " (" + (row.unresolved.empty() ? std::string("a use elsewhere may not reach it") : row.unresolved) + ")";
  return out;
}

/// The fix of `group`: every node spelt `replacement`, safe unless visible outside the file or
/// in conflict with a name already there. Takes out the tokens that rules above `rule` claim
/// first.
SharedFix renameFix(const Rule &rule, const SemanticModel &model, RenameGroup &group, std::string_view keyword,
                    Context &ctx) {
  // What AF201–AF203 claim they rename themselves (`kombu.async` among the `x.async` attributes).
  ctx.dropClaimedByOther(rule, kClaimRecordedToken, group.nodes);
  ctx.dropClaimedByOther(rule, kClaimRecordedToken, group.keywordNodes);
  if (!group.fixable || group.nodes.empty()) return std::nullopt;
  const RenameRow *row = group.projectRow;
  std::string replacement = row ? row->replacement : ctx.config().renamed(keyword);
  if (row && row->kind == RenameRow::Kind::Function) replacement.erase(0, replacement.rfind('.') + 1); // a path
  const bool conflict = renameConflicts(model, group, replacement, ctx.text());
  const bool incomplete = model.seenInError(keyword);
  Fix fix;
  fix.title = "Rename `" + std::string(keyword) + "` to `" + replacement + "`";
  if (row) fix.title += projectTitle(*row);
  // A project row's title already names the files where the new name is taken (cli/project.cpp).
  if (conflict && !row) fix.title += " (the name `" + replacement + "` is already used in this file)";
  else if (incomplete) fix.title += " (a syntax error elsewhere hides some uses of `" + std::string(keyword) + "`)";
  fix.applicability = group.visibleOutside || conflict || incomplete ? Applicability::Unsafe : Applicability::Safe;
  std::vector<TSNode> nodes = group.nodes;
  std::sort(nodes.begin(), nodes.end(),
            [](TSNode a, TSNode b) { return ts_node_start_byte(a) < ts_node_start_byte(b); });
  for (const TSNode n : nodes) {
    TextEdit e{ts_node_start_byte(n), ts_node_end_byte(n), replacement};
    if (fix.edits.empty() || fix.edits.back().start != e.start) fix.edits.push_back(std::move(e));
  }
  return fix;
}

Rename makeRename(const Rule &rule, const SemanticModel &model, RenameGroup group, std::string_view keyword,
                  Context &ctx) {
  Rename r;
  for (const TSNode n : group.nodes) r.starts.insert(ts_node_start_byte(n));
  r.group = std::move(group);
  r.fix = renameFix(rule, model, r.group, keyword, ctx);
  return r;
}

/// The rename of the binding `use` refers to, computed on first request.
const Rename &bindingRename(const Rule &rule, const SemanticModel &model, const NameUse &use, std::string_view keyword,
                            Context &ctx, RenameCache &cache) {
  const BindingKey key = model.resolve(use);
  const RenameCache::Key k{key.scope, key.name};
  if (const auto it = cache.bindings.find(k); it != cache.bindings.end()) return it->second;
  Rename r = makeRename(rule, model, bindingGroup(model, use, ctx.config()), keyword, ctx);
  return cache.bindings.emplace(k, std::move(r)).first->second;
}

/// What in the whole file keeps a keyword `NAME=` from keeping its key (empty: nothing): a
/// parameter or attribute of that name that this file or the project view renames — the keyword
/// may reach the parameter through `**kwargs`, or become the attribute
/// (`SimpleNamespace(NAME=…).NAME`), so it is renamed with them.
std::string fileBlocker(const Rule &rule, const SemanticModel &model, std::string_view keyword, Context &ctx) {
  const std::string name = "`" + std::string(keyword) + "`";
  for (std::uint32_t i : model.namesCalled(keyword)) {
    const NameUse &use = model.name(i);
    if (!use.inError && use.role == NameRole::Parameter)
      return "this file renames the parameter " + name + ", which it may reach through `**kwargs`";
  }
  // The attribute this rule renames: not the module paths AF201–AF203 rewrite (`m.async` of a module).
  RenameGroup members = memberGroup(model, keyword, ctx.config());
  ctx.dropClaimedByOther(rule, kClaimRecordedToken, members.nodes);
  if (!members.nodes.empty()) return "this file renames the attribute " + name + ", which it may set";
  for (const RenameRow &r : ctx.config().renames) {
    if (r.touches.empty() || r.old != keyword) continue;
    if (r.kind == RenameRow::Kind::Keyword)
      return "the project renames the parameter " + name + " of `" + r.owner +
             "`, which it may reach through `**kwargs` or an import";
    if (r.kind == RenameRow::Kind::Attribute) return "the project renames the attribute " + name + ", which it may set";
  }
  return {};
}

/// Why `NAME=` to a callee that takes no parameter NAME in this file cannot keep its key as
/// `**{"NAME": v}` (empty when it can): a `*` argument after it (unpacking cannot follow `**`), a
/// callee named nowhere in the file (`from pkg.m import *` brought it: the project view may
/// rename its parameter, and cannot tie this call to it), or fileBlocker's reason, computed once
/// per file.
std::string keepKeyBlocker(const Rule &rule, const SemanticModel &model, const KeywordUse &k, std::string_view keyword,
                           Context &ctx) {
  const TSNode keywordArgument = ts_node_parent(k.node);
  for (TSNode n = ts_node_next_named_sibling(keywordArgument); !ts_node_is_null(n); n = ts_node_next_named_sibling(n))
    if (ts_node_symbol(n) == Kinds::get().listSplat) return "a `*` argument follows it, which cannot follow `**{…}`";
  // `dict(NAME=…)` and `type(…, NAME=…)` are the builtins that take any keyword.
  if (k.calleeIsName && k.callee != "dict" && k.callee != "type") {
    const std::optional<BindingKey> callee = bindingAt(model, k.calleeNode);
    const auto binds = [](const NameUse *u) {
      return u->role != NameRole::Reference && u->role != NameRole::AwaitName && u->role != NameRole::Declaration;
    };
    if (callee && std::none_of(model.usesOf(*callee).begin(), model.usesOf(*callee).end(), binds))
      return "`" + std::string(k.callee) +
             "` is not defined in this file: a star import may bring it, its parameter renamed";
  }
  RenameCache &cache = ctx.state<RenameCache>(&rule);
  if (!cache.renamedElsewhere) cache.renamedElsewhere = fileBlocker(rule, model, keyword, ctx);
  return *cache.renamedElsewhere;
}

/// `callee(NAME=v)` where no parameter of the file binds it: `callee(**{"NAME": v})` passes the
/// very same key and value, also to a `**kwargs`, on every Python — where a rename would pass
/// another key. Else (keepKeyBlocker) the keyword is renamed, unsafely, with the reason.
Rename keywordAlone(const Rule &rule, const SemanticModel &model, const KeywordUse &k, std::string_view keyword,
                    Context &ctx) {
  const TSNode argument = ts_node_parent(k.node);
  const std::string blocker = keepKeyBlocker(rule, model, k, keyword, ctx);
  RenameGroup alone;
  alone.nodes = {k.node};
  alone.keywordNodes = {k.node};
  alone.visibleOutside = true; // the callee is defined elsewhere
  Rename r = makeRename(rule, model, std::move(alone), keyword, ctx);
  if (!r.fix) return r;
  if (!blocker.empty()) {
    r.fix.mutate().title += " (" + blocker + ")";
    return r;
  }
  const TSNode value = field(argument, "value");
  TSNode equals{};
  for (std::uint32_t i = 0, n = ts_node_child_count(argument); i < n; ++i)
    if (!ts_node_is_named(ts_node_child(argument, i))) equals = ts_node_child(argument, i);
  if (ts_node_is_null(value) || ts_node_is_null(equals)) return r;
  // `NAME = v` becomes `"NAME": v`; a comment between the two keeps its place.
  const std::string_view between =
      ctx.text().substr(ts_node_end_byte(k.node), ts_node_start_byte(value) - ts_node_end_byte(k.node));
  const bool plain = between.find_first_not_of(" \t=") == std::string_view::npos;
  Fix fix;
  fix.title =
      "Pass `" + std::string(keyword) + "` as `**{\"" + std::string(keyword) + "\": …}`, the same key for the callee";
  fix.applicability = Applicability::Safe;
  const std::string key = "**{\"" + std::string(keyword) + "\"";
  if (plain) {
    fix.edits.push_back({ts_node_start_byte(k.node), ts_node_start_byte(value), key + ": "});
  } else {
    fix.edits.push_back({ts_node_start_byte(k.node), ts_node_end_byte(k.node), key});
    fix.edits.push_back({ts_node_start_byte(equals), ts_node_end_byte(equals), ":"});
  }
  fix.edits.push_back({ts_node_end_byte(value), ts_node_end_byte(value), "}"});
  r.fix = std::move(fix);
  return r;
}

} // namespace

std::vector<TSSymbol> KeywordNameRule::subscriptions() const {
  const Kinds &k = Kinds::get();
  std::vector<TSSymbol> kinds = k.identifier;
  kinds.push_back(keyword_ == "async" ? k.anonAsync : k.anonAwait);
  return kinds;
}

void KeywordNameRule::check(TSNode node, Context &ctx) const {
  if (ts_node_is_named(node)) {
    if (textOf(node, ctx.text()) == keyword_) checkIdentifier(node, ctx);
  } else {
    checkToken(node, ctx);
  }
}

std::string KeywordNameRule::message(Context &ctx, std::string_view what) const {
  const bool reserved = ctx.config().keywordsReserved();
  // Appends rather than `"`" + std::string(…)`: GCC 12 -O3 warns falsely (-Wrestrict) on that.
  std::string m;
  m.append("`").append(keyword_).append("` ");
  m.append(reserved ? "is a reserved keyword since Python 3.7" : "becomes a reserved keyword in Python 3.7");
  m.append(" and cannot be ").append(what);
  return m;
}

namespace {

/// Whether the name `async`/`await` at `node` is certainly the keyword by its neighbours on its
/// line (`async def` starting a line, `await g()`): where the text has a syntax error elsewhere
/// (`x = f(` left open above an `async def`), tree-sitter's recovery may read the keyword as a
/// name, in an ERROR region or not, and no Python ever did. The prefilter rejects these words by
/// the same judgement. The verdict reads the line up to the next word, maybe another statement's.
bool keywordByNeighbours(TSNode node, Context &ctx) {
  const std::uint32_t start = ts_node_start_byte(node);
  ctx.dependsOnLine(start);
  return asyncfix::keywordByNeighbours(ctx.text(), start);
}

} // namespace

/// A keyword token. In a clean tree it is the keyword itself (`async def`, `await x`) — except
/// `await(x)`, `await[0]`, `await + 1` outside a coroutine, which legacy code meant as a name. Inside an ERROR region
/// the parser may have given up on a name: report it there, without a fix.
void KeywordNameRule::checkToken(TSNode token, Context &ctx) const {
  const std::string_view text = ctx.text();
  // Part of a longer name that the error recovery read from its middle (`!dasync`).
  if (!keywordStandsAlone(text, ts_node_start_byte(token), keyword_.size())) return;
  if (ctx.insideError()) {
    if (ctx.claimedByOther(*this, kClaimToken, token)) return; // AF101's `x.cuda(async=` unclosed
    const TSNode next = nextLeaf(token);
    if (!ts_node_is_null(next))
      ctx.dependsOn(ts_node_start_byte(next), ts_node_end_byte(next)); // maybe the next statement's
    const std::string_view following = ts_node_is_null(next) ? "" : textOf(next, text);
    if (keyword_ == "async" && (following == "def" || following == "for" || following == "with")) return;
    if (keyword_ == "await" && !ts_node_is_null(next) &&
        following.find_first_of("=),.:]}*/%@<>|&^!") != 0) // what only follows a name
      return;
    ctx.report(makeDiagnostic(info_, keywordSeverity(ctx.config()), token, message(ctx, "used as a name")));
    return;
  }
  if (keyword_ != "await") return;
  const auto ancestors = ctx.ancestors();
  if (ancestors.empty() || ts_node_symbol(ancestors.back()) != Kinds::get().await) return;
  // Cheap structural test before building the semantic model.
  const TSNode awaitNode = ancestors.back();
  if (ts_node_child_count(awaitNode) < 2 || !operandMakesAName(awaitNode, text)) return;
  const NameUse *use = ctx.semantic().nameAt(ts_node_start_byte(token));
  if (!use || use->role != NameRole::AwaitName) return;
  checkIdentifier(token, ctx);
}

void KeywordNameRule::checkIdentifier(TSNode node, Context &ctx) const {
  const Severity severity = keywordSeverity(ctx.config());
  // `x.cuda(async=…)` is AF101's (or AF102's), also when the call sits inside an ERROR region.
  const TSNode parent = ctx.ancestors().empty() ? TSNode{} : ctx.ancestors().back();
  if (!ts_node_is_null(parent) && ts_node_eq(field(parent, "name"), node) &&
      ctx.claimedByOther(*this, kClaimKeywordArgument, parent))
    return;
  if (ctx.claimedByOther(*this, kClaimStatement, node)) return; // AF105's shim
  // AF201–AF203's `import kombu.async`, `asyncio.async`…; in an ERROR region, AF101's.
  if (ctx.claimedByOther(*this, kClaimToken, node)) return;
  if (!keywordStandsAlone(ctx.text(), ts_node_start_byte(node), keyword_.size())) return; // (as in checkToken)
  if (keywordByNeighbours(node, ctx)) return;
  if (ctx.insideError()) {
    ctx.report(makeDiagnostic(info_, severity, node, message(ctx, "used as a name")));
    return;
  }
  const SemanticModel &model = ctx.semantic();
  RenameCache &cache = ctx.state<RenameCache>(this);
  const std::uint32_t start = ts_node_start_byte(node);
  std::optional<Rename> own; // a rename of this occurrence alone
  const Rename *rename = nullptr;
  std::string what;
  if (const KeywordUse *k = model.keywordAt(start)) {
    // `callee(NAME=…)`: the rename of the parameter it binds to, else the keyword alone.
    for (std::uint32_t i : model.namesCalled(k->name)) {
      const NameUse &use = model.name(i);
      if (use.role != NameRole::Parameter || use.inError) continue;
      const Rename &r = bindingRename(*this, model, use, keyword_, ctx, cache);
      if (r.starts.contains(start)) {
        rename = &r;
        break;
      }
    }
    if (!rename) rename = &own.emplace(keywordAlone(*this, model, *k, keyword_, ctx));
    what = "a keyword argument";
  } else if (model.attributeAt(start)) {
    if (!cache.member)
      cache.member = makeRename(*this, model, memberGroup(model, keyword_, ctx.config()), keyword_, ctx);
    rename = &*cache.member;
    what = "an attribute name";
  } else if (const NameUse *use = model.nameAt(start)) {
    rename = &bindingRename(*this, model, *use, keyword_, ctx, cache);
    what = roleWords(use->role);
    what = "used as " + what;
  } else {
    what = "part of a module path"; // `import kombu.async`: no fix
  }
  Diagnostic d = makeDiagnostic(info_, severity, node, message(ctx, what));
  if (rename) d.fix = rename->fix; // shared, not copied
  ctx.report(std::move(d));
}

} // namespace asyncfix::rules
