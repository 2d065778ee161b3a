#include "semantic.h"

#include <algorithm>

#include <cstring>

#include "asyncfix/document.h"
#include "syntax.h"

namespace asyncfix {
namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

struct Frame {
  TSNode node{};
  TSSymbol symbol = 0;
  const char *field = nullptr;   ///< this node's field in its parent
  std::uint32_t scope = 0;       ///< scope this node's expressions are evaluated in
  std::uint32_t own = kNone;     ///< scope created by this node
  std::uint32_t paramScope = kNone; ///< inside `parameters`: the function's scope
  std::uint32_t forIns = 0;      ///< comprehension: for_in_clauses seen so far
  bool firstForIn = false;       ///< the first for_in_clause of a comprehension
  bool inError = false;
};

bool fieldIs(const Frame &f, const char *name) { return f.field && std::strcmp(f.field, name) == 0; }

bool isComprehension(const Kinds &k, TSSymbol s) {
  return s == k.listComprehension || s == k.setComprehension || s == k.dictionaryComprehension ||
         s == k.generatorExpression;
}

/// Nodes a target name can be nested in: `a, (b, *c) = …`, `with x as (a, [b]):`. The holder's
/// field decides whether it is a target (`left`) or not (`right`, an argument list…).
bool isPatternContainer(const Kinds &k, TSSymbol s) {
  return s == k.patternList || s == k.tuplePattern || s == k.listPattern || s == k.listSplatPattern ||
         s == k.tuple || s == k.list || s == k.listSplat || s == k.parenthesizedExpression;
}

class Builder {
public:
  Builder(const Document &doc, std::vector<Scope> &scopes, std::vector<NameUse> &names,
          std::vector<KeywordUse> &keywords, std::vector<AttributeUse> &attributes,
          std::unordered_set<std::string_view> &inError)
      : text_(doc.text()), k_(Kinds::get()), scopes_(scopes), names_(names), keywords_(keywords),
        attributes_(attributes), inError_(inError) {}

