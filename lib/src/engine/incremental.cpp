#include "asyncfix/incremental.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <type_traits>

#include "analysis/semantic.h"
#include "asyncfix/document_internals.h"
#include "asyncfix/linter_internals.h"
#include "engine/linter_impl.h"
#include "engine/still_rejected.h"
#include "text/syntax.h"

namespace asyncfix {
namespace {

bool isWordByte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '_' || u >= 0x80;
}

/// The identifier-like words of `text` (keywords too), appended to `out`.
void wordsOf(std::string_view text, std::vector<std::string> &out) {
  for (std::size_t i = text.starts_with("\xEF\xBB\xBF") ? 3 : 0; i < text.size();) { // a BOM is no part of a word
    if (!isWordByte(text[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && isWordByte(text[j])) ++j;
    if (text[i] < '0' || text[i] > '9') out.emplace_back(text.substr(i, j - i));
    i = j;
  }
}

/// What a statement of text `text` may show the others, when its facts are not known: every
/// word, also as a binding.
void factsOfText(std::string_view text, std::vector<std::string> &out) {
  std::vector<std::string> words;
  wordsOf(text, words);
  for (const std::string &word : words) StatementFacts::allAbout(word, out);
}

/// Document::edit's clamping: offsets within the text, off UTF-8 continuation bytes.
std::size_t snap(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  while (offset > 0 && offset < text.size() && (static_cast<unsigned char>(text[offset]) & 0xC0) == 0x80) --offset;
  return offset;
}

bool overlaps(std::uint32_t a0, std::uint32_t a1, std::uint32_t b0, std::uint32_t b1) { return a0 <= b1 && b0 <= a1; }

/// Whether replacing text[start, end) with `replacement` adds or removes a line break: one
/// removed or inserted, or a "\r" and a "\n" around the edit split or joined. Else every kept
/// finding's line numbers stay as they are.
bool movesLineBreak(std::string_view text, std::size_t start, std::size_t end, std::string_view replacement) {
  const bool crlfAround = start > 0 && text[start - 1] == '\r' && end < text.size() && text[end] == '\n';
  return crlfAround || text.substr(start, end - start).find_first_of("\r\n") != std::string_view::npos ||
         replacement.find_first_of("\r\n") != std::string_view::npos;
}

/// The words an edit of text[start, end) by `replacement` removes, splits or inserts, appended
/// to `out`: from the start of the word at `start` to the end of the word at `end` (a character
/// typed after `foo` turns the word `foo` into another), and those of the replacement.
void wordsEdited(std::string_view text, std::size_t start, std::size_t end, std::string_view replacement,
                 std::vector<std::string> &out) {
  std::size_t ws = start, we = end;
  while (ws > 0 && isWordByte(text[ws - 1])) --ws;
  while (we < text.size() && isWordByte(text[we])) ++we;
  wordsOf(text.substr(ws, we - ws), out);
  wordsOf(replacement, out);
}

/// One of 64 bits for `word`: units whose words share no bit with an edit's are not compared
/// word by word.
std::uint64_t wordBit(std::string_view word) { return StatementFacts::wordBit(word); }

/// Sorts `words` and drops repeats; returns their wordBit()s.
std::uint64_t normalize(std::vector<std::string> &words) {
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  std::uint64_t bits = 0;
  for (const std::string &word : words) bits |= wordBit(word);
  return bits;
}

/// The words an edit changed (sorted, unique), each with its wordBit(): compared with every
/// kept statement's words, so a statement is compared only on the words whose bits it has.
struct Changed {
  const std::vector<std::string> &words;
  std::uint64_t bits = 0;
  std::vector<std::uint64_t> bitOf; ///< wordBit(words[i])
  explicit Changed(const std::vector<std::string> &w) : words(w) {
    bitOf.reserve(w.size());
    for (const std::string &word : w) bits |= bitOf.emplace_back(wordBit(word));
  }
};

/// Whether the sorted `a` (`abits`: its wordBit()s) and `b` share a word: each word of the
/// smaller list that may be in the other is looked up there (a keystroke changes few words; a
/// statement's list may be long, and so may a paste's).
bool intersect(const std::vector<std::string> &a, std::uint64_t abits, const Changed &b) {
  if ((abits & b.bits) == 0) return false;
  if (b.words.size() <= a.size()) {
    for (std::size_t j = 0; j < b.words.size(); ++j)
      if ((abits & b.bitOf[j]) != 0 && std::binary_search(a.begin(), a.end(), b.words[j])) return true;
    return false;
  }
  return std::any_of(a.begin(), a.end(),
                     [&](const std::string &w) { return std::binary_search(b.words.begin(), b.words.end(), w); });
}

/// A forward iterator over shared pointers that reads the pointers they hold: a vector of those
/// is made from a range of these in one allocation and one loop.
template <class Shared> class Pointers {
public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = typename Shared::element_type *;
  using difference_type = std::ptrdiff_t;
  using pointer = const value_type *;
  using reference = value_type;
  Pointers() = default;
  explicit Pointers(const Shared *at) : at_(at) {}
  value_type operator*() const { return at_->get(); }
  Pointers &operator++() {
    ++at_;
    return *this;
  }
  Pointers operator++(int) {
    Pointers before = *this;
    ++at_;
    return before;
  }
  friend bool operator==(const Pointers &a, const Pointers &b) { return a.at_ == b.at_; }
  friend bool operator!=(const Pointers &a, const Pointers &b) { return a.at_ != b.at_; }

private:
  const Shared *at_ = nullptr;
};

} // namespace

void IncrementalLint::reset() {
  units_.clear();
  unitFacts_.clear();
  unitSketches_.clear();
  dirtyFirst_ = SIZE_MAX;
  dirtyLast_ = 0;
  valid_ = false;
  rejectable_ = false;
  mayHoldUnlinted_ = false;
  words_.clear();
  facts_.clear();
  edited_.clear();
  diagnostics_.clear();
  gathered_.clear();
  linesMoved_ = false;
}

void IncrementalLint::adoptRejected(const Linter &linter, const Document &doc) {
  reset();
  std::vector<std::pair<std::uint32_t, std::uint32_t>> changed;
  (void)DocumentInternals::takeChanges(doc, changed); // the next update() sees the edits after this
  if (!DocumentInternals::parse(doc) || LinterInternals::impl(linter).rules.empty()) return;
  const std::vector<DocumentInternals::Span> &spans = DocumentInternals::statementSpans(doc);
  units_.resize(spans.size());
  unitFacts_.resize(spans.size());
  unitSketches_.resize(spans.size());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    units_[i].start = spans[i].start;
    units_[i].end = spans[i].end;
    units_[i].unlinted = true;
  }
  mayHoldUnlinted_ = true;
  sketch(doc.text(), nullptr);
  valid_ = true;
  rejectable_ = locallyRejectable(linter, doc);
  stats_ = {units_.size(), 0, false};
}

bool IncrementalLint::locallyRejectable(const Linter &linter, const Document &doc) {
  // Also: the whole text is judged as its statements alone are (no blank of another character,
  // the lexer never lost), so no word of an edited statement counts only as part of the whole.
  const auto &impl = LinterInternals::impl(linter);
  return !DocumentInternals::hasError(doc) && !holdsCrossStatementWord(doc.text(), impl.apiWords) &&
         statementsStayRejected(doc.text(), impl.triggers);
}

bool IncrementalLint::stillRejected(const Linter &linter, const Document &doc,
                                    const std::vector<std::size_t> &unmatched) const {
  if (!rejectable_ || edited_.empty() || units_.empty() || DocumentInternals::hasError(doc)) return false;
  const auto &impl = LinterInternals::impl(linter);
  const std::string_view text = doc.text();
  // No word whose judgement reads the whole file came in (the text held none before).
  const std::size_t reach = crossStatementWordReach(impl.apiWords);
  std::size_t from = text.size(), to = 0;
  for (const auto &[r0, r1] : edited_) {
    const std::size_t w0 = r0 > reach ? r0 - reach : 0, w1 = std::min(text.size(), std::size_t{r1} + reach);
    if (w0 < w1 && holdsCrossStatementWord(text.substr(w0, w1 - w0), impl.apiWords)) return false;
    from = std::min<std::size_t>(from, r0);
    to = std::max<std::size_t>(to, r1);
  }
  for (const std::size_t i : unmatched) {
    from = std::min<std::size_t>(from, units_[i].start);
    to = std::max<std::size_t>(to, units_[i].end);
  }
  // What changed, and a statement on each side that no edit touched, past the comments between
  // (a `.to(` after the edits reads back over them to its `.`; one before, forward to its `)`,
  // which in a tree without errors closes in its own statement). The units after `to` are the old
  // tree's statements too (match() kept them): the lexer reads code at their start in both texts.
  const auto code = [&](const Unit &unit) { return unit.start < text.size() && text[unit.start] != '#'; };
  std::size_t scanStart = 0, scanEnd = text.size();
  const auto first = std::lower_bound(units_.begin(), units_.end(), from,
                                      [](const Unit &unit, std::size_t at) { return unit.end < at; });
  for (auto it = first; it != units_.begin();)
    if (code(*--it)) {
      scanStart = it->start;
      break;
    }
  const auto after = std::upper_bound(units_.begin(), units_.end(), to,
                                      [](std::size_t at, const Unit &unit) { return at < unit.start; });
  for (auto it = after; it != units_.end(); ++it)
    if (code(*it)) {
      scanEnd = it->end;
      break;
    }
  return scanStart < scanEnd && statementsStayRejected(text.substr(scanStart, scanEnd - scanStart), impl.triggers);
}

bool IncrementalLint::anyUnlinted() const {
  return mayHoldUnlinted_ && std::any_of(units_.begin(), units_.end(), [](const Unit &unit) { return unit.unlinted; });
}

void IncrementalLint::learnAround(const Document &doc, std::uint32_t s, std::uint32_t e) {
  // The first edit since the last update sees the tree that update linted: the facts of the
  // statements it hits that no model walked yet are learnt from it now (a function typed into
  // for the first time would otherwise count as showing every word of its text), and those of
  // their neighbours, which tree-sitter often re-parses with them (a line typed between two
  // functions: each would count as showing every word of its text, and every statement that
  // asked the facts about one of them would be linted again).
  const bool current = edited_.empty() && DocumentInternals::treeIsCurrent(doc) &&
                       DocumentInternals::statementSpans(doc).size() == units_.size();
  if (!current || units_.empty()) return;
  // The statements the edit hits, and the one before and the one after it (also when it hits
  // none: a line typed between two statements).
  const auto after = std::lower_bound(units_.begin(), units_.end(), s,
                                      [](const Unit &unit, std::uint32_t at) { return unit.end < at; });
  std::size_t from = static_cast<std::size_t>(after - units_.begin()), to = from;
  while (to < units_.size() && units_[to].start <= e) ++to;
  from = from > 0 ? from - 1 : 0;
  to = std::min(to, units_.size() - 1);
  std::optional<SemanticModel> model;
  for (std::size_t i = from; i <= to; ++i)
    if (!unitFacts_[i]) {
      if (!model) model.emplace(doc);
      unitFacts_[i] = std::make_shared<const StatementFacts>(model->factsOf(i));
    }
}

void IncrementalLint::willEdit(const Document &doc, std::size_t start, std::size_t end, std::string_view replacement) {
  if (!valid_) return; // the next update() lints everything anyway
  const std::string_view text = doc.text();
  start = snap(text, start);
  end = snap(text, std::max(start, end));
  if (text.size() - (end - start) + replacement.size() > UINT32_MAX) {
    reset();
    return;
  }
  const auto s = static_cast<std::uint32_t>(start), e = static_cast<std::uint32_t>(end);
  const auto newEnd = static_cast<std::uint32_t>(start + replacement.size());
  linesMoved_ = linesMoved_ || movesLineBreak(text, start, end, replacement);
  wordsEdited(text, start, end, replacement, words_);
  const auto move = [&](auto &at) { // an offset of the old text, to the new text's
    using T = std::remove_reference_t<decltype(at)>;
    if (at >= e) at = static_cast<T>(at - e + newEnd);
    else if (at > s) at = static_cast<T>(s);
  };
  const auto movedFix = [&](const Fix &fix) {
    Fix f = fix;
    for (TextEdit &x : f.edits) {
      move(x.start);
      move(x.end);
    }
    return SharedFix(std::move(f));
  };
  learnAround(doc, s, e);
  // Each fix moved once, whoever holds it: the units' findings and the results shown share them
  // (a rename's fix is shared by its diagnostics too). Few: a vector, not a map; it holds the
  // fixes it moved, so that no other fix is made at the address of one it looks up.
  std::vector<std::pair<SharedFix, SharedFix>> moved;
  const auto movedOnce = [&](const SharedFix &fix) {
    for (const auto &[from, to] : moved)
      if (&*from == &*fix) return to;
    return moved.emplace_back(fix, movedFix(*fix)).second;
  };
  const auto reached = std::lower_bound(units_.begin(), units_.end(), s,
                                        [](const Unit &unit, std::uint32_t at) { return unit.end < at; });
  const auto moveUnit = [&](Unit &unit, bool before) {
    const bool hit = !before && overlaps(unit.start, unit.end, s, e);
    if (hit) wordsOf(text.substr(unit.start, unit.end - unit.start), words_); // its old words
    if (hit && !unit.hit) { // what it showed the others before the edits
      const StatementFacts *facts = unitFacts_[static_cast<std::size_t>(&unit - units_.data())].get();
      if (facts) facts_.insert(facts_.end(), facts->words.begin(), facts->words.end());
      else factsOfText(text.substr(unit.start, unit.end - unit.start), facts_);
      unit.hit = true;
    }
    Results *r = unit.results.get();
    if (!unit.dirty) {
      bool touched = hit;
      if (r) {
        for (const auto &[r0, r1] : r->ranges) touched = touched || overlaps(r0, r1, s, e);
        for (const Diagnostic &d : r->raw)
          if (d.fix)
            for (const TextEdit &edit : d.fix->edits)
              touched = touched ||
                        overlaps(static_cast<std::uint32_t>(edit.start), static_cast<std::uint32_t>(edit.end), s, e);
      }
      unit.dirty = touched;
      if (touched) { // match() compares the units from the first dirty one to the last
        const auto index = static_cast<std::size_t>(&unit - units_.data());
        dirtyFirst_ = std::min(dirtyFirst_, index);
        dirtyLast_ = std::max(dirtyLast_, index);
      }
    }
    move(unit.start);
    move(unit.end);
    if (unit.dirty || !r) return;
    // Untouched: it lies wholly before or after the edit, and so does everything it holds.
    for (auto &[r0, r1] : r->ranges) {
      move(r0);
      move(r1);
    }
    for (std::uint32_t &c : r->comments) move(c);
    // The lines their messages name move too: update() numbers them again (renderLineNumbers).
    for (Diagnostic &d : r->raw) {
      move(d.start);
      move(d.end);
      for (LineReference &ref : d.lineReferences) move(ref.offset);
      if (d.fix && std::any_of(d.fix->edits.begin(), d.fix->edits.end(), [&](const TextEdit &x) { return x.end >= s; }))
        d.fix = movedOnce(d.fix);
    }
  };
  // The units before the one the edit reaches (units end in order) neither move nor are hit: only
  // those holding results are looked at (their ranges and fixes may reach past the edit).
  for (auto it = units_.begin(); it != reached; ++it)
    if (it->results) moveUnit(*it, true);
  // Those that start within the edit may be hit; the ones after start past it: those holding
  // nothing but their offsets (most) just move by the edit's length.
  auto it = reached;
  for (; it != units_.end() && it->start <= e; ++it) moveUnit(*it, false);
  const std::uint32_t delta = newEnd - e; // modular: a deletion moves them back
  for (; it != units_.end(); ++it) {
    if (it->results) {
      moveUnit(*it, false);
      continue;
    }
    it->start += delta;
    it->end += delta;
  }
  // The results shown move with the text too (a contained update starts from them).
  for (Diagnostic &d : diagnostics_) {
    move(d.start);
    move(d.end);
    for (LineReference &ref : d.lineReferences) move(ref.offset);
    if (!d.fix || std::none_of(d.fix->edits.begin(), d.fix->edits.end(), [&](const TextEdit &x) { return x.end >= s; }))
      continue;
    const bool stale = std::any_of(d.fix->edits.begin(), d.fix->edits.end(), [&](const TextEdit &x) {
      return overlaps(static_cast<std::uint32_t>(x.start), static_cast<std::uint32_t>(x.end), s, e);
    });
    d.fix = stale ? SharedFix() : movedOnce(d.fix); // a stale fix: the next update recomputes it
  }
  for (auto &[r0, r1] : edited_) {
    const bool hit = overlaps(r0, r1, s, e);
    move(r0);
    move(r1);
    if (hit) r1 = std::max(r1, newEnd);
  }
  edited_.emplace_back(s, newEnd);
}

namespace {

/// True when `text` (Python source from the start of a line) leaves a bracket or a string open.
bool leavesOpen(std::string_view text) {
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '#') {
      while (i < text.size() && text[i] != '\n' && text[i] != '\r') ++i;
    } else if (c == '"' || c == '\'') {
      const bool triple = i + 2 < text.size() && text[i + 1] == c && text[i + 2] == c;
      std::size_t k = i + (triple ? 3 : 1);
      for (;; ++k) {
        if (k >= text.size()) return true;
        if (text[k] == '\\') {
          ++k;
          continue;
        }
        if (!triple && (text[k] == '\n' || text[k] == '\r')) return true;
        if (text[k] == c && (!triple || (k + 2 < text.size() && text[k + 1] == c && text[k + 2] == c))) break;
      }
      i = k + (triple ? 2 : 0);
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    }
  }
  return depth != 0;
}

} // namespace

