#include "asyncfix/document.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "asyncfix/document_internals.h"

#include "text/syntax.h"

namespace asyncfix {

namespace {

/// One parser per thread, shared by that thread's documents: a parser's stacks and buffers are
/// worth keeping warm, not worth keeping once per open document.
TSParser *threadParser() {
  thread_local ParserPtr parser = makePythonParser();
  return parser.get();
}

/// True when `text` has a line that ends in a lone "\r" (not followed by "\n").
bool hasLoneCr(std::string_view text) {
  for (std::size_t i = text.find('\r'); i != std::string_view::npos; i = text.find('\r', i + 1))
    if (i + 1 == text.size() || text[i + 1] != '\n') return true;
  return false;
}

/// The text as the parser reads it when a line ends in a lone "\r": Python (and LineIndex) end a
/// line there, tree-sitter-python only at "\n", so each lone CR is shown to it as "\n". Offsets
/// stay the same, and the tree's rows are LineIndex's lines.
class LoneCrAsNewline {
public:
  explicit LoneCrAsNewline(std::string_view text) : text_(text) {}

  TSInput input() { return TSInput{this, &LoneCrAsNewline::read, TSInputEncodingUTF8, nullptr}; }

private:
  static const char *read(void *payload, std::uint32_t byte, TSPoint, std::uint32_t *bytesRead) {
    auto &self = *static_cast<LoneCrAsNewline *>(payload);
    const std::string_view text = self.text_;
    if (byte >= text.size()) {
      *bytesRead = 0;
      return "";
    }
    const std::size_t n = std::min(self.chunk_.size(), text.size() - byte);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t at = byte + i;
      const bool loneCr = text[at] == '\r' && (at + 1 == text.size() || text[at + 1] != '\n');
      self.chunk_[i] = loneCr ? '\n' : text[at];
    }
    *bytesRead = static_cast<std::uint32_t>(n);
    return self.chunk_.data();
  }

  std::string_view text_;
  std::vector<char> chunk_ = std::vector<char>(std::size_t{64} * 1024);
};

} // namespace

/// The tree is made when first asked for, not when the text arrives: a text the prefilter rejects
/// is never parsed. `stale` says the text changed since `tree` was made; `tree`, when present,
/// then holds every edit already (ts_tree_edit) and is the old tree for an incremental re-parse.
struct Document::Impl {
  TreePtr tree;
  bool stale = true;
  /// Since DocumentInternals::takeChanges last asked: the byte ranges whose syntax changed in
  /// incremental re-parses (ts_tree_get_changed_ranges), and whether a parse started afresh.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> changed;
  bool fresh = true;

  void parse(const std::string &text) {
    stale = false;
    TSParser *parser = threadParser();
    // tree-sitter takes a 32-bit length; larger inputs are not parsed (no tree: nothing reported).
    if (!parser || text.size() > UINT32_MAX) {
      tree.reset();
      return;
    }
    TreePtr old = std::move(tree);
    if (hasLoneCr(text)) {
      LoneCrAsNewline reader(text);
      tree.reset(ts_parser_parse(parser, old.get(), reader.input()));
    } else {
      tree.reset(ts_parser_parse_string(parser, old.get(), text.data(), static_cast<std::uint32_t>(text.size())));
    }
    if (!old || !tree) {
      fresh = true;
      return;
    }
    std::uint32_t count = 0;
    TSRange *ranges = ts_tree_get_changed_ranges(old.get(), tree.get(), &count);
    for (std::uint32_t i = 0; i < count; ++i) changed.emplace_back(ranges[i].start_byte, ranges[i].end_byte);
    std::free(ranges);
  }
};

