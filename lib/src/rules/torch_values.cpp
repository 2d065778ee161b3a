#include "rules/torch_values.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "rules/torch_api.h"
#include "text/syntax.h"

namespace asyncfix::rules {
namespace {

constexpr int kMaxDepth = 8;

TSSymbol named(const char *name) {
  return ts_language_symbol_for_name(tree_sitter_python(), name, static_cast<std::uint32_t>(std::strlen(name)), true);
}

template <std::size_t N> bool in(const std::array<std::string_view, N> &set, std::string_view s) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

/// Methods that give back a tensor of the receiver's shape (moves, copies, casts).
constexpr std::array<std::string_view, 9> kShapeKeeping{"cuda",   "cpu",  "to",    "detach",    "float",
                                                        "double", "half", "clone", "contiguous"};

/// Reductions that give one element when called without `dim` (and, for norm/std/var, with at
/// most the one positional argument that is not a dimension: `p`, `unbiased`).
constexpr std::array<std::string_view, 9> kReductions{"sum",    "mean", "prod", "max", "min",
                                                      "median", "norm", "std",  "var"};
constexpr std::array<std::string_view, 3> kOneOptionalPositional{"norm", "std", "var"};

/// torch.nn.functional's losses whose names do not end with `_loss`.
constexpr std::array<std::string_view, 4> kFunctionalLosses{"cross_entropy", "binary_cross_entropy",
                                                            "binary_cross_entropy_with_logits", "kl_div"};

bool isStringLiteral(TSNode n, std::string_view text, std::string_view content) {
  if (symbolOf(n) != Kinds::get().string) return false;
  const std::string_view t = textOf(n, text);
  return t.size() == content.size() + 2 && t.substr(1, content.size()) == content &&
         (t.front() == '\'' || t.front() == '"');
}

/// A loss call or construction that keeps its reduction: no `reduction=` other than 'mean' or
/// 'sum', no `reduce=` other than True (0.3's way to ask for per-element losses).
bool keepsReduction(TSNode call, std::string_view text) {
  if (positionalCount(call) >= 99) return false;
  const TSNode reduction = keywordOfCall(call, "reduction", text);
  if (!ts_node_is_null(reduction)) {
    const TSNode value = field(reduction, "value");
    if (!isStringLiteral(value, text, "mean") && !isStringLiteral(value, text, "sum")) return false;
  }
  const TSNode reduce = keywordOfCall(call, "reduce", text);
  return ts_node_is_null(reduce) || textOf(field(reduce, "value"), text) == "True";
}

bool hasDim(TSNode call, std::string_view text) {
  return !ts_node_is_null(keywordOfCall(call, "dim", text)) || !ts_node_is_null(keywordOfCall(call, "axis", text));
}

/// `nn.CrossEntropyLoss(...)` (moved to a device or not), keeping its reduction.
bool isLossConstruction(TSNode e, Context &ctx) {
  e = withoutMoves(e, ctx.text());
  if (symbolOf(e) != Kinds::get().call) return false;
  const std::string q = torchName(field(e, "function"), ctx);
  return q.starts_with("torch.nn.") && q.ends_with("Loss") && keepsReduction(e, ctx.text());
}

/// A name every assignment of which builds a PyTorch loss module.
bool isLossName(TSNode name, Context &ctx) {
  const auto values = boundValues(name, ctx);
  if (!values) return false;
  bool built = false;
  for (const TSNode v : *values) {
    // `criterion = criterion.cuda()` moves what the other assignments built.
    const TSNode moved = withoutMoves(v, ctx.text());
    if (isIdentifier(moved) && textOf(moved, ctx.text()) == textOf(name, ctx.text())) continue;
    if (!isLossConstruction(v, ctx)) return false;
    built = true;
  }
  return built;
}

/// A callee that is a PyTorch loss module: built in place, a name every assignment of which
/// builds one, or a parameter to which every call of its function in the file passes one
/// (`train(loader, model, criterion, optimizer)`).
bool isLossModule(TSNode callee, Context &ctx) {
  callee = withoutMoves(callee, ctx.text());
  if (symbolOf(callee) == Kinds::get().call) return isLossConstruction(callee, ctx);
  if (!isIdentifier(callee)) return false;
  if (isLossName(callee, ctx)) return true;
  const auto arguments = parameterArguments(callee, ctx);
  return arguments && std::all_of(arguments->begin(), arguments->end(), [&](TSNode a) {
           a = withoutMoves(a, ctx.text());
           return isIdentifier(a) ? isLossName(a, ctx) : isLossConstruction(a, ctx);
         });
}

bool isNumber(TSNode e) {
  const TorchKinds &t = TorchKinds::get();
  const TSSymbol s = symbolOf(e);
  return s == t.integer || s == t.floatLiteral;
}

bool isOneElementCall(TSNode call, Context &ctx) {
  const std::string_view text = ctx.text();
  const TSNode fn = field(call, "function");
  const std::string q = torchName(fn, ctx);
  if (q.starts_with("torch.nn.functional.")) {
    const std::string_view f = std::string_view(q).substr(std::strlen("torch.nn.functional."));
    return (f.ends_with("_loss") || in(kFunctionalLosses, f)) && keepsReduction(call, text);
  }
  if (q.starts_with("torch.") && q.find('.', 6) == std::string::npos) // torch.sum(x)
    return in(kReductions, std::string_view(q).substr(6)) && positionalCount(call) == 1 && !hasDim(call, text);
  if (symbolOf(fn) == Kinds::get().attribute) {
    const std::string_view method = textOf(field(fn, "attribute"), text);
    if (in(kReductions, method) && !hasDim(call, text)) {
      const unsigned positional = positionalCount(call);
      if (positional == 0 || (positional == 1 && in(kOneOptionalPositional, method))) return true;
    }
  }
  return isLossModule(fn, ctx);
}

} // namespace

const TorchKinds &TorchKinds::get() {
  static const TorchKinds kinds{
      named("subscript"),       named("slice"),           named("integer"),          named("float"),
      named("binary_operator"), named("unary_operator"),  named("interpolation"),    named("expression_statement"),
      named("decorator"),       named("while_statement"), named("dictionary_splat"), named("conditional_expression")};
  return kinds;
}

std::optional<std::vector<TSNode>> boundValues(TSNode identifier, Context &ctx) {
  const SemanticModel &model = ctx.semantic();
  const NameUse *use = model.nameAt(ts_node_start_byte(identifier));
  if (!use || use->inError) return std::nullopt;
  std::vector<TSNode> values;
  for (const NameUse *u : model.usesOf(model.resolve(*use))) {
    if (u->role == NameRole::Reference) continue;
    if (u->role != NameRole::Binding || ts_node_is_null(u->value) || u->iterated) return std::nullopt;
    values.push_back(u->value);
  }
  if (values.empty()) return std::nullopt;
  return values;
}

TSNode withoutMoves(TSNode e, std::string_view text) {
  const Kinds &k = Kinds::get();
  for (int steps = 0; steps < 64 && !ts_node_is_null(e); ++steps) {
    if (ts_node_symbol(e) == k.parenthesizedExpression && ts_node_named_child_count(e) == 1) {
      e = ts_node_named_child(e, 0);
      continue;
    }
    if (ts_node_symbol(e) != k.call) break;
    const TSNode fn = field(e, "function");
    if (symbolOf(fn) != k.attribute || !in(kShapeKeeping, textOf(field(fn, "attribute"), text))) break;
    e = field(fn, "object");
  }
  return e;
}

std::string torchName(TSNode callee, Context &ctx) {
  if (ts_node_is_null(callee)) return {};
  return ctx.receivers().qualifiedName(callee);
}

TSNode keywordOfCall(TSNode call, std::string_view name, std::string_view text) {
  const TSNode args = field(call, "arguments");
  if (symbolOf(args) != Kinds::get().argumentList) return TSNode{};
  return keywordArgument(args, name, text);
}

unsigned positionalCount(TSNode call) {
  const Kinds &k = Kinds::get();
  const TSNode args = field(call, "arguments");
  if (symbolOf(args) != k.argumentList) return 99; // a generator argument: f(x for x in y)
  unsigned count = 0;
  for (std::uint32_t i = 0, n = ts_node_named_child_count(args); i < n; ++i) {
    const TSSymbol s = ts_node_symbol(ts_node_named_child(args, i));
    if (s == k.listSplat || s == TorchKinds::get().dictionarySplat) return 99;
    if (s != k.keywordArgument && s != k.comment) ++count;
  }
  return count;
}

bool isOneElementTensor(TSNode e, Context &ctx, int depth) {
  if (depth > kMaxDepth) return false;
  e = withoutMoves(e, ctx.text());
  if (ts_node_is_null(e)) return false;
  const Kinds &k = Kinds::get();
  const TorchKinds &t = TorchKinds::get();
  const TSSymbol s = ts_node_symbol(e);
  if (isIdentifier(e)) {
    const auto values = boundValues(e, ctx);
    return values &&
           std::all_of(values->begin(), values->end(), [&](TSNode v) { return isOneElementTensor(v, ctx, depth + 1); });
  }
  if (s == k.call) return isOneElementCall(e, ctx);
  if (s == t.unaryOperator) return isOneElementTensor(field(e, "argument"), ctx, depth + 1);
  if (s == t.binaryOperator) {
    const std::string_view op = textOf(field(e, "operator"), ctx.text());
    if (op != "+" && op != "-" && op != "*" && op != "/") return false;
    const TSNode left = withoutMoves(field(e, "left"), ctx.text()), right = withoutMoves(field(e, "right"), ctx.text());
    const bool l = isOneElementTensor(left, ctx, depth + 1), r = isOneElementTensor(right, ctx, depth + 1);
    return (l && r) || (l && isNumber(right)) || (r && isNumber(left));
  }
  return false;
}

TSNode argumentFor(TSNode call, std::uint32_t index, std::string_view name, std::string_view text) {
  const TSNode keyword = keywordOfCall(call, name, text);
  if (!ts_node_is_null(keyword)) return field(keyword, "value");
  const TSNode args = field(call, "arguments");
  std::uint32_t positional = 0;
  for (std::uint32_t i = 0, n = ts_node_named_child_count(args); i < n; ++i) {
    const TSNode arg = ts_node_named_child(args, i);
    if (symbolOf(arg) == Kinds::get().keywordArgument || symbolOf(arg) == Kinds::get().comment) continue;
    if (symbolOf(arg) == Kinds::get().listSplat) return TSNode{};
    if (positional++ == index) return arg;
  }
  return TSNode{};
}

std::optional<std::vector<TSNode>> parameterArguments(TSNode identifier, Context &ctx) {
  const SemanticModel &model = ctx.semantic();
  const std::string_view text = ctx.text();
  const NameUse *use = model.nameAt(ts_node_start_byte(identifier));
  if (!use || use->inError) return std::nullopt;
  const BindingKey key = model.resolve(*use);
  const NameUse *parameter = nullptr;
  for (const NameUse *u : model.usesOf(key)) {
    if (u->role == NameRole::Reference) continue;
    if (u->role != NameRole::Parameter || parameter) return std::nullopt;
    parameter = u;
  }
  if (!parameter || key.scope == 0) return std::nullopt;
  const Scope &function = model.scopes()[key.scope];
  if (function.kind != ScopeKind::Function || ts_node_is_null(function.nameNode)) return std::nullopt;
  const TSNode params = field(function.node, "parameters");
  std::optional<std::uint32_t> index;
  for (std::uint32_t i = 0, n = ts_node_named_child_count(params); i < n && !index; ++i) {
    const TSNode param = ts_node_named_child(params, i);
    const TSNode name = isIdentifier(param) ? param : field(param, "name");
    if (ts_node_eq(name, parameter->node)) index = i;
  }
  const NameUse *fn = model.nameAt(ts_node_start_byte(function.nameNode));
  if (!index || !fn) return std::nullopt;
  std::vector<TSNode> arguments;
  for (const NameUse *u : model.usesOf(model.resolve(*fn))) {
    if (u->role != NameRole::Reference) continue;
    const TSNode call = ts_node_parent(u->node);
    if (symbolOf(call) != Kinds::get().call || !ts_node_eq(field(call, "function"), u->node)) continue;
    const TSNode argument = argumentFor(call, *index, parameter->name, text);
    if (ts_node_is_null(argument)) return std::nullopt;
    arguments.push_back(argument);
  }
  if (arguments.empty()) return std::nullopt;
  return arguments;
}

TSNode topLevelStatement(TSNode node, const Context &ctx) {
  const std::span<const TSNode> ancestors = ctx.ancestors();
  return ancestors.size() >= 2 ? ancestors[1] : node;
}

} // namespace asyncfix::rules
