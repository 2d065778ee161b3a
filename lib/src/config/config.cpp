#include "asyncfix/config.h"

#include <algorithm>
#include <charconv>

#include "asyncfix/rules.h"

namespace asyncfix {
namespace {

/// Specificity of `entry` as a selector of `code`: -1 when it does not match, else its length
/// ("ALL" counts as 0, so any prefix beats it).
int matchLength(std::string_view entry, std::string_view code) {
  if (entry == "ALL") return 0;
  if (code.starts_with(entry)) return static_cast<int>(entry.size());
  return -1;
}

int bestMatch(const std::vector<std::string> &entries, std::string_view code) {
  int best = -1;
  for (const auto &e : entries) best = std::max(best, matchLength(e, code));
  return best;
}

bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isIdentChar(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }

} // namespace

std::optional<PythonVersion> PythonVersion::parse(std::string_view text) {
  int major = 0, minor = 0;
  if (text.starts_with("py") && text.size() >= 4) {
    major = text[2] - '0';
    const auto rest = text.substr(3);
    if (std::from_chars(rest.data(), rest.data() + rest.size(), minor).ptr != rest.data() + rest.size())
      return std::nullopt;
  } else {
    const auto dot = text.find('.');
    if (dot == std::string_view::npos) return std::nullopt;
    const auto a = text.substr(0, dot), b = text.substr(dot + 1);
    if (std::from_chars(a.data(), a.data() + a.size(), major).ptr != a.data() + a.size() ||
        std::from_chars(b.data(), b.data() + b.size(), minor).ptr != b.data() + b.size())
      return std::nullopt;
  }
  if (major != 3 || minor < 5 || minor > 14) return std::nullopt;
  return PythonVersion{major, minor};
}

std::string PythonVersion::toString() const { return "py" + std::to_string(major) + std::to_string(minor); }

bool RuleSelection::enables(std::string_view code) const {
  const int selected = std::max(bestMatch(select, code), bestMatch(extendSelect, code));
  if (selected < 0) return false;
  return selected > bestMatch(ignore, code); // equal specificity: ignore wins
}

std::vector<std::string> RuleSelection::unknownEntries() const {
  std::vector<std::string> unknown;
  for (const auto *list : {&select, &extendSelect, &ignore}) {
    for (const auto &entry : *list) {
      const bool known = std::any_of(ruleCatalogue().begin(), ruleCatalogue().end(),
                                     [&](const RuleInfo *r) { return matchLength(entry, r->code) >= 0; });
      if (!known) unknown.push_back(entry);
    }
  }
  return unknown;
}

std::string Config::renamed(std::string_view name) const {
  std::string out = renameTemplate;
  for (std::size_t pos = out.find("{name}"); pos != std::string::npos; pos = out.find("{name}", pos + name.size()))
    out.replace(pos, 6, name);
  return out;
}

std::optional<std::string> Config::renameTemplateFor(std::string_view style) {
  if (style == "async_") return "{name}_";
  if (style == "is_async") return "is_{name}";
  if (isValidRenameTemplate(style)) return std::string(style);
  return std::nullopt;
}

bool Config::isValidRenameTemplate(std::string_view tmpl) {
  if (tmpl.find("{name}") == std::string_view::npos) return false;
  Config probe;
  probe.renameTemplate = std::string(tmpl);
  const std::string result = probe.renamed("async");
  if (result.empty() || !isIdentStart(result[0]) || result == "async") return false;
  return std::all_of(result.begin(), result.end(), isIdentChar);
}

} // namespace asyncfix
