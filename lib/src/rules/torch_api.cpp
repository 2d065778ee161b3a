#include "rules/torch_api.h"

#include <algorithm>
#include <array>

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

namespace {

constexpr char kStarRunKey = 0;

/// provenOrStar's runs, while they last: whether the first consulted a name the file binds
/// nowhere (only then can a star import change its answer), and what the second went through.
struct StarRun {
  bool on = false, unbound = false;
  std::string_view module, written;
};

/// The packages whose star imports may provide a name a rule of the family resolves.
constexpr std::array<std::string_view, 4> kStarPackages{"torch", "torchvision", "numpy", "scipy"};

/// What the name at the root of `expression` is: a Path origin spelt as written when the file
/// binds it nowhere in scope (NameOrigins' literal origins).
std::optional<std::string> unboundPath(TSNode expression, Context &ctx) {
  const Origin o = torchOrigins(ctx).of(expression);
  if (o.kind != Origin::Kind::Path || !o.literal) return std::nullopt;
  return o.path;
}

} // namespace

ResolvedPath resolvedPath(TSNode expression, Context &ctx) {
  const Origin o = torchOrigins(ctx).of(expression);
  if (o.kind != Origin::Kind::Path) return {};
  return {o.path, o.literal ? Resolved::Star : Resolved::Proven};
}

std::string_view starImportFor(TSNode expression, std::string_view path, Context &ctx) {
  const std::optional<std::string> written = unboundPath(expression, ctx);
  if (!written || path.size() <= written->size() + 1 || !path.ends_with(*written) ||
      path[path.size() - written->size() - 1] != '.')
    return {};
  const std::string_view module = path.substr(0, path.size() - written->size() - 1);
  for (const std::string_view m : torchOrigins(ctx).starImports(firstComponent(path)))
    if (m == module) return m;
  return {};
}

Resolved resolvesTo(TSNode expression, std::string_view path, Context &ctx) {
  const Origin o = torchOrigins(ctx).of(expression);
  if (o.kind != Origin::Kind::Path) return Resolved::No;
  if (!o.literal) return o.path == path ? Resolved::Proven : Resolved::No;
  return starImportFor(expression, path, ctx).empty() ? Resolved::No : Resolved::Star;
}

std::string starMessage(std::string_view written, std::string_view module) {
  std::string m = "`";
  m.append(written).append("` may be ").append(module).append("'s through `from ").append(module);
  m.append(" import *` (no fix: the file does not show where the name comes from); ");
  return m;
}

std::string starMessageFor(TSNode expression, std::string_view path, Context &ctx) {
  return starMessage(textOf(expression, ctx.text()), starImportFor(expression, path, ctx));
}

namespace detail {

void beginProvenRun(Context &ctx) { ctx.state<StarRun>(&kStarRunKey) = {}; }

bool beginStarRun(Context &ctx) {
  StarRun &run = ctx.state<StarRun>(&kStarRunKey);
  // Asked only when the first run consulted a name bound nowhere: the star imports are then a
  // dependency of the answer (a query of the model's facts), and otherwise not.
  if (!run.unbound) return false;
  NameOrigins &origins = torchOrigins(ctx);
  if (std::all_of(kStarPackages.begin(), kStarPackages.end(),
                  [&](std::string_view p) { return origins.starImports(p).empty(); })) {
    run = {};
    return false;
  }
  run = {true, false, {}, {}};
  return true;
}

Provenance endStarRun(Context &ctx, bool held) {
  StarRun &run = ctx.state<StarRun>(&kStarRunKey);
  const Provenance p = held && !run.module.empty() ? Provenance{Resolved::Star, run.module, run.written} : Provenance{};
  run = {};
  return p;
}

std::vector<std::string> starCandidates(TSNode expression, Context &ctx) {
  StarRun &run = ctx.state<StarRun>(&kStarRunKey);
  const std::optional<std::string> written = unboundPath(expression, ctx);
  if (!written) return {};
  if (!run.on) {
    run.unbound = true;
    return {};
  }
  std::vector<std::string> out;
  for (const std::string_view p : kStarPackages)
    for (const std::string_view m : torchOrigins(ctx).starImports(p)) out.push_back(std::string(m) + "." + *written);
  return out;
}

void usedStar(TSNode expression, std::string_view path, Context &ctx) {
  StarRun &run = ctx.state<StarRun>(&kStarRunKey);
  if (!run.module.empty()) return;
  for (const std::string_view p : kStarPackages)
    for (const std::string_view m : torchOrigins(ctx).starImports(p))
      if (path.size() > m.size() && path.starts_with(m) && path[m.size()] == '.') {
        run.module = m;
        run.written = textOf(expression, ctx.text());
        return;
      }
}

std::string qualifiedName(TSNode expression, Context &ctx) { return ctx.receivers().qualifiedName(expression); }

} // namespace detail

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
