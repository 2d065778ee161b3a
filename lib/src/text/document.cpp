#include "asyncfix/document.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "asyncfix/document_internals.h"

#include "text/syntax.h"

namespace asyncfix {

namespace {

/// How many lines of `text` end in a lone "\r" (not followed by "\n") at bytes [from, to).
std::size_t loneCrsIn(std::string_view text, std::size_t from, std::size_t to) {
  std::size_t n = 0;
  to = std::min(to, text.size());
  if (from >= to) return 0;
  const std::string_view window = text.substr(0, to); // find() reads no further
  for (std::size_t i = window.find('\r', from); i != std::string_view::npos; i = window.find('\r', i + 1))
    n += i + 1 == text.size() || text[i + 1] != '\n' ? 1 : 0;
  return n;
}

/// True when `text` has a line that ends in a lone "\r".
bool hasLoneCr(std::string_view text) { return loneCrsIn(text, 0, text.size()) != 0; }

/// The bytes around an edit of bytes [start, end) whose "\r" may be lone on one side of it and
/// not on the other: from the byte before the edit (its next byte changes) through the byte
/// after it.
std::pair<std::size_t, std::size_t> loneCrWindow(std::size_t start, std::size_t end) {
  return {start > 0 ? start - 1 : 0, end + 1};
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

/// A string as a TSInput, for ts_parser_parse_with_options (which has no string variant).
class StringInput {
public:
  explicit StringInput(std::string_view text) : text_(text) {}

  TSInput input() { return TSInput{this, &StringInput::read, TSInputEncodingUTF8, nullptr}; }

private:
  static const char *read(void *payload, std::uint32_t byte, TSPoint, std::uint32_t *bytesRead) {
    const std::string_view text = static_cast<StringInput *>(payload)->text_;
    const std::size_t at = std::min<std::size_t>(byte, text.size());
    *bytesRead = static_cast<std::uint32_t>(text.size() - at);
    return text.data() + at;
  }

  std::string_view text_;
};

/// What DocumentInternals::parseUnless asks a parse in progress on this thread: stop now? And
/// whether it did.
thread_local const std::function<bool()> *tCancel = nullptr;
thread_local bool tCancelled = false;

bool parseProgress(TSParseState * /*state*/) {
  if (tCancel && (*tCancel)()) tCancelled = true;
  return tCancelled;
}

/// TSPoint of a byte offset: row and *byte* column, as tree-sitter wants.
TSPoint pointOf(const LineIndex &lines, std::size_t offset) {
  // tree-sitter, like LineIndex, does not count a leading BOM in line 0's columns.
  const Position p = lines.position(offset, PositionEncoding::Utf8);
  return {p.line, p.column};
}

} // namespace

/// The tree is made when first asked for, not when the text arrives: a text the prefilter rejects
/// is never parsed. `stale` says the text changed since `tree` was made; `tree`, when present,
/// then holds every edit already (ts_tree_edit) and is the old tree for an incremental re-parse.
///
/// Chunks. Re-parsing a large file costs time in proportion to its top-level statements even
/// when one changed (tree-sitter rebuilds the module's list of children, and an unclosed bracket
/// makes it re-read everything after it). With chunking on, the first re-parse after edits to a
/// large clean tree parses only the statements around the edits, on their own (an included
/// range): the overlay. `tree`'s nodes in the overlay's range are then outdated and never shown
/// (DocumentInternals::statements() puts the overlay's in their place); the rest of `tree` is
/// current. Edits inside the overlay re-parse the overlay alone, incrementally. An edit outside
/// it folds it back: `tree`, which has every edit applied, is re-parsed.
struct Document::Impl {
  TreePtr tree;
  bool stale = true;
  bool clean = false; ///< `tree` had no syntax error when last parsed
  TreePtr overlay;
  std::uint32_t overlayStart = 0, overlayEnd = 0;
  bool overlayStale = false;
  TSSymbol overlaySymbol = 0; ///< the overlay root's kind when last parsed
  std::size_t chunkBytes = 0; ///< texts at least this large are chunked; 0: never
  /// Since the last parse: the range of the current text the edits touched.
  std::optional<std::pair<std::uint32_t, std::uint32_t>> pending;
  /// Since DocumentInternals::takeChanges last asked: the byte ranges whose syntax changed in
  /// incremental re-parses (ts_tree_get_changed_ranges), and whether a parse started afresh.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> changed;
  bool fresh = true;
  /// DocumentInternals::statements() of the current trees, once asked for (cleared by any edit
  /// or parse: a node knows its position).
  std::vector<TSNode> statements;
  bool statementsKnown = false;
  /// DocumentInternals::statementSpans(), once asked for (cleared with `statements`), and where
  /// the overlay's statements start in it.
  std::vector<DocumentInternals::Span> spans;
  bool spansKnown = false;
  std::size_t overlayFirst = 0;
  /// The overlay's top-level nodes, once asked for (cleared with `statements`).
  std::vector<TSNode> overlayNodes;
  bool overlayNodesKnown = false;
  /// With an overlay: the spans of `tree`'s statements outside it as they were when it was made,
  /// and where it ended then. Every edit since lies inside the overlay, so those before it have
  /// not moved and those after it have moved by overlayEnd - baseEnd: no walk of `tree` needed.
  std::vector<DocumentInternals::Span> base;
  std::uint32_t baseEnd = 0;
  std::size_t lookupMisses = 0; ///< see DocumentInternals::statementLookupMisses
  /// Lines of the current text that end in a lone "\r" (kept with each edit: a parse then
  /// needs no pass over the whole text to know whether the parser must be shown them as "\n").
  std::size_t loneCrs = 0;
  /// Without an overlay, when chunking is on: `tree`'s statement spans once listed, moved with
  /// each edit since, so that the next split needs no walk. (A span an edit cuts may then differ
  /// from its node's, but the split puts every such statement in the overlay, dropping its span.)
  std::vector<DocumentInternals::Span> treeSpans;
  bool treeSpansKnown = false;

