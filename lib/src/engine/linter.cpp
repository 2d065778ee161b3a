#include "asyncfix/linter.h"

#include <algorithm>
#include <limits>
#include <map>

#include "asyncfix/document_internals.h"
#include "asyncfix/linter_internals.h"
#include "config/noqa.h"
#include "engine/linter_impl.h"
#include "rules/rule.h"
#include "text/prefilter.h"
#include "text/syntax.h"
#include "text/torch_words.h"

namespace asyncfix {

Linter::Impl::Impl(Config c) : config(std::move(c)) {
  const TSLanguage *lang = tree_sitter_python();
  dispatch.resize(ts_language_symbol_count(lang));
  for (auto &rule : rules::makeAllRules()) {
    if (!config.rules.enables(rule->info().code)) continue;
    for (TSSymbol s : rule->subscriptions())
      if (s < dispatch.size()) dispatch[s].push_back(rule.get());
    triggers |= rule->triggers();
    rules.push_back(std::move(rule));
  }
  if ((triggers & rules::kTriggerTorchApi) && config.package) reachedPackages = torchPackagesSpelt(*config.package);
  if (triggers & rules::kTriggerTorchApi) {
    for (const RenameRow &r : config.renames) {
      if (r.kind == RenameRow::Kind::Api) apiWords.emplace_back(r.old.substr(r.old.rfind('.') + 1));
      else if (r.kind == RenameRow::Kind::Keyword && r.old != "async" && r.old != "await")
        apiWords.emplace_back(r.old); // AF312's keyword renames (`retain_variables=`)
    }
  }
}

namespace {
/// Calls `f(at)` for each whole occurrence of one of `words` in `text`.
template <class F> void forEachWord(std::string_view text, const std::vector<std::string> &words, F &&f) {
  for (const std::string &word : words)
    for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1))
      if (torchWordAt(text, at, word, true)) f(at);
}
} // namespace

Linter::Linter(Config config) : impl_(std::make_unique<Impl>(std::move(config))) {}
Linter::~Linter() = default;
Linter::Linter(Linter &&) noexcept = default;
Linter &Linter::operator=(Linter &&) noexcept = default;

const Config &Linter::config() const { return impl_->config; }

bool Linter::mayHaveFindings(std::string_view text) const {
  bool plain = false;
  return LinterInternals::mayHaveFindings(*this, text, plain);
}

bool LinterInternals::mayHaveFindings(const Linter &linter, std::string_view text, bool &plain) {
  const Linter::Impl &impl = *linter.impl_;
  plain = false;
  if (impl.triggers != 0 && mayTrigger(text, impl.triggers, impl.reachedPackages, &plain)) return true;
  bool found = false;
  forEachWord(text, impl.apiWords, [&](std::size_t) { found = true; });
  return found;
}

std::vector<Diagnostic> Linter::lint(std::string_view text) const {
  if (!mayHaveFindings(text)) return {};
  return lint(Document(std::string(text)));
}

std::vector<std::uint32_t> marksOf(std::string_view text, unsigned triggers, std::uint32_t base,
                                   const std::vector<std::string> &words) {
  std::vector<std::uint32_t> marks;
  scanTriggers(text, triggers, &marks);
  forEachWord(text, words, [&](std::size_t at) { marks.push_back(static_cast<std::uint32_t>(at)); });
  for (std::size_t i = text.find('#'); i != std::string_view::npos; i = text.find('#', i + 1)) {
    const std::size_t eol = std::min(text.find_first_of("\r\n", i), text.size());
    for (std::size_t j = i + 1; j + 4 <= eol; ++j) {
      const char c = static_cast<char>(text[j] | 0x20);
      if ((c == 'n' && (text[j + 1] | 0x20) == 'o' && (text[j + 2] | 0x20) == 'q' && (text[j + 3] | 0x20) == 'a') ||
          (c == 'a' && j + 9 <= eol && text.compare(j, 9, "asyncfix:") == 0)) {
        marks.push_back(static_cast<std::uint32_t>(i));
        break;
      }
    }
    i = eol;
  }
  std::sort(marks.begin(), marks.end());
  if (base != 0)
    for (std::uint32_t &m : marks) m += base;
  return marks;
}

