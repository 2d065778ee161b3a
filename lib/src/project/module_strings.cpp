#include "asyncfix/module_strings.h"

#include <algorithm>

#include "asyncfix/platform.h"
#include "asyncfix/rules.h"
#include "text/syntax.h"

namespace asyncfix {
namespace {

bool isNameChar(char c) {
  return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         static_cast<unsigned char>(c) >= 0x80;
}

/// Calls `visit(offset, content)` for the content of every string literal of `text`, in order
/// (one parse).
template <class Visit> void forEachStringContent(std::string_view text, Visit &&visit) {
  const TreePtr tree(
      ts_parser_parse_string(threadParser(), nullptr, text.data(), static_cast<std::uint32_t>(text.size())));
  if (!tree) return;
  Cursor cursor(ts_tree_root_node(tree.get()));
  TSTreeCursor *c = cursor.get();
  for (bool more = true; more;) {
    const TSNode node = ts_tree_cursor_current_node(c);
    if (isType(node, "string_content")) visit(std::size_t{ts_node_start_byte(node)}, textOf(node, text));
    if (ts_tree_cursor_goto_first_child(c)) continue;
    while (!ts_tree_cursor_goto_next_sibling(c))
      if (!ts_tree_cursor_goto_parent(c)) {
        more = false;
        break;
      }
  }
}

} // namespace

bool mentionsRenamedModule(std::string_view text, const std::vector<RenamedModule> &modules) {
  // memmem (containsBytes), not string_view::find: that one stops at every byte equal to the
  // needle's first, and `p` of `pkg.async` is everywhere in Python text.
  return std::any_of(modules.begin(), modules.end(),
                     [&](const RenamedModule &m) { return containsBytes(text, m.old); });
}

std::vector<Diagnostic> moduleStrings(std::string_view text, const std::vector<RenamedModule> &modules,
                                      Severity severity) {
  std::vector<Diagnostic> out;
  if (!mentionsRenamedModule(text, modules)) return out;
  const RuleInfo *rule = findRule("AF201");
  forEachStringContent(text, [&](std::size_t base, std::string_view content) {
    for (const RenamedModule &m : modules) {
      for (std::size_t at = content.find(m.old); at != std::string_view::npos; at = content.find(m.old, at + 1)) {
        const std::size_t end = at + m.old.size();
        const bool startsName = at == 0 || (!isNameChar(content[at - 1]) && content[at - 1] != '.');
        const bool endsName =
            end == content.size() || content[end] == '.' || content[end] == ':' || !isNameChar(content[end]);
        if (!startsName || !endsName) continue;
        Diagnostic d;
        d.code = rule->code;
        d.name = rule->name;
        d.severity = severity;
        d.message = "This string names the project's module `" + m.old + "`, which the fix renames `" + m.replacement +
                    "`; update it by hand";
        d.start = base + at;
        d.end = base + end;
        out.push_back(std::move(d));
      }
    }
  });
  std::sort(out.begin(), out.end(), [](const Diagnostic &a, const Diagnostic &b) { return a.start < b.start; });
  return out;
}

std::vector<std::size_t> relativeModuleStrings(std::string_view text, std::string_view module, bool bare) {
  std::vector<std::size_t> out;
  const std::string_view last = module.substr(module.rfind('.') + 1);
  // Every such string ends with the module's last component and a quote.
  bool quoted = false;
  for (const char quote : {'"', '\''}) {
    const std::string needle = std::string(last) + quote;
    quoted = quoted || containsBytes(text, needle);
  }
  if (!quoted) return out;
  const auto names = [&](std::string_view content) {
    if (bare && content == last) return true;
    const std::size_t dots = content.find_first_not_of('.');
    if (dots == 0 || dots == std::string_view::npos) return false;
    const std::string_view rest = content.substr(dots); // a suffix of the module's path
    return module.ends_with(rest) && (rest.size() == module.size() || module[module.size() - rest.size() - 1] == '.');
  };
  forEachStringContent(text, [&](std::size_t at, std::string_view content) {
    if (names(content)) out.push_back(at);
  });
  return out;
}

} // namespace asyncfix
