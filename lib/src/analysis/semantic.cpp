#include "analysis/semantic.h"

#include <algorithm>

#include <cstring>

#include "asyncfix/document.h"
#include "asyncfix/document_internals.h"
#include "text/syntax.h"

namespace asyncfix {
namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

struct Frame {
  TSNode node{};
  TSSymbol symbol = 0;
  const char *field = nullptr;      ///< this node's field in its parent
  std::uint32_t scope = 0;          ///< scope this node's expressions are evaluated in
  std::uint32_t own = kNone;        ///< scope created by this node
  std::uint32_t paramScope = kNone; ///< inside `parameters`: the function's scope
  std::uint32_t forIns = 0;         ///< comprehension: for_in_clauses seen so far
  bool firstForIn = false;          ///< the first for_in_clause of a comprehension
  bool inError = false;
};

TSSymbol wildcardImport() {
  static const TSSymbol symbol = ts_language_symbol_for_name(tree_sitter_python(), "wildcard_import", 15, true);
  return symbol;
}

bool fieldIs(const Frame &f, const char *name) { return f.field && std::strcmp(f.field, name) == 0; }

bool isComprehension(const Kinds &k, TSSymbol s) {
  return s == k.listComprehension || s == k.setComprehension || s == k.dictionaryComprehension ||
         s == k.generatorExpression;
}

/// Nodes a target name can be nested in: `a, (b, *c) = …`, `with x as (a, [b]):`. The holder's
/// field decides whether it is a target (`left`) or not (`right`, an argument list…).
bool isPatternContainer(const Kinds &k, TSSymbol s) {
  return s == k.patternList || s == k.tuplePattern || s == k.listPattern || s == k.listSplatPattern || s == k.tuple ||
         s == k.list || s == k.listSplat || s == k.parenthesizedExpression;
}

class Builder {
public:
  Builder(std::string_view text, std::deque<Scope> &scopes, std::deque<NameUse> &names,
          std::deque<KeywordUse> &keywords, std::deque<AttributeUse> &attributes,
          std::unordered_set<std::string_view> &inError, std::vector<std::string_view> &errorWords,
          std::vector<std::string_view> &starModules)
      : text_(text), k_(Kinds::get()), scopes_(scopes), names_(names), keywords_(keywords), attributes_(attributes),
        inError_(inError), errorWords_(errorWords), starModules_(starModules) {}

  /// Walks one top-level statement of the module `root` (scope 0).
  void run(TSNode root, TSNode statement) {
    Frame rootFrame;
    rootFrame.node = root;
    rootFrame.symbol = ts_node_symbol(root);
    path_.push_back(rootFrame);
    Cursor cursor(statement);
    TSTreeCursor *c = cursor.get();
    path_.push_back(child(path_.back(), c));
    for (;;) {
      visit();
      if (ts_tree_cursor_goto_first_child(c)) {
        path_.push_back(child(path_.back(), c));
        continue;
      }
      for (;;) {
        if (ts_tree_cursor_goto_next_sibling(c)) {
          path_.pop_back();
          path_.push_back(child(path_.back(), c));
          break;
        }
        path_.pop_back();
        if (!ts_tree_cursor_goto_parent(c)) {
          path_.clear();
          return;
        }
      }
    }
  }

private:
  Frame child(Frame &parent, TSTreeCursor *c) {
    Frame f;
    f.node = ts_tree_cursor_current_node(c);
    f.symbol = ts_node_symbol(f.node);
    f.field = ts_tree_cursor_current_field_name(c);
    f.inError = parent.inError || parent.symbol == k_.error;
    f.scope = parent.scope;
    f.paramScope = parent.paramScope;
    if (parent.own != kNone) {
      if (parent.symbol == k_.functionDefinition || parent.symbol == k_.lambda) {
        if (fieldIs(f, "body")) f.scope = parent.own;
        if (fieldIs(f, "parameters")) f.paramScope = parent.own;
      } else if (parent.symbol == k_.classDefinition) {
        if (fieldIs(f, "body")) f.scope = parent.own;
      } else { // comprehension
        f.scope = parent.own;
        if (f.symbol == k_.forInClause && parent.forIns++ == 0) f.firstForIn = true;
      }
    } else if (parent.firstForIn && fieldIs(f, "right")) {
      f.scope = scopes_[parent.scope].parent; // the first iterable is evaluated outside
    }
    if (f.symbol == k_.functionDefinition || f.symbol == k_.classDefinition || f.symbol == k_.lambda ||
        isComprehension(k_, f.symbol)) {
      f.own = openScope(f, parent);
    }
    return f;
  }

  std::uint32_t openScope(const Frame &f, const Frame &parent) {
    Scope s;
    s.parent = f.scope;
    s.node = f.node;
    if (f.symbol == k_.functionDefinition || f.symbol == k_.classDefinition) {
      s.nameNode = field(f.node, "name");
      s.name = textOf(s.nameNode, text_);
    }
    if (f.symbol == k_.functionDefinition) {
      s.kind = ScopeKind::Function;
      s.isAsync = ts_node_child_count(f.node) > 0 && ts_node_symbol(ts_node_child(f.node, 0)) == k_.anonAsync;
    } else if (f.symbol == k_.classDefinition) {
      s.kind = ScopeKind::Class;
    } else if (f.symbol == k_.lambda) {
      s.kind = ScopeKind::Lambda;
      // `name = lambda …`: callers call it by that name.
      if (parent.symbol == k_.assignment && fieldIs(f, "right")) {
        const TSNode left = field(parent.node, "left");
        if (isIdentifier(left)) {
          s.nameNode = left;
          s.name = textOf(left, text_);
        }
      }
    } else {
      s.kind = ScopeKind::Comprehension;
    }
    scopes_.push_back(std::move(s));
    return static_cast<std::uint32_t>(scopes_.size() - 1);
  }