  void run(TSNode root) {
    Scope module;
    module.node = root;
    scopes_.push_back(std::move(module));
    Cursor cursor(root);
    TSTreeCursor *c = cursor.get();
    Frame rootFrame;
    rootFrame.node = root;
    rootFrame.symbol = ts_node_symbol(root);
    path_.push_back(rootFrame);
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
        if (!ts_tree_cursor_goto_parent(c)) return;
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
    if (f.symbol == k_.functionDefinition || f.symbol == k_.classDefinition ||
        f.symbol == k_.lambda || isComprehension(k_, f.symbol)) {
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
      s.isAsync = ts_node_child_count(f.node) > 0 &&
                  ts_node_symbol(ts_node_child(f.node, 0)) == k_.anonAsync;
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
    if (f.symbol == k_.await) return visitAwait(f);
    if ((f.inError || f.symbol == k_.error) &&
        (f.symbol == k_.anonAsync || f.symbol == k_.anonAwait || isIdentifier(f.node)))
      inError_.insert(textOf(f.node, text_));
    if (!isIdentifier(f.node) || path_.size() < 2) return;
    const std::size_t i = path_.size() - 1;
    const Frame &p = path_[i - 1];
    const std::string_view name = textOf(f.node, text_);

    if (p.symbol == k_.attribute) {
      if (fieldIs(f, "attribute")) return attributes_.push_back({f.node, name, f.inError});
      return addName(f, name, NameRole::Reference, f.scope);
    }
    if (p.symbol == k_.keywordArgument && fieldIs(f, "name"))
      return keywords_.push_back(keywordUse(f, name, i));
    if (p.symbol == k_.dottedName) {
      if (i < 2) return;
      const Frame &g = path_[i - 2];
      const bool first = ts_node_eq(ts_node_named_child(p.node, 0), f.node);
      if (g.symbol == k_.importStatement && fieldIs(p, "name") && first) {
        addName(f, name, NameRole::ImportedName, f.scope);
        names_.back().qualified = std::string(name); // `import a.b` binds `a`, the package
      } else if (g.symbol == k_.importFromStatement && fieldIs(p, "name")) {
        addName(f, name, NameRole::ImportedName, f.scope);
        names_.back().qualified = std::string(textOf(field(g.node, "module_name"), text_)) + "." + std::string(name);
      }
      return; // otherwise a module path, not a variable
    }
    if (p.symbol == k_.aliasedImport) {
      if (!fieldIs(f, "alias") || i < 2) return;
      addName(f, name, NameRole::Binding, f.scope);
      const std::string_view path = textOf(field(p.node, "name"), text_);
      const Frame &g = path_[i - 2];
      names_.back().qualified = g.symbol == k_.importFromStatement
                                    ? std::string(textOf(field(g.node, "module_name"), text_)) + "." + std::string(path)
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
    if (p.symbol == k_.classDefinition && fieldIs(f, "name"))
      return addName(f, name, NameRole::ClassName, p.scope);
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
    if ((p.symbol == k_.defaultParameter || p.symbol == k_.typedDefaultParameter) && fieldIs(f, "name"))
      return true;
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

  void addName(const Frame &f, std::string_view name, NameRole role, std::uint32_t scope,
               TSNode node = {}) {
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
  std::vector<Scope> &scopes_;
  std::vector<NameUse> &names_;
  std::vector<KeywordUse> &keywords_;
  std::vector<AttributeUse> &attributes_;
  std::unordered_set<std::string_view> &inError_;
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

SemanticModel::SemanticModel(const Document &doc) {
  if (!doc.tree()) {
    scopes_.push_back(Scope{});
    return;
  }
  Builder(doc, scopes_, names_, keywords_, attributes_, inError_).run(ts_tree_root_node(doc.tree()));
  for (std::uint32_t i = 0; i < names_.size(); ++i) {
    const NameUse &use = names_[i];
    nameAt_.emplace_back(ts_node_start_byte(use.node), i);
    if (!binds(use.role)) continue;
    Scope &scope = scopes_[use.scope];
    if (scope.globals.contains(use.name)) scopes_[0].bound.insert(use.name);
    else if (!scope.nonlocals.contains(use.name)) scope.bound.insert(use.name);
  }
  for (std::uint32_t i = 0; i < keywords_.size(); ++i) keywordAt_.emplace_back(ts_node_start_byte(keywords_[i].node), i);
  for (std::uint32_t i = 0; i < attributes_.size(); ++i)
    attributeAt_.emplace_back(ts_node_start_byte(attributes_[i].node), i);
  for (PositionIndex *index : {&nameAt_, &keywordAt_, &attributeAt_})
    if (!std::is_sorted(index->begin(), index->end()))
      std::stable_sort(index->begin(), index->end(), [](const auto &a, const auto &b) { return a.first < b.first; });
}

namespace {
/// The first entry of `index` that starts at `start` (the walk records one use per node).
template <class T>
const T *find(const std::vector<std::pair<std::uint32_t, std::uint32_t>> &index, const std::vector<T> &v,
              std::uint32_t start) {
  const auto it = std::lower_bound(index.begin(), index.end(), start,
                                   [](const auto &entry, std::uint32_t s) { return entry.first < s; });
  return it == index.end() || it->first != start ? nullptr : &v[it->second];
}
} // namespace

const NameUse *SemanticModel::nameAt(std::uint32_t start) const {
  const NameUse *use = find(nameAt_, names_, start);
  if (use) noteResolved(use->name);
  return use;
}
const KeywordUse *SemanticModel::keywordAt(std::uint32_t start) const {
  const KeywordUse *k = find(keywordAt_, keywords_, start);
  if (k) noteResolved(k->name);
  return k;
}
const AttributeUse *SemanticModel::attributeAt(std::uint32_t start) const {
  const AttributeUse *a = find(attributeAt_, attributes_, start);
  if (a) noteResolved(a->name);
  return a;
}

std::vector<const KeywordUse *> SemanticModel::keywordsCalled(std::string_view name) const {
  note(name);
  std::vector<const KeywordUse *> out;
  for (const KeywordUse &k : keywords_)
    if (k.name == name) out.push_back(&k);
  return out;
}

std::vector<const AttributeUse *> SemanticModel::attributesCalled(std::string_view name) const {
  note(name);
  std::vector<const AttributeUse *> out;
  for (const AttributeUse &a : attributes_)
    if (a.name == name) out.push_back(&a);
  return out;
}

std::size_t SemanticModel::definitionsNamed(std::string_view name, std::optional<ScopeKind> kind) const {
  note(name);
  if (!definitionsBuilt_) { // once per file: a scan per call was quadratic in files with many calls
    definitionsBuilt_ = true;
    for (const Scope &s : scopes_)
      if (!s.name.empty()) definitions_[s.name].push_back(s.kind);
  }
  const auto it = definitions_.find(name);
  if (it == definitions_.end()) return 0;
  return kind ? static_cast<std::size_t>(std::count(it->second.begin(), it->second.end(), *kind)) : it->second.size();
}

bool SemanticModel::importsPackage(std::string_view package) const {
  note(package);
  return std::any_of(names_.begin(), names_.end(), [&](const NameUse &u) {
    if (u.inError || u.qualified.empty()) return false;
    const std::string_view q = u.qualified;
    return q.substr(0, q.find('.')) == package;
  });
}

std::uint32_t SemanticModel::lookup(std::string_view name, std::uint32_t s) const {
  for (bool first = true;; first = false) {
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
    if (s == 0) return 0;
    s = scope.parent;
  }
}

BindingKey SemanticModel::resolve(const NameUse &use) const {
  noteResolved(use.name);
  return {lookup(use.name, use.scope), use.name};
}

const std::vector<std::uint32_t> &SemanticModel::namesCalled(std::string_view name) const {
  note(name);
  return usesNamed(name);
}

const std::vector<std::uint32_t> &SemanticModel::usesNamed(std::string_view name) const {
  static const std::vector<std::uint32_t> kEmpty;
  if (!byNameBuilt_) {
    byNameBuilt_ = true;
    for (std::uint32_t i = 0; i < names_.size(); ++i) byName_[names_[i].name].push_back(i);
  }
  const auto it = byName_.find(name);
  return it == byName_.end() ? kEmpty : it->second;
}

const std::vector<const NameUse *> &SemanticModel::usesOf(BindingKey key) const {
  noteResolved(key.name);
  if (usesOfIndexed_.insert(key.name).second)
    for (std::uint32_t i : usesNamed(key.name)) {
      const NameUse &use = names_[i];
      if (!use.inError) usesOf_[{lookup(use.name, use.scope), use.name}].push_back(&use);
    }
  return usesOf_[{key.scope, key.name}];
}

bool SemanticModel::identifierExists(std::string_view name) const {
  note(name);
  if (!spellingsBuilt_) {
    spellingsBuilt_ = true;
    for (const NameUse &u : names_) spellings_.insert(u.name);
    for (const KeywordUse &k : keywords_) spellings_.insert(k.name);
    for (const AttributeUse &a : attributes_) spellings_.insert(a.name);
  }
  return spellings_.contains(name);
}

} // namespace asyncfix
