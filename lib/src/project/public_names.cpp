#include "asyncfix/public_names.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "analysis/name_origins.h"
#include "analysis/semantic.h"
#include "asyncfix/document.h"
#include "asyncfix/document_internals.h"
#include "project/public_callable.h"
#include "text/prefilter.h"
#include "text/syntax.h"

namespace asyncfix {
namespace {

bool isPrivate(std::string_view name) { return name.starts_with('_'); }

bool isDunder(std::string_view name) { return name.size() > 4 && name.starts_with("__") && name.ends_with("__"); }

/// The callee's last name as written: `f` of `f(…)` and of `obj.f(…)`.
std::string_view lastName(TSNode callee, std::string_view text) {
  if (isIdentifier(callee)) return textOf(callee, text);
  if (symbolOf(callee) == Kinds::get().attribute) return textOf(fieldOf(callee, "attribute"), text);
  return {};
}

KeywordCall callTo(TSNode callee, std::string_view keyword, std::string_view text, NameOrigins &origins) {
  KeywordCall call;
  call.keyword = std::string(keyword);
  call.method = std::string(lastName(callee, text));
  const Origin origin = origins.of(callee);
  if (origin.kind == Origin::Kind::Local) call.local = true;
  else if (origin.kind == Origin::Kind::Path && !origin.literal) call.callee = origin.path;
  return call;
}

/// `what` for a message: the text when short and on one line, else "…".
std::string shortText(TSNode node, std::string_view text) {
  const std::string_view t = textOf(node, text);
  return t.size() <= 40 && t.find_first_of("\r\n") == std::string_view::npos ? std::string(t) : std::string("…");
}

/// "C", "C.Inner": the classes (and functions) around scope `scope`, from the module.
std::string scopePath(const SemanticModel &model, std::uint32_t scope) {
  std::vector<std::string_view> parts;
  for (std::uint32_t s = scope; s != 0; s = model.scopes()[s].parent) parts.push_back(model.scopes()[s].name);
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) out.append(out.empty() ? "" : ".").append(*it);
  return out;
}

bool bindsHere(NameRole role) {
  return role == NameRole::Binding || role == NameRole::FunctionName || role == NameRole::ClassName;
}

/// The bindings of the name `identifier` (null when it is none, or in an ERROR region).
const std::vector<const NameUse *> *bindingsOf(TSNode identifier, const SemanticModel &model) {
  const NameUse *use = isIdentifier(identifier) ? model.nameAt(ts_node_start_byte(identifier)) : nullptr;
  return use == nullptr || use->inError ? nullptr : &model.usesOf(model.resolve(*use));
}

/// Is `e` one of the file's own classes (`C`) or an instance of one (`C()`, `c` after `c = C()`)?
/// Not what the file's own functions return (`make()`, `o` after `o = make()`), nor what calling
/// an instance returns (`c()`): that may be any object. Every binding of a name must say so.
bool ownClassOrInstance(TSNode e, const SemanticModel &model, int depth) {
  if (ts_node_is_null(e) || depth > 8) return false;
  const bool call = symbolOf(e) == Kinds::get().call;
  const std::vector<const NameUse *> *bindings = bindingsOf(call ? fieldOf(e, "function") : e, model);
  if (bindings == nullptr) return false;
  bool bound = false;
  for (const NameUse *b : *bindings) {
    if (b->role == NameRole::Reference || b->role == NameRole::AwaitName) continue;
    // A call makes an instance of a class name only; a name holds a class or an instance.
    if (b->role != NameRole::ClassName &&
        (call || b->role != NameRole::Binding || b->iterated || !ownClassOrInstance(b->value, model, depth + 1)))
      return false;
    bound = true;
  }
  return bound;
}

/// The module-level names, class attributes and references of `word` (see PublicNames).
void addNames(std::string_view word, const Document &doc, const SemanticModel &model, NameOrigins &origins,
              PublicNames &out, std::vector<std::pair<std::uint32_t, NameReference>> &references) {
  const std::string_view source = doc.text();
  const auto line = [](TSNode n) { return ts_node_start_point(n).row + 1; };
  const auto addUnique = [](auto &list, auto value) {
    if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(std::move(value));
  };
  for (const std::uint32_t i : model.namesCalled(word)) {
    const NameUse &use = model.name(i);
    if (use.inError) continue;
    const BindingKey key = model.resolve(use);
    const Scope &scope = model.scopes()[key.scope];
    const std::vector<const NameUse *> &uses = model.usesOf(key);
    const bool imported =
        std::any_of(uses.begin(), uses.end(), [](const NameUse *u) { return u->role == NameRole::ImportedName; });
    if (use.role == NameRole::ImportedName) {
      // `from pkg.m import async`: another module's name; `import async` is a module's.
      const std::size_t dot = use.qualified.rfind('.');
      if (dot != std::string::npos) {
        std::string module = use.qualified.substr(0, dot);
        if (module.find_first_not_of('.') == std::string::npos) module += '.'; // `from . import async`
        references.emplace_back(ts_node_start_byte(use.node),
                                NameReference{NameReference::Kind::Path, use.qualified, std::string(word),
                                              "from " + module + " import " + std::string(word), line(use.node)});
      }
      continue;
    }
    if (bindsHere(use.role) && !imported) {
      if (key.scope == 0) addUnique(out.globals, std::string(word));
      else if (scope.kind == ScopeKind::Class)
        addUnique(out.attributes, std::make_pair(scopePath(model, key.scope), std::string(word)));
      continue;
    }
    const bool bound = std::any_of(uses.begin(), uses.end(), [](const NameUse *u) {
      return bindsHere(u->role) || u->role == NameRole::Parameter || u->role == NameRole::ImportedName;
    });
    if (key.scope == 0 && !bound && (use.role == NameRole::Reference || use.role == NameRole::AwaitName))
      // A free name: a star import may bind it.
      references.emplace_back(
          ts_node_start_byte(use.node),
          NameReference{NameReference::Kind::Unresolved, {}, std::string(word), std::string(word), line(use.node)});
  }
  for (const AttributeUse *a : model.attributesCalled(word)) {
    if (a->inError) continue;
    const TSNode attribute = ts_node_parent(a->node);
    const TSNode object = fieldOf(attribute, "object");
    NameReference r{NameReference::Kind::Unresolved,
                    {},
                    std::string(word),
                    shortText(object, source) + "." + std::string(word),
                    line(a->node)};
    if (const std::optional<std::uint32_t> cls = origins.selfClass(object)) {
      r.kind = NameReference::Kind::Own;
      const TSNode holder = ts_node_parent(attribute);
      if (!ts_node_is_null(holder) && ts_node_eq(fieldOf(holder, "left"), attribute) &&
          (symbolOf(holder) == Kinds::get().assignment || isType(holder, "augmented_assignment")))
        addUnique(out.attributes, std::make_pair(scopePath(model, *cls), std::string(word)));
    } else {
      const Origin o = origins.of(object);
      if (o.kind == Origin::Kind::Local) {
        if (ownClassOrInstance(object, model, 0)) r.kind = NameReference::Kind::Own;
      } else if (o.kind == Origin::Kind::Path && !o.literal) {
        r.kind = NameReference::Kind::Path;
        r.path = o.path + "." + std::string(word);
      } else if (o.kind == Origin::Kind::Instance && !o.literal) {
        r.kind = NameReference::Kind::Instance;
        r.path = o.path;
      }
    }
    references.emplace_back(ts_node_start_byte(a->node), std::move(r));
  }
}

/// `from M import async as a`: the imported name is no variable of this file (its alias is), so
/// the SemanticModel records none; found by the prefilter's offsets of the word in code.
void addAliasedImports(const Document &doc, std::vector<std::pair<std::uint32_t, NameReference>> &references) {
  const std::string_view source = doc.text();
  std::vector<std::uint32_t> offsets;
  if (scanTriggers(source, kPrefilterKeywordName, &offsets) == 0) return;
  const Kinds &k = Kinds::get();
  for (const std::uint32_t at : offsets) {
    const std::string_view word = source.substr(at, 5);
    if (word != "async" && word != "await") continue;
    const TSNode token = DocumentInternals::nodeAt(doc, at, at + 5);
    if (!isIdentifier(token) || ts_node_start_byte(token) != at || ts_node_end_byte(token) != at + 5) continue;
    const TSNode dotted = ts_node_parent(token);
    const TSNode aliased = ts_node_is_null(dotted) ? TSNode{} : ts_node_parent(dotted);
    const TSNode statement = ts_node_is_null(aliased) ? TSNode{} : ts_node_parent(aliased);
    if (symbolOf(dotted) != k.dottedName || ts_node_named_child_count(dotted) != 1 ||
        symbolOf(aliased) != k.aliasedImport || !ts_node_eq(fieldOf(aliased, "name"), dotted) ||
        symbolOf(statement) != k.importFromStatement || ts_node_has_error(statement))
      continue;
    const std::string_view module = textOf(fieldOf(statement, "module_name"), source);
    references.emplace_back(
        at, NameReference{NameReference::Kind::Path,
                          std::string(module) + (module.ends_with('.') ? "" : ".") + std::string(word),
                          std::string(word), "from " + std::string(module) + " import " + std::string(word),
                          ts_node_start_point(token).row + 1});
  }
}

/// The identifiers of `doc` that contain `async`/`await` and are not these words, and the
/// strings that are these words (PublicNames::words, PublicNames::quoted). Found from the text: a
/// substring search, then the node that holds it.
void addWords(const Document &doc, PublicNames &out) {
  const std::string_view source = doc.text();
  for (const std::string_view word : {std::string_view("async"), std::string_view("await")})
    for (std::size_t at = source.find(word); at != std::string_view::npos; at = source.find(word, at + 1)) {
      const auto start = static_cast<std::uint32_t>(at);
      const TSNode node = DocumentInternals::nodeAt(doc, start, start + 5);
      const std::string_view text = textOf(node, source);
      if (isIdentifier(node)) {
        if (text != word && std::find(out.words.begin(), out.words.end(), text) == out.words.end())
          out.words.emplace_back(text);
      } else if (isType(node, "string_content") && text == word &&
                 std::find(out.quoted.begin(), out.quoted.end(), word) == out.quoted.end()) {
        out.quoted.emplace_back(word);
      }
    }
}

} // namespace