  bool current() const { return tree && !stale && (!overlay || !overlayStale); }

  /// Forgets the lists of statements: a node knows its position, which an edit or a parse moves.
  void forgetStatements() {
    statementsKnown = false;
    spansKnown = false;
    overlayNodesKnown = false;
  }

  void reset() {
    forgetStatements();
    base.clear();
    treeSpansKnown = false;
    tree.reset();
    overlay.reset();
    stale = true;
    overlayStale = false;
    pending.reset();
  }

  /// `loneCr`: whether `text` has a line that ends in a lone "\r".
  static TSTree *run(TSParser *parser, const TSTree *old, const std::string &text, bool loneCr) {
    // A parse that may be stopped (parseUnless) asks parseProgress now and then.
    const TSParseOptions options{nullptr, tCancel ? &parseProgress : nullptr};
    if (loneCr) {
      LoneCrAsNewline reader(text);
      return ts_parser_parse_with_options(parser, old, reader.input(), options);
    }
    StringInput reader(text);
    return ts_parser_parse_with_options(parser, old, reader.input(), options);
  }

  void addChanged(const TSTree *old, const TSTree *now) {
    std::uint32_t count = 0;
    TSRange *ranges = ts_tree_get_changed_ranges(old, now, &count);
    for (std::uint32_t i = 0; i < count; ++i) changed.emplace_back(ranges[i].start_byte, ranges[i].end_byte);
    std::free(ranges);
  }

  /// Whether an edit of bytes [start, end) of a text of `size` bytes is the overlay's alone: it
  /// lies inside it, and not at its end (that is the next statement's start), unless the overlay
  /// ends the text.
  bool overlayHolds(std::size_t start, std::size_t end, std::size_t size) const {
    return overlay && start >= overlayStart && (end < overlayEnd || (end == overlayEnd && end == size));
  }

  /// Whether `tree`'s top-level node starting at `start` is outdated by the overlay: it starts
  /// inside it, or at its end when it ends the text (ts_tree_edit leaves the statements a deletion
  /// to the end swallowed there, as zero-width nodes).
  bool overlayHides(std::uint32_t start, std::size_t size) const {
    return overlay && start >= overlayStart && (start < overlayEnd || overlayEnd == size);
  }