  void visit() {
    const Frame &f = path_.back();
    // `from torch.nn import *`; a statement tree-sitter had to repair (`from torch import~ *`)
    // imports nothing, as Python runs none of it (and the prefilter spells only whole ones).
    if (f.symbol == wildcardImport() && !f.inError && f.scope == 0 && path_.size() >= 2 &&
        path_[path_.size() - 2].symbol == k_.importFromStatement && !ts_node_has_error(path_[path_.size() - 2].node)) {
      const std::string_view module = textOf(field(path_[path_.size() - 2].node, "module_name"), text_);
      if (!module.empty() && module.front() != '.') starModules_.push_back(module);
      return;
    }
    if (f.symbol == k_.await) return visitAwait(f);
    if ((f.inError || f.symbol == k_.error) &&
        (f.symbol == k_.anonAsync || f.symbol == k_.anonAwait || isIdentifier(f.node))) {
      inError_.insert(textOf(f.node, text_));
      errorWords_.push_back(textOf(f.node, text_));
    }
    if (!isIdentifier(f.node) || path_.size() < 2) return;
    const std::size_t i = path_.size() - 1;
    const Frame &p = path_[i - 1];
    const std::string_view name = textOf(f.node, text_);

    if (p.symbol == k_.attribute) {
      if (fieldIs(f, "attribute")) return attributes_.push_back({f.node, name, f.inError});
      return addName(f, name, NameRole::Reference, f.scope);
    }
    if (p.symbol == k_.keywordArgument && fieldIs(f, "name")) return keywords_.push_back(keywordUse(f, name, i));
    if (p.symbol == k_.dottedName) {
      if (i < 2) return;
      const Frame &g = path_[i - 2];
      const bool first = ts_node_eq(ts_node_named_child(p.node, 0), f.node);
      if (g.symbol == k_.importStatement && fieldIs(p, "name") && first) {
        addName(f, name, NameRole::ImportedName, f.scope);
        names_.back().qualified = std::string(name); // `import a.b` binds `a`, the package
      } else if (g.symbol == k_.importFromStatement && fieldIs(p, "name")) {
        addName(f, name, NameRole::ImportedName, f.scope);
        // `from . import x` is `.x`: as many leading dots as the import's level, as `from .m import x`'s `.m.x`.
        const std::string_view module = textOf(field(g.node, "module_name"), text_);
        names_.back().qualified = std::string(module) + (module.ends_with('.') ? "" : ".") + std::string(name);
      }
      return; // otherwise a module path, not a variable
    }
    if (p.symbol == k_.aliasedImport) {
      if (!fieldIs(f, "alias") || i < 2) return;
      addName(f, name, NameRole::Binding, f.scope);
      const std::string_view path = textOf(field(p.node, "name"), text_);
      const Frame &g = path_[i - 2];
      const std::string_view module =
          g.symbol == k_.importFromStatement ? textOf(field(g.node, "module_name"), text_) : std::string_view{};
      names_.back().qualified = g.symbol == k_.importFromStatement
                                    ? std::string(module) + (module.ends_with('.') ? "" : ".") + std::string(path)
                                    : std::string(path);
      return;
    }
    if (p.symbol == k_.globalStatement || p.symbol == k_.nonlocalStatement) {
      auto &decls = p.symbol == k_.globalStatement ? scopes_[f.scope].globals : scopes_[f.scope].nonlocals;
      decls.insert(name);
      return addName(f, name, NameRole::Declaration, f.scope);
    }
    if (p.symbol == k_.functionDefinition && fieldIs(f, "name"))
      return addName(f, name, NameRole::FunctionName, p.scope);
    if (p.symbol == k_.classDefinition && fieldIs(f, "name")) return addName(f, name, NameRole::ClassName, p.scope);
    if (isParameter(i)) return addName(f, name, NameRole::Parameter, f.paramScope);

    // Assignment-like targets, possibly nested in tuple/list patterns.
    std::size_t j = i;
    while (j > 1 && isPatternContainer(k_, path_[j - 1].symbol)) --j;
    const Frame &target = path_[j], &holder = path_[j - 1];
    if (((holder.symbol == k_.assignment || holder.symbol == k_.augmentedAssignment ||
          holder.symbol == k_.forStatement || holder.symbol == k_.forInClause) &&
         fieldIs(target, "left")) ||
        holder.symbol == k_.asPatternTarget) {
      addName(f, name, NameRole::Binding, f.scope);
      if (holder.symbol == k_.forStatement || holder.symbol == k_.forInClause) {
        names_.back().value = field(holder.node, "right");
        names_.back().iterated = true;
      } else if (holder.symbol == k_.assignment && j == i) {
        names_.back().value = field(holder.node, "right");
      }
      return;
    }
    if (holder.symbol == k_.namedExpression && fieldIs(target, "name")) {
      std::uint32_t s = f.scope; // PEP 572: a walrus in a comprehension binds outside it
      while (s != 0 && scopes_[s].kind == ScopeKind::Comprehension) s = scopes_[s].parent;
      return addName(f, name, NameRole::Binding, s);
    }
    addName(f, name, NameRole::Reference, f.scope);
  }

  bool isParameter(std::size_t i) const {
    const Frame &f = path_[i], &p = path_[i - 1];
    if (p.paramScope == kNone && f.paramScope == kNone) return false;
    if (p.symbol == k_.parameters || p.symbol == k_.lambdaParameters) return true;
    if ((p.symbol == k_.defaultParameter || p.symbol == k_.typedDefaultParameter) && fieldIs(f, "name")) return true;
    if (p.symbol == k_.typedParameter && f.field == nullptr) return true;
    if ((p.symbol == k_.listSplatPattern || p.symbol == k_.dictionarySplatPattern) && i >= 2) {
      const TSSymbol g = path_[i - 2].symbol;
      return g == k_.parameters || g == k_.lambdaParameters || g == k_.typedParameter;
    }
    return false;
  }

  KeywordUse keywordUse(const Frame &f, std::string_view name, std::size_t i) const {
    KeywordUse k{f.node, name, {}, {}, false, f.inError};
    if (i < 3 || path_[i - 2].symbol != k_.argumentList || path_[i - 3].symbol != k_.call) return k;
    k.calleeNode = field(path_[i - 3].node, "function");
    if (isIdentifier(k.calleeNode)) {
      k.callee = textOf(k.calleeNode, text_);
      k.calleeIsName = true;
    } else if (ts_node_symbol(k.calleeNode) == k_.attribute) {
      k.callee = textOf(field(k.calleeNode, "attribute"), text_);
    }
    return k;
  }

  /// `await(x)`, `await[i]`, `await + 1`, `await - 1` outside `async def`: tree-sitter reads an
  /// await expression, Python 3.6 read the name `await` followed by a call, subscript or binary
  /// operator. (`await x` with any other operand was never valid there: not a name use.)
  void visitAwait(const Frame &f) {
    if (ts_node_child_count(f.node) < 2) return;
    const TSNode keyword = ts_node_child(f.node, 0);
    if (ts_node_symbol(keyword) != k_.anonAwait || !operandMakesAName(f.node, text_)) return;
    for (std::uint32_t s = f.scope;; s = scopes_[s].parent) {
      const Scope &scope = scopes_[s];
      if (scope.kind == ScopeKind::Function && scope.isAsync) return;
      if (scope.kind == ScopeKind::Function || scope.kind == ScopeKind::Lambda || s == 0) break;
    }
    addName(f, textOf(keyword, text_), NameRole::AwaitName, f.scope, keyword);
  }

