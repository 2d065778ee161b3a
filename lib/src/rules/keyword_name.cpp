#include "rules/keyword_name.h"

#include <algorithm>

#include "rules/torch_api.h"
#include "syntax.h"

namespace asyncfix::rules {
namespace {

/// A rename: the nodes to rewrite and whether the result is visible outside the file.
struct RenameGroup {
  std::vector<TSNode> nodes;
  bool fixable = true;
  bool visibleOutside = false;
};

bool isPrivateName(std::string_view name) {
  return name.starts_with("_") && !(name.starts_with("__") && name.ends_with("__"));
}

bool isLocalScope(ScopeKind kind) {
  return kind == ScopeKind::Function || kind == ScopeKind::Lambda || kind == ScopeKind::Comprehension;
}

/// The function (or class, for `__init__`) name that call sites use to call `scope`.
std::string_view callName(const SemanticModel &model, const Scope &scope) {
  if (scope.kind != ScopeKind::Function) return {};
  if (scope.name == "__init__" && scope.parent != 0 &&
      model.scopes()[scope.parent].kind == ScopeKind::Class)
    return model.scopes()[scope.parent].name;
  return scope.name;
}

void addAttributeUses(const SemanticModel &model, std::string_view name, RenameGroup &group) {
  for (const AttributeUse &a : model.attributes())
    if (a.name == name && !a.inError) group.nodes.push_back(a.node);
}

/// All uses of the binding `use` refers to, plus what is tied to it: call-site keywords of a
/// parameter, attribute spellings of a class member.
RenameGroup bindingGroup(const SemanticModel &model, const NameUse &use) {
  RenameGroup group;
  const BindingKey key = model.resolve(use);
  const Scope &scope = model.scopes()[key.scope];
  bool isParameter = false, boundHere = false;
  for (const NameUse *u : model.usesOf(key)) {
    group.nodes.push_back(u->node);
    if (u->role == NameRole::ImportedName) group.fixable = false;
    if (u->role == NameRole::Parameter) isParameter = true;
    if (u->role != NameRole::Reference && u->role != NameRole::AwaitName &&
        u->role != NameRole::Declaration)
      boundHere = true;
  }
  group.visibleOutside = !isLocalScope(scope.kind) || !boundHere;
  if (isParameter) {
    if (scope.kind == ScopeKind::Function && !isPrivateName(scope.name)) group.visibleOutside = true;
    const std::string_view callee = callName(model, scope);
    for (const KeywordUse &k : model.keywords())
      if (!callee.empty() && k.callee == callee && k.name == key.name && !k.inError)
        group.nodes.push_back(k.node);
  }
  if (scope.kind == ScopeKind::Class) addAttributeUses(model, key.name, group);
  return group;
}

/// `obj.NAME`: every attribute spelt NAME and every class-level binding of NAME.
RenameGroup memberGroup(const SemanticModel &model, std::string_view name) {
  RenameGroup group;
  group.visibleOutside = true;
  addAttributeUses(model, name, group);
  for (std::uint32_t i : model.namesCalled(name)) {
    const NameUse &use = model.names()[i];
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

/// `callee(NAME=…)`: the parameter of a function in this file it binds to, else the keyword alone.
RenameGroup keywordGroup(const SemanticModel &model, const KeywordUse &keyword) {
  if (!keyword.callee.empty()) {
    for (std::uint32_t i : model.namesCalled(keyword.name)) {
      const NameUse &use = model.names()[i];
      if (use.role == NameRole::Parameter && !use.inError &&
          callName(model, model.scopes()[use.scope]) == keyword.callee)
        return bindingGroup(model, use);
    }
  }
  return RenameGroup{{keyword.node}, true, true};
}

std::string_view roleWords(NameRole role) {
  switch (role) {
  case NameRole::Reference: return "a variable name";
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
  const bool reserved = ctx.config().target >= PythonVersion{3, 7};
  // Appends rather than `"`" + std::string(…)`: GCC 12 -O3 warns falsely (-Wrestrict) on that.
  std::string m;
  m.append("`").append(keyword_).append("` ");
  m.append(reserved ? "is a reserved keyword since Python 3.7" : "becomes a reserved keyword in Python 3.7");
  m.append(" and cannot be ").append(what);
  return m;
}

/// A keyword token. In a clean tree it is the keyword itself (`async def`, `await x`) — except
/// `await(x)`, `await[0]`, `await + 1` outside a coroutine, which legacy code meant as a name. Inside an ERROR region the
/// parser may have given up on a name: report it there, without a fix.
void KeywordNameRule::checkToken(TSNode token, Context &ctx) const {
  const std::string_view text = ctx.text();
  if (ctx.insideError()) {
    const TSNode next = nextLeaf(token);
    const std::string_view following = ts_node_is_null(next) ? "" : textOf(next, text);
    if (keyword_ == "async" && (following == "def" || following == "for" || following == "with")) return;
    if (keyword_ == "await" && !ts_node_is_null(next) &&
        following.find_first_of("=),.:]}*/%@<>|&^!") != 0) // what only follows a name
      return;
    ctx.report(makeDiagnostic(info_, keywordSeverity(ctx.config()), token,
                              message(ctx, "used as a name")));
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
  // `x.cuda(async=…)` is AF101's, also when the call sits inside an ERROR region.
  const TSNode parent = ctx.ancestors().empty() ? TSNode{} : ctx.ancestors().back();
  if (!ts_node_is_null(parent) && ts_node_eq(field(parent, "name"), node) &&
      isTorchAsyncKeyword(parent, ctx.text()))
    return;
  if (ctx.insideError()) {
    ctx.report(makeDiagnostic(info_, severity, node, message(ctx, "used as a name")));
    return;
  }
  const SemanticModel &model = ctx.semantic();
  const std::uint32_t start = ts_node_start_byte(node);
  RenameGroup group;
  std::string what;
  if (const KeywordUse *k = model.keywordAt(start)) {
    group = keywordGroup(model, *k);
    what = "a keyword argument";
  } else if (model.attributeAt(start)) {
    group = memberGroup(model, keyword_);
    what = "an attribute name";
  } else if (const NameUse *use = model.nameAt(start)) {
    group = bindingGroup(model, *use);
    what = roleWords(use->role);
    what = "used as " + what;
  } else {
    group.fixable = false; // a module path: `import kombu.async`
    what = "part of a module path";
  }
  Diagnostic d = makeDiagnostic(info_, severity, node, message(ctx, what));
  if (group.fixable && !group.nodes.empty()) {
    const std::string replacement = ctx.config().renamed(keyword_);
    const bool conflict = model.identifierExists(replacement);
    const bool incomplete = model.seenInError(keyword_);
    Fix fix;
    fix.title = "Rename `" + std::string(keyword_) + "` to `" + replacement + "`";
    if (conflict) fix.title += " (the name `" + replacement + "` is already used in this file)";
    else if (incomplete)
      fix.title += " (a syntax error elsewhere hides some uses of `" + std::string(keyword_) + "`)";
    fix.applicability =
        group.visibleOutside || conflict || incomplete ? Applicability::Unsafe : Applicability::Safe;
    std::sort(group.nodes.begin(), group.nodes.end(), [](TSNode a, TSNode b) {
      return ts_node_start_byte(a) < ts_node_start_byte(b);
    });
    for (const TSNode n : group.nodes) {
      TextEdit e{ts_node_start_byte(n), ts_node_end_byte(n), replacement};
      if (fix.edits.empty() || fix.edits.back().start != e.start) fix.edits.push_back(std::move(e));
    }
    d.fix = std::move(fix);
  }
  ctx.report(std::move(d));
}

} // namespace asyncfix::rules