std::vector<Diagnostic> Linter::lint(const Document &doc) const { return lintImpl(doc, true); }

bool Linter::Impl::walk(TSNode root, TSNode top, rules::Context &ctx, const std::vector<std::uint32_t> *marks,
                        std::vector<TSNode> &comments, WalkStop *stop) const {
  const TSSymbol error = Kinds::get().error, comment = Kinds::get().comment;
  auto &ancestors = ctx.ancestorStack();
  int &errorDepth = ctx.errorDepth();
  ancestors.clear();
  errorDepth = 0;
  if (!ts_node_eq(root, top)) {
    ancestors.push_back(root);
    if (ts_node_symbol(root) == error) ++errorDepth;
  }
  const std::size_t base = ancestors.size();
  const auto marked = [&](TSNode node) {
    if (!marks) return true;
    const std::uint32_t start = ts_node_start_byte(node);
    const auto it = std::lower_bound(marks->begin(), marks->end(), start);
    return it != marks->end() && *it < ts_node_end_byte(node);
  };

  // With marks, the walk skips what holds none without visiting it: into a node, it goes
  // straight to the first child that reaches the node's first mark; after a subtree, it leaves
  // the parent when no mark is left in it.
  const auto nextMark = [&](std::uint32_t from) {
    const auto it = std::lower_bound(marks->begin(), marks->end(), from);
    return it == marks->end() ? std::numeric_limits<std::uint32_t>::max() : *it;
  };

  // One pre-order walk with a cursor; an explicit ancestor stack instead of recursion, so a
  // deeply nested file cannot overflow the call stack.
  Cursor cursor(top);
  TSTreeCursor *c = cursor.get();
  for (;;) {
    if (stop && (*stop)()) return false;
    const TSNode node = ts_tree_cursor_current_node(c);
    const TSSymbol symbol = ts_node_symbol(node);
    const bool enter = marked(node);
    if (enter && symbol < dispatch.size())
      for (const rules::Rule *rule : dispatch[symbol]) rule->check(node, ctx);
    if (symbol == comment) comments.push_back(node);
    if (enter && (marks ? ts_tree_cursor_goto_first_child_for_byte(c, nextMark(ts_node_start_byte(node))) >= 0
                        : ts_tree_cursor_goto_first_child(c))) {
      ancestors.push_back(node);
      if (symbol == error) ++errorDepth;
      continue;
    }
    for (;;) {
      const bool more = !marks || ancestors.size() <= base ||
                        nextMark(ts_node_end_byte(ts_tree_cursor_current_node(c))) < ts_node_end_byte(ancestors.back());
      if (more && ts_tree_cursor_goto_next_sibling(c)) break;
      if (!ts_tree_cursor_goto_parent(c) || ancestors.size() <= base) return true;
      if (ts_node_symbol(ancestors.back()) == error) --errorDepth;
      ancestors.pop_back();
    }
  }
}

std::vector<Diagnostic> Linter::Impl::finish(const Document &doc, std::vector<Diagnostic> diagnostics,
                                             const std::vector<TSNode> &comments, bool suppress) const {
  finishInPlace(doc, diagnostics, comments, suppress);
  return diagnostics;
}

