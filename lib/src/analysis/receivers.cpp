#include "analysis/receivers.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>

#include "text/syntax.h"

namespace asyncfix {
namespace {

constexpr int kMaxDepth = 12;

bool isUpper(char c) { return c >= 'A' && c <= 'Z'; }

std::string_view lastComponent(std::string_view q) {
  const auto dot = q.rfind('.');
  return dot == std::string_view::npos ? q : q.substr(dot + 1);
}

/// torch functions that build a tensor.
constexpr std::array<std::string_view, 28> kFactories{
    "tensor", "as_tensor",  "from_numpy", "zeros",       "ones",       "empty",     "full",
    "rand",   "randn",      "randint",    "randperm",    "arange",     "linspace",  "logspace",
    "eye",    "zeros_like", "ones_like",  "empty_like",  "full_like",  "rand_like", "randn_like",
    "stack",  "cat",        "load",       "FloatTensor", "LongTensor", "Tensor",    "ByteTensor"};

/// Tensor methods that give a tensor back.
constexpr std::array<std::string_view, 26> kTensorMethods{
    "cuda",      "to",         "cpu",    "float",      "double",  "half",    "long",    "int",       "bool",
    "type",      "detach",     "clone",  "contiguous", "view",    "reshape", "squeeze", "unsqueeze", "permute",
    "transpose", "pin_memory", "expand", "repeat",     "flatten", "t",       "abs",     "mean"};

/// Module methods that return the module itself.
constexpr std::array<std::string_view, 10> kModuleMethods{"cuda", "to",    "cpu",  "float",          "double",
                                                          "half", "train", "eval", "requires_grad_", "type"};

template <std::size_t N> bool in(const std::array<std::string_view, N> &set, std::string_view s) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

ValueKind classify(std::string_view q) {
  if (q == "torch.nn.Parameter" || q == "torch.nn.parameter.Parameter" || q == "torch.autograd.Variable" ||
      q == "torch.Tensor")
    return ValueKind::Tensor;
  if (q.starts_with("torch.") && q.find('.', 6) == std::string_view::npos && in(kFactories, q.substr(6)))
    return ValueKind::Tensor;
  if (q.starts_with("torch.") && q.ends_with("Tensor") && q.find('.', 6) == std::string_view::npos)
    return ValueKind::Tensor;
  if (q == "torch.utils.data.DataLoader" || q == "torch.utils.data.dataloader.DataLoader") return ValueKind::DataLoader;
  if (q == "torch.cuda.Stream") return ValueKind::Stream;
  if (q == "torch.cuda.Event") return ValueKind::Event;
  if (q.starts_with("torchvision.models.")) return ValueKind::Module;
  if (q.starts_with("torch.nn.") && !q.starts_with("torch.nn.functional.") && !q.starts_with("torch.nn.utils.") &&
      !q.starts_with("torch.nn.init.") && !q.starts_with("torch.nn.parameter.") && isUpper(lastComponent(q).front()))
    return ValueKind::Module;
  return ValueKind::Unknown;
}

/// Flow-insensitive: every value bound to a name must agree. A value still being computed (a
/// cycle such as `model = model.cuda()`) adds nothing.
/// X for `enumerate(X)` (a loop over pairs of a counter and X's elements); a null node otherwise.
TSNode enumerateArgument(TSNode iterable, std::string_view text) {
  if (ts_node_is_null(iterable) || ts_node_symbol(iterable) != Kinds::get().call ||
      textOf(field(iterable, "function"), text) != "enumerate")
    return TSNode{};
  const TSNode args = field(iterable, "arguments");
  return ts_node_is_null(args) ? TSNode{} : ts_node_named_child(args, 0);
}

ValueKind merge(ValueKind a, ValueKind b, bool &first) {
  if (b == ValueKind::Pending) return a;
  if (first) {
    first = false;
    return b;
  }
  return a == b ? a : ValueKind::Unknown;
}

} // namespace

std::string Receivers::qualifiedName(TSNode e) const {
  // Down the attribute chain to its root name, iteratively (a chain can be very long), then back.
  const Kinds &k = Kinds::get();
  std::vector<std::string_view> attributes;
  while (ts_node_symbol(e) == k.attribute) {
    attributes.push_back(textOf(field(e, "attribute"), text_));
    e = field(e, "object");
  }
  if (!isIdentifier(e)) return {};
  std::string out;
  const std::string_view name = textOf(e, text_);
  if (const NameUse *use = model_.nameAt(ts_node_start_byte(e))) {
    const BindingKey key = model_.resolve(*use);
    bool bound = false;
    for (const NameUse *u : model_.bindingsOf(key)) {
      if (!u->qualified.empty()) {
        out = u->qualified;
        break;
      }
      bound = bound || (u->role != NameRole::Reference && u->role != NameRole::Declaration);
    }
    if (out.empty() && bound) return {}; // a local value: no dotted name
  }
  if (out.empty()) out = std::string(name); // a name from elsewhere stands for itself
  for (auto it = attributes.rbegin(); it != attributes.rend(); ++it) out.append(".").append(*it);
  return out;
}

const Scope *Receivers::classOf(TSNode identifier) const {
  const NameUse *use = model_.nameAt(ts_node_start_byte(identifier));
  if (!use) return nullptr;
  for (const NameUse *u : model_.bindingsOf(model_.resolve(*use))) {
    if (u->role != NameRole::ClassName) continue;
    if (const Scope *s = model_.scopeNamedBy(u->node); s && s->kind == ScopeKind::Class) return s;
  }
  return nullptr;
}

bool Receivers::isModuleClass(const Scope &cls, int depth) const {
  if (depth > kMaxDepth) return false;
  const TSNode bases = field(cls.node, "superclasses");
  if (ts_node_is_null(bases)) return false;
  for (std::uint32_t i = 0, n = ts_node_named_child_count(bases); i < n; ++i) {
    const TSNode base = ts_node_named_child(bases, i);
    if (classify(qualifiedName(base)) == ValueKind::Module || qualifiedName(base) == "torch.nn.Module") return true;
    if (isIdentifier(base))
      if (const Scope *parent = classOf(base); parent && parent != &cls && isModuleClass(*parent, depth + 1))
        return true;
  }
  return false;
}

ValueKind Receivers::callKind(TSNode call, int depth) const {
  const Kinds &k = Kinds::get();
  const TSNode fn = field(call, "function");
  if (ts_node_symbol(fn) == k.attribute) {
    const std::string_view method = textOf(field(fn, "attribute"), text_);
    const ValueKind receiver = kindAt(field(fn, "object"), depth + 1);
    if (receiver == ValueKind::Tensor && in(kTensorMethods, method)) return ValueKind::Tensor;
    if (receiver == ValueKind::Module && in(kModuleMethods, method)) return ValueKind::Module;
    if (receiver == ValueKind::Pending && (in(kTensorMethods, method) || in(kModuleMethods, method)))
      return ValueKind::Pending; // the same kind as the receiver, once known
  }
  const ValueKind byName = classify(qualifiedName(fn));
  if (byName != ValueKind::Unknown) return byName;
  if (isIdentifier(fn))
    if (const Scope *cls = classOf(fn); cls && isModuleClass(*cls, depth + 1)) return ValueKind::Module;
  return ValueKind::Unknown;
}

ValueKind Receivers::kindAt(TSNode e, int depth) const {
  if (ts_node_is_null(e) || depth > kMaxDepth) return ValueKind::Unknown;
  const Kinds &k = Kinds::get();
  const TSSymbol s = ts_node_symbol(e);
  if (isIdentifier(e)) {
    const NameUse *use = model_.nameAt(ts_node_start_byte(e));
    if (!use) return ValueKind::Unknown;
    if (use->name == "self") { // a method's first parameter: the class it belongs to
      std::uint32_t scope = model_.resolve(*use).scope;
      const Scope &fnScope = model_.scopes()[scope];
      if (fnScope.kind == ScopeKind::Function && fnScope.parent != 0 &&
          model_.scopes()[fnScope.parent].kind == ScopeKind::Class)
        return isModuleClass(model_.scopes()[fnScope.parent], depth + 1) ? ValueKind::Module : ValueKind::Unknown;
    }
    return bindingKind(model_.resolve(*use), depth + 1);
  }
  if (s == k.call) return callKind(e, depth);
  if (s == k.parenthesizedExpression) return kindAt(ts_node_named_child(e, 0), depth + 1);
  if (s == k.assignment) return kindAt(field(e, "right"), depth + 1);
  if (std::string_view(ts_node_type(e)) == "subscript")
    return kindAt(field(e, "value"), depth + 1) == ValueKind::Tensor ? ValueKind::Tensor : ValueKind::Unknown;
  return ValueKind::Unknown;
}

ValueKind Receivers::bindingKind(BindingKey key, int depth) const {
  const std::string memoKey = std::to_string(key.scope) + ":" + std::string(key.name);
  if (const auto it = memo_.find(memoKey); it != memo_.end()) return it->second;
  memo_[memoKey] = ValueKind::Pending; // met again while computing it: a cycle
  ValueKind kind = ValueKind::Unknown;
  bool first = true, any = false;
  for (const NameUse *u : model_.bindingsOf(key)) {
    if (u->role == NameRole::Reference || u->role == NameRole::Declaration || u->role == NameRole::AwaitName) continue;
    ValueKind v = ValueKind::Unknown;
    if (!ts_node_is_null(u->value) && !u->iterated) {
      v = kindAt(u->value, depth + 1);
    } else if (u->iterated) {
      // `for x, y in loader` / `for i, (x, y) in enumerate(loader)`: batches of tensors.
      if (ts_node_is_null(u->value)) continue;
      const TSNode inner = enumerateArgument(u->value, text_);
      const bool enumerated = !ts_node_is_null(inner);
      const TSNode iterable = enumerated ? inner : u->value;
      if (kindAt(iterable, depth + 1) == ValueKind::DataLoader) {
        // The counter of enumerate() is the first element of the loop's target: not a tensor.
        const TSNode target = field(ts_node_parent(u->value), "left");
        const bool counter = enumerated && ts_node_eq(ts_node_named_child(target, 0), u->node);
        v = counter ? ValueKind::Unknown : ValueKind::Tensor;
      }
    }
    kind = merge(kind, v, first);
    any = any || v != ValueKind::Pending;
    if (!first && kind == ValueKind::Unknown) break;
  }
  if (!any) kind = ValueKind::Pending; // only cyclic values so far: decided by the caller's other values
  memo_[memoKey] = kind == ValueKind::Pending ? ValueKind::Unknown : kind;
  return kind;
}

namespace {
/// True when `target` (a `for` target) binds an identifier spelt `name` (iterative: patterns can
/// nest deeply).
bool targetBinds(TSNode target, std::string_view name, std::string_view text) {
  std::vector<TSNode> pending{target};
  while (!pending.empty()) {
    const TSNode n = pending.back();
    pending.pop_back();
    if (isIdentifier(n)) {
      if (textOf(n, text) == name) return true;
      continue;
    }
    for (std::uint32_t i = 0, count = ts_node_named_child_count(n); i < count; ++i)
      pending.push_back(ts_node_named_child(n, i));
  }
  return false;
}
} // namespace

namespace {
/// True when the target `target` binds the name `name` as the semantic model's walk reads
/// targets: the identifier itself, or one nested in tuple and list patterns (iterative).
bool patternBinds(TSNode target, std::string_view name, std::string_view text) {
  std::vector<TSNode> pending{target};
  while (!pending.empty()) {
    const TSNode n = pending.back();
    pending.pop_back();
    if (ts_node_is_null(n)) continue;
    if (isIdentifier(n)) {
      if (textOf(n, text) == name) return true;
      continue;
    }
    if (!isTargetPattern(ts_node_symbol(n))) continue;
    for (std::uint32_t i = 0, count = ts_node_named_child_count(n); i < count; ++i)
      pending.push_back(ts_node_named_child(n, i));
  }
  return false;
}
} // namespace

bool Receivers::isLoopVariable(TSNode e, std::span<const TSNode> ancestors) const {
  if (!isIdentifier(e) || ancestors.empty()) return false;
  const std::string_view name = textOf(e, text_);
  if (name == "self") return false; // its kind is its class's, whatever else binds it
  const Kinds &k = Kinds::get();
  const std::uint32_t at = ts_node_start_byte(e);
  // Once the use is inside a comprehension that does not bind the name, the name skips a class
  // body on its way out (a comprehension is a function scope): a `for` of a class body found
  // after that is not the name's, and only a function or the module around it makes it so.
  bool inComprehension = false, boundByFor = false;
  for (auto p = ancestors.rbegin(); p != ancestors.rend(); ++p) {
    const TSSymbol s = ts_node_symbol(*p);
    if (s == k.error) return false;
    if (s == k.classDefinition) return false;
    if (s == k.functionDefinition || s == k.lambda) return boundByFor;
    if (boundByFor) continue;
    if (s == k.forStatement) {
      if (!ts_node_has_error(*p) && patternBinds(field(*p, "left"), name, text_)) {
        if (!inComprehension) return true;
        boundByFor = true;
      }
      continue;
    }
    if (s != k.listComprehension && s != k.setComprehension && s != k.dictionaryComprehension &&
        s != k.generatorExpression)
      continue;
    bool binds = false;
    for (std::uint32_t i = 0, n = ts_node_named_child_count(*p); i < n && !binds; ++i) {
      const TSNode clause = ts_node_named_child(*p, i);
      binds = ts_node_symbol(clause) == k.forInClause && patternBinds(field(clause, "left"), name, text_);
    }
    if (!binds) { // the name is the enclosing scope's
      inComprehension = true;
      continue;
    }
    // Bound here: the use is the comprehension's own in its body (its first iterable is the
    // enclosing scope's; a later clause: not worth telling apart).
    const TSNode body = field(*p, "body");
    return !ts_node_has_error(*p) && !ts_node_is_null(body) && at >= ts_node_start_byte(body) &&
           at < ts_node_end_byte(body);
  }
  return boundByFor; // a `for` of module-level code
}

TSNode Receivers::dataLoaderCallOf(TSNode e, std::span<const TSNode> ancestors,
                                   bool (*wanted)(TSNode call, std::string_view text)) const {
  if (!isIdentifier(e)) return TSNode{};
  const std::string_view name = textOf(e, text_);
  // The iterable of the innermost `for` around the use whose target binds the name (a function
  // may loop over several loaders with the same names). A name bound any other way (`x, y =
  // batch`) is not traced: a wrong loader would get the blame and the fix.
  TSNode iterable{};
  const auto stop = [&](TSNode p) {
    if (ts_node_symbol(p) == Kinds::get().forStatement && targetBinds(field(p, "left"), name, text_)) {
      iterable = field(p, "right");
      return true;
    }
    return ts_node_symbol(p) == Kinds::get().functionDefinition || ts_node_symbol(p) == Kinds::get().classDefinition;
  };
  if (!ancestors.empty()) {
    for (auto p = ancestors.rbegin(); p != ancestors.rend() && !stop(*p); ++p) {}
  } else {
    for (TSNode p = ts_node_parent(e); !ts_node_is_null(p) && !stop(p); p = ts_node_parent(p)) {}
  }
  if (ts_node_is_null(iterable)) return TSNode{}; // not a loop variable here: cannot tell which loader
  if (const TSNode inner = enumerateArgument(iterable, text_); !ts_node_is_null(inner)) iterable = inner;
  // A loop's copies (`images`, then `target`) ask about the same iterable: answered once.
  const auto key = std::make_tuple(ts_node_start_byte(iterable), ts_node_end_byte(iterable),
                                   reinterpret_cast<std::uintptr_t>(wanted));
  if (const auto it = loaders_.find(key); it != loaders_.end()) return it->second;
  return loaders_[key] = loaderOf(iterable, wanted);
}

TSNode Receivers::loaderOf(TSNode iterable, bool (*wanted)(TSNode call, std::string_view text)) const {
  // The loader: a name bound once to a DataLoader(...) call, or the call itself.
  TSNode call = iterable;
  if (isIdentifier(iterable)) {
    // Most loops go over a parameter or an attribute's value: known from the text, no walk.
    if (!model_.mayAssignValue(textOf(iterable, text_), ts_node_start_byte(iterable))) return TSNode{};
    // Nor when none of the values the name may hold is a call the caller wants: no walk then.
    if (wanted)
      if (const auto values = model_.valuesMaybeAssigned(textOf(iterable, text_), ts_node_start_byte(iterable));
          values && std::none_of(values->begin(), values->end(),
                                 [&](TSNode v) { return ts_node_symbol(v) == Kinds::get().call && wants(wanted, v); }))
        return TSNode{};
    const NameUse *loader = model_.nameAt(ts_node_start_byte(iterable));
    if (!loader) return TSNode{};
    call = TSNode{};
    for (const NameUse *b : model_.bindingsOf(model_.resolve(*loader)))
      if (!ts_node_is_null(b->value) && !b->iterated) {
        if (!ts_node_is_null(call)) return TSNode{}; // bound twice: which one?
        call = b->value;
      }
  }
  if (!ts_node_is_null(call) && ts_node_symbol(call) == Kinds::get().call && (!wanted || wants(wanted, call)) &&
      classify(qualifiedName(field(call, "function"))) == ValueKind::DataLoader)
    return call;
  return TSNode{};
}

bool Receivers::wants(bool (*wanted)(TSNode call, std::string_view text), TSNode call) const {
  const auto key =
      std::make_tuple(ts_node_start_byte(call), ts_node_end_byte(call), reinterpret_cast<std::uintptr_t>(wanted));
  if (const auto it = wanted_.find(key); it != wanted_.end()) return it->second;
  return wanted_[key] = wanted(call, text_);
}

} // namespace asyncfix
