// semantic.h — per-file scopes and name bindings (Python's LEGB rules), built on demand. Private.
//
// An iterative walk records every identifier of a top-level statement with its scope and role.
// Queries then answer which uses denote the same binding — what a scope-aware rename needs.
// Flow-insensitive: a name bound anywhere in a function is local to all of that function (as in
// Python).
//
// Lazy by top-level statement: a statement is walked when a query first needs it — the one
// holding a position asked about, or every statement whose text holds a word a name-keyed query
// is about (a cheap text search finds them). A rule that looks at a few statements of a large
// file pays for those few, and an editor host learns from the model what each statement's
// findings depend on (ModelDependencies).
#pragma once

#include <tree_sitter/api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
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
  std::uint32_t parent = 0; ///< index of the enclosing scope (module: itself)
  TSNode node{};            ///< the def/class/lambda/comprehension (module: root)
  std::string_view name;    ///< function or class name; a lambda's when `x = lambda …`
  TSNode nameNode{};        ///< the identifier that binds `name` (null when none)
  bool isAsync = false;     ///< `async def`
  std::unordered_set<std::string_view> bound, globals, nonlocals;
};

enum class NameRole : std::uint8_t {
  Reference,    ///< read (or `del`)
  Binding,      ///< assignment / for / with / except / walrus target, import alias
  Parameter,    ///< a function or lambda parameter
  FunctionName, ///< `def NAME`
  ClassName,    ///< `class NAME`
  Declaration,  ///< `global NAME` / `nonlocal NAME`
  ImportedName, ///< `import NAME` / `from m import NAME`: the name is fixed by another module
  AwaitName,    ///< `await(x)`, `await[0]`, `await + 1` outside `async def`: the name `await`
};

/// An identifier that denotes a variable (not an attribute name, keyword name or module path).
struct NameUse {
  TSNode node{};
  std::string_view name;
  std::uint32_t scope = 0; ///< the scope the use occurs in (a parameter: its function's scope)
  NameRole role = NameRole::Reference;
  bool inError = false; ///< inside an ERROR node: resolution is a guess
  /// Where a binding's value comes from (for receiver kinds): the assigned expression when the
  /// target is the name itself, or — with `iterated` — the iterable of the `for` that binds it.
  TSNode value{};
  bool iterated = false;
  std::string qualified; ///< an import binding: the dotted path it names ("torch.nn")
};

