#include "rules/torch_api.h"

#include "text/syntax.h"

namespace asyncfix::rules {
namespace {

constexpr char kOriginsKey = 0;

struct Origins {
  std::optional<NameOrigins> origins;
};

bool bindingRole(NameRole role) {
  return role == NameRole::Binding || role == NameRole::Parameter || role == NameRole::FunctionName ||
         role == NameRole::ClassName || role == NameRole::ImportedName;
}

std::string_view firstComponent(std::string_view path) { return path.substr(0, path.find('.')); }

} // namespace

NameOrigins &torchOrigins(Context &ctx) {
  Origins &o = ctx.state<Origins>(&kOriginsKey);
  if (!o.origins) {
    const std::optional<std::string> &package = ctx.config().package;
    o.origins.emplace(ctx.text(), ctx.semantic(),
                      package ? std::optional<std::string_view>(*package) : std::optional<std::string_view>{});
  }
  return *o.origins;
}

ResolvedPath resolvedPath(TSNode expression, Context &ctx) {
  const Origin o = torchOrigins(ctx).of(expression);
  if (o.kind != Origin::Kind::Path) return {};
  return {o.path, o.literal ? Resolved::Guess : Resolved::Proven};
}

Resolved resolvesTo(TSNode expression, std::string_view path, Context &ctx) {
  const ResolvedPath r = resolvedPath(expression, ctx);
  if (r.how == Resolved::No) return Resolved::No;
  if (r.how == Resolved::Proven) return r.path == path ? Resolved::Proven : Resolved::No;
  // Spelt without a binding of its first name: `Scale` after `from torchvision.transforms import
  // *`, `transforms.Scale` after `from torchvision import *`.
  const bool suffix = r.path == path || (path.size() > r.path.size() && path.ends_with(r.path) &&
                                         path[path.size() - r.path.size() - 1] == '.');
  return suffix && fileImports(firstComponent(path), ctx) ? Resolved::Guess : Resolved::No;
}

bool fileImports(std::string_view package, Context &ctx) { return torchOrigins(ctx).imports(package); }

bool namesModuleEverywhere(std::string_view name, Context &ctx) {
  const SemanticModel &model = ctx.semantic();
  bool atModuleLevel = false;
  for (const std::uint32_t i : model.namesCalled(name)) {
    const NameUse &use = model.name(i);
    if (use.inError) return false;
    if (use.role == NameRole::Declaration) return false;
    if (!bindingRole(use.role)) continue;
    if ((use.role != NameRole::ImportedName && use.role != NameRole::Binding) || use.qualified != name) return false;
    atModuleLevel = atModuleLevel || use.scope == 0;
  }
  return atModuleLevel;
}

bool bindsName(std::string_view name, Context &ctx) {
  const SemanticModel &model = ctx.semantic();
  if (model.seenInError(name) || model.definitionsNamed(name) > 0) return true;
  for (const std::uint32_t i : model.namesCalled(name))
    if (bindingRole(model.name(i).role) || model.name(i).role == NameRole::Declaration) return true;
  return false;
}

bool definesParameter(std::string_view function, std::string_view parameter, Context &ctx) {
  const SemanticModel &model = ctx.semantic();
  for (const std::uint32_t i : model.namesCalled(parameter)) {
    const NameUse &use = model.name(i);
    if (use.role == NameRole::Parameter && model.scopes()[use.scope].name == function) return true;
  }
  return false;
}

bool isCalled(TSNode expression, Context &ctx) {
  const TSNode parent = ctx.parentOf(expression);
  return symbolOf(parent) == Kinds::get().call && ts_node_eq(field(parent, "function"), expression);
}

bool rootBoundByImport(TSNode expression, Context &ctx) {
  TSNode root = expression;
  for (int steps = 0; symbolOf(root) == Kinds::get().attribute && steps < 4096; ++steps) root = field(root, "object");
  if (!isIdentifier(root)) return false;
  const SemanticModel &model = ctx.semantic();
  const NameUse *use = model.nameAt(ts_node_start_byte(root));
  if (!use) return false;
  for (const NameUse *b : model.usesOf(model.resolve(*use)))
    if (b->role == NameRole::ImportedName || !b->qualified.empty()) return true;
  return false;
}

TSNode keywordArgument(TSNode args, std::string_view name, std::string_view text) {
  const Kinds &k = Kinds::get();
  for (std::uint32_t i = 0, n = ts_node_named_child_count(args); i < n; ++i) {
    const TSNode a = ts_node_named_child(args, i);
    if (symbolOf(a) == k.keywordArgument && textOf(fieldOf(a, "name"), text) == name) return a;
  }
  return TSNode{};
}

bool hasDictionarySplat(TSNode args) {
  for (std::uint32_t i = 0, n = ts_node_named_child_count(args); i < n; ++i)
    if (isType(ts_node_named_child(args, i), "dictionary_splat")) return true;
  return false;
}

std::optional<bool> literalBool(TSNode value, std::string_view text) {
  const std::string_view t = textOf(value, text);
  if (isType(value, "true") || t == "True") return true;
  if (isType(value, "false") || t == "False") return false;
  return std::nullopt;
}

TSNode callOfArguments(TSNode args, Context &ctx) {
  if (symbolOf(args) != Kinds::get().argumentList) return TSNode{};
  const TSNode call = ctx.parentOf(args);
  return symbolOf(call) == Kinds::get().call ? call : TSNode{};
}

} // namespace asyncfix::rules