void Linter::Impl::finishInPlace(const Document &doc, std::vector<Diagnostic> &diagnostics,
                                 const std::vector<TSNode> &comments, bool suppress) const {
  if (suppress) {
    Suppressions suppressions = collectSuppressions(doc, comments);
    applySuppressions(doc, suppressions, config, diagnostics);
  }
  for (Diagnostic &d : diagnostics)
    if (const auto it = config.severity.find(d.code); it != config.severity.end()) d.severity = it->second;
  const auto before = [](const Diagnostic &a, const Diagnostic &b) {
    return a.start != b.start ? a.start < b.start : a.code < b.code;
  };
  // Findings gathered statement by statement mostly come in order (an editor's update gathers
  // every statement's, each keystroke): a sorted list is left as it is, as the sort would.
  if (!std::is_sorted(diagnostics.begin(), diagnostics.end(), before))
    std::stable_sort(diagnostics.begin(), diagnostics.end(), before);
}

std::vector<Diagnostic> Linter::lintImpl(const Document &doc, bool prune) const {
  return *impl_->lint(doc, prune, true);
}

std::optional<std::vector<Diagnostic>> Linter::Impl::lint(const Document &doc, bool prune, bool suppress,
                                                          WalkStop *stop) const {
  if (!DocumentInternals::parse(doc) || rules.empty()) return std::vector<Diagnostic>{};
  // Every finding lies on a prefilter trigger, and every suppression comment is marked too: a
  // subtree that holds no mark cannot matter, so the walk neither enters it nor dispatches it —
  // the cost follows the few marked places, not the size of the file.
  // On a tree with syntax errors, the prefilter's lexical view and tree-sitter's recovery can
  // disagree (a `"""` the parser took for an error token still opens a string for the scan, so
  // later code looks like string content): the walk prunes clean trees only.
  prune = prune && !DocumentInternals::hasError(doc);
  std::vector<std::uint32_t> marks;
  if (prune) {
    marks = marksOf(doc.text(), triggers, 0, apiWords);
    if (marks.empty()) return std::vector<Diagnostic>{};
  }
  rules::Context ctx(doc, config);
  std::vector<TSNode> comments; // for the suppression pass
  if (DocumentInternals::chunked(doc)) {
    // An editor's document held as several trees: statement by statement, each under its root.
    for (const TSNode statement : DocumentInternals::statements(doc))
      if (!walk(ts_tree_root_node(statement.tree), statement, ctx, prune ? &marks : nullptr, comments, stop))
        return std::nullopt;
  } else {
    const TSNode root = ts_tree_root_node(DocumentInternals::tree(doc));
    if (!walk(root, root, ctx, prune ? &marks : nullptr, comments, stop)) return std::nullopt;
  }
  if (stop && stop->now()) return std::nullopt; // the suppressions and the sort are left
  return finish(doc, ctx.takeDiagnostics(), comments, suppress);
}

} // namespace asyncfix

namespace asyncfix {
std::vector<Diagnostic> LinterInternals::lintWithoutPruning(const Linter &linter, const Document &doc) {
  return linter.lintImpl(doc, false);
}

std::vector<Diagnostic> LinterInternals::lintUnsuppressed(const Linter &linter, const Document &doc) {
  return *linter.impl_->lint(doc, true, false);
}

std::optional<std::vector<Diagnostic>> LinterInternals::lintUnless(const Linter &linter, const Document &doc,
                                                                   const std::function<bool()> &stop) {
  if (stop()) return std::nullopt;
  WalkStop walkStop(stop);
  return linter.impl_->lint(doc, true, true, &walkStop);
}

LinterInternals::KeptBy LinterInternals::keptBy(const Linter &linter, std::string_view text) {
  const PrefilterHit hit = firstTrigger(text, linter.impl_->triggers, linter.impl_->reachedPackages);
  switch (hit.trigger) {
  case kPrefilterKeywordName: return {"keyword-name", hit.offset};
  case kPrefilterNonBlocking: return {"non-blocking", hit.offset};
  case kPrefilterToCall: return {"to-call", hit.offset};
  case kPrefilterNoqa: return {"noqa", hit.offset};
  case kPrefilterTorchApi: return {"torch-api", hit.offset};
  default: return {};
  }
}
} // namespace asyncfix