/// `callee(NAME=…)`: a keyword argument name and the name of what is called (last component).
struct KeywordUse {
  TSNode node{};
  std::string_view name;
  std::string_view callee;   ///< "f" for f(…) and obj.f(…); "" when not a plain name/attribute
  TSNode calleeNode{};       ///< the `f` of f(…) (an identifier) or the `obj.f` of obj.f(…)
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

/// True for the node kinds a target name can be nested in and still be bound (`a, (b, *c) = …`,
/// `for x, [y] in …`); a subscript or an attribute target binds no name.
bool isTargetPattern(TSSymbol symbol);

/// What answers about one top-level statement depended on outside it: words whose statements
/// were consulted, byte ranges read. An editor host may keep the statement's findings after an
/// edit that touches neither. A word in `words` depends on every statement whose text holds it
/// (namesCalled(): locals of any function too); one in `facts` only on the statements whose
/// StatementFacts hold it (what a statement shows the others: module-scope names, keywords,
/// attributes, definitions, imports).
struct ModelDependencies {
  std::set<std::string, std::less<>> words;
  std::set<std::string, std::less<>> facts;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;
};

/// What one top-level statement shows the rest of the file, as facts about words: the names it
/// uses that resolve to the module scope (name()), the module-level names it binds or declares
/// (binding()), its attribute and keyword-argument names, the functions, classes and lambdas it
/// names (definition()), the first component of every path it imports (star imports too), and the words inside its
/// syntax errors. A function of the statement's own syntax tree alone: an editor host keeps
/// them while the statement is unchanged (the per-file fact index, IncrementalLint), and a query
/// about a word that other statements make — what a module-level name is bound to, which calls
/// pass a keyword, whether a package is imported — need not walk, nor depend on, the statements
/// whose facts lack it (a function that only has a local `loader` says nothing about a
/// module-level `loader`, and one that calls `x.cuda()` defines no `cuda`).
struct StatementFacts {
  std::vector<std::string> words; ///< sorted, unique: the facts, spelt as below
  std::uint64_t bits = 0;         ///< wordBit() of each word
  bool has(std::string_view fact) const;
  /// One of 64 bits for `word`: facts whose bits miss it are not searched.
  static std::uint64_t wordBit(std::string_view word);
  // How each fact about `w` is spelt (none is an identifier, save name()).
  static std::string name(std::string_view w) { return std::string(w); }
  static std::string binding(std::string_view w) { return "=" + std::string(w); }
  static std::string attribute(std::string_view w) { return "." + std::string(w); }
  static std::string keyword(std::string_view w) { return std::string(w) + "="; }
  static std::string definition(std::string_view w) { return "def " + std::string(w); }
  static std::string import(std::string_view w) { return "import " + std::string(w); }
  static std::string error(std::string_view w) { return "!" + std::string(w); }
  /// Every fact a statement may show about `w` (for a statement whose facts are not known).
  static void allAbout(std::string_view w, std::vector<std::string> &out) {
    for (auto f : {name, binding, attribute, keyword, definition, import, error}) out.push_back(f(w));
  }
};

/// What one top-level statement's text tells without a walk, for a statement whose facts are not
/// known: which words its text may hold (a filter), and the facts it has been found unable to
/// show (SemanticModel::cannotShowFound()). Both are functions of the statement's text and
/// syntax alone: an editor host keeps them while the statement is unchanged (IncrementalLint),
/// so that a keystroke's queries neither search the whole text for a word nor ask again, of
/// every statement that mentions it, whether it can show a fact.
struct StatementSketch {
  /// 512 bits, two per word of the text (identifier-like runs, split at any byte that is not an
  /// ASCII letter, digit or `_`, and also at bytes >= 0x80 only where ASCII letters meet them):
  /// a word whose bits are not all set is not in the text.
  std::array<std::uint64_t, 8> filter{};
  std::vector<std::string> cannotShow; ///< sorted, unique: facts it cannot show
  /// The sketch of a statement's text (no facts ruled out yet).
  static StatementSketch of(std::string_view text);
  bool mayHold(std::string_view word) const;
  bool ruledOut(std::string_view fact) const { return std::binary_search(cannotShow.begin(), cannotShow.end(), fact); }
};

class SemanticModel {
public:
  /// With `known`, the facts of some statements, kept from an earlier model of the same
  /// statements (known[i] for statementSpans()[i], nullptr when not known; valid as long as the
  /// model): queries about a word that only other statements' facts can hold skip those whose
  /// facts lack it.
  /// With `sketches` (sketches[i] for statementSpans()[i], nullptr when none; valid as long as
  /// the model), a word is searched for only in the statements whose filter may hold it, and a
  /// fact is not asked of a statement whose sketch rules it out.
  explicit SemanticModel(const Document &doc, std::vector<const StatementFacts *> known = {},
                         std::vector<const StatementSketch *> sketches = {});
  explicit SemanticModel(const Document &&, std::vector<const StatementFacts *> = {},
                         std::vector<const StatementSketch *> = {}) = delete; // keeps a reference

  /// The facts of top-level statement `index` (walked now if it was not).
  StatementFacts factsOf(std::size_t index) const;
  /// Whether statement `index` has been walked (its facts are at hand without a walk).
  bool walked(std::size_t index) const { return units_[index].walk != 0; }
  /// The facts this model found statement `index` cannot show without walking it (sorted; none
  /// when it was walked): what a sketch of it may keep.
  std::vector<std::string> cannotShowFound(std::size_t index) const;
  /// The statements walked so far, in the order they were walked.
  const std::vector<std::uint32_t> &walkedStatements() const { return walked_; }
  /// The statements cannotShowFound() has an answer for, sorted, each once.
  std::vector<std::uint32_t> statementsFoundUnableToShow() const;