namespace {

/// Words whose respelling changes how tree-sitter-python tokenizes them: every word its grammar
/// spells out (keywords, soft keywords, `print`/`exec`, `__future__`, the wildcard `_`).
bool isKeywordLike(std::string_view word) {
  static constexpr std::string_view kWords[] = {
      "False",  "None",     "True",   "__future__", "and",  "as",     "assert", "async",    "await",   "break", "case",
      "class",  "continue", "def",    "del",        "elif", "else",   "except", "exec",     "finally", "for",   "from",
      "global", "if",       "import", "in",         "is",   "lambda", "match",  "nonlocal", "not",     "or",    "pass",
      "print",  "raise",    "return", "try",        "type", "while",  "with",   "yield",    "_"};
  return std::find(std::begin(kWords), std::end(kWords), word) != std::end(kWords);
}

bool isAsciiWord(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

/// The identifier that replacing text[start, end) with `replacement` respells, when that is all
/// the edit does to a tree without syntax errors: the edit lies inside the identifier or at its
/// end (ts_tree_edit then stretches the identifier over it), adds and removes only ASCII name
/// characters, and neither spelling is keyword-like. The token stream keeps its kinds (a name
/// right before a quote, which could become a string prefix, is already a syntax error), so a
/// re-parse would give the same tree with that identifier's range moved — which ts_tree_edit has
/// done already. Returns the identifier's range before the edit.
std::optional<std::pair<std::size_t, std::size_t>> respelledIdentifier(const TSTree *tree, std::string_view text,
                                                                       std::size_t start, std::size_t end,
                                                                       std::string_view replacement) {
  if (!tree || start == 0 || !isAsciiWord(replacement) || !isAsciiWord(text.substr(start, end - start)))
    return std::nullopt;
  const TSNode root = ts_tree_root_node(tree);
  if (ts_node_has_error(root)) return std::nullopt;
  const TSNode leaf =
      ts_node_descendant_for_byte_range(root, static_cast<std::uint32_t>(start - 1), static_cast<std::uint32_t>(start));
  if (ts_node_child_count(leaf) != 0 || !isIdentifier(leaf)) return std::nullopt;
  const std::size_t from = ts_node_start_byte(leaf), to = ts_node_end_byte(leaf);
  if (from >= start || end > to) return std::nullopt;
  const std::string_view before = text.substr(from, to - from);
  std::string after(before);
  after.replace(start - from, end - start, replacement);
  if (isKeywordLike(before) || isKeywordLike(after)) return std::nullopt;
  return std::pair{from, to};
}

bool isContinuation(const std::string &text, std::size_t i) {
  return i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;
}

std::size_t snap(const std::string &text, std::size_t offset) {
  offset = std::min(offset, text.size());
  while (offset > 0 && isContinuation(text, offset)) --offset;
  return offset;
}

/// TSPoint of a byte offset: row and *byte* column, as tree-sitter wants.
TSPoint pointOf(const LineIndex &lines, std::size_t offset) {
  // tree-sitter, like LineIndex, does not count a leading BOM in line 0's columns.
  const Position p = lines.position(offset, PositionEncoding::Utf8);
  return {p.line, p.column};
}

} // namespace

Document::Document(std::string text) : text_(std::move(text)), impl_(std::make_unique<Impl>()) {
  lines_ = LineIndex(text_);
}

Document::~Document() = default;

Document::Document(Document &&other) noexcept : text_(std::move(other.text_)), impl_(std::move(other.impl_)) {
  lines_ = LineIndex(text_);
  other.lines_ = LineIndex(other.text_);
}

Document &Document::operator=(Document &&other) noexcept {
  text_ = std::move(other.text_);
  impl_ = std::move(other.impl_);
  lines_ = LineIndex(text_);
  other.lines_ = LineIndex(other.text_);
  return *this;
}

bool Document::holdsTree() const { return DocumentInternals::heldTree(*this) != nullptr; }

bool Document::parsed() const { return DocumentInternals::tree(*this) != nullptr; }

void Document::releaseTree() {
  if (!impl_) return;
  impl_->tree.reset();
  impl_->stale = true;
}

void Document::edit(std::size_t start, std::size_t end, std::string_view replacement) {
  start = snap(text_, start);
  end = snap(text_, std::max(start, end));
  const TSPoint startPoint = pointOf(lines_, start), oldEndPoint = pointOf(lines_, end);
  // Typing inside a name is most keystrokes: when the tree is current and the edit only respells
  // an identifier, the edited tree is the new text's tree and no re-parse is needed.
  const auto respelled =
      impl_->stale ? std::nullopt : respelledIdentifier(impl_->tree.get(), text_, start, end, replacement);
  text_.replace(start, end - start, replacement);
  const std::size_t newEnd = start + replacement.size();
  lines_.update(text_, start, end, newEnd);
  impl_->stale = true;
  for (auto &[from, to] : impl_->changed) { // ranges not yet taken follow the text
    const auto move = [&](std::uint32_t at) {
      return at >= end ? static_cast<std::uint32_t>(at - end + newEnd)
                       : std::min<std::uint32_t>(at, static_cast<std::uint32_t>(start));
    };
    const bool overlaps = from <= end && to >= start;
    from = move(from);
    to = overlaps ? std::max(move(to), static_cast<std::uint32_t>(newEnd)) : move(to);
  }
  if (impl_->tree && text_.size() <= UINT32_MAX) {
    // The re-parse happens when the tree is next asked for: edits in between are merged.
    TSInputEdit edit{static_cast<std::uint32_t>(start),
                     static_cast<std::uint32_t>(end),
                     static_cast<std::uint32_t>(newEnd),
                     startPoint,
                     oldEndPoint,
                     pointOf(lines_, newEnd)};
    ts_tree_edit(impl_->tree.get(), &edit);
    if (respelled) {
      impl_->stale = false;
      const std::size_t wordEnd = respelled->second - (end - start) + replacement.size();
      impl_->changed.emplace_back(static_cast<std::uint32_t>(respelled->first), static_cast<std::uint32_t>(wordEnd));
    }
  } else {
    impl_->tree.reset();
  }
}

void Document::reset(std::string text) {
  text_ = std::move(text);
  lines_ = LineIndex(text_);
  releaseTree();
}

std::size_t Document::syntaxErrorCount() const {
  const TSTree *tree = DocumentInternals::tree(*this);
  if (!tree) return 0;
  TSNode root = ts_tree_root_node(tree);
  if (!ts_node_has_error(root)) return 0;
  // A MISSING token of a hidden rule (`_newline`) has no visible node for the walk below to
  // find; the root still knows the tree has an error: count it as one.
  std::size_t count = 0;
  Cursor cursor(root);
  TSTreeCursor *c = cursor.get();
  // Iterative pre-order walk that only descends into subtrees that contain an error.
  for (;;) {
    TSNode node = ts_tree_cursor_current_node(c);
    if (ts_node_is_error(node) || ts_node_is_missing(node)) ++count;
    if (ts_node_has_error(node) && !ts_node_is_error(node) && ts_tree_cursor_goto_first_child(c)) continue;
    while (!ts_tree_cursor_goto_next_sibling(c)) {
      if (!ts_tree_cursor_goto_parent(c)) return std::max<std::size_t>(count, 1);
    }
  }
}

} // namespace asyncfix

namespace asyncfix {

const TSTree *DocumentInternals::tree(const Document &doc) {
  if (!doc.impl_) return nullptr;
  if (doc.impl_->stale) doc.impl_->parse(doc.text_);
  return doc.impl_->tree.get();
}

const TSTree *DocumentInternals::heldTree(const Document &doc) { return doc.impl_ ? doc.impl_->tree.get() : nullptr; }

bool DocumentInternals::treeIsCurrent(const Document &doc) { return doc.impl_ && doc.impl_->tree && !doc.impl_->stale; }

bool DocumentInternals::takeChanges(const Document &doc,
                                    std::vector<std::pair<std::uint32_t, std::uint32_t>> &changed) {
  tree(doc); // parse now if needed
  if (!doc.impl_) return true;
  const bool fresh = doc.impl_->fresh;
  changed = std::move(doc.impl_->changed);
  doc.impl_->changed.clear();
  doc.impl_->fresh = false;
  return fresh;
}

} // namespace asyncfix
