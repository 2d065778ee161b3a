// semantic.h — per-file scopes and name bindings (Python's LEGB rules), built on demand. Private.
//
// One iterative walk over the tree records every identifier with its scope and role. Queries then
// answer which uses denote the same binding — what a scope-aware rename needs. Flow-insensitive:
// a name bound anywhere in a function is local to all of that function (as in Python).
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace asyncfix {

class Document;

enum class ScopeKind : std::uint8_t { Module, Class, Function, Lambda, Comprehension };

struct Scope {
  ScopeKind kind = ScopeKind::Module;
  std::uint32_t parent = 0;  ///< index of the enclosing scope (module: itself)
  TSNode node{};             ///< the def/class/lambda/comprehension (module: root)
  std::string_view name;     ///< function or class name; a lambda's when `x = lambda …`
  TSNode nameNode{};         ///< the identifier that binds `name` (null when none)
  bool isAsync = false;      ///< `async def`
  std::unordered_set<std::string_view> bound, globals, nonlocals;
};

enum class NameRole : std::uint8_t {
  Reference,     ///< read (or `del`)
  Binding,       ///< assignment / for / with / except / walrus target, import alias
  Parameter,     ///< a function or lambda parameter
  FunctionName,  ///< `def NAME`
  ClassName,     ///< `class NAME`
  Declaration,   ///< `global NAME` / `nonlocal NAME`
  ImportedName,  ///< `import NAME` / `from m import NAME`: the name is fixed by another module
  AwaitName,     ///< `await(x)`, `await[0]`, `await + 1` outside `async def`: the name `await`
};

/// An identifier that denotes a variable (not an attribute name, keyword name or module path).
struct NameUse {
  TSNode node{};
  std::string_view name;
  std::uint32_t scope = 0; ///< the scope the use occurs in (a parameter: its function's scope)
  NameRole role = NameRole::Reference;
  bool inError = false;    ///< inside an ERROR node: resolution is a guess
  /// Where a binding's value comes from (for receiver kinds): the assigned expression when the
  /// target is the name itself, or — with `iterated` — the iterable of the `for` that binds it.
  TSNode value{};
  bool iterated = false;
  std::string qualified;   ///< an import binding: the dotted path it names ("torch.nn")
};

/// `callee(NAME=…)`: a keyword argument name and the name of what is called (last component).
struct KeywordUse {
  TSNode node{};
  std::string_view name;
  std::string_view callee; ///< "f" for f(…) and obj.f(…); "" when not a plain name/attribute
  TSNode calleeNode{};     ///< the `f` of f(…) (an identifier) or the `obj.f` of obj.f(…)
  bool calleeIsName = false; ///< f(…): the callee resolves like any name
  bool inError = false;
};

/// `obj.NAME`
struct AttributeUse {
  TSNode node{};
  std::string_view name;
  bool inError = false;
};

/// A binding: a name in the scope that owns it.
struct BindingKey {
  std::uint32_t scope = 0;
  std::string_view name;
  friend bool operator==(const BindingKey &, const BindingKey &) = default;
};

/// True when the operand of an `await` expression starts with `(`, `[`, `+` or `-`: outside a
/// coroutine, Python 3.6 read that as the name `await` called, subscripted or in a sum.
bool operandMakesAName(TSNode awaitExpression, std::string_view text);

class SemanticModel {
public:
  explicit SemanticModel(const Document &doc);

  const std::vector<Scope> &scopes() const { return scopes_; }
  const std::vector<NameUse> &names() const { return names_; }
  const std::vector<KeywordUse> &keywords() const { return keywords_; }
  const std::vector<AttributeUse> &attributes() const { return attributes_; }

  /// The name use whose node starts at `startByte` (nullptr if none).
  const NameUse *nameAt(std::uint32_t startByte) const;
  const KeywordUse *keywordAt(std::uint32_t startByte) const;
  const AttributeUse *attributeAt(std::uint32_t startByte) const;

  /// The binding `use` refers to. Unbound names resolve to the module scope.
  BindingKey resolve(const NameUse &use) const;
  /// Every use (outside ERROR regions) that resolves to `key`, in source order.
  std::vector<const NameUse *> usesOf(BindingKey key) const;
  /// Indices of the uses named `name` (any scope), in source order.
  const std::vector<std::uint32_t> &namesCalled(std::string_view name) const;
  /// True when any identifier in the file is spelt `name`.
  bool identifierExists(std::string_view name) const;
  /// True when an identifier or keyword token spelt `name` lies inside an ERROR region: a rename
  /// of a binding called `name` may then miss a use the parser could not place.
  bool seenInError(std::string_view name) const { return inError_.contains(name); }

private:
  std::uint32_t lookup(std::string_view name, std::uint32_t scope) const;

  std::vector<Scope> scopes_;
  std::vector<NameUse> names_;
  std::vector<KeywordUse> keywords_;
  std::vector<AttributeUse> attributes_;
  /// (start byte, index) sorted by start: one allocation each instead of a node per entry.
  using PositionIndex = std::vector<std::pair<std::uint32_t, std::uint32_t>>;
  PositionIndex nameAt_, keywordAt_, attributeAt_;
  // Built on first use: many files never ask (and a large file pays for them on every lint).
  mutable std::unordered_map<std::string_view, std::vector<std::uint32_t>> byName_;
  mutable std::unordered_set<std::string_view> spellings_;
  mutable bool byNameBuilt_ = false, spellingsBuilt_ = false;
  std::unordered_set<std::string_view> inError_;
};

} // namespace asyncfix