  // Every query below that looks beyond the statement being checked records what it looked at
  // into the current dependency sink (setDependencySink): a name-keyed query its word, a
  // position in another statement that statement's range. Rules reach uses only through these
  // queries, never by enumerating all of them.

  /// Scopes by index (a use's `scope`, a scope's `parent`). Scope 0 is the module; its `bound`
  /// set is not kept (lookups never need it).
  const std::deque<Scope> &scopes() const { return scopes_; }
  /// Uses by index (as namesCalled() returns them).
  const NameUse &name(std::uint32_t index) const { return names_[index]; }
  /// Keyword arguments spelt `name`, in source order.
  const std::vector<const KeywordUse *> &keywordsCalled(std::string_view name) const;
  /// Attribute names spelt `name`, in source order.
  const std::vector<const AttributeUse *> &attributesCalled(std::string_view name) const;
  /// How many scopes (or only those of `kind`) are named `name` (functions, classes, named lambdas).
  std::size_t definitionsNamed(std::string_view name, std::optional<ScopeKind> kind = std::nullopt) const;
  /// The class or function scope whose name is the identifier `nameNode` (nullptr if none).
  const Scope *scopeNamedBy(TSNode nameNode) const;
  /// True when an import (outside ERROR regions) binds something from `package` (`import package.x`,
  /// `from package.x import y`, `import package as p`, `from package.x import *`).
  bool importsPackage(std::string_view package) const;
  /// The modules of the module-level star imports of `package` (`from package.x import *` gives
  /// "package.x"), outside ERROR regions, in source order; views of the text.
  std::vector<std::string_view> starImportsOf(std::string_view package) const;
  /// Every name use of the whole file (each statement walked now), for tests: rules must not
  /// enumerate them (an enumeration depends on every statement).
  const std::deque<NameUse> &allNamesForTests() const;

  /// The name use whose node starts at `startByte` (nullptr if none).
  const NameUse *nameAt(std::uint32_t startByte) const;
  const KeywordUse *keywordAt(std::uint32_t startByte) const;
  const AttributeUse *attributeAt(std::uint32_t startByte) const;

  /// Whether an assignment may give a value (NameUse::value, not a `for`'s) to a binding that
  /// the name `name` used at byte `use` resolves to — answered from the text, walking nothing: a
  /// `name = …` or `name: … = …` in the statement holding `use`, or in module-level code; always
  /// "maybe" in a file that says `global` or `nonlocal` or has syntax errors. False is meant to be
  /// certain, true may be wrong. For questions that most uses answer "no" (is this loop's
  /// iterable bound to a DataLoader call?), so that dense files do not walk every function.
  bool mayAssignValue(std::string_view name, std::uint32_t use) const;

  /// The values (NameUse::value, not a `for`'s) that the binding the name `name` used at byte
  /// `use` resolves to may hold, found without walking the statement holding `use`: those of
  /// the module-level bindings of `name`, and the right-hand sides of the assignments to `name`
  /// spelt in that statement. Every value of bindingsOf(resolve(…)) is among them; nullopt
  /// when it cannot tell (as mayAssignValue() says "maybe" to everything). For a question most
  /// values answer "no" (is any of them an unpinned DataLoader?) before resolving the name.
  std::optional<std::vector<TSNode>> valuesMaybeAssigned(std::string_view name, std::uint32_t use) const;

