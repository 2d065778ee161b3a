// semantic.h — per-file scopes and name bindings (Python's LEGB rules), built on demand. Private.
//
// One iterative walk over the tree records every identifier with its scope and role. Queries then
// answer which uses denote the same binding — what a scope-aware rename needs. Flow-insensitive:
// a name bound anywhere in a function is local to all of that function (as in Python).
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>
#include <optional>
#include <map>
#include <set>
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

/// True when the operand of an `await` expression starts with `(`, `[`, `+`, `-` or `*`: outside
/// a coroutine, Python 3.6 read that as the name `await` called, subscripted, in a sum or a
/// product (`await * 2`: tree-sitter reads `await (*2)`, which awaits nothing valid).
bool operandMakesAName(TSNode awaitExpression, std::string_view text);

class SemanticModel {
public:
  explicit SemanticModel(const Document &doc);

  // Every query below records the names it is about (queried()): an editor host may then reuse a
  // lint result after an edit that touches none of them (Linter::editKeepsFindings). So rules
  // reach uses only through these name-keyed queries, never by enumerating all of them.

  /// Scopes by index (a use's `scope`, a scope's `parent`); enumerate only with a name filter.
  const std::vector<Scope> &scopes() const { return scopes_; }
  /// Uses by index (as namesCalled() returns them).
  const NameUse &name(std::uint32_t index) const { return names_[index]; }
  /// Keyword arguments spelt `name`, in source order.
  std::vector<const KeywordUse *> keywordsCalled(std::string_view name) const;
  /// Attribute names spelt `name`, in source order.
  std::vector<const AttributeUse *> attributesCalled(std::string_view name) const;
  /// How many scopes (or only those of `kind`) are named `name` (functions, classes, named lambdas).
  std::size_t definitionsNamed(std::string_view name, std::optional<ScopeKind> kind = std::nullopt) const;
  /// True when an import (outside ERROR regions) binds something from `package` (`import package.x`,
  /// `from package.x import y`, `import package as p`).
  bool importsPackage(std::string_view package) const;
  /// Every use, keyword argument and attribute, for tests: rules must not enumerate them (an
  /// enumeration is a dependency on every name, which queried() would not show).
  const std::vector<NameUse> &allNamesForTests() const { return names_; }
  const std::vector<KeywordUse> &allKeywordsForTests() const { return keywords_; }
  const std::vector<AttributeUse> &allAttributesForTests() const { return attributes_; }
  /// The names queries so far were about, in two kinds: `resolved()` names were only asked
  /// about through one binding (resolve, usesOf, a use at a position) — an occurrence that
  /// resolves to another binding cannot change those answers; `queried()` names were asked about
  /// wherever they occur (spellings, all uses of a name, keyword arguments, attributes…).
  const std::set<std::string, std::less<>> &queried() const { return queried_; }
  const std::set<std::string, std::less<>> &resolved() const { return resolved_; }

  /// The name use whose node starts at `startByte` (nullptr if none).
  const NameUse *nameAt(std::uint32_t startByte) const;
  const KeywordUse *keywordAt(std::uint32_t startByte) const;
  const AttributeUse *attributeAt(std::uint32_t startByte) const;

  /// The binding `use` refers to. Unbound names resolve to the module scope.
  BindingKey resolve(const NameUse &use) const;
  /// Every use (outside ERROR regions) that resolves to `key`, in source order; from a table
  /// built once per name for all its bindings (a name bound in thousands of scopes stays linear),
  /// valid as long as the model.
  const std::vector<const NameUse *> &usesOf(BindingKey key) const;
  /// Indices of the uses named `name` (any scope), in source order.
  const std::vector<std::uint32_t> &namesCalled(std::string_view name) const;
  /// True when any identifier in the file is spelt `name`.
  bool identifierExists(std::string_view name) const;
  /// True when an identifier or keyword token spelt `name` lies inside an ERROR region: a rename
  /// of a binding called `name` may then miss a use the parser could not place.
  bool seenInError(std::string_view name) const {
    note(name);
    return inError_.contains(name);
  }

private:
  std::uint32_t lookup(std::string_view name, std::uint32_t scope) const;
  void note(std::string_view name) const {
    if (queried_.find(name) == queried_.end()) queried_.emplace(name);
  }
  void noteResolved(std::string_view name) const {
    if (resolved_.find(name) == resolved_.end()) resolved_.emplace(name);
  }
  const std::vector<std::uint32_t> &usesNamed(std::string_view name) const;

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
  mutable std::unordered_map<std::string_view, std::vector<ScopeKind>> definitions_;
  mutable bool byNameBuilt_ = false, spellingsBuilt_ = false, definitionsBuilt_ = false;
  mutable std::set<std::string, std::less<>> queried_, resolved_;
  mutable std::map<std::pair<std::uint32_t, std::string_view>, std::vector<const NameUse *>> usesOf_;
  mutable std::unordered_set<std::string_view> usesOfIndexed_; ///< the names usesOf_ holds
  std::unordered_set<std::string_view> inError_;
};

} // namespace asyncfix