bool IncrementalLint::updateContained(const Linter &linter, const Document &doc) {
  const std::string_view text = doc.text();
  if (!valid_ || edited_.empty() || text.size() < containBytes) return false;
  // The text the edits since the last exact update touched, widened to the statements holding
  // it and to whole lines.
  std::uint32_t from = edited_.front().first, to = edited_.front().second;
  for (const auto &[r0, r1] : edited_) {
    from = std::min(from, r0);
    to = std::max(to, r1);
  }
  // (Units end in order: those before the first that reaches `from` lie wholly before it.)
  const auto first = std::lower_bound(units_.begin(), units_.end(), from,
                                      [](const Unit &unit, std::uint32_t at) { return unit.end < at; });
  for (auto it = first; it != units_.end() && it->start <= to; ++it) {
    from = std::min(from, it->start);
    to = std::max(to, it->end);
  }
  while (from > 0 && text[from - 1] != '\n' && text[from - 1] != '\r') --from;
  while (to < text.size() && text[to] != '\n' && text[to] != '\r') ++to;
  if (to - from > text.size() / 4) return false; // not worth it: lint it all
  const std::string_view span = text.substr(from, to - from);
  if (!leavesOpen(span)) return false;
  // The results shown outside the span stay (moved: diagnostics_ is replaced below).
  std::vector<Diagnostic> out;
  out.reserve(diagnostics_.size());
  for (Diagnostic &d : diagnostics_) {
    if (d.end >= from && d.start <= to) continue;
    if (d.fix && std::any_of(d.fix->edits.begin(), d.fix->edits.end(), [&](const TextEdit &x) {
          return overlaps(static_cast<std::uint32_t>(x.start), static_cast<std::uint32_t>(x.end), from, to);
        }))
      d.fix = SharedFix();
    out.push_back(std::move(d));
  }
  const auto kept = static_cast<std::ptrdiff_t>(out.size());
  for (Diagnostic d : linter.lint(Document(std::string(span)))) {
    d.start += from;
    d.end += from;
    d.fix = std::nullopt;
    for (LineReference &ref : d.lineReferences) ref.offset += from;
    out.push_back(std::move(d));
  }
  // Both parts are in order (the results shown, moved by the edits, and the span's lint):
  // merged, as a stable sort of the two would order them.
  const auto before = [](const Diagnostic &a, const Diagnostic &b) {
    return a.start != b.start ? a.start < b.start : a.code < b.code;
  };
  if (std::is_sorted(out.begin(), out.begin() + kept, before))
    std::inplace_merge(out.begin(), out.begin() + kept, out.end(), before);
  else std::stable_sort(out.begin(), out.end(), before);
  for (Diagnostic &d : out) renderLineNumbers(d, doc.lines());
  diagnostics_ = std::move(out);
  stats_ = {units_.size(), 0, false, true};
  return true;
}

