// reexports.cpp — where a path through the project's modules leads (see project/reexports.h).
#include "project/reexports.h"

#include <algorithm>

namespace asyncfix {
namespace {

/// Re-exports followed before a path is given up as circular (`a` importing from `b` and back).
constexpr int kMaxDepth = 16;

std::string ticked(std::string_view s) { return "`" + std::string(s) + "`"; }

} // namespace

bool Reexports::holds(std::string_view top) const {
  const auto it = modules_.lower_bound(top);
  return it != modules_.end() && it->first.starts_with(top) &&
         (it->first.size() == top.size() || it->first[top.size()] == '.');
}

std::map<std::string, Reexports::Module, std::less<>>::const_iterator Reexports::moduleOf(std::string_view path) const {
  for (std::size_t end = path.size(); end != 0;) {
    if (const auto it = modules_.find(path.substr(0, end)); it != modules_.end()) return it;
    const std::size_t dot = path.rfind('.', end - 1);
    if (dot == std::string_view::npos) break;
    end = dot;
  }
  return modules_.end();
}

const ModuleNames *Reexports::load(const Module &module, std::string &why) {
  if (const auto it = loaded_.find(module.file); it != loaded_.end()) {
    if (!it->second) why = unreadable_[module.file];
    return it->second.get();
  }
  std::string reason = "cannot be read";
  std::optional<ProjectSource> source = text_ ? text_(module.file, reason) : std::nullopt;
  std::unique_ptr<ModuleNames> names;
  if (source && source->readOnly.empty()) names = std::make_unique<ModuleNames>(std::move(source->text));
  else if (source) reason = source->readOnly;
  if (!names) {
    unreadable_[module.file] = reason;
    why = reason;
  }
  return loaded_.emplace(module.file, std::move(names)).first->second.get();
}

Reexports::Target Reexports::resolve(const std::string &path) {
  if (const auto it = memo_.find(path); it != memo_.end()) return it->second;
  Target t = follow(path, 0);
  memo_.emplace(path, t);
  return t;
}

Reexports::Provides Reexports::provides(const std::string &module, std::string_view name, std::string &why, int depth) {
  if (depth > kMaxDepth) {
    why = "its star imports go round in a circle";
    return Provides::Unknown;
  }
  const auto it = modules_.find(module);
  if (it == modules_.end()) {
    why = "star-imports " + ticked(module) + ", which the run does not hold";
    return Provides::Unknown;
  }
  const Module &m = it->second;
  if (m.file.empty()) {
    why = "star-imports " + ticked(module) + ", which two files of the run are";
    return Provides::Unknown;
  }
  std::string reason;
  const ModuleNames *names = load(m, reason);
  if (names == nullptr) {
    why = "star-imports " + ticked(m.file) + ", which " + reason;
    return Provides::Unknown;
  }
  if (names->allComputed()) {
    why = "star-imports " + ticked(module) + ", and " + ticked(m.file) + " computes its `__all__`";
    return Provides::Unknown;
  }
  if (const auto &all = names->all())
    return std::find(all->begin(), all->end(), name) != all->end() ? Provides::Yes : Provides::No;
  if (name.starts_with('_')) return Provides::No;
  if (names->lookup(name).kind != ModuleBinding::Kind::Unbound) return Provides::Yes;
  Provides out = Provides::No;
  for (const std::string &star : names->stars()) {
    const std::optional<std::string> inner = star.starts_with('.') ? resolveRelative(star, m.package) : star;
    if (!inner) {
      why = "star-imports " + ticked(star) + " from above its top-level package";
      return Provides::Unknown;
    }
    std::string innerWhy;
    const Provides p = provides(*inner, name, innerWhy, depth + 1);
    if (p == Provides::Unknown) {
      why = "star-imports " + ticked(module) + ", whose " + ticked(m.file) + " " + innerWhy;
      return p;
    }
    if (p == Provides::Yes) out = p;
  }
  return out;
}

Reexports::Target Reexports::follow(const std::string &path, int depth) {
  if (depth > kMaxDepth) return {"", "the imports that hand on " + ticked(path) + " go round in a circle"};
  const auto it = moduleOf(path);
  if (it == modules_.end() || it->first.size() == path.size()) return {path, ""};
  const std::string &module = it->first;
  const Module &m = it->second;
  const std::string rest = path.substr(module.size() + 1);
  const std::string first = rest.substr(0, rest.find('.'));
  const std::string tail = rest.substr(first.size()); // "" or ".step"
  if (m.file.empty()) return {"", "two files of the run are the module " + ticked(module)};
  std::string why;
  const ModuleNames *names = load(m, why);
  if (names == nullptr) return {"", ticked(m.file) + " " + why};
  const ModuleBinding b = names->lookup(first);
  if (b.kind == ModuleBinding::Kind::Uncertain) return {"", ticked(m.file) + " " + b.why};
  // What its star imports bind: the last one that binds the name wins where no statement of
  // the module binds it; where one does, the order decides, and it is not looked at.
  std::string fromStar;
  for (const std::string &star : names->stars()) {
    const std::optional<std::string> source = star.starts_with('.') ? resolveRelative(star, m.package) : star;
    if (!source) return {"", ticked(m.file) + " star-imports " + ticked(star) + " from above its top-level package"};
    std::string starWhy;
    const Provides p = provides(*source, first, starWhy, depth + 1);
    if (p == Provides::Unknown) return {"", ticked(m.file) + " " + starWhy};
    if (p == Provides::No) continue;
    if (b.kind != ModuleBinding::Kind::Unbound)
      return {"", ticked(m.file) + " binds " + ticked(first) + " and star-imports " + ticked(*source) +
                      ", which binds it too"};
    fromStar = *source;
  }
  switch (b.kind) {
  case ModuleBinding::Kind::Defined: return {path, ""};
  case ModuleBinding::Kind::Imported: {
    const std::optional<std::string> target = b.path.starts_with('.') ? resolveRelative(b.path, m.package) : b.path;
    if (!target) return {"", ticked(m.file) + " imports " + ticked(first) + " from above its top-level package"};
    if (*target + tail == path) return {path, ""};
    return follow(*target + tail, depth + 1);
  }
  case ModuleBinding::Kind::Unbound:
    if (fromStar.empty()) return {path, ""}; // nothing hands it on: the module's own, or a submodule
    return follow(fromStar + "." + first + tail, depth + 1);
  case ModuleBinding::Kind::Uncertain: break;
  }
  return {"", ticked(m.file) + " " + b.why};
}

} // namespace asyncfix
