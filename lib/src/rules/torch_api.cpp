#include "rules/torch_api.h"

#include "rules/rule.h"
#include "syntax.h"

namespace asyncfix::rules {
namespace {

/// The first keyword argument named `name` in the subtree of `node` (iterative walk).
TSNode findKeyword(TSNode node, std::string_view name, std::string_view text) {
  return findNode(node, [&](TSNode n) {
    return ts_node_symbol(n) == Kinds::get().keywordArgument && textOf(field(n, "name"), text) == name;
  });
}

bool catchesTypeError(TSNode exceptClause, std::string_view text) {
  const TSNode value = field(exceptClause, "value");
  if (ts_node_is_null(value)) return false;
  const std::string_view caught = textOf(value, text);
  return caught == "TypeError" || (caught.starts_with("(") && caught.find("TypeError") != std::string_view::npos);
}

} // namespace

std::string_view calledMethod(TSNode keywordArgument, std::string_view text) {
  const TSNode args = ts_node_parent(keywordArgument);
  if (ts_node_is_null(args) || ts_node_symbol(args) != Kinds::get().argumentList) return {};
  const TSNode call = ts_node_parent(args);
  if (ts_node_is_null(call) || ts_node_symbol(call) != Kinds::get().call) return {};
  const TSNode fn = field(call, "function");
  if (ts_node_symbol(fn) != Kinds::get().attribute) return {};
  return textOf(field(fn, "attribute"), text);
}

bool isUnsupportedNonBlocking(TSNode keywordArgument, Context &ctx) {
  if (ts_node_symbol(keywordArgument) != Kinds::get().keywordArgument) return false;
  const std::string_view name = textOf(field(keywordArgument, "name"), ctx.text());
  if (name != "async" && name != "non_blocking") return false;
  const std::string_view method = calledMethod(keywordArgument, ctx.text());
  if (method == "cpu") {
    // Unless the file defines a `cpu` that takes it (a class of its own with that method).
    for (std::uint32_t i : ctx.semantic().namesCalled(name)) {
      const NameUse &use = ctx.semantic().name(i);
      if (use.role == NameRole::Parameter && ctx.semantic().scopes()[use.scope].name == "cpu") return false;
    }
    return true;
  }
  if (method != "cuda") return false;
  const TSNode receiver = field(field(ts_node_parent(ts_node_parent(keywordArgument)), "function"), "object");
  return ctx.receivers().kindOf(receiver) == ValueKind::Module;
}

std::optional<AsyncShim> asyncShim(TSNode tryStatement, std::string_view text) {
  const Kinds &k = Kinds::get();
  TSNode body{}, handler{};
  for (std::uint32_t i = 0, n = ts_node_named_child_count(tryStatement); i < n; ++i) {
    const TSNode child = ts_node_named_child(tryStatement, i);
    const std::string_view type = ts_node_type(child);
    if (ts_node_symbol(child) == k.block) body = child;
    else if (type == "except_clause" && ts_node_is_null(handler)) handler = child;
    else if (type == "except_clause" || type == "else_clause" || type == "finally_clause") return std::nullopt;
    else if (ts_node_symbol(child) != k.comment) return std::nullopt;
  }
  if (ts_node_is_null(body) || ts_node_is_null(handler) || !catchesTypeError(handler, text)) return std::nullopt;
  TSNode handlerBlock{};
  for (std::uint32_t i = 0, n = ts_node_named_child_count(handler); i < n; ++i)
    if (ts_node_symbol(ts_node_named_child(handler, i)) == k.block) handlerBlock = ts_node_named_child(handler, i);
  if (ts_node_is_null(handlerBlock)) return std::nullopt;
  AsyncShim shim;
  shim.tryStatement = tryStatement;
  if (!ts_node_is_null(findKeyword(body, "non_blocking", text))) {
    const TSNode async = findKeyword(handlerBlock, "async", text);
    if (ts_node_is_null(async)) return std::nullopt;
    shim.keep = body;
    shim.fallback = handlerBlock;
    shim.asyncName = field(async, "name");
  } else if (!ts_node_is_null(findKeyword(handlerBlock, "non_blocking", text))) {
    const TSNode async = findKeyword(body, "async", text);
    if (ts_node_is_null(async)) return std::nullopt;
    shim.keep = handlerBlock;
    shim.fallback = body;
    shim.asyncName = field(async, "name");
  } else {
    return std::nullopt;
  }
  return shim;
}

bool insideAsyncShim(TSNode node, const Context &ctx) {
  const auto ancestors = ctx.ancestors();
  for (std::size_t i = ancestors.size(); i-- > 0;) {
    if (std::string_view(ts_node_type(ancestors[i])) != "try_statement") continue;
    const auto shim = asyncShim(ancestors[i], ctx.text());
    if (!shim) return false;
    const std::uint32_t at = ts_node_start_byte(node);
    return at >= ts_node_start_byte(shim->fallback) && at < ts_node_end_byte(shim->fallback);
  }
  return false;
}

} // namespace asyncfix::rules