const std::vector<Diagnostic> &IncrementalLint::update(const Linter &linter, const Document &doc, bool contain) {
  if (contain && updateContained(linter, doc)) return diagnostics_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> changed;
  const bool fresh = DocumentInternals::takeChanges(doc, changed);
  const bool parsed = DocumentInternals::parse(doc);
  const auto &impl = LinterInternals::impl(linter);
  stats_ = {};
  if (!parsed || impl.rules.empty()) {
    reset();
    valid_ = !impl.rules.empty() && parsed; // no rules: nothing to keep, ever
    return diagnostics_;
  }
  const std::string_view text = doc.text();
  // (When a root turns into an ERROR node or back, every statement under it changes whether it
  // lies inside an error: the Document reports that as a change of them all.)

  // The statements of the new tree, matched with the kept results of the old one. The Document's
  // list: nothing below edits or re-parses `doc`, which would clear it. Only spans: the nodes of
  // the statements linted again are looked up in relint().
  const std::vector<DocumentInternals::Span> &spans = DocumentInternals::statementSpans(doc);
  std::vector<std::size_t> todo;
  std::vector<std::size_t> unmatched;
  std::vector<Reparsed> reparsed;
  const bool full = !valid_ || fresh;
  if (full) {
    units_.clear();
    units_.resize(spans.size());
    unitFacts_.assign(spans.size(), nullptr);
    unitSketches_.assign(spans.size(), nullptr);
    for (std::size_t i = 0; i < spans.size(); ++i) {
      units_[i].start = spans[i].start;
      units_[i].end = spans[i].end;
      todo.push_back(i);
    }
  } else {
    match(spans, changed, text, unmatched, reparsed);
  }
  // The model of this update: it walks the statements whose facts the index does not hold yet,
  // and only as the rules ask.
  if (full) mayHoldUnlinted_ = false;
  sketch(text, full ? nullptr : &unmatched);
  std::vector<const StatementFacts *> facts;
  std::vector<const StatementSketch *> sketches;
  known(facts, sketches);
  const SemanticModel model(doc, std::move(facts), std::move(sketches));
  if (!full) findStale(model, text, unmatched, reparsed, todo);
  bool rejectedLocally = false, rejectable = false;
  if (!full && anyUnlinted()) {
    rejectedLocally = stillRejected(linter, doc, unmatched);
    if (rejectedLocally || !linter.mayHaveFindings(text)) {
      // Still rejected as a whole: no statement has a finding, the changed ones neither.
      rejectable = rejectedLocally || locallyRejectable(linter, doc);
      for (const std::size_t i : todo) {
        units_[i].results.reset();
        units_[i].unlinted = true;
      }
      todo.clear();
    } else {
      // Worth linting now: the statements held unlinted that may hold a finding are linted too
      // (those whose text the prefilter marks; all of them in a tree with syntax errors, where
      // the walk does not prune). The others have none, as their lint would find.
      // One scan of the whole text: in a clean tree, every statement starts where the scan reads
      // code, as the scan of its text alone does.
      const bool anyError = DocumentInternals::hasError(doc);
      const std::vector<std::uint32_t> marks =
          anyError ? std::vector<std::uint32_t>{} : marksOf(text, impl.triggers, 0, impl.apiWords);
      std::vector<bool> queued(units_.size());
      for (const std::size_t i : todo) queued[i] = true;
      for (std::size_t i = 0; i < units_.size(); ++i) {
        Unit &unit = units_[i];
        if (!unit.unlinted) continue;
        unit.unlinted = false;
        const auto mark = std::lower_bound(marks.begin(), marks.end(), unit.start);
        if (!queued[i] && (anyError || (mark != marks.end() && *mark < unit.end))) todo.push_back(i);
      }
      std::sort(todo.begin(), todo.end());
      mayHoldUnlinted_ = false; // none is left
    }
  }
  relint(linter, doc, model, units_, todo);
  valid_ = true;
  words_.clear();
  facts_.clear();
  edited_.clear();
  dirtyFirst_ = SIZE_MAX; // match() replaced every dirty unit
  dirtyLast_ = 0;
  rejectable_ = rejectable;
  stats_ = {units_.size(), todo.size(), full};
  stats_.rejectedLocally = rejectedLocally;
  learn(model, todo, full);

  // Every statement's findings, suppressed and ordered as Linter::lint() does. Copied into the
  // storage of the last update's (copy-assigned: their messages' buffers are reused, no
  // allocation each), and the results shown copied from there the same way.
  // The line numbers the kept findings' messages name are rendered again when a line break
  // came or went since the last update (those linted now are rendered already).
  std::size_t count = 0;
  std::vector<TSNode> comments;
  for (Unit &unit : units_) {
    if (!unit.results) continue;
    if (linesMoved_)
      for (Diagnostic &d : unit.results->raw) renderLineNumbers(d, doc.lines());
    for (const Diagnostic &d : unit.results->raw) {
      if (count < gathered_.size()) gathered_[count] = d;
      else gathered_.push_back(d);
      ++count;
    }
    for (const std::uint32_t at : unit.results->comments) {
      const TSNode node = DocumentInternals::nodeAt(doc, at, at + 1);
      if (ts_node_symbol(node) == Kinds::get().comment && ts_node_start_byte(node) == at) comments.push_back(node);
    }
  }
  gathered_.resize(count);
  impl.finishInPlace(doc, gathered_, comments);
  diagnostics_ = gathered_;
  linesMoved_ = false;
  return diagnostics_;
}

