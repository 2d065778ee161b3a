// rules/torch_values.h — what the PyTorch-migration rules (AF30x) ask about values: which
// expressions a name is bound to, which calls are PyTorch's, which tensors hold one element.
// Private; no rule logic (what to report is each rule's).
//
// Everything here reads the file as the semantic model and receivers.h do: flow-insensitively,
// a name's values are those of every assignment to it, and a name whose bindings the file does
// not all show (a parameter, a loop variable, `+=`, unpacking, an import) has no known values.
#pragma once

#include <tree_sitter/api.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/rule.h"

namespace asyncfix::rules {

/// Node kinds the AF30x rules look at that syntax.h's Kinds does not name.
struct TorchKinds {
  TSSymbol subscript, slice, integer, floatLiteral, binaryOperator, unaryOperator, interpolation, expressionStatement,
      decorator, whileStatement, dictionarySplat, conditionalExpression;
  static const TorchKinds &get();
};

/// The right sides of every assignment to the binding `identifier` refers to; nullopt when one
/// of its bindings has no value the file shows, or it has none.
std::optional<std::vector<TSNode>> boundValues(TSNode identifier, Context &ctx);

/// `e` without parentheses and without the calls that move a value between devices or detach
/// it, which keep its shape: `(criterion.cuda())` → `criterion`, `x.to(device).detach()` → `x`.
TSNode withoutMoves(TSNode e, std::string_view text);

/// The dotted name a callee resolves to through the file's imports ("torch.nn.CrossEntropyLoss"),
/// "" when it is a local value; a name the file does not bind stands for itself.
std::string torchName(TSNode callee, Context &ctx);

/// The argument `name=` of `call`, or a null node.
TSNode keywordOfCall(TSNode call, std::string_view name, std::string_view text);
/// How many positional arguments `call` has (a `*args` counts as many: returns 99).
unsigned positionalCount(TSNode call);

/// The argument `call` passes to parameter number `index`, named `name`, of the function it
/// calls (by keyword or position; null when none, or a `*args` hides it).
TSNode argumentFor(TSNode call, std::uint32_t index, std::string_view name, std::string_view text);
/// What the file's calls of a function pass to its parameter `identifier` (a name that only the
/// parameter binds); nullopt when it is no such parameter, or a call passes nothing for it.
std::optional<std::vector<TSNode>> parameterArguments(TSNode identifier, Context &ctx);

/// True when `e` provably holds a one-element tensor: the result of a PyTorch loss (a criterion
/// `nn.*Loss(...)` called, or `F.*_loss(...)`) that keeps its reduction, of a reduction without
/// `dim` (`.sum()`, `.mean()`, `.norm()`, `torch.sum(x)`, …), or arithmetic of those and numbers.
bool isOneElementTensor(TSNode e, Context &ctx, int depth = 0);

/// The top-level statement that holds the node being checked (the node itself at top level).
TSNode topLevelStatement(TSNode node, const Context &ctx);

/// True when `inner` lies within `outer`'s bytes.
inline bool within(TSNode inner, TSNode outer) {
  return ts_node_start_byte(inner) >= ts_node_start_byte(outer) && ts_node_end_byte(inner) <= ts_node_end_byte(outer);
}

} // namespace asyncfix::rules
