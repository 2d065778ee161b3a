// receivers.h — what a Python expression most likely holds, as far as the file shows: an
// nn.Module, a Tensor, a DataLoader, a CUDA stream or event, or unknown. Private.
//
// Built on the SemanticModel: a name's kind is the kind of every value bound to it (assignments,
// `for` targets over a DataLoader), flow-insensitively; any disagreement makes it unknown. Calls
// are classified by the dotted name they resolve to through the file's imports
// (`import torch.nn as nn; nn.Linear(...)` → torch.nn.Linear → a Module), and by the classes the
// file defines (deriving, directly or through other classes of the file, from torch.nn.Module).
#pragma once

#include <map>
#include <tuple>
#include <unordered_set>
#include <utility>

#include <tree_sitter/api.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "analysis/semantic.h"

namespace asyncfix {

enum class ValueKind : std::uint8_t {
  Unknown,
  Module,
  Tensor,
  DataLoader,
  Stream,
  Event,
  Pending, ///< internal: a binding whose kind is being computed (a cycle); never returned
};

class Receivers {
public:
  Receivers(std::string_view text, const SemanticModel &model) : text_(text), model_(model) {}

  ValueKind kindOf(TSNode expression) const {
    const ValueKind k = kindAt(expression, 0);
    return k == ValueKind::Pending ? ValueKind::Unknown : k;
  }

  /// The dotted name `expression` (a name or an attribute chain) denotes through the file's
  /// imports: `nn.Linear` after `import torch.nn as nn` → "torch.nn.Linear". A name the file
  /// does not bind stands for itself; anything else gives "".
  std::string qualifiedName(TSNode expression) const;

  /// For a tensor taken from a DataLoader by the loop around it (`for x, y in loader:
  /// x.cuda(...)`): the `DataLoader(...)` call that built the loader, when the file shows it; a
  /// null node otherwise. `ancestors` are the expression's, root first, when the caller knows
  /// them (a rule's tree walk does; else they are found with ts_node_parent, which is slow).
  /// `wanted`, when given, tells from a call's syntax alone whether the caller cares about it
  /// (AF104: a call without `pin_memory=True`): a loop none of whose possible loaders it wants
  /// gives a null node without resolving the name, which walks the statement holding it.
  TSNode dataLoaderCallOf(TSNode expression, std::span<const TSNode> ancestors = {},
                          bool (*wanted)(TSNode call, std::string_view text) = nullptr) const;

  /// True when `identifier` is the variable of a `for` loop or a comprehension around it, in
  /// the scope the name resolves to (no function, lambda or class between; a class body's `for`
  /// does not count for a use inside a comprehension, which skips class scopes): then one of its
  /// bindings is the loop's, whose values are the iterable's items, and kindOf() is no Module.
  /// Read from `ancestors` (the identifier's, root first) without resolving the name, which
  /// walks the whole function. False when it cannot tell (`self`, an ERROR node on the way).
  bool isLoopVariable(TSNode identifier, std::span<const TSNode> ancestors) const;

private:
  ValueKind kindAt(TSNode expression, int depth) const;
  ValueKind bindingKind(BindingKey key, int depth) const;
  ValueKind callKind(TSNode call, int depth) const;
  bool isModuleClass(const Scope &cls, int depth) const;
  const Scope *classOf(TSNode identifier) const;
  /// dataLoaderCallOf() for the loop over `iterable` (enumerate's argument already taken).
  TSNode loaderOf(TSNode iterable, bool (*wanted)(TSNode call, std::string_view text)) const;
  /// wanted(call), read once per call: the loops of a file's functions often share one loader.
  bool wants(bool (*wanted)(TSNode call, std::string_view text), TSNode call) const;

  std::string_view text_;
  const SemanticModel &model_;
  mutable std::unordered_map<std::string, ValueKind> memo_; ///< binding → kind
  /// (iterable's start and end, `wanted`) → loaderOf()
  mutable std::map<std::tuple<std::uint32_t, std::uint32_t, std::uintptr_t>, TSNode> loaders_;
  /// (call's start and end, `wanted`) → wants()
  mutable std::map<std::tuple<std::uint32_t, std::uint32_t, std::uintptr_t>, bool> wanted_;
};

} // namespace asyncfix