void IncrementalLint::match(const std::vector<DocumentInternals::Span> &spans,
                            const std::vector<std::pair<std::uint32_t, std::uint32_t>> &changed, std::string_view text,
                            std::vector<std::size_t> &unmatched, std::vector<Reparsed> &reparsed) {
  // A unit keeps its results when its statement kept its range and nothing touched it. (Most
  // units lie wholly outside [lo, hi], the bytes of every change and edit: no range to compare.)
  std::uint32_t lo = UINT32_MAX, hi = 0;
  for (const auto &r : changed) {
    lo = std::min(lo, r.first);
    hi = std::max(hi, r.second);
  }
  for (const auto &r : edited_) {
    lo = std::min(lo, r.first);
    hi = std::max(hi, r.second);
  }
  const auto keeps = [&](const Unit &unit, const DocumentInternals::Span span) {
    if (unit.start != span.start || unit.end != span.end || unit.dirty) return false;
    if (unit.end < lo || unit.start > hi) return true;
    return std::none_of(changed.begin(), changed.end(),
                        [&](const auto &r) { return r.first < unit.end && r.second > unit.start; }) &&
           std::none_of(edited_.begin(), edited_.end(),
                        [&](const auto &r) { return overlaps(r.first, r.second, unit.start, unit.end); });
  };
  // The units before the first change and after the last stay in their slots; those between
  // are matched by position, and spliced in (a keystroke moves no unit but the edited ones).
  const std::size_t n = units_.size(), m = spans.size(), both = std::min(n, m);
  const auto same = [&](std::size_t unit, std::size_t span) {
    return units_[unit].start == spans[span].start && units_[unit].end == spans[span].end;
  };
  // The units that end before every change and edit, before the first one an edit made dirty,
  // are their statements as they were, in the same slots: found by position (units end in
  // order), and checked at the last of them (a different count of statements before it would
  // not line up there). The same after: the units that start past every change, after the last
  // one made dirty. Then the walks below go on from there: a keystroke compares the units near
  // it, not all of them.
  std::size_t head =
      static_cast<std::size_t>(std::lower_bound(units_.begin(), units_.end(), lo,
                                                [](const Unit &unit, std::uint32_t at) { return unit.end < at; }) -
                               units_.begin());
  head = std::min({head, dirtyFirst_, both});
  if (head > 0 && !same(head - 1, head - 1)) head = 0;
  while (head < both && keeps(units_[head], spans[head])) ++head;
  std::size_t after =
      static_cast<std::size_t>(std::upper_bound(units_.begin(), units_.end(), hi,
                                                [](std::uint32_t at, const Unit &unit) { return at < unit.start; }) -
                               units_.begin());
  if (dirtyFirst_ != SIZE_MAX) after = std::max(after, dirtyLast_ + 1);
  std::size_t tail = n - std::min(after, n);
  if (tail > both - head || (tail > 0 && !same(n - tail, m - tail))) tail = 0;
  while (tail < both - head && keeps(units_[n - 1 - tail], spans[m - 1 - tail])) ++tail;
  std::vector<Unit> middle(m - tail - head);
  std::vector<std::shared_ptr<const StatementFacts>> middleFacts(middle.size());
  std::vector<std::shared_ptr<StatementSketch>> middleSketches(middle.size());
  std::vector<bool> taken(n - tail - head);
  for (std::size_t i = head, old = head; i < m - tail; ++i) {
    Unit &unit = middle[i - head];
    while (old < n - tail && units_[old].start < spans[i].start) ++old;
    if (old < n - tail && keeps(units_[old], spans[i])) {
      unit = std::move(units_[old]);
      middleFacts[i - head] = std::move(unitFacts_[old]);
      middleSketches[i - head] = std::move(unitSketches_[old]);
      taken[old - head] = true;
    } else {
      unit.start = spans[i].start;
      unit.end = spans[i].end;
      unmatched.push_back(i);
    }
  }
  // The statements that are gone or changed: what they showed the others (those an edit hit
  // told willEdit; the others' text is as it was, and their facts too unless their syntax
  // changed: a statement linted again for what it read shows what it showed).
  for (std::size_t old = head; old < n - tail; ++old) {
    const Unit &unit = units_[old];
    if (taken[old - head] || unit.hit || std::none_of(changed.begin(), changed.end(), [&](const auto &r) {
          return r.first < unit.end && r.second > unit.start;
        }))
      continue;
    if (unitFacts_[old]) reparsed.push_back({unit.start, unit.end, unitFacts_[old]});
    else factsOfText(text.substr(unit.start, unit.end - unit.start), facts_);
  }
  // One shift of the units after them at most (an erase and an insert moved each twice); their
  // facts and sketches alike.
  const std::size_t removed = n - tail - head;
  const auto splice = [&](auto &all, auto &mid) {
    const auto at = [&](std::size_t i) { return all.begin() + static_cast<std::ptrdiff_t>(i); };
    const auto from = [&](std::size_t i) { return mid.begin() + static_cast<std::ptrdiff_t>(i); };
    const std::size_t added = mid.size();
    if (added > removed)
      all.insert(at(head + removed), std::make_move_iterator(from(removed)), std::make_move_iterator(mid.end()));
    std::move(mid.begin(), from(std::min(added, removed)), at(head));
    if (added < removed) all.erase(at(head + added), at(head + removed));
  };
  splice(units_, middle);
  splice(unitFacts_, middleFacts);
  splice(unitSketches_, middleSketches);
}