  /// The binding `use` refers to. Unbound names resolve to the module scope.
  BindingKey resolve(const NameUse &use) const;
  /// Every use (outside ERROR regions) that resolves to `key`, in source order; valid as long as
  /// the model.
  const std::vector<const NameUse *> &usesOf(BindingKey key) const;
  /// usesOf(key) less the references: the uses that bind (assignment and loop targets,
  /// parameters, definitions, imports) or declare (`global`, `nonlocal`) it, and AwaitName uses. What a name holds
  /// depends only on these: a module-level name's bindings are in few statements, its
  /// references in many (a function that reads `loader` does not make it another loader).
  const std::vector<const NameUse *> &bindingsOf(BindingKey key) const;
  /// Indices of the uses named `name` (any scope), in source order.
  const std::vector<std::uint32_t> &namesCalled(std::string_view name) const;
  /// True when an identifier or keyword token spelt `name` lies inside an ERROR region: a rename
  /// of a binding called `name` may then miss a use the parser could not place.
  bool seenInError(std::string_view name) const {
    unitsWithFact(name, StatementFacts::error(name));
    return inError_.contains(name);
  }

  // ---- dependencies (for editor hosts; see ModelDependencies) ----
  /// Where queries record what they looked at, and the byte range of the statement being
  /// checked (what lies inside it is no dependency). nullptr stops recording.
  void setDependencySink(ModelDependencies *sink, std::uint32_t start = 0, std::uint32_t end = 0) const {
    sink_ = sink;
    sinkStart_ = start;
    sinkEnd_ = end;
  }
  /// How many top-level statements have been walked, of how many.
  std::size_t statementsWalked() const;
  /// How many statements the whole-file queries have gone through, repeats included: a query
  /// asked once per use must stay linear in the file (each answer is kept), not grow with uses².
  std::size_t unitsScanned() const;
  std::size_t statementCount() const { return units_.size(); }
  /// The module's statement after top-level `statement` (null when it is the last): what a
  /// sibling step would give, also when the statements come from more than one tree.
  TSNode statementAfter(TSNode statement) const;
  /// The module's statements, in order.
  template <class F> void forEachStatement(F &&f) const {
    for (const Unit &unit : units_) f(nodeOf(unit));
  }

private:
  /// A top-level statement (or comment) of the module, walked on demand; its node is looked up
  /// when first needed (between keystrokes, most statements are neither). Small: a model is made
  /// per keystroke, with a unit per statement.
  struct Unit {
    std::uint32_t start = 0, end = 0;
    std::uint32_t walk = 0; ///< 1 + its index in walks_; 0 while not walked
  };
  /// What walking a unit found.
  struct Walk {
    std::uint32_t firstName = 0, lastName = 0; ///< its uses: names_[firstName, lastName)
    std::uint32_t firstKeyword = 0, lastKeyword = 0, firstAttribute = 0, lastAttribute = 0;
    std::uint32_t firstScope = 0, lastScope = 0;
    /// (start byte, index) sorted by start: one allocation each instead of a node per entry.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> nameAt, keywordAt, attributeAt;
    std::vector<std::string_view> errorWords;  ///< the identifiers and keywords in its ERROR regions
    std::vector<std::string_view> starModules; ///< the modules of its star imports (`from M import *`)
  };

  /// The unit's node (looked up in the Document).
  TSNode nodeOf(const Unit &unit) const;
  std::uint32_t lookup(std::string_view name, std::uint32_t scope) const;
  void note(std::string_view name) const {
    if (sink_ && sink_->words.find(name) == sink_->words.end()) sink_->words.emplace(name);
  }
  void noteFact(std::string_view name) const {
    if (sink_ && sink_->facts.find(name) == sink_->facts.end()) sink_->facts.emplace(name);
  }
  /// A read of the statement holding `offset`: a dependency unless it is the one being checked.
  void noteAt(std::uint32_t offset) const;
  /// What walking the unit holding byte `offset` found (nullptr when no unit holds it).
  const Walk *unitAt(std::uint32_t offset) const;
  /// Walks units_[u] (once) and returns what it found.
  const Walk &walk(std::uint32_t index) const;
  /// Walks every statement whose text holds `word` as a whole word, and records the word.
  void ensureWord(std::string_view word) const;
  void ensureAll() const;
  /// The units holding `word` (each walked), in source order.
  const std::vector<std::uint32_t> &unitsWith(std::string_view word) const;
  /// The units whose text holds `word` as a whole word (none walked), in source order.
  const std::vector<std::uint32_t> &search(std::string_view word) const;
  /// search(word) less the units whose known facts lack `fact` (a fact about `word`), each
  /// walked, and records the fact: for queries whose answers only a statement's facts can hold.
  /// Each answer is kept: a query asked once per use (a keyword per call) stays linear.
  const std::vector<std::uint32_t> &unitsWithFact(std::string_view word, const std::string &fact) const;
  const std::vector<std::uint32_t> &usesNamed(std::string_view name) const;
  /// Whether walking units_[index], whose text holds `word`, may find `fact` (a fact about
  /// `word`), told from its text and kind without a walk: an import fact needs the word
  /// `import`; a definition fact, `def` or `class` before `word`, or the word `lambda`; a
  /// binding fact, from a function or class definition without syntax errors, its name to be
  /// `word` or its text to hold `global`, `nonlocal` or `:=`. "Maybe" otherwise.
  bool mayShow(std::uint32_t index, std::string_view word, std::string_view fact) const;
  /// False when the text-only answers must say "maybe" to everything: syntax errors, `global`,
  /// `nonlocal` (see mayAssignValue()).
  bool shortcutsAllowed() const;

