#include "asyncfix/linter.h"

#include <algorithm>
#include <map>

#include "noqa.h"
#include "linter_internal.h"
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

namespace {

/// Offsets of the text the rules can report on or must see: every prefilter trigger of the
/// enabled rules, and every comment that may be a suppression (`noqa`, `asyncfix:` in any case).
std::vector<std::uint32_t> marksOf(std::string_view text, unsigned triggers) {
  std::vector<std::uint32_t> marks;
  scanTriggers(text, triggers, &marks);
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
  return marks;
}

} // namespace

std::vector<Diagnostic> Linter::lint(const Document &doc) const { return lintImpl(doc, true, nullptr); }

std::vector<Diagnostic> Linter::lint(const Document &doc, LintFootprint &footprint) const {
  footprint = LintFootprint{};
  return lintImpl(doc, true, &footprint);
}

std::vector<Diagnostic> Linter::lintImpl(const Document &doc, bool prune, LintFootprint *footprint) const {
  if (footprint) footprint->syntaxErrors = doc.syntaxErrorCount() > 0;
  if (!doc.tree() || impl_->rules.empty()) return {};
  rules::Context ctx(doc, impl_->config);
  const TSSymbol error = Kinds::get().error, comment = Kinds::get().comment;
  std::vector<TSNode> comments; // for the suppression pass
  auto &ancestors = ctx.ancestorStack();
  int &errorDepth = ctx.errorDepth();

  // Every finding lies on a prefilter trigger, and every suppression comment is marked too: a
  // subtree that holds no mark cannot matter, so the walk neither enters it nor dispatches it —
  // the cost follows the few marked places, not the size of the file.
  const std::vector<std::uint32_t> marks = prune ? marksOf(doc.text(), impl_->triggers) : std::vector<std::uint32_t>{};
  if (footprint) footprint->marks = marks;
  if (prune && marks.empty()) return {};
  const auto marked = [&](TSNode node) {
    if (!prune) return true;
    const std::uint32_t start = ts_node_start_byte(node);
    const auto it = std::lower_bound(marks.begin(), marks.end(), start);
    return it != marks.end() && *it < ts_node_end_byte(node);
  };

  // One pre-order walk with a cursor; an explicit ancestor stack instead of recursion, so a
  // deeply nested file cannot overflow the call stack.
  Cursor cursor(ts_tree_root_node(doc.tree()));
  TSTreeCursor *c = cursor.get();
  for (;;) {
    const TSNode node = ts_tree_cursor_current_node(c);
    const TSSymbol symbol = ts_node_symbol(node);
    const bool enter = marked(node);
    if (enter && symbol < impl_->dispatch.size())
      for (const rules::Rule *rule : impl_->dispatch[symbol]) rule->check(node, ctx);
    if (symbol == comment) comments.push_back(node);
    if (enter && ts_tree_cursor_goto_first_child(c)) {
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
  if (footprint) {
    if (const SemanticModel *model = ctx.semanticIfBuilt()) {
      footprint->names.assign(model->queried().begin(), model->queried().end());
      footprint->names.insert(footprint->names.end(), model->resolved().begin(), model->resolved().end());
      const TSNode root = ts_tree_root_node(doc.tree());
      for (const Scope &scope : model->scopes()) {
        if (scope.kind != ScopeKind::Function || scope.parent != 0) continue;
        TSNode statement = scope.node;
        if (const TSNode up = ts_node_parent(statement); ts_node_symbol(up) == Kinds::get().decoratedDefinition)
          statement = up;
        if (!ts_node_eq(ts_node_parent(statement), root)) continue;
        std::vector<std::string> locals;
        // Only names asked about through a binding: a local of that spelling is another variable.
        for (const std::string &name : model->resolved())
          if (!model->queried().contains(name) && scope.bound.contains(name) && !scope.globals.contains(name) &&
              !scope.nonlocals.contains(name))
            locals.push_back(name);
        if (!locals.empty()) footprint->locals.emplace_back(ts_node_start_byte(statement), std::move(locals));
      }
    }
    footprint->ranges = ctx.dependencies();
  }
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

namespace asyncfix {
std::vector<Diagnostic> lintWithoutPruning(const Linter &linter, const Document &doc) {
  return linter.lintImpl(doc, false, nullptr);
}
} // namespace asyncfix

namespace asyncfix {
namespace {

bool isNameByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// Words whose respelling could change the tree or what the rules see: keywords (hard and soft,
/// and Python 2's print/exec, which the grammar knows), and the prefilter's trigger words.
bool isSpecialWord(std::string_view w) {
  static constexpr std::string_view kWords[] = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
      "del", "elif", "else", "except", "exec", "finally", "for", "from", "global", "if", "import", "in",
      "is", "lambda", "nonlocal", "not", "or", "pass", "print", "raise", "return", "try", "while", "with",
      "yield", "match", "case", "type", "_", "non_blocking", "to", "noqa", "asyncfix"};
  for (std::string_view k : kWords)
    if (w == k) return true;
  return false;
}

/// An identifier that names a parameter (not a default value, annotation or decorator).
bool isParameterName(TSNode id) {
  if (ts_node_is_null(id) || std::string_view(ts_node_type(id)) != "identifier") return false;
  const TSNode parent = ts_node_parent(id);
  const std::string_view kind = ts_node_type(parent);
  if (kind == "parameters") return true;
  if (kind == "default_parameter" || kind == "typed_default_parameter")
    return ts_node_eq(ts_node_child_by_field_name(parent, "name", 4), id);
  if (kind == "typed_parameter") return ts_node_eq(ts_node_named_child(parent, 0), id);
  if (kind == "list_splat_pattern" || kind == "dictionary_splat_pattern") {
    const std::string_view grand = ts_node_type(ts_node_parent(parent));
    return grand == "parameters" || grand == "typed_parameter";
  }
  return false;
}

bool containsWord(std::string_view text, std::string_view word) {
  for (std::size_t i = text.find(word); i != std::string_view::npos; i = text.find(word, i + 1)) {
    const bool before = i == 0 || !isNameByte(text[i - 1]);
    const bool after = i + word.size() >= text.size() || !isNameByte(text[i + word.size()]);
    if (before && after) return true;
  }
  return false;
}

} // namespace

bool editKeepsFindings(const Document &doc, const LintFootprint &footprint, std::size_t start, std::size_t end,
                       std::string_view replacement) {
  const std::string_view text = doc.text();
  const TSTree *tree = doc.heldTree();
  if (footprint.syntaxErrors || !tree || start > end || end > text.size() || text.size() > UINT32_MAX / 2) return false;
  const std::string_view removed = text.substr(start, end - start);
  if (removed.empty() && replacement.empty()) return true;
  for (const std::string_view part : {removed, replacement})
    for (const char c : part)
      if (!isNameByte(c)) return false;
  // The word around the edit, before and after it.
  std::size_t ws = start, we = end;
  while (ws > 0 && isNameByte(text[ws - 1])) --ws;
  while (we < text.size() && isNameByte(text[we])) ++we;
  const std::string_view before = text.substr(ws, we - ws);
  std::string after(text.substr(ws, start - ws));
  after.append(replacement).append(text.substr(end, we - end));
  for (const std::string_view w : {before, std::string_view(after)})
    if (w.empty() || (w[0] >= '0' && w[0] <= '9') || isSpecialWord(w)) return false;
  if (we < text.size() && (text[we] == '"' || text[we] == '\'')) return false; // a string prefix
  // In the tree: exactly one identifier token, outside any ERROR.
  const TSNode root = ts_tree_root_node(tree);
  if (ts_node_has_error(root)) return false;
  const TSNode leaf = ts_node_descendant_for_byte_range(root, static_cast<std::uint32_t>(ws), static_cast<std::uint32_t>(we));
  if (ts_node_is_null(leaf) || ts_node_start_byte(leaf) != ws || ts_node_end_byte(leaf) != we ||
      ts_node_child_count(leaf) != 0 || std::string_view(ts_node_type(leaf)) != "identifier")
    return false;
  // The top-level statement holding it: no mark, no byte a rule read, no name a rule asked about.
  const TSNode statement = ts_node_child_with_descendant(root, leaf);
  if (ts_node_is_null(statement)) return false;
  const std::uint32_t s0 = ts_node_start_byte(statement), s1 = ts_node_end_byte(statement);
  const auto mark = std::lower_bound(footprint.marks.begin(), footprint.marks.end(), s0);
  if (mark != footprint.marks.end() && *mark < s1) return false;
  for (const auto &[r0, r1] : footprint.ranges)
    if (start < r1 && end >= r0) return false;
  const std::string_view body = text.substr(s0, s1 - s0);
  // Imports are looked up by package, scoping declarations change what every name means.
  for (const std::string_view w : {"import", "global", "nonlocal"})
    if (containsWord(body, w)) return false;
  // A name the rules asked about may appear in a top-level function that binds it locally (a
  // parameter or a local of the same spelling): there it is another variable — but only in the
  // body and as a parameter's own name, not in defaults, annotations or decorators.
  const std::vector<std::string> *locals = nullptr;
  for (const auto &[at, names] : footprint.locals)
    if (at == s0) locals = &names;
  TSNode function = statement;
  if (ts_node_symbol(function) == Kinds::get().decoratedDefinition)
    function = ts_node_child_by_field_name(function, "definition", 10);
  const TSNode functionBody = ts_node_child_by_field_name(function, "body", 4);
  const std::uint32_t bodyStart = ts_node_is_null(functionBody) ? s1 : ts_node_start_byte(functionBody);
  for (const std::string &name : footprint.names) {
    // Respelling such a name, even a local one, can unbind it there (then its other uses there
    // would see the binding the rules asked about).
    if (name == before || name == after) return false;
    if (!containsWord(body, name)) continue;
    if (!locals || std::find(locals->begin(), locals->end(), name) == locals->end()) return false;
    const std::string_view header = text.substr(s0, bodyStart - s0);
    for (std::size_t i = header.find(name); i != std::string_view::npos; i = header.find(name, i + 1)) {
      if ((i > 0 && isNameByte(header[i - 1])) || (i + name.size() < header.size() && isNameByte(header[i + name.size()])))
        continue;
      const auto at = static_cast<std::uint32_t>(s0 + i);
      const TSNode id = ts_node_descendant_for_byte_range(root, at, at + static_cast<std::uint32_t>(name.size()));
      if (!isParameterName(id)) return false;
    }
  }
  return true;
}

void shiftPastEdit(std::vector<Diagnostic> &diagnostics, LintFootprint &footprint, std::size_t start,
                   std::size_t end, std::size_t length) {
  const auto move = [&](auto &offset) {
    using T = std::remove_reference_t<decltype(offset)>;
    if (offset >= end) offset = static_cast<T>(offset - end + start + length);
  };
  // A fix shared by several diagnostics (one rename) is moved once and stays shared; the
  // moved copy is new, so other holders of the old one are left alone.
  std::map<const Fix *, SharedFix> moved;
  for (Diagnostic &d : diagnostics) {
    move(d.start);
    move(d.end);
    if (!d.fix) continue;
    auto [it, fresh] = moved.try_emplace(&*d.fix);
    if (fresh) {
      Fix f = *d.fix;
      for (TextEdit &e : f.edits) {
        move(e.start);
        move(e.end);
      }
      it->second = SharedFix(std::move(f));
    }
    d.fix = it->second;
  }
  for (std::uint32_t &m : footprint.marks) move(m);
  for (auto &[at, names] : footprint.locals) move(at);
  for (auto &[r0, r1] : footprint.ranges) {
    move(r0);
    move(r1);
  }
}

} // namespace asyncfix