void IncrementalLint::findStale(const SemanticModel &model, std::string_view text,
                                const std::vector<std::size_t> &unmatched, std::vector<Reparsed> &reparsed,
                                std::vector<std::size_t> &todo) {
  // What changed: the words of the statements that are new or changed (and of the edits), and
  // their ranges; the facts they show now, and showed before. A kept statement whose findings
  // read any of it is linted again.
  std::vector<std::string> words = std::move(words_);
  for (const std::size_t i : unmatched) {
    wordsOf(text.substr(units_[i].start, units_[i].end - units_[i].start), words);
    unitFacts_[i] = std::make_shared<const StatementFacts>(model.factsOf(i));
    const StatementFacts &now = *unitFacts_[i];
    // A statement re-parsed as it was shows what changed in its facts only; an edited or new
    // one, all it shows now (and willEdit told what it showed before).
    const auto same = std::find_if(reparsed.begin(), reparsed.end(), [&](const Reparsed &r) {
      return r.facts && r.start == units_[i].start && r.end == units_[i].end;
    });
    if (same == reparsed.end()) {
      facts_.insert(facts_.end(), now.words.begin(), now.words.end());
      continue;
    }
    std::set_symmetric_difference(now.words.begin(), now.words.end(), same->facts->words.begin(),
                                  same->facts->words.end(), std::back_inserter(facts_));
    same->facts.reset();
  }
  for (const Reparsed &r : reparsed) // gone, or no longer a statement of its own
    if (r.facts) facts_.insert(facts_.end(), r.facts->words.begin(), r.facts->words.end());
  normalize(words);
  normalize(facts_);
  const Changed changedWords(words), changedFacts(facts_);
  std::size_t next = 0; // walks `unmatched` alongside
  const Unit *units = units_.data();
  const std::size_t n = units_.size();
  const std::uint64_t wordBits = changedWords.bits, factBits = changedFacts.bits;
  for (std::size_t i = 0; i < n; ++i) {
    if (next < unmatched.size() && unmatched[next] == i) {
      todo.push_back(i);
      ++next;
      continue;
    }
    const Unit &unit = units[i];
    // (Most units share no bit with a keystroke's few words and read no range: tested here,
    // before any call.)
    if ((unit.wordBits & wordBits) == 0 && (unit.factBits & factBits) == 0 && !unit.results) continue;
    bool outdated =
        ((unit.wordBits & changedWords.bits) != 0 && intersect(unit.words, unit.wordBits, changedWords)) ||
        ((unit.factBits & changedFacts.bits) != 0 && intersect(unit.factWords, unit.factBits, changedFacts));
    if (unit.results)
      for (const auto &[r0, r1] : unit.results->ranges)
        for (const std::size_t j : unmatched) outdated = outdated || overlaps(r0, r1, units_[j].start, units_[j].end);
    if (outdated) todo.push_back(i);
  }
}