std::optional<std::string> publicCallable(const SemanticModel &model, std::uint32_t scope, bool *constructor) {
  const Scope &fn = model.scopes()[scope];
  if (scope == 0 || fn.kind != ScopeKind::Function || fn.name.empty()) return std::nullopt;
  std::vector<std::string_view> parts;
  const bool init = fn.name == "__init__";
  if (init) {
    if (constructor != nullptr) *constructor = true;
  } else if (isPrivate(fn.name) || isDunder(fn.name)) {
    return std::nullopt;
  } else {
    parts.push_back(fn.name);
  }
  for (std::uint32_t s = fn.parent; s != 0; s = model.scopes()[s].parent) {
    const Scope &c = model.scopes()[s];
    if (c.kind != ScopeKind::Class || c.name.empty() || isPrivate(c.name)) return std::nullopt;
    parts.push_back(c.name);
  }
  if (parts.empty()) return std::nullopt; // a module-level `def __init__`
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) out.append(out.empty() ? "" : ".").append(*it);
  return out;
}

bool mayHavePublicNames(std::string_view text) {
  // The prefilter's scan knows strings and comments: `x.cuda(async=True)` in a docstring or a
  // comment (legacy code quoted in modern files) is not a reason to parse the file again; and
  // it knows `async def` and `await x` for the keywords. Anything else may be a parameter, a
  // keyword argument, a module-level name, an attribute or a use of another module's.
  return scanTriggers(text, kPrefilterKeywordName) != 0;
}

