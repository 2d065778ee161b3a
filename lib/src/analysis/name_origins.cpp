#include "analysis/name_origins.h"

#include <algorithm>

#include "asyncfix/public_names.h"

namespace asyncfix {
namespace {

constexpr int kMaxDepth = 24;

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\\'; }
bool isWordByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

bool bindsName(NameRole role) {
  return role == NameRole::Binding || role == NameRole::Parameter || role == NameRole::FunctionName ||
         role == NameRole::ClassName || role == NameRole::ImportedName;
}

} // namespace

AttributeChain NameOrigins::chainBelow(TSNode top) const {
  AttributeChain c;
  TSNode e = top;
  for (int steps = 0; symbolOf(e) == k_.attribute && steps < 4096; ++steps) {
    c.written.push_back(fieldOf(e, "attribute"));
    e = fieldOf(e, "object");
  }
  c.root = e;
  std::reverse(c.written.begin(), c.written.end());
  return c;
}

std::optional<AttributeChain> NameOrigins::chainByText(TSNode token) const {
  AttributeChain c;
  std::vector<TSNode> before;
  for (std::size_t at = ts_node_start_byte(token);;) {
    std::size_t i = at;
    while (i > 0 && isBlank(text_[i - 1])) --i;
    if (i == 0 || text_[i - 1] != '.') return std::nullopt;
    --i;
    while (i > 0 && isBlank(text_[i - 1])) --i;
    std::size_t start = i;
    while (start > 0 && isWordByte(text_[start - 1])) --start;
    if (start == i) return std::nullopt;
    const auto s = static_cast<std::uint32_t>(start);
    if (const AttributeUse *a = model_.attributeAt(s); a && ts_node_end_byte(a->node) == i) {
      before.push_back(a->node);
      at = start;
      continue;
    }
    const NameUse *root = model_.nameAt(s);
    if (!root || ts_node_end_byte(root->node) != i) return std::nullopt;
    c.root = root->node;
    break;
  }
  c.written.assign(before.rbegin(), before.rend());
  c.index = c.written.size();
  c.written.push_back(token);
  for (std::size_t i = ts_node_end_byte(token);;) {
    while (i < text_.size() && isBlank(text_[i])) ++i;
    if (i >= text_.size() || text_[i] != '.') break;
    ++i;
    while (i < text_.size() && isBlank(text_[i])) ++i;
    const AttributeUse *a = model_.attributeAt(static_cast<std::uint32_t>(i));
    if (!a) break;
    c.written.push_back(a->node);
    i = ts_node_end_byte(a->node);
  }
  return c;
}

Origin NameOrigins::ofChain(const AttributeChain &chain, std::size_t count) {
  std::size_t i = 0;
  Origin o;
  if (const std::optional<std::uint32_t> cls = count > 0 ? selfClass(chain.root) : std::nullopt) {
    o = originOfSelfAttribute(*cls, textOf(chain.written[0], text_), 0);
    i = 1;
  } else {
    o = originOf(chain.root, 0);
  }
  for (; i < count; ++i) o = member(o, textOf(chain.written[i], text_));
  return o;
}

Origin NameOrigins::member(const Origin &o, std::string_view name) {
  if (o.kind == Origin::Kind::Path || o.kind == Origin::Kind::Instance)
    return {Origin::Kind::Path, o.path + "." + std::string(name), o.literal};
  return {o.kind == Origin::Kind::Local ? Origin::Kind::Local : Origin::Kind::Unknown, {}, false};
}

bool NameOrigins::imports(std::string_view package) {
  if (const auto it = imports_.find(package); it != imports_.end()) return it->second;
  return imports_.emplace(std::string(package), model_.importsPackage(package)).first->second;
}

const std::vector<std::string_view> &NameOrigins::starImports(std::string_view package) {
  if (const auto it = stars_.find(package); it != stars_.end()) return it->second;
  return stars_.emplace(std::string(package), model_.starImportsOf(package)).first->second;
}

Origin NameOrigins::originOf(TSNode e, int depth) {
  if (ts_node_is_null(e) || depth > kMaxDepth) return {};
  const TSSymbol s = symbolOf(e);
  if (isIdentifier(e)) return originOfName(e, depth);
  if (s == k_.attribute) {
    const TSNode object = fieldOf(e, "object");
    const std::string_view name = textOf(fieldOf(e, "attribute"), text_);
    if (const std::optional<std::uint32_t> cls = selfClass(object)) return originOfSelfAttribute(*cls, name, depth);
    return member(originOf(object, depth + 1), name);
  }
  if (s == k_.call) {
    Origin f = originOf(fieldOf(e, "function"), depth + 1);
    if (f.kind == Origin::Kind::Path) return {Origin::Kind::Instance, std::move(f.path), f.literal};
    return {f.kind == Origin::Kind::Local ? Origin::Kind::Local : Origin::Kind::Unknown, {}, false};
  }
  if (s == k_.parenthesizedExpression) {
    for (std::uint32_t i = 0, n = ts_node_named_child_count(e); i < n; ++i)
      if (const TSNode c = ts_node_named_child(e, i); symbolOf(c) != k_.comment) return originOf(c, depth + 1);
  }
  return {};
}

/// Every binding of the name must agree; a name the file never binds stands for itself.
Origin NameOrigins::originOfName(TSNode identifier, int depth) {
  const NameUse *use = model_.nameAt(ts_node_start_byte(identifier));
  if (!use || use->inError) return {};
  const BindingKey key = model_.resolve(*use);
  const auto memoKey = std::make_pair(key.scope, key.name);
  if (const auto it = names_.find(memoKey); it != names_.end()) return it->second;
  names_[memoKey] = Origin{}; // a cycle (`a = b`, `b = a`) resolves to unknown
  Origin result;
  bool bound = false;
  for (const NameUse *bp : model_.bindingsOf(key)) {
    const NameUse &b = *bp;
    if (!bindsName(b.role)) continue;
    Origin o = bindingOrigin(b, depth);
    if (!bound) result = std::move(o);
    else if (!(o == result)) result = Origin{};
    bound = true;
    if (result.kind == Origin::Kind::Unknown) break;
  }
  if (!bound && key.scope == 0) result = Origin{Origin::Kind::Path, std::string(key.name), true};
  names_[memoKey] = result;
  return result;
}

Origin NameOrigins::bindingOrigin(const NameUse &b, int depth) {
  if (!b.qualified.empty()) {
    if (!b.qualified.starts_with('.') || keepRelative_) return Origin{Origin::Kind::Path, b.qualified, false};
    std::optional<std::string> absolute = package_ ? resolveRelative(b.qualified, *package_) : std::nullopt;
    return absolute ? Origin{Origin::Kind::Path, std::move(*absolute), false} : Origin{};
  }
  if (b.role == NameRole::FunctionName || b.role == NameRole::ClassName) return {Origin::Kind::Local, {}, false};
  if (b.role != NameRole::Binding) return {};
  if (!ts_node_is_null(b.value)) return b.iterated ? Origin{} : originOf(b.value, depth + 1);
  // `with pexpect.spawn(cmd) as child:` — the object the `with` made. (Looks at the text
  // first: parent lookups are not free.)
  std::size_t i = ts_node_start_byte(b.node);
  while (i > 0 && isBlank(text_[i - 1])) --i;
  if (i < 3 || text_.substr(i - 2, 2) != "as" || isWordByte(text_[i - 3])) return {};
  const TSNode target = ts_node_parent(b.node);
  const TSNode pattern = ts_node_is_null(target) ? TSNode{} : ts_node_parent(target);
  if (symbolOf(target) == k_.asPatternTarget && !ts_node_is_null(pattern) &&
      isType(ts_node_parent(pattern), "with_item"))
    return originOf(ts_node_named_child(pattern, 0), depth + 1);
  return {};
}

/// The class whose method has `identifier` as its first parameter (`self`), if it is one.
std::optional<std::uint32_t> NameOrigins::selfClass(TSNode identifier) const {
  if (ts_node_is_null(identifier) || !isIdentifier(identifier)) return std::nullopt;
  const NameUse *use = model_.nameAt(ts_node_start_byte(identifier));
  if (!use || use->inError) return std::nullopt;
  const BindingKey key = model_.resolve(*use);
  const Scope &scope = model_.scopes()[key.scope];
  if (scope.kind != ScopeKind::Function || key.scope == 0 || model_.scopes()[scope.parent].kind != ScopeKind::Class)
    return std::nullopt;
  const TSNode params = fieldOf(scope.node, "parameters");
  const TSNode first = ts_node_is_null(params) ? TSNode{} : ts_node_named_child(params, 0);
  if (ts_node_is_null(first) || !isIdentifier(first) || textOf(first, text_) != key.name) return std::nullopt;
  return scope.parent;
}

/// `self.NAME`: what the class's methods assign to it, when they all agree.
Origin NameOrigins::originOfSelfAttribute(std::uint32_t cls, std::string_view name, int depth) {
  const auto memoKey = std::make_pair(cls, name);
  if (const auto it = members_.find(memoKey); it != members_.end()) return it->second;
  members_[memoKey] = Origin{};
  Origin result;
  bool assigned = false;
  for (const AttributeUse *ap : model_.attributesCalled(name)) {
    const AttributeUse &a = *ap;
    if (a.inError) continue;
    // `self.NAME = …`, judged on the text before asking for parents (they are not free).
    std::size_t i = ts_node_start_byte(a.node);
    while (i > 0 && isBlank(text_[i - 1])) --i;
    if (i == 0 || text_[i - 1] != '.') continue;
    --i;
    while (i > 0 && isBlank(text_[i - 1])) --i;
    std::size_t start = i;
    while (start > 0 && isWordByte(text_[start - 1])) --start;
    const NameUse *object = start < i ? model_.nameAt(static_cast<std::uint32_t>(start)) : nullptr;
    if (!object || selfClass(object->node) != cls) continue;
    std::size_t j = ts_node_end_byte(a.node);
    while (j < text_.size() && (text_[j] == ' ' || text_[j] == '\t')) ++j;
    if (j + 1 >= text_.size() || text_[j] != '=' || text_[j + 1] == '=') continue;
    const TSNode attribute = ts_node_parent(a.node);
    const TSNode holder = ts_node_parent(attribute);
    const bool isTarget = !ts_node_is_null(holder) && ts_node_eq(fieldOf(holder, "left"), attribute);
    if (!isTarget) continue;
    Origin o = symbolOf(holder) == k_.assignment ? originOf(fieldOf(holder, "right"), depth + 1) : Origin{};
    if (!assigned) result = std::move(o);
    else if (!(o == result)) result = Origin{};
    assigned = true;
    if (result.kind == Origin::Kind::Unknown) break;
  }
  members_[memoKey] = result;
  return result;
}

} // namespace asyncfix