void IncrementalLint::learn(const SemanticModel &model, const std::vector<std::size_t> &todo, bool full) {
  // The index learns the facts of every statement the model walked; and of those linted again
  // after an edit, walked or not, so that the next edit of them (typing goes on where it was)
  // finds what they showed before. Only those statements are visited: a keystroke's model walks
  // few. (No unit is `hit` after an update: match() replaced every unit an edit touched.)
  for (const std::uint32_t i : model.walkedStatements())
    if (!unitFacts_[i]) unitFacts_[i] = std::make_shared<const StatementFacts>(model.factsOf(i));
  for (const std::uint32_t i : model.statementsFoundUnableToShow()) {
    if (unitFacts_[i] || !unitSketches_[i]) continue;
    // The facts it was found unable to show, kept with its sketch.
    std::vector<std::string> found = model.cannotShowFound(i);
    if (found.empty()) continue;
    std::vector<std::string> &kept = unitSketches_[i]->cannotShow;
    const auto middle = static_cast<std::ptrdiff_t>(kept.size());
    kept.insert(kept.end(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
    std::inplace_merge(kept.begin(), kept.begin() + middle, kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  }
  if (!full)
    for (const std::size_t i : todo)
      if (!unitFacts_[i]) unitFacts_[i] = std::make_shared<const StatementFacts>(model.factsOf(i));
  stats_.walked = model.statementsWalked();
}

void IncrementalLint::sketch(std::string_view text, const std::vector<std::size_t> *which) {
  const auto give = [&](std::size_t i) {
    if (!unitSketches_[i])
      unitSketches_[i] = std::make_shared<StatementSketch>(
          StatementSketch::of(text.substr(units_[i].start, units_[i].end - units_[i].start)));
  };
  if (!which) {
    for (std::size_t i = 0; i < units_.size(); ++i) give(i);
    return;
  }
  for (const std::size_t i : *which) give(i);
}

void IncrementalLint::known(std::vector<const StatementFacts *> &facts,
                            std::vector<const StatementSketch *> &sketches) const {
  // Each made from its range at once (sized once, no zero fill, no push_back per element).
  facts.assign(Pointers(unitFacts_.data()), Pointers(unitFacts_.data() + unitFacts_.size()));
  sketches.assign(Pointers(unitSketches_.data()), Pointers(unitSketches_.data() + unitSketches_.size()));
}

void IncrementalLint::relint(const Linter &linter, const Document &doc, const SemanticModel &model,
                             std::vector<Unit> &units, const std::vector<std::size_t> &which) {
  if (which.empty()) return;
  const auto &impl = LinterInternals::impl(linter);
  const std::string_view text = doc.text();
  const bool anyError = DocumentInternals::hasError(doc);
  const TSSymbol comment = Kinds::get().comment;
  for (const std::size_t i : which) {
    Unit &unit = units[i];
    Unit blank;
    blank.start = unit.start;
    blank.end = unit.end;
    unit = std::move(blank);
    // As Linter::lint: a statement with syntax errors is walked whole (see there); a clean one
    // only where the prefilter's marks are.
    const TSNode node = DocumentInternals::statement(doc, i);
    const bool prune = !ts_node_has_error(node) && !anyError;
    const std::vector<std::uint32_t> marks =
        prune ? marksOf(text.substr(unit.start, unit.end - unit.start), impl.triggers, unit.start, impl.apiWords)
              : std::vector<std::uint32_t>{};
    if (prune && marks.empty()) continue; // nothing here can be a finding or a suppression
    ModelDependencies deps;
    model.setDependencySink(&deps, unit.start, unit.end);
    rules::Context ctx(doc, impl.config, model);
    std::vector<TSNode> comments;
    impl.walk(ts_tree_root_node(node.tree), node, ctx, prune ? &marks : nullptr, comments);
    model.setDependencySink(nullptr);
    unit.words.assign(deps.words.begin(), deps.words.end());
    unit.wordBits = normalize(unit.words);
    unit.factWords.assign(deps.facts.begin(), deps.facts.end());
    unit.factBits = normalize(unit.factWords);
    Results r;
    r.raw = ctx.takeDiagnostics();
    const auto outside = [&](std::uint32_t r0, std::uint32_t r1) {
      if (r0 < unit.start || r1 > unit.end) r.ranges.emplace_back(r0, r1);
    };
    for (const auto &[r0, r1] : deps.ranges) outside(r0, r1);
    for (const auto &[r0, r1] : ctx.dependencies()) outside(r0, r1);
    for (const Diagnostic &d : r.raw)
      if (d.fix)
        for (const TextEdit &edit : d.fix->edits)
          outside(static_cast<std::uint32_t>(edit.start), static_cast<std::uint32_t>(edit.end));
    for (const TSNode c : comments) {
      const std::uint32_t at = ts_node_start_byte(c);
      if (ts_node_symbol(c) == comment && (!prune || std::binary_search(marks.begin(), marks.end(), at)))
        r.comments.push_back(at);
    }
    if (!r.raw.empty() || !r.ranges.empty() || !r.comments.empty())
      unit.results = std::make_unique<Results>(std::move(r));
  }
}

} // namespace asyncfix