  std::string_view text_;
  const Document &doc_;
  mutable std::vector<Unit> units_;
  std::vector<const StatementFacts *> known_;     ///< per unit, or empty
  std::vector<const StatementSketch *> sketches_; ///< per unit, or empty
  /// Whether text[start, end) of unit `index` may hold `word`: its sketch's filter, else "maybe".
  bool mayHold(std::uint32_t index, std::string_view word) const {
    return sketches_.empty() || !sketches_[index] || sketches_[index]->mayHold(word);
  }
  mutable std::vector<std::pair<std::uint32_t, std::string>> cannotShow_; ///< (unit, fact): mayShow()'s "no"s
  mutable std::size_t cannotShowSorted_ = 0; ///< cannotShow_'s size when cannotShowFound() last sorted it
  mutable std::deque<Walk> walks_;
  mutable std::vector<std::uint32_t> walked_; ///< the units of walks_, in the same order
  mutable std::deque<Scope> scopes_;
  mutable std::deque<NameUse> names_;
  mutable std::deque<KeywordUse> keywords_;
  mutable std::deque<AttributeUse> attributes_;
  template <class T> using ByWord = std::map<std::string, T, std::less<>>;
  mutable ByWord<std::vector<std::uint32_t>> searched_; ///< word → search()
  // Per word, complete once its statements are walked (no later walk adds any).
  mutable ByWord<std::vector<std::uint32_t>> byName_;
  mutable ByWord<std::vector<ScopeKind>> definitions_;
  mutable ByWord<std::vector<std::uint32_t>> withFact_; ///< fact → unitsWithFact()
  mutable ByWord<std::vector<const KeywordUse *>> keywordsCalled_;
  mutable ByWord<std::vector<const AttributeUse *>> attributesCalled_;
  mutable ByWord<bool> importsPackage_;
  mutable std::size_t unitsScanned_ = 0;
  mutable std::map<std::pair<std::uint32_t, std::string>, std::vector<const NameUse *>, std::less<>> usesOf_,
      bindingsOf_;
  mutable std::unordered_map<std::uint32_t, std::uint32_t> scopeByName_; ///< name node start → scope
  mutable std::unordered_set<std::string_view> inError_;
  // mayAssignValue()'s: whether it must say "maybe" to everything (syntax errors, `global`,
  // `nonlocal`), the module-level code's units, and per name whether that code assigns it.
  mutable std::optional<bool> noShortcut_;
  mutable std::optional<std::vector<std::uint32_t>> moduleCode_; ///< units
  mutable ByWord<bool> assignedAtModule_;
  mutable std::optional<std::vector<bool>> broken_; ///< per unit, whether it has syntax errors (mayShow())
  mutable ModelDependencies *sink_ = nullptr;
  mutable std::uint32_t sinkStart_ = 0, sinkEnd_ = 0;
};

} // namespace asyncfix