  void addName(const Frame &f, std::string_view name, NameRole role, std::uint32_t scope, TSNode node = {}) {
    NameUse use;
    use.node = ts_node_is_null(node) ? f.node : node;
    use.name = name;
    use.scope = scope == kNone ? f.scope : scope;
    use.role = role;
    use.inError = f.inError;
    names_.push_back(std::move(use));
  }

  std::string_view text_;
  const Kinds &k_;
  std::deque<Scope> &scopes_;
  std::deque<NameUse> &names_;
  std::deque<KeywordUse> &keywords_;
  std::deque<AttributeUse> &attributes_;
  std::unordered_set<std::string_view> &inError_;
  std::vector<std::string_view> &errorWords_;
  std::vector<std::string_view> &starModules_;
  std::vector<Frame> path_;
};

bool binds(NameRole role) {
  return role == NameRole::Binding || role == NameRole::Parameter || role == NameRole::FunctionName ||
         role == NameRole::ClassName || role == NameRole::ImportedName;
}

} // namespace

bool operandMakesAName(TSNode awaitExpression, std::string_view text) {
  const std::uint32_t start = ts_node_start_byte(ts_node_child(awaitExpression, 1));
  if (start >= text.size()) return false;
  const char c = text[start];
  return c == '(' || c == '[' || c == '+' || c == '-' || c == '*';
}

bool isTargetPattern(TSSymbol symbol) { return isPatternContainer(Kinds::get(), symbol); }

SemanticModel::SemanticModel(const Document &doc, std::vector<const StatementFacts *> known,
                             std::vector<const StatementSketch *> sketches)
    : text_(doc.text()), doc_(doc), known_(std::move(known)), sketches_(std::move(sketches)) {
  Scope module;
  // The module's statements; with chunking on, they may come from more than one tree (each
  // statement is walked under its own tree's root).
  const std::vector<DocumentInternals::Span> &spans = DocumentInternals::statementSpans(doc);
  // (Once per keystroke in an editor, for every statement: a plain loop over the two arrays.)
  units_.resize(spans.size());
  Unit *unit = units_.data();
  const DocumentInternals::Span *span = spans.data();
  for (std::size_t i = 0, n = spans.size(); i < n; ++i) {
    unit[i].start = span[i].start;
    unit[i].end = span[i].end;
  }
  if (!units_.empty()) module.node = ts_tree_root_node(nodeOf(units_.front()).tree);
  scopes_.push_back(std::move(module));
  if (known_.size() != units_.size()) known_.clear();
  if (sketches_.size() != units_.size()) sketches_.clear();
}