  /// Parses what is stale. With `chunks`, as the chunking allows (see above); without, the whole
  /// text as one tree (folding any overlay back).
  void parse(const std::string &text, const LineIndex &lines, bool chunks = true) {
    forgetStatements();
    TSParser *parser = threadParser();
    // tree-sitter takes a 32-bit length; larger inputs are not parsed (no tree: nothing reported).
    if (!parser || text.size() > UINT32_MAX) {
      reset();
      stale = false;
      return;
    }
    if (chunks && overlay && !stale && overlayStale && parseOverlay(parser, text, lines)) return;
    if (chunks && !overlay && tree && stale && clean && chunkBytes != 0 && text.size() >= chunkBytes && pending &&
        split(parser, text, lines))
      return;
    if (overlay) { // fold it back: `tree` has every edit
      changed.emplace_back(overlayStart, overlayEnd);
      overlay.reset();
    }
    base.clear();
    stale = false;
    pending.reset();
    treeSpansKnown = false;
    TreePtr old = std::move(tree);
    tree.reset(run(parser, old.get(), text, loneCrs != 0));
    clean = tree && !ts_node_has_error(ts_tree_root_node(tree.get()));
    // A root that turns into an ERROR node or back changes every statement's ancestors: all new.
    if (!old || !tree ||
        ts_node_symbol(ts_tree_root_node(old.get())) != ts_node_symbol(ts_tree_root_node(tree.get()))) {
      fresh = true;
      return;
    }
    addChanged(old.get(), tree.get());
  }

  /// text[start, end) parsed alone (an included range), incrementally from `old` when given;
  /// null when the range is empty or the parser gave up.
  static TSTree *runRange(TSParser *parser, const TSTree *old, const std::string &text, const LineIndex &lines,
                          std::uint32_t start, std::uint32_t end, bool loneCr) {
    const TSRange range{pointOf(lines, start), pointOf(lines, end), start, end};
    if (end <= start || !ts_parser_set_included_ranges(parser, &range, 1)) return nullptr;
    TSTree *parsed = run(parser, old, text, loneCr);
    ts_parser_set_included_ranges(parser, nullptr, 0);
    return parsed;
  }

  /// Whether text[start, end), parsed alone as `root`, is parsed as the whole text would parse
  /// it, as far as its edges go: its first statement (after comments) starts a line (an indented
  /// first line would continue the statement before it: `    x = 1` alone parses cleanly), and its last line does
  /// not continue onto the next statement with a backslash. (A statement of its own joins no
  /// other at a line start otherwise: `else:` or `except:` alone are syntax errors.)
  static bool standsAlone(TSNode root, const std::string &text, std::uint32_t end) {
    for (std::uint32_t i = 0, n = ts_node_child_count(root); i < n; ++i) {
      const TSNode child = ts_node_child(root, i);
      if (ts_node_is_extra(child)) continue; // comments, line continuations
      const std::uint32_t at = ts_node_start_byte(child);
      if (at != 0 && text[at - 1] != '\n' && text[at - 1] != '\r') return false;
      break;
    }
    if (end >= text.size()) return true; // nothing follows to continue onto
    std::size_t last = end;              // before the range's last line break
    if (last > 0 && text[last - 1] == '\n') --last;
    if (last > 0 && text[last - 1] == '\r') --last;
    return last == end || last == 0 || text[last - 1] != '\\';
  }

  /// Parses text[overlayStart, overlayEnd) alone, incrementally from the overlay held. False
  /// when the parser gave up there, or when the overlay does not stand alone (standsAlone):
  /// then the caller parses the whole text.
  bool parseOverlay(TSParser *parser, const std::string &text, const LineIndex &lines) {
    TreePtr old = std::move(overlay);
    overlay.reset(runRange(parser, old.get(), text, lines, overlayStart, overlayEnd, loneCrs != 0));
    if (!overlay || !standsAlone(ts_tree_root_node(overlay.get()), text, overlayEnd)) {
      overlay.reset(); // the whole text is parsed instead
      changed.emplace_back(overlayStart, overlayEnd);
      return false;
    }
    overlayStale = false;
    pending.reset();
    const TSSymbol symbol = ts_node_symbol(ts_tree_root_node(overlay.get()));
    if (!old || symbol != overlaySymbol) changed.emplace_back(overlayStart, overlayEnd); // all of it
    else addChanged(old.get(), overlay.get());
    overlaySymbol = symbol;
    return true;
  }