PublicNames findPublicNames(std::string_view text) {
  PublicNames out;
  const Document doc{std::string(text)};
  if (!DocumentInternals::parse(doc)) return out;
  const std::string_view source = doc.text();
  const SemanticModel model(doc);
  NameOrigins origins(source, model, std::nullopt, /*keepRelative=*/true);
  std::vector<std::pair<std::uint32_t, KeywordCall>> calls;
  for (const std::string_view word : {std::string_view("async"), std::string_view("await")}) {
    for (const std::uint32_t i : model.namesCalled(word)) {
      const NameUse &use = model.name(i);
      if (use.inError || use.role != NameRole::Parameter) continue;
      PublicParameter p;
      std::optional<std::string> owner = publicCallable(model, use.scope, &p.constructor);
      if (!owner) continue;
      p.owner = std::move(*owner);
      p.name = std::string(word);
      if (std::find(out.parameters.begin(), out.parameters.end(), p) == out.parameters.end())
        out.parameters.push_back(std::move(p));
    }
    for (const KeywordUse *k : model.keywordsCalled(word))
      if (!k->inError && !ts_node_is_null(k->calleeNode))
        calls.emplace_back(ts_node_start_byte(k->node), callTo(k->calleeNode, word, source, origins));
  }
  // `f(**mapping)`: found by its `**`, in the statement that holds it.
  const auto &spans = DocumentInternals::statementSpans(doc);
  const Kinds &k = Kinds::get();
  std::size_t unit = 0;
  for (std::size_t at = source.find("**"); at != std::string_view::npos; at = source.find("**", at + 2)) {
    while (unit < spans.size() && spans[unit].end <= at) ++unit;
    if (unit == spans.size()) break;
    if (spans[unit].start > at) continue;
    const TSNode statement = DocumentInternals::statement(doc, unit);
    const auto start = static_cast<std::uint32_t>(at);
    const TSNode token = ts_node_descendant_for_byte_range(statement, start, start + 2);
    const TSNode splat = ts_node_parent(token);
    if (ts_node_is_null(splat) || !isType(splat, "dictionary_splat") || ts_node_start_byte(splat) != start) continue;
    const TSNode args = ts_node_parent(splat);
    const TSNode call = ts_node_is_null(args) ? TSNode{} : ts_node_parent(args);
    if (symbolOf(args) != k.argumentList || symbolOf(call) != k.call || ts_node_has_error(call)) continue;
    calls.emplace_back(start, callTo(fieldOf(call, "function"), "", source, origins));
  }
  std::stable_sort(calls.begin(), calls.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
  for (auto &[start, call] : calls) out.calls.push_back(std::move(call));

  std::vector<std::pair<std::uint32_t, NameReference>> references;
  for (const std::string_view word : {std::string_view("async"), std::string_view("await")})
    addNames(word, doc, model, origins, out, references);
  addAliasedImports(doc, references);
  std::stable_sort(references.begin(), references.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  for (auto &[start, r] : references) out.references.push_back(std::move(r));
  addWords(doc, out);
  for (const std::uint32_t i : model.namesCalled("__all__"))
    if (!model.name(i).inError && model.resolve(model.name(i)).scope == 0 && bindsHere(model.name(i).role))
      out.all = true;
  for (const Scope &scope : model.scopes())
    if (scope.kind == ScopeKind::Class && scope.parent == 0 && !scope.name.empty() &&
        std::find(out.classes.begin(), out.classes.end(), scope.name) == out.classes.end())
      out.classes.emplace_back(scope.name);
  return out;
}

struct ModuleNames::Parsed {
  explicit Parsed(std::string text) : doc(std::move(text)) {
    if (DocumentInternals::parse(doc)) model.emplace(doc);
  }
  Document doc;
  std::optional<SemanticModel> model; ///< nullopt when the text could not be parsed
};

namespace {

/// `'name'` or `"name"`: a plain string literal that spells an identifier; nullopt for anything else.
std::optional<std::string> literalName(TSNode node, std::string_view text) {
  if (!isType(node, "string")) return std::nullopt;
  const std::string_view t = textOf(node, text);
  if (t.size() < 3 || (t.front() != '\'' && t.front() != '"') || t.back() != t.front()) return std::nullopt;
  const std::string_view inner = t.substr(1, t.size() - 2);
  const bool word =
      !inner.empty() && std::isdigit(static_cast<unsigned char>(inner.front())) == 0 &&
      std::all_of(inner.begin(), inner.end(), [](char c) {
        return c == '_' || std::isalnum(static_cast<unsigned char>(c)) != 0 || static_cast<unsigned char>(c) >= 0x80;
      });
  return word ? std::optional<std::string>(inner) : std::nullopt;
}

/// The modules of the `from M import *` statements in `s` (one level into `if`/`try` and their
/// clauses), as written.
void addStars(TSNode s, std::string_view text, int depth, std::vector<std::string> &out) {
  if (ts_node_is_null(s) || !ts_node_is_named(s) || ts_node_has_error(s)) return;
  const Kinds &k = Kinds::get();
  if (symbolOf(s) == k.importFromStatement) {
    for (std::uint32_t j = 0, m = ts_node_named_child_count(s); j < m; ++j)
      if (isType(ts_node_named_child(s, j), "wildcard_import")) {
        out.emplace_back(textOf(fieldOf(s, "module_name"), text));
        return;
      }
    return;
  }
  if (depth < 3 && (isType(s, "try_statement") || isType(s, "if_statement") || symbolOf(s) == k.block ||
                    isType(s, "except_clause") || isType(s, "else_clause") || isType(s, "elif_clause") ||
                    isType(s, "finally_clause")))
    for (std::uint32_t i = 0, n = ts_node_named_child_count(s); i < n; ++i)
      addStars(ts_node_named_child(s, i), text, depth + 1, out);
}

bool binds(NameRole role) { return role != NameRole::Reference && role != NameRole::AwaitName; }

} // namespace

ModuleNames::ModuleNames(std::string text) : parsed_(std::make_unique<Parsed>(std::move(text))) {
  if (!parsed_->model) return;
  const SemanticModel &model = *parsed_->model;
  const std::string_view source = parsed_->doc.text();
  model.forEachStatement([&](TSNode s) { addStars(s, source, 0, stars_); });
  // `__all__ = ['a', 'b']` once, and nothing else that touches it at module level.
  std::vector<const NameUse *> uses;
  for (const std::uint32_t i : model.namesCalled("__all__")) {
    const NameUse &use = model.name(i);
    if (use.inError || model.resolve(use).scope == 0) uses.push_back(&use);
  }
  if (uses.empty()) return;
  const NameUse &first = *uses.front();
  const Kinds &k = Kinds::get();
  if (uses.size() == 1 && first.role == NameRole::Binding && !first.inError && first.qualified.empty() &&
      first.scope == 0 && !first.iterated && (symbolOf(first.value) == k.list || symbolOf(first.value) == k.tuple)) {
    std::vector<std::string> names;
    for (std::uint32_t j = 0, n = ts_node_named_child_count(first.value); j < n; ++j) {
      const TSNode item = ts_node_named_child(first.value, j);
      if (isType(item, "comment")) continue;
      std::optional<std::string> name = literalName(item, source);
      if (!name) {
        allComputed_ = true;
        return;
      }
      names.push_back(std::move(*name));
    }
    all_ = std::move(names);
    return;
  }
  allComputed_ = true;
}

ModuleNames::~ModuleNames() = default;

ModuleBinding ModuleNames::lookup(std::string_view name) const {
  ModuleBinding out;
  if (!parsed_->model) {
    out.kind = ModuleBinding::Kind::Uncertain;
    out.why = "cannot be parsed";
    return out;
  }
  const SemanticModel &model = *parsed_->model;
  const std::string quoted = "`" + std::string(name) + "`";
  if (model.seenInError(name)) {
    out.kind = ModuleBinding::Kind::Uncertain;
    out.why = "has a syntax error near " + quoted;
    return out;
  }
  std::vector<std::string> paths;
  bool defined = false, assigned = false;
  for (const std::uint32_t i : model.namesCalled(name)) {
    const NameUse &use = model.name(i);
    if (!binds(use.role) || model.resolve(use).scope != 0) continue;
    if (use.scope != 0) { // `global name` in a function, and what it assigns
      out.kind = ModuleBinding::Kind::Uncertain;
      out.why = "assigns " + quoted + " in a function";
      return out;
    }
    if (use.role == NameRole::ImportedName || (use.role == NameRole::Binding && !use.qualified.empty())) {
      if (std::find(paths.begin(), paths.end(), use.qualified) == paths.end()) paths.push_back(use.qualified);
    } else if (use.role == NameRole::FunctionName || use.role == NameRole::ClassName) {
      defined = true;
    } else {
      assigned = true;
    }
  }
  if (paths.empty() && !defined && !assigned) return out;
  if (paths.size() + (defined ? 1 : 0) + (assigned ? 1 : 0) > 1) {
    out.kind = ModuleBinding::Kind::Uncertain;
    out.why = "binds " + quoted + " more than once";
    return out;
  }
  if (assigned) { // `helper = impl.helper`, `helper = partial(…)`: it may hand on another module's
    out.kind = ModuleBinding::Kind::Uncertain;
    out.why = "assigns " + quoted + ", which may hold another module's function";
    return out;
  }
  out.kind = defined ? ModuleBinding::Kind::Defined : ModuleBinding::Kind::Imported;
  if (!defined) out.path = paths.front();
  return out;
}

std::optional<std::string> resolveRelative(std::string_view relative, std::string_view package) {
  std::size_t dots = 0;
  while (dots < relative.size() && relative[dots] == '.') ++dots;
  std::string base(package);
  for (std::size_t up = 1; up < dots; ++up) {
    if (base.empty()) return std::nullopt;
    const std::size_t dot = base.rfind('.');
    base.resize(dot == std::string::npos ? 0 : dot);
  }
  const std::string_view rest = relative.substr(dots);
  if (base.empty()) return rest.empty() ? std::nullopt : std::optional<std::string>(std::string(rest));
  return rest.empty() ? base : base + "." + std::string(rest);
}

} // namespace asyncfix