namespace {

/// The two filter bits of a word (FNV-1a, two 9-bit slices).
std::pair<unsigned, unsigned> filterBits(std::string_view word) {
  std::uint64_t h = 14695981039346656037ULL;
  for (const char c : word) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return {static_cast<unsigned>(h >> 55), static_cast<unsigned>((h >> 46) & 511)};
}

/// A word's two filter bits, found once for a pass over many statements' sketches.
class FilterProbe {
public:
  explicit FilterProbe(std::string_view word) {
    const auto [a, b] = filterBits(word);
    wa_ = a >> 6;
    wb_ = b >> 6;
    ma_ = std::uint64_t{1} << (a & 63);
    mb_ = std::uint64_t{1} << (b & 63);
  }
  /// Whether `sketch` may hold the word (StatementSketch::mayHold()); without one, it may.
  bool mayHold(const StatementSketch *sketch) const {
    return !sketch || ((sketch->filter[wa_] & ma_) != 0 && (sketch->filter[wb_] & mb_) != 0);
  }

private:
  std::size_t wa_ = 0, wb_ = 0;
  std::uint64_t ma_ = 0, mb_ = 0;
};

void setBits(std::array<std::uint64_t, 8> &filter, std::string_view word) {
  const auto [a, b] = filterBits(word);
  filter[a >> 6] |= std::uint64_t{1} << (a & 63);
  filter[b >> 6] |= std::uint64_t{1} << (b & 63);
}

bool isAsciiWord(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

} // namespace

StatementSketch StatementSketch::of(std::string_view text) {
  // The runs of word bytes (>= 0x80 included: search()'s words), and within a run holding such
  // bytes, its ASCII pieces too (the scans that take those bytes for blanks: forEachWord()).
  StatementSketch sketch;
  for (std::size_t i = 0; i < text.size();) {
    const auto u = static_cast<unsigned char>(text[i]);
    if (!isAsciiWord(text[i]) && u < 0x80) {
      ++i;
      continue;
    }
    std::size_t j = i;
    bool wide = false;
    for (; j < text.size() && (isAsciiWord(text[j]) || static_cast<unsigned char>(text[j]) >= 0x80); ++j)
      wide = wide || static_cast<unsigned char>(text[j]) >= 0x80;
    setBits(sketch.filter, text.substr(i, j - i));
    if (wide)
      for (std::size_t k = i; k < j;) {
        if (!isAsciiWord(text[k])) {
          ++k;
          continue;
        }
        std::size_t l = k;
        while (l < j && isAsciiWord(text[l])) ++l;
        setBits(sketch.filter, text.substr(k, l - k));
        k = l;
      }
    i = j;
  }
  return sketch;
}

bool StatementSketch::mayHold(std::string_view word) const { return FilterProbe(word).mayHold(this); }

std::vector<std::string> SemanticModel::cannotShowFound(std::size_t index) const {
  std::vector<std::string> out;
  if (units_[index].walk != 0) return out;
  // Sorted by statement when first asked after a query added to it: an editor host asks of
  // every statement in turn, and a pass over all of them each time grew with the file squared.
  if (cannotShowSorted_ != cannotShow_.size()) {
    std::sort(cannotShow_.begin(), cannotShow_.end());
    cannotShowSorted_ = cannotShow_.size();
  }
  const auto u = static_cast<std::uint32_t>(index);
  auto it =
      std::lower_bound(cannotShow_.begin(), cannotShow_.end(), u,
                       [](const std::pair<std::uint32_t, std::string> &e, std::uint32_t v) { return e.first < v; });
  for (; it != cannotShow_.end() && it->first == u; ++it)
    if (out.empty() || out.back() != it->second) out.push_back(it->second);
  return out;
}

std::vector<std::uint32_t> SemanticModel::statementsFoundUnableToShow() const {
  std::vector<std::uint32_t> out;
  out.reserve(cannotShow_.size());
  for (const auto &entry : cannotShow_) out.push_back(entry.first);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::uint64_t StatementFacts::wordBit(std::string_view word) {
  std::uint64_t h = 14695981039346656037ULL; // FNV-1a
  for (const char c : word) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return std::uint64_t{1} << (h >> 58);
}

bool StatementFacts::has(std::string_view word) const {
  return (bits & wordBit(word)) != 0 && std::binary_search(words.begin(), words.end(), word);
}

StatementFacts SemanticModel::factsOf(std::size_t index) const {
  const Walk &w = walk(static_cast<std::uint32_t>(index));
  std::vector<std::string> words;
  for (const std::string_view word : w.errorWords) words.push_back(StatementFacts::error(word));
  for (const std::string_view module : w.starModules)
    words.push_back(StatementFacts::import(module.substr(0, module.find('.'))));
  for (std::uint32_t i = w.firstName; i < w.lastName; ++i) {
    const NameUse &use = names_[i];
    if (!use.qualified.empty())
      words.push_back(StatementFacts::import(std::string_view(use.qualified).substr(0, use.qualified.find('.'))));
    if (use.inError || lookup(use.name, use.scope) != 0) continue;
    words.push_back(StatementFacts::name(use.name));
    if (use.role != NameRole::Reference) words.push_back(StatementFacts::binding(use.name));
  }
  for (std::uint32_t i = w.firstKeyword; i < w.lastKeyword; ++i)
    words.push_back(StatementFacts::keyword(keywords_[i].name));
  for (std::uint32_t i = w.firstAttribute; i < w.lastAttribute; ++i)
    words.push_back(StatementFacts::attribute(attributes_[i].name));
  for (std::uint32_t i = w.firstScope; i < w.lastScope; ++i)
    if (!scopes_[i].name.empty()) words.push_back(StatementFacts::definition(scopes_[i].name));
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  StatementFacts facts;
  for (const std::string &word : words) facts.bits |= StatementFacts::wordBit(word);
  facts.words = std::move(words);
  return facts;
}

TSNode SemanticModel::nodeOf(const Unit &unit) const {
  return DocumentInternals::statement(doc_, static_cast<std::size_t>(&unit - units_.data()));
}

TSNode SemanticModel::statementAfter(TSNode statement) const {
  const std::uint32_t start = ts_node_start_byte(statement);
  auto it =
      std::upper_bound(units_.begin(), units_.end(), start, [](std::uint32_t o, const Unit &u) { return o < u.start; });
  return it == units_.end() ? TSNode{} : nodeOf(*it);
}

namespace {

bool isWordByte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '_' || u >= 0x80;
}

/// The first entry of `index` that starts at `start` (the walk records one use per node).
template <class T>
const T *find(const std::vector<std::pair<std::uint32_t, std::uint32_t>> &index, const std::deque<T> &v,
              std::uint32_t start) {
  const auto it = std::lower_bound(index.begin(), index.end(), start,
                                   [](const auto &entry, std::uint32_t s) { return entry.first < s; });
  return it == index.end() || it->first != start ? nullptr : &v[it->second];
}

template <class T, class Start>
std::vector<std::pair<std::uint32_t, std::uint32_t>> positionIndex(const std::deque<T> &v, std::uint32_t first,
                                                                   std::uint32_t last, Start start) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> index;
  index.reserve(last - first);
  for (std::uint32_t i = first; i < last; ++i) index.emplace_back(start(v[i]), i);
  if (!std::is_sorted(index.begin(), index.end()))
    std::stable_sort(index.begin(), index.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
  return index;
}

} // namespace

const SemanticModel::Walk &SemanticModel::walk(std::uint32_t index) const {
  if (units_[index].walk != 0) return walks_[units_[index].walk - 1];
  Walk &unit = walks_.emplace_back();
  units_[index].walk = static_cast<std::uint32_t>(walks_.size());
  walked_.push_back(index);
  unit.firstName = static_cast<std::uint32_t>(names_.size());
  unit.firstKeyword = static_cast<std::uint32_t>(keywords_.size());
  unit.firstAttribute = static_cast<std::uint32_t>(attributes_.size());
  unit.firstScope = static_cast<std::uint32_t>(scopes_.size());
  const TSNode node = nodeOf(units_[index]);
  Builder(text_, scopes_, names_, keywords_, attributes_, inError_, unit.errorWords, unit.starModules)
      .run(ts_tree_root_node(node.tree), node);
  unit.lastName = static_cast<std::uint32_t>(names_.size());
  unit.lastKeyword = static_cast<std::uint32_t>(keywords_.size());
  unit.lastAttribute = static_cast<std::uint32_t>(attributes_.size());
  unit.lastScope = static_cast<std::uint32_t>(scopes_.size());
  for (std::uint32_t i = unit.firstName; i < unit.lastName; ++i) {
    const NameUse &use = names_[i];
    if (!binds(use.role) || use.scope == 0) continue; // the module's own set is not kept
    Scope &scope = scopes_[use.scope];
    if (!scope.globals.contains(use.name) && !scope.nonlocals.contains(use.name)) scope.bound.insert(use.name);
  }
  for (std::uint32_t s = unit.firstScope; s < unit.lastScope; ++s)
    if (!ts_node_is_null(scopes_[s].nameNode)) scopeByName_[ts_node_start_byte(scopes_[s].nameNode)] = s;
  unit.nameAt =
      positionIndex(names_, unit.firstName, unit.lastName, [](const NameUse &u) { return ts_node_start_byte(u.node); });
  unit.keywordAt = positionIndex(keywords_, unit.firstKeyword, unit.lastKeyword,
                                 [](const KeywordUse &k) { return ts_node_start_byte(k.node); });
  unit.attributeAt = positionIndex(attributes_, unit.firstAttribute, unit.lastAttribute,
                                   [](const AttributeUse &a) { return ts_node_start_byte(a.node); });
  return unit;
}

const SemanticModel::Walk *SemanticModel::unitAt(std::uint32_t offset) const {
  const auto it = std::upper_bound(units_.begin(), units_.end(), offset,
                                   [](std::uint32_t o, const Unit &u) { return o < u.start; });
  if (it == units_.begin() || offset >= std::prev(it)->end) return nullptr;
  return &walk(static_cast<std::uint32_t>(std::prev(it) - units_.begin()));
}

void SemanticModel::noteAt(std::uint32_t offset) const {
  if (!sink_ || (offset >= sinkStart_ && offset < sinkEnd_)) return;
  const auto it = std::upper_bound(units_.begin(), units_.end(), offset,
                                   [](std::uint32_t o, const Unit &u) { return o < u.start; });
  if (it == units_.begin()) return;
  const Unit &unit = *std::prev(it);
  sink_->ranges.emplace_back(unit.start, std::max(unit.end, offset + 1));
}

const std::vector<std::uint32_t> &SemanticModel::search(std::string_view word) const {
  if (const auto it = searched_.find(word); it != searched_.end()) return it->second;
  std::vector<std::uint32_t> found;
  if (!word.empty() && !sketches_.empty()) {
    // Unit by unit, only in those whose filter may hold the word: no pass over the whole text.
    const FilterProbe probe(word);
    for (std::uint32_t u = 0; u < units_.size(); ++u) {
      if (!probe.mayHold(sketches_[u])) continue;
      const std::string_view upTo = text_.substr(0, units_[u].end);
      for (std::size_t i = upTo.find(word, units_[u].start); i != std::string_view::npos; i = upTo.find(word, i + 1)) {
        const bool afterBom = i == 3 && text_.starts_with("\xEF\xBB\xBF");
        if ((i > 0 && !afterBom && isWordByte(text_[i - 1])) ||
            (i + word.size() < text_.size() && isWordByte(text_[i + word.size()])))
          continue;
        found.push_back(u);
        break;
      }
    }
  } else if (!word.empty() && !units_.empty()) {
    std::size_t unit = 0;
    for (std::size_t i = text_.find(word); i != std::string_view::npos; i = text_.find(word, i + 1)) {
      // A byte order mark is no part of the first word (its bytes are >= 0x80, like a letter's).
      const bool afterBom = i == 3 && text_.starts_with("\xEF\xBB\xBF");
      if ((i > 0 && !afterBom && isWordByte(text_[i - 1])) ||
          (i + word.size() < text_.size() && isWordByte(text_[i + word.size()])))
        continue;
      while (unit < units_.size() && units_[unit].end <= i) ++unit;
      if (unit == units_.size()) break;
      if (units_[unit].start > i) continue; // between statements (blank space)
      if (found.empty() || found.back() != unit) found.push_back(static_cast<std::uint32_t>(unit));
      i = units_[unit].end - 1; // the next occurrence that matters is in a later unit
    }
  }
  return searched_.emplace(std::string(word), std::move(found)).first->second;
}

const std::vector<std::uint32_t> &SemanticModel::unitsWith(std::string_view word) const {
  const std::vector<std::uint32_t> &found = search(word);
  for (const std::uint32_t u : found) walk(u);
  return found;
}

const std::vector<std::uint32_t> &SemanticModel::unitsWithFact(std::string_view word, const std::string &fact) const {
  noteFact(fact);
  if (const auto it = withFact_.find(fact); it != withFact_.end()) return it->second;
  std::vector<std::uint32_t> found = search(word);
  unitsScanned_ += found.size();
  if (!known_.empty()) std::erase_if(found, [&](std::uint32_t u) { return known_[u] && !known_[u]->has(fact); });
  // Statements whose text tells they cannot show the fact are not walked (see mayShow()).
  std::erase_if(found, [&](std::uint32_t u) {
    if (units_[u].walk != 0) return false;
    if (!sketches_.empty() && sketches_[u] && sketches_[u]->ruledOut(fact)) return true;
    if (mayShow(u, word, fact)) return false;
    cannotShow_.emplace_back(u, fact);
    return true;
  });
  for (const std::uint32_t u : found) walk(u);
  return withFact_.emplace(fact, std::move(found)).first->second;
}

namespace {

/// A byte that continues an ASCII identifier. The scans below take a byte >= 0x80 for neither a
/// letter nor a blank where that would make an answer "no": it may be part of a letter (`é`) or
/// of a space tree-sitter allows between tokens (U+00A0, U+200B, U+FEFF).
bool isAsciiWordByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool isBlankByte(char c) {
  return c == ' ' || c == '\t' || c == '\f' || c == '\v' || static_cast<unsigned char>(c) >= 0x80;
}

/// The whole-word occurrences of `word` in text[start, end), bounded by ASCII word bytes only
/// (more occurrences than the tokens, never fewer), while `f` returns false.
template <class F>
void forEachWord(std::string_view text, std::string_view word, std::size_t start, std::size_t end, F &&f) {
  const std::string_view upTo = text.substr(0, end); // the search stops at `end`, not at the text's end
  for (std::size_t i = upTo.find(word, start); i != std::string_view::npos; i = upTo.find(word, i + 1))
    if ((i == 0 || !isAsciiWordByte(text[i - 1])) &&
        (i + word.size() == text.size() || !isAsciiWordByte(text[i + word.size()])) && f(i))
      return;
}

/// Whether the word text[at, at + size) may be the target of an assignment with a value:
/// not an attribute (`self.loader = …`), followed — past blanks and line continuations — by
/// `=` (not `==`), or by `:` where a statement starts (`loader: T = …`, also after a block's
/// colon: `if fast: loader: T = …`; not `for x in loader:`).
bool looksAssigned(std::string_view text, std::size_t at, std::size_t size) {
  std::size_t before = at;
  while (before > 0 && isBlankByte(text[before - 1])) --before;
  if (before > 0 && text[before - 1] == '.') return false;
  const bool startsStatement = before == 0 || text[before - 1] == '\n' || text[before - 1] == '\r' ||
                               text[before - 1] == ';' || text[before - 1] == ':';
  std::size_t after = at + size;
  for (;;) {
    while (after < text.size() && isBlankByte(text[after])) ++after;
    if (after + 1 >= text.size() || text[after] != '\\') break;
    after += text[after + 1] == '\r' && after + 2 < text.size() && text[after + 2] == '\n' ? 3 : 2;
  }
  if (after >= text.size()) return false;
  if (text[after] == '=') return after + 1 == text.size() || text[after + 1] != '=';
  return text[after] == ':' && startsStatement;
}

/// Whether text[start, end) holds an assignment-like spelling of `name`.
bool assignsWithin(std::string_view text, std::string_view name, std::size_t start, std::size_t end) {
  bool found = false;
  forEachWord(text, name, start, end, [&](std::size_t i) { return found = looksAssigned(text, i, name.size()); });
  return found;
}

/// Whether the top-level statement at text[start, …) is a function or class definition, read from
/// its first word (in a tree without syntax errors, a statement starting with `def`, `class`,
/// `async def` or a decorator is one).
bool definesAt(std::string_view text, std::size_t start) {
  if (start == 0 && text.starts_with("\xEF\xBB\xBF")) start = 3;
  const std::string_view rest = text.substr(std::min(start, text.size()));
  const auto keyword = [&](std::string_view k, std::size_t at = 0) {
    return rest.substr(at).starts_with(k) && rest.size() > at + k.size() && isBlankByte(rest[at + k.size()]);
  };
  if (rest.starts_with('@') || keyword("def") || keyword("class")) return true;
  if (!keyword("async")) return false;
  std::size_t at = 5;
  while (at < rest.size() && isBlankByte(rest[at])) ++at;
  return keyword("def", at);
}

} // namespace

bool SemanticModel::mayShow(std::uint32_t index, std::string_view word, std::string_view fact) const {
  const Unit &unit = units_[index];
  if (fact == StatementFacts::import(word)) { // only an import statement's path makes one
    bool imports = false;
    forEachWord(text_, "import", unit.start, unit.end, [&](std::size_t) { return imports = true; });
    return imports;
  }
  if (fact == StatementFacts::definition(word)) { // `def word`, `class word`, or a lambda named `word = lambda`
    bool named = false;
    forEachWord(text_, "lambda", unit.start, unit.end, [&](std::size_t) { return named = true; });
    if (named) return true;
    forEachWord(text_, word, unit.start, unit.end, [&](std::size_t at) {
      while (at > unit.start &&
             (isBlankByte(text_[at - 1]) || text_[at - 1] == '\\' || text_[at - 1] == '\n' || text_[at - 1] == '\r'))
        --at;
      const std::string_view before = text_.substr(unit.start, at - unit.start);
      return named = before.ends_with("def") || before.ends_with("class");
    });
    return named;
  }
  if (fact != StatementFacts::binding(word)) return true;
  // A definition binds at module level its own name only, unless its text says otherwise: most
  // statements that mention a module-level name are functions that read it.
  if (word == "await") return true; // `await(x)` in any function may be the module's name `await`
  // Told from the text (a statement's node is slow to find in a long module): in a tree without
  // syntax errors, a statement that starts with `def`, `class` or `async def` is a definition of
  // the name that follows (one with decorators is walked).
  if (!definesAt(text_, unit.start) || text_[unit.start] == '@') return true;
  if (DocumentInternals::hasError(doc_)) {
    if (!broken_) { // the statements with syntax errors, listed once
      broken_.emplace();
      for (const TSNode statement : DocumentInternals::statements(doc_))
        broken_->push_back(ts_node_has_error(statement));
    }
    if (index >= broken_->size() || (*broken_)[index]) return true;
  }
  std::size_t at = unit.start;
  for (const std::string_view keyword : {"async", "def", "class"}) {
    if (text_.compare(at, keyword.size(), keyword) != 0) continue;
    at += keyword.size();
    while (at < unit.end && (isBlankByte(text_[at]) || text_[at] == '\\' || text_[at] == '\n' || text_[at] == '\r'))
      ++at;
  }
  std::size_t end = at;
  while (end < unit.end && isWordByte(text_[end])) ++end;
  if (end == at || text_.substr(at, end - at) == word) return true;
  // What lets a definition bind another module-level name: `global` or `nonlocal` (which the
  // model resolves to the module's name when no function around binds it) in its body, and a
  // walrus in its decorators, defaults or bases (evaluated at module level).
  // (A file without syntax errors, `global` and `nonlocal`, as the shortcuts find once, has none
  // of the first two in any statement.)
  bool other = text_.substr(unit.start, unit.end - unit.start).find(":=") != std::string_view::npos;
  if (other || shortcutsAllowed()) return other;
  forEachWord(text_, "global", unit.start, unit.end, [&](std::size_t) { return other = true; });
  forEachWord(text_, "nonlocal", unit.start, unit.end, [&](std::size_t) { return other = true; });
  return other;
}

bool SemanticModel::shortcutsAllowed() const {
  if (!noShortcut_) {
    noShortcut_ = DocumentInternals::hasError(doc_);
    if (sketches_.empty()) {
      forEachWord(text_, "global", 0, text_.size(), [&](std::size_t) { return *noShortcut_ = true; });
      forEachWord(text_, "nonlocal", 0, text_.size(), [&](std::size_t) { return *noShortcut_ = true; });
    }
    // With sketches, in the statements whose filter may hold the words (only whitespace lies
    // between statements).
    const FilterProbe global("global"), nonlocal("nonlocal");
    for (std::uint32_t u = 0; !sketches_.empty() && !*noShortcut_ && u < units_.size(); ++u) {
      if (global.mayHold(sketches_[u]))
        forEachWord(text_, "global", units_[u].start, units_[u].end, [&](std::size_t) { return *noShortcut_ = true; });
      if (!*noShortcut_ && nonlocal.mayHold(sketches_[u]))
        forEachWord(text_, "nonlocal", units_[u].start, units_[u].end,
                    [&](std::size_t) { return *noShortcut_ = true; });
    }
  }
  return !*noShortcut_;
}

std::optional<std::vector<TSNode>> SemanticModel::valuesMaybeAssigned(std::string_view name, std::uint32_t use) const {
  const auto unit =
      std::upper_bound(units_.begin(), units_.end(), use, [](std::uint32_t o, const Unit &u) { return o < u.start; });
  if (unit == units_.begin() || use >= std::prev(unit)->end || name.empty() || !shortcutsAllowed()) return std::nullopt;
  // The binding is the module's, or one of a scope inside the use's statement: its values are
  // among the module's bindings' and those of the assignments spelt in that statement.
  std::vector<TSNode> values;
  for (const NameUse *b : bindingsOf({0, name}))
    if (!ts_node_is_null(b->value) && !b->iterated) values.push_back(b->value);
  const Unit &own = *std::prev(unit);
  const TSNode statement = nodeOf(own);
  const Kinds &k = Kinds::get();
  forEachWord(text_, name, own.start, own.end, [&](std::size_t at) {
    if (!looksAssigned(text_, at, name.size())) return false;
    // Down from the statement to the identifier there, with its parent.
    TSNode parent{}, node = statement;
    while (!ts_node_is_null(node) && ts_node_start_byte(node) <= at &&
           !(ts_node_start_byte(node) == at && ts_node_end_byte(node) == at + name.size() && isIdentifier(node))) {
      parent = node;
      node = ts_node_first_child_for_byte(node, static_cast<std::uint32_t>(at));
    }
    if (ts_node_is_null(node) || ts_node_start_byte(node) != at || ts_node_symbol(parent) != k.assignment ||
        !ts_node_eq(field(parent, "left"), node))
      return false;
    if (const TSNode value = field(parent, "right"); !ts_node_is_null(value)) values.push_back(value);
    return false;
  });
  note("global"); // which would make the answer "cannot tell"
  note("nonlocal");
  return values;
}

bool SemanticModel::mayAssignValue(std::string_view name, std::uint32_t use) const {
  // "Maybe" is a shortcut that depends on nothing: the caller goes on to ask what it needs. "No"
  // depends on what would make it "maybe": a module-level binding of the name (which its
  // statement's facts show), `global` and `nonlocal` (see below) — and the statement holding the
  // use, and whether the tree has syntax errors, which change no certain answer.
  const auto no = [&] {
    noteFact(StatementFacts::binding(name));
    note("global");
    note("nonlocal");
    return false;
  };
  const auto unit =
      std::upper_bound(units_.begin(), units_.end(), use, [](std::uint32_t o, const Unit &u) { return o < u.start; });
  if (unit == units_.begin() || use >= std::prev(unit)->end || name.empty()) return true;
  // `global` anywhere, or `nonlocal` (which the model resolves to the module's name when no
  // function around binds it), lets an assignment in any function bind a module's name; in an
  // ERROR region, what binds what is the walk's guess: no shortcut then.
  if (!shortcutsAllowed()) return true;
  // The statement holding the use: its function's (or its class's, or the module's) assignments.
  const Unit &own = *std::prev(unit);
  if (assignsWithin(text_, name, own.start, own.end)) return true;
  // Module-level code (every statement that is no definition), once per name.
  if (!moduleCode_) {
    moduleCode_.emplace();
    for (std::uint32_t u = 0; u < units_.size(); ++u)
      if (!definesAt(text_, units_[u].start)) moduleCode_->push_back(u);
  }
  auto found = assignedAtModule_.find(name);
  if (found == assignedAtModule_.end()) {
    const bool any = std::any_of(moduleCode_->begin(), moduleCode_->end(), [&](std::uint32_t u) {
      return mayHold(u, name) && assignsWithin(text_, name, units_[u].start, units_[u].end);
    });
    found = assignedAtModule_.emplace(std::string(name), any).first;
  }
  return found->second || no();
}

void SemanticModel::ensureWord(std::string_view word) const {
  note(word);
  unitsWith(word);
}

void SemanticModel::ensureAll() const {
  for (std::uint32_t u = 0; u < units_.size(); ++u) walk(u);
}

std::size_t SemanticModel::statementsWalked() const { return walks_.size(); }
std::size_t SemanticModel::unitsScanned() const { return unitsScanned_; }

const std::deque<NameUse> &SemanticModel::allNamesForTests() const {
  ensureAll();
  return names_;
}

const NameUse *SemanticModel::nameAt(std::uint32_t start) const {
  noteAt(start);
  const Walk *unit = unitAt(start);
  return unit ? find(unit->nameAt, names_, start) : nullptr;
}
const KeywordUse *SemanticModel::keywordAt(std::uint32_t start) const {
  noteAt(start);
  const Walk *unit = unitAt(start);
  return unit ? find(unit->keywordAt, keywords_, start) : nullptr;
}
const AttributeUse *SemanticModel::attributeAt(std::uint32_t start) const {
  noteAt(start);
  const Walk *unit = unitAt(start);
  return unit ? find(unit->attributeAt, attributes_, start) : nullptr;
}

const std::vector<const KeywordUse *> &SemanticModel::keywordsCalled(std::string_view name) const {
  noteFact(StatementFacts::keyword(name));
  if (const auto it = keywordsCalled_.find(name); it != keywordsCalled_.end()) return it->second;
  const std::vector<std::uint32_t> &units = unitsWithFact(name, StatementFacts::keyword(name));
  std::vector<const KeywordUse *> out;
  for (const std::uint32_t u : units)
    for (std::uint32_t i = walk(u).firstKeyword, last = walk(u).lastKeyword; i < last; ++i)
      if (keywords_[i].name == name) out.push_back(&keywords_[i]);
  return keywordsCalled_.emplace(std::string(name), std::move(out)).first->second;
}

const std::vector<const AttributeUse *> &SemanticModel::attributesCalled(std::string_view name) const {
  noteFact(StatementFacts::attribute(name));
  if (const auto it = attributesCalled_.find(name); it != attributesCalled_.end()) return it->second;
  const std::vector<std::uint32_t> &units = unitsWithFact(name, StatementFacts::attribute(name));
  std::vector<const AttributeUse *> out;
  for (const std::uint32_t u : units)
    for (std::uint32_t i = walk(u).firstAttribute, last = walk(u).lastAttribute; i < last; ++i)
      if (attributes_[i].name == name) out.push_back(&attributes_[i]);
  return attributesCalled_.emplace(std::string(name), std::move(out)).first->second;
}

std::size_t SemanticModel::definitionsNamed(std::string_view name, std::optional<ScopeKind> kind) const {
  noteFact(StatementFacts::definition(name));
  auto it = definitions_.find(name);
  if (it == definitions_.end()) {
    const std::vector<std::uint32_t> &units = unitsWithFact(name, StatementFacts::definition(name));
    std::vector<ScopeKind> kinds;
    for (const std::uint32_t u : units)
      for (std::uint32_t s = walk(u).firstScope, last = walk(u).lastScope; s < last; ++s)
        if (scopes_[s].name == name) kinds.push_back(scopes_[s].kind);
    it = definitions_.emplace(std::string(name), std::move(kinds)).first;
  }
  return kind ? static_cast<std::size_t>(std::count(it->second.begin(), it->second.end(), *kind)) : it->second.size();
}

const Scope *SemanticModel::scopeNamedBy(TSNode nameNode) const {
  const std::uint32_t start = ts_node_start_byte(nameNode);
  noteAt(start);
  if (!unitAt(start)) return nullptr;
  const auto it = scopeByName_.find(start);
  return it == scopeByName_.end() || !ts_node_eq(scopes_[it->second].nameNode, nameNode) ? nullptr
                                                                                         : &scopes_[it->second];
}

bool SemanticModel::importsPackage(std::string_view package) const {
  noteFact(StatementFacts::import(package));
  if (const auto it = importsPackage_.find(package); it != importsPackage_.end()) return it->second;
  const std::vector<std::uint32_t> &units = unitsWithFact(package, StatementFacts::import(package));
  const bool found = std::any_of(units.begin(), units.end(), [&](std::uint32_t u) {
    for (std::uint32_t i = walk(u).firstName, last = walk(u).lastName; i < last; ++i) {
      const NameUse &use = names_[i];
      if (use.inError || use.qualified.empty()) continue;
      const std::string_view q = use.qualified;
      if (q.substr(0, q.find('.')) == package) return true;
    }
    return std::any_of(walk(u).starModules.begin(), walk(u).starModules.end(),
                       [&](std::string_view m) { return m.substr(0, m.find('.')) == package; });
  });
  return importsPackage_.emplace(std::string(package), found).first->second;
}

std::vector<std::string_view> SemanticModel::starImportsOf(std::string_view package) const {
  std::vector<std::string_view> modules;
  for (const std::uint32_t u : unitsWithFact(package, StatementFacts::import(package)))
    for (const std::string_view m : walk(u).starModules)
      if (m.substr(0, m.find('.')) == package) modules.push_back(m);
  return modules;
}

std::uint32_t SemanticModel::lookup(std::string_view name, std::uint32_t s) const {
  for (bool first = true;; first = false) {
    if (s == 0) return 0;
    const Scope &scope = scopes_[s];
    if (first || scope.kind != ScopeKind::Class) {
      if (scope.globals.contains(name)) return 0;
      if (scope.nonlocals.contains(name)) {
        // The nearest enclosing function scope that binds the name.
        for (std::uint32_t p = scope.parent; p != 0; p = scopes_[p].parent)
          if (scopes_[p].kind != ScopeKind::Class && scopes_[p].bound.contains(name)) return p;
        return 0;
      }
      if (scope.bound.contains(name)) return s;
    }
    s = scope.parent;
  }
}

BindingKey SemanticModel::resolve(const NameUse &use) const {
  // Answered from the use's own statement: its scopes, and the module as the fallback.
  return {lookup(use.name, use.scope), use.name};
}

const std::vector<std::uint32_t> &SemanticModel::namesCalled(std::string_view name) const {
  ensureWord(name);
  return usesNamed(name);
}

const std::vector<std::uint32_t> &SemanticModel::usesNamed(std::string_view name) const {
  if (const auto it = byName_.find(name); it != byName_.end()) return it->second;
  std::vector<std::uint32_t> uses;
  for (const std::uint32_t u : unitsWith(name))
    for (std::uint32_t i = walk(u).firstName, last = walk(u).lastName; i < last; ++i)
      if (names_[i].name == name) uses.push_back(i);
  std::stable_sort(uses.begin(), uses.end(), [&](std::uint32_t a, std::uint32_t b) {
    return ts_node_start_byte(names_[a].node) < ts_node_start_byte(names_[b].node);
  });
  return byName_.emplace(std::string(name), std::move(uses)).first->second;
}

const std::vector<const NameUse *> &SemanticModel::bindingsOf(BindingKey key) const {
  const auto found = bindingsOf_.find(std::make_pair(key.scope, std::string(key.name)));
  if (found != bindingsOf_.end()) {
    if (key.scope == 0) noteFact(StatementFacts::binding(key.name));
    else noteAt(ts_node_start_byte(scopes_[key.scope].node));
    return found->second;
  }
  std::vector<const NameUse *> bindings;
  const auto binding = [](const NameUse &use) { return use.role != NameRole::Reference; };
  if (key.scope == 0) {
    // The statements whose facts show a binding (their text holds the name: the search is for it).
    for (const std::uint32_t u : unitsWithFact(key.name, StatementFacts::binding(key.name)))
      for (std::uint32_t i = walk(u).firstName, last = walk(u).lastName; i < last; ++i) {
        const NameUse &use = names_[i];
        if (use.name == key.name && !use.inError && binding(use) && lookup(use.name, use.scope) == 0)
          bindings.push_back(&use);
      }
    std::stable_sort(bindings.begin(), bindings.end(), [](const NameUse *a, const NameUse *b) {
      return ts_node_start_byte(a->node) < ts_node_start_byte(b->node);
    });
  } else {
    for (const NameUse *use : usesOf(key))
      if (binding(*use)) bindings.push_back(use);
  }
  return bindingsOf_.emplace(std::make_pair(key.scope, std::string(key.name)), std::move(bindings)).first->second;
}

const std::vector<const NameUse *> &SemanticModel::usesOf(BindingKey key) const {
  if (key.scope == 0) {
    noteFact(StatementFacts::name(key.name)); // module-level: any statement may use it
  } else {
    noteAt(ts_node_start_byte(scopes_[key.scope].node)); // the statement that holds the scope
  }
  const auto found = usesOf_.find(std::make_pair(key.scope, std::string(key.name)));
  if (found != usesOf_.end()) return found->second;
  std::vector<const NameUse *> uses;
  if (key.scope == 0) {
    for (const std::uint32_t u : unitsWithFact(key.name, StatementFacts::name(key.name)))
      for (std::uint32_t i = walk(u).firstName, last = walk(u).lastName; i < last; ++i) {
        const NameUse &use = names_[i];
        if (use.name == key.name && !use.inError && lookup(use.name, use.scope) == 0) uses.push_back(&use);
      }
    std::stable_sort(uses.begin(), uses.end(), [](const NameUse *a, const NameUse *b) {
      return ts_node_start_byte(a->node) < ts_node_start_byte(b->node);
    });
  } else if (const Walk *unit = unitAt(ts_node_start_byte(scopes_[key.scope].node))) {
    for (const auto &[start, i] : unit->nameAt) {
      const NameUse &use = names_[i];
      if (use.name == key.name && !use.inError && lookup(use.name, use.scope) == key.scope) uses.push_back(&use);
    }
  }
  return usesOf_.emplace(std::make_pair(key.scope, std::string(key.name)), std::move(uses)).first->second;
}

} // namespace asyncfix