  /// Starts an overlay over the top-level statements the pending edits touched, when they are
  /// few, start and end at line starts, and `tree` (current elsewhere) was clean.
  bool split(TSParser *parser, const std::string &text, const LineIndex &lines) {
    const std::uint32_t p0 = pending->first, p1 = pending->second;
    std::uint32_t a = 0, b = static_cast<std::uint32_t>(text.size());
    std::vector<DocumentInternals::Span> all; // every statement's span, for `base`
    if (treeSpansKnown) {                     // as the walk below would find them, without the walk
      all = std::move(treeSpans);
      treeSpansKnown = false;
      const auto before = std::partition_point(all.begin(), all.end(),
                                               [&](const DocumentInternals::Span &span) { return span.start < p0; });
      if (before != all.begin()) a = std::prev(before)->start;
      const auto after = std::partition_point(before, all.end(),
                                              [&](const DocumentInternals::Span &span) { return span.start <= p1; });
      if (after != all.end()) b = after->start;
    } else {
      // a: the start of the last statement that starts before the edits (a statement whose end
      // they cut starts before them); b: the first statement start after them.
      Cursor cursor(ts_tree_root_node(tree.get()));
      TSTreeCursor *c = cursor.get();
      bool after = false;
      if (ts_tree_cursor_goto_first_child(c)) do {
          const TSNode node = ts_tree_cursor_current_node(c);
          const std::uint32_t s = ts_node_start_byte(node);
          all.push_back({s, ts_node_end_byte(node)});
          if (after) continue;
          if (s < p0) a = s;
          if (s > p1) {
            b = s;
            after = true;
          }
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    const auto lineStart = [&](std::uint32_t at) { return at == 0 || text[at - 1] == '\n' || text[at - 1] == '\r'; };
    if (a >= b || !lineStart(a) || (b < text.size() && !lineStart(b)) || b - a > text.size() / 4) return false;
    overlayStart = a;
    overlayEnd = b;
    overlay.reset();
    if (!parseOverlay(parser, text, lines)) return false;
    stale = false; // `tree` is current outside the overlay: every edit lies inside it
    std::erase_if(all, [&](const DocumentInternals::Span &span) { return overlayHides(span.start, text.size()); });
    base = std::move(all);
    baseEnd = b;
    return true;
  }

  /// The overlay's top-level nodes.
  const std::vector<TSNode> &overlayChildren() {
    if (overlayNodesKnown) return overlayNodes;
    overlayNodes.clear();
    overlayNodesKnown = true;
    Cursor cursor(ts_tree_root_node(overlay.get()));
    TSTreeCursor *c = cursor.get();
    if (ts_tree_cursor_goto_first_child(c)) do
        overlayNodes.push_back(ts_tree_cursor_current_node(c));
      while (ts_tree_cursor_goto_next_sibling(c));
    return overlayNodes;
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

} // namespace

Document::Document(std::string text) : text_(std::move(text)), impl_(std::make_unique<Impl>()) {
  lines_ = LineIndex(text_);
  impl_->loneCrs = loneCrsIn(text_, 0, text_.size());
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

bool Document::parsed() const {
  DocumentInternals::parse(*this);
  return impl_ && impl_->tree;
}

void Document::releaseTree() {
  if (impl_) impl_->reset();
}

void Document::edit(std::size_t start, std::size_t end, std::string_view replacement) {
  start = snap(text_, start);
  end = snap(text_, std::max(start, end));
  const TSPoint startPoint = pointOf(lines_, start), oldEndPoint = pointOf(lines_, end);
  Impl &m = *impl_;
  m.forgetStatements();
  // An edit inside the overlay (not at its end: that is the next statement's start, unless the
  // overlay ends the text) is the overlay's alone.
  const bool inOverlay = m.overlayHolds(start, end, text_.size());
  // Typing inside a name is most keystrokes: when the tree is current and the edit only respells
  // an identifier, the edited tree is the new text's tree and no re-parse is needed.
  const TSTree *holder = inOverlay ? m.overlay.get() : m.overlay ? nullptr : m.tree.get();
  const bool holderCurrent = inOverlay ? !m.overlayStale : !m.stale;
  const auto respelled =
      holderCurrent && holder ? respelledIdentifier(holder, text_, start, end, replacement) : std::nullopt;
  const auto [crFrom, crTo] = loneCrWindow(start, end);
  m.loneCrs -= loneCrsIn(text_, crFrom, crTo);
  text_.replace(start, end - start, replacement);
  const std::size_t newEnd = start + replacement.size();
  m.loneCrs += loneCrsIn(text_, crFrom, loneCrWindow(start, newEnd).second);
  lines_.update(text_, start, end, newEnd);
  const auto move = [&](std::uint32_t at) {
    return at >= end ? static_cast<std::uint32_t>(at - end + newEnd)
                     : std::min<std::uint32_t>(at, static_cast<std::uint32_t>(start));
  };
  const auto moveRange = [&](std::pair<std::uint32_t, std::uint32_t> &r) { // keeps covering the edit
    const bool overlaps = r.first <= end && r.second >= start;
    r.first = move(r.first);
    r.second = overlaps ? std::max(move(r.second), static_cast<std::uint32_t>(newEnd)) : move(r.second);
  };
  for (auto &range : m.changed) moveRange(range); // ranges not yet taken follow the text
  if (m.overlay) m.treeSpansKnown = false;        // the overlay's `base` stands for them
  if (m.treeSpansKnown)
    for (DocumentInternals::Span &span : m.treeSpans) {
      span.start = move(span.start);
      span.end = move(span.end);
    }
  if (m.pending) moveRange(*m.pending);
  if (!respelled) { // what the next parse must look at
    if (!m.pending) m.pending.emplace(static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(newEnd));
    m.pending->first = std::min(m.pending->first, static_cast<std::uint32_t>(start));
    m.pending->second = std::max(m.pending->second, static_cast<std::uint32_t>(newEnd));
  }
  if (!m.tree || text_.size() > UINT32_MAX) {
    m.reset();
    return;
  }
  // The re-parse happens when the tree is next asked for: edits in between are merged.
  const TSInputEdit edit{static_cast<std::uint32_t>(start),
                         static_cast<std::uint32_t>(end),
                         static_cast<std::uint32_t>(newEnd),
                         startPoint,
                         oldEndPoint,
                         pointOf(lines_, newEnd)};
  ts_tree_edit(m.tree.get(), &edit);
  if (m.overlay) {
    std::pair<std::uint32_t, std::uint32_t> range{m.overlayStart, m.overlayEnd};
    moveRange(range);
    if (inOverlay) {
      ts_tree_edit(m.overlay.get(), &edit);
      m.overlayEnd = range.second;
      m.overlayStale = !respelled;
    } else { // the next parse folds the overlay back into `tree`
      m.overlayStart = range.first;
      m.overlayEnd = range.second;
      m.overlayStale = true;
      m.stale = true;
      if (!m.pending) m.pending = range;
      m.pending->first = std::min(m.pending->first, range.first);
      m.pending->second = std::max(m.pending->second, range.second);
    }
  } else {
    m.stale = !respelled;
  }
  if (respelled) {
    const std::size_t wordEnd = respelled->second - (end - start) + replacement.size();
    m.changed.emplace_back(static_cast<std::uint32_t>(respelled->first), static_cast<std::uint32_t>(wordEnd));
  }
}

void Document::reset(std::string text) {
  text_ = std::move(text);
  lines_ = LineIndex(text_);
  releaseTree();
  if (impl_) impl_->loneCrs = loneCrsIn(text_, 0, text_.size());
}

std::size_t Document::syntaxErrorCount() const {
  if (!DocumentInternals::parse(*this)) return 0;
  // With an overlay, `tree` was clean when it was made (and only the overlay changed since).
  const std::size_t outside = impl_->overlay ? 0 : countSyntaxErrors(ts_tree_root_node(impl_->tree.get()));
  return outside + (impl_->overlay ? countSyntaxErrors(ts_tree_root_node(impl_->overlay.get())) : 0);
}

} // namespace asyncfix

namespace asyncfix {

bool DocumentInternals::parse(const Document &doc) {
  if (!doc.impl_) return false;
  if (!doc.impl_->current()) doc.impl_->parse(doc.text_, doc.lines_);
  return doc.impl_->tree != nullptr;
}

bool DocumentInternals::parseUnless(const Document &doc, const std::function<bool()> &stop) {
  if (!doc.impl_) return false;
  Document::Impl &m = *doc.impl_;
  if (m.current()) return m.tree != nullptr;
  struct Asking { // also when the parse throws (no memory): `stop` is gone after this call
    explicit Asking(const std::function<bool()> &stop) {
      tCancel = &stop;
      tCancelled = false;
    }
    ~Asking() { tCancel = nullptr; }
    Asking(const Asking &) = delete;
    Asking &operator=(const Asking &) = delete;
  };
  {
    const Asking asking(stop);
    m.parse(doc.text_, doc.lines_);
  }
  if (!tCancelled) return m.tree != nullptr;
  tCancelled = false;
  m.reset();                                                      // unparsed, as before
  if (TSParser *parser = threadParser()) ts_parser_reset(parser); // it kept the stopped parse to resume
  return false;
}

const TSTree *DocumentInternals::tree(const Document &doc) {
  if (!doc.impl_) return nullptr;
  Document::Impl &m = *doc.impl_;
  if (!m.current() || m.overlay) m.parse(doc.text_, doc.lines_, /*chunks=*/false);
  return m.tree.get();
}

const TSTree *DocumentInternals::heldTree(const Document &doc) { return doc.impl_ ? doc.impl_->tree.get() : nullptr; }

bool DocumentInternals::treeIsCurrent(const Document &doc) { return doc.impl_ && doc.impl_->current(); }

void DocumentInternals::setChunking(const Document &doc, std::size_t minBytes) {
  if (doc.impl_) doc.impl_->chunkBytes = minBytes;
}

bool DocumentInternals::chunked(const Document &doc) { return parse(doc) && doc.impl_->overlay; }

DocumentInternals::Overlay DocumentInternals::overlay(const Document &doc) {
  if (!parse(doc) || !doc.impl_->overlay) return {};
  return {doc.impl_->overlay.get(), doc.impl_->overlayStart, doc.impl_->overlayEnd};
}

std::optional<std::size_t> DocumentInternals::overlayErrorsAfter(const Document &doc,
                                                                 const std::vector<TextEdit> &edits,
                                                                 const std::string &fixed) {
  if (!parse(doc) || !doc.impl_->overlay || edits.empty() || fixed.size() > UINT32_MAX) return std::nullopt;
  const Document::Impl &m = *doc.impl_;
  std::int64_t growth = 0;
  for (const TextEdit &e : edits) {
    if (!m.overlayHolds(e.start, e.end, doc.text_.size())) return std::nullopt;
    growth += static_cast<std::int64_t>(e.content.size()) - static_cast<std::int64_t>(e.end - e.start);
  }
  TSParser *parser = threadParser();
  if (!parser) return std::nullopt;
  const auto end = static_cast<std::uint32_t>(static_cast<std::int64_t>(m.overlayEnd) + growth);
  const TreePtr parsed(
      Document::Impl::runRange(parser, nullptr, fixed, LineIndex(fixed), m.overlayStart, end, hasLoneCr(fixed)));
  if (!parsed || !Document::Impl::standsAlone(ts_tree_root_node(parsed.get()), fixed, end)) return std::nullopt;
  return countSyntaxErrors(ts_tree_root_node(parsed.get()));
}

const std::vector<TSNode> &DocumentInternals::statements(const Document &doc) {
  static const std::vector<TSNode> none;
  if (!parse(doc)) return none;
  Document::Impl &m = *doc.impl_;
  if (m.statementsKnown) return m.statements;
  std::vector<TSNode> &out = m.statements;
  out.clear();
  m.statementsKnown = true;
  bool overlaid = !m.overlay;
  const auto addOverlay = [&] {
    overlaid = true;
    const std::vector<TSNode> &nodes = m.overlayChildren();
    out.insert(out.end(), nodes.begin(), nodes.end());
  };
  Cursor cursor(ts_tree_root_node(m.tree.get()));
  TSTreeCursor *c = cursor.get();
  if (ts_tree_cursor_goto_first_child(c)) do {
      const TSNode node = ts_tree_cursor_current_node(c);
      const std::uint32_t start = ts_node_start_byte(node);
      if (!overlaid && start >= m.overlayStart) addOverlay();
      if (m.overlayHides(start, doc.text().size())) continue;
      out.push_back(node);
    } while (ts_tree_cursor_goto_next_sibling(c));
  if (!overlaid) addOverlay();
  return out;
}

const std::vector<DocumentInternals::Span> &DocumentInternals::statementSpans(const Document &doc) {
  static const std::vector<Span> none;
  if (!parse(doc)) return none;
  Document::Impl &m = *doc.impl_;
  if (m.spansKnown) return m.spans;
  std::vector<Span> &out = m.spans;
  out.clear();
  if (!m.overlay || m.base.empty()) { // (an overlay over the whole text leaves no base either)
    for (const TSNode node : statements(doc)) out.push_back({ts_node_start_byte(node), ts_node_end_byte(node)});
    m.overlayFirst = m.overlay ? 0 : out.size();
    if (!m.overlay && !m.treeSpansKnown && m.chunkBytes != 0) {
      m.treeSpans = out;
      m.treeSpansKnown = true;
    }
  } else {
    const auto after = std::partition_point(m.base.begin(), m.base.end(),
                                            [&](const Span &span) { return span.start < m.overlayStart; });
    out.insert(out.end(), m.base.begin(), after);
    m.overlayFirst = out.size();
    for (const TSNode node : m.overlayChildren()) out.push_back({ts_node_start_byte(node), ts_node_end_byte(node)});
    const std::uint32_t shift = m.overlayEnd - m.baseEnd; // modular: the overlay may have shrunk
    // (Every keystroke in an editor: sized once, then a loop the compiler can vectorise.)
    const std::size_t first = out.size(), count = static_cast<std::size_t>(m.base.end() - after);
    out.resize(first + count);
    Span *to = out.data() + first;
    const Span *from = m.base.data() + (after - m.base.begin());
    for (std::size_t i = 0; i < count; ++i) to[i] = {from[i].start + shift, from[i].end + shift};
  }
  m.spansKnown = true;
  return out;
}

TSNode DocumentInternals::statement(const Document &doc, std::size_t i) {
  const std::vector<Span> &spans = statementSpans(doc);
  Document::Impl &m = *doc.impl_;
  if (m.statementsKnown) return m.statements[i];
  const Span span = spans[i];
  if (m.overlay && span.start >= m.overlayStart && span.start < m.overlayEnd)
    return m.overlayChildren()[i - m.overlayFirst];
  // The root's children are a balanced tree of hidden nodes: a descent by position, not a walk.
  const TSNode found = ts_node_first_child_for_byte(ts_tree_root_node(m.tree.get()), span.start);
  if (!ts_node_is_null(found) && ts_node_start_byte(found) == span.start && ts_node_end_byte(found) == span.end)
    return found;
  ++m.lookupMisses;
  return statements(doc)[i]; // not expected: the walk decides
}

std::size_t DocumentInternals::statementLookupMisses(const Document &doc) {
  return doc.impl_ ? doc.impl_->lookupMisses : 0;
}

bool DocumentInternals::hasError(const Document &doc) {
  if (!parse(doc)) return false;
  const Document::Impl &m = *doc.impl_;
  return ts_node_has_error(ts_tree_root_node(m.tree.get())) ||
         (m.overlay && ts_node_has_error(ts_tree_root_node(m.overlay.get())));
}

TSNode DocumentInternals::nodeAt(const Document &doc, std::uint32_t start, std::uint32_t end) {
  if (!parse(doc)) return TSNode{};
  const Document::Impl &m = *doc.impl_;
  const bool inOverlay = m.overlay && start >= m.overlayStart && start < m.overlayEnd;
  return ts_node_descendant_for_byte_range(ts_tree_root_node(inOverlay ? m.overlay.get() : m.tree.get()), start, end);
}

bool DocumentInternals::takeChanges(const Document &doc,
                                    std::vector<std::pair<std::uint32_t, std::uint32_t>> &changed) {
  parse(doc); // now, if needed
  if (!doc.impl_) return true;
  const bool fresh = doc.impl_->fresh;
  changed = std::move(doc.impl_->changed);
  doc.impl_->changed.clear();
  doc.impl_->fresh = false;
  return fresh;
}

} // namespace asyncfix
