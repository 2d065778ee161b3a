#include "asyncfix/linter.h"

#include <algorithm>

#include "noqa.h"
#include "prefilter.h"
#include "rules/rule.h"
#include "syntax.h"

namespace asyncfix {

struct Linter::Impl {
  Config config;
  std::vector<std::unique_ptr<rules::Rule>> rules;        ///< the enabled ones
  std::vector<std::vector<const rules::Rule *>> dispatch; ///< symbol id → subscribed rules
  unsigned triggers = 0; ///< union of the enabled rules' Trigger bits

  explicit Impl(Config c) : config(std::move(c)) {
    const TSLanguage *lang = tree_sitter_python();
    dispatch.resize(ts_language_symbol_count(lang));
    for (auto &rule : rules::makeAllRules()) {
      if (!config.rules.enables(rule->info().code)) continue;
      for (TSSymbol s : rule->subscriptions())
        if (s < dispatch.size()) dispatch[s].push_back(rule.get());
      triggers |= rule->triggers();
      rules.push_back(std::move(rule));
    }
  }
};

Linter::Linter(Config config) : impl_(std::make_unique<Impl>(std::move(config))) {}
Linter::~Linter() = default;
Linter::Linter(Linter &&) noexcept = default;
Linter &Linter::operator=(Linter &&) noexcept = default;

const Config &Linter::config() const { return impl_->config; }

bool Linter::mayHaveFindings(std::string_view text) const {
  return impl_->triggers != 0 && scanTriggers(text, impl_->triggers) != 0;
}

std::vector<Diagnostic> Linter::lint(std::string_view text) const {
  if (!mayHaveFindings(text)) return {};
  return lint(Document(std::string(text)));
}

std::vector<Diagnostic> Linter::lint(const Document &doc) const {
  if (!doc.tree() || impl_->rules.empty()) return {};
  rules::Context ctx(doc, impl_->config);
  const TSSymbol error = Kinds::get().error, comment = Kinds::get().comment;
  std::vector<TSNode> comments; // for the suppression pass
  auto &ancestors = ctx.ancestorStack();
  int &errorDepth = ctx.errorDepth();

  // One pre-order walk with a cursor; an explicit ancestor stack instead of recursion, so a
  // deeply nested file cannot overflow the call stack.
  Cursor cursor(ts_tree_root_node(doc.tree()));
  TSTreeCursor *c = cursor.get();
  for (;;) {
    const TSNode node = ts_tree_cursor_current_node(c);
    const TSSymbol symbol = ts_node_symbol(node);
    if (symbol < impl_->dispatch.size())
      for (const rules::Rule *rule : impl_->dispatch[symbol]) rule->check(node, ctx);
    if (symbol == comment) comments.push_back(node);
    if (ts_tree_cursor_goto_first_child(c)) {
      ancestors.push_back(node);
      if (symbol == error) ++errorDepth;
      continue;
    }
    for (;;) {
      if (ts_tree_cursor_goto_next_sibling(c)) break;
      if (!ts_tree_cursor_goto_parent(c)) goto done;
      if (ts_node_symbol(ancestors.back()) == error) --errorDepth;
      ancestors.pop_back();
    }
  }
done:
  auto diagnostics = ctx.takeDiagnostics();
  Suppressions suppressions = collectSuppressions(doc, comments);
  applySuppressions(doc, suppressions, impl_->config, diagnostics);
  for (Diagnostic &d : diagnostics)
    if (const auto it = impl_->config.severity.find(d.code); it != impl_->config.severity.end())
      d.severity = it->second;
  std::stable_sort(diagnostics.begin(), diagnostics.end(), [](const Diagnostic &a, const Diagnostic &b) {
    return a.start != b.start ? a.start < b.start : a.code < b.code;
  });
  return diagnostics;
}

} // namespace asyncfix
