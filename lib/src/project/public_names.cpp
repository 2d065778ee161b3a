#include "asyncfix/public_names.h"

#include <algorithm>
#include <array>

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
  // comment (legacy code quoted in modern files) is not a reason to parse the file again.
  std::vector<std::uint32_t> offsets;
  if (scanTriggers(text, kPrefilterKeywordName, &offsets) == 0) return false;
  for (const std::uint32_t at : offsets) {
    const std::string_view word = text.substr(at, 5);
    if (word != "async" && word != "await") return true; // not what this test knows: maybe
    std::size_t next = at + word.size();
    while (next < text.size() && (text[next] == ' ' || text[next] == '\t' || text[next] == '\r' || text[next] == '\n' ||
                                  text[next] == '\\' || text[next] == '\f'))
      ++next;
    // A parameter or keyword argument: `async=`, `async,`, `async)`, `async:`; a comment after
    // it hides what follows, so it counts too.
    if (next == text.size() || std::string_view("=,):#").find(text[next]) != std::string_view::npos) return true;
  }
  return false;
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
