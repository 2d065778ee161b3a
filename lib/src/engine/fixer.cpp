#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "asyncfix/document_internals.h"
#include "asyncfix/linter.h"
#include "engine/edit_map.h"
#include "text/syntax.h"

namespace asyncfix {
namespace {

bool overlaps(const TextEdit &a, const TextEdit &b) {
  if (a.start == a.end || b.start == b.end) return a.start == b.start; // two inserts at one place
  return a.start < b.end && b.start < a.end;
}

bool applicable(const Diagnostic &d, const FixOptions &options) {
  if (!d.fix || d.fix->edits.empty()) return false;
  if (d.fix->applicability == Applicability::DisplayOnly) return false;
  if (d.fix->applicability == Applicability::Unsafe && !options.unsafe) return false;
  return !options.filter || options.filter(d);
}

/// Merge the edits of several non-overlapping fixes into one sorted list.
std::vector<TextEdit> mergeEdits(const std::vector<const Fix *> &fixes) {
  std::vector<TextEdit> edits;
  for (const Fix *f : fixes) edits.insert(edits.end(), f->edits.begin(), f->edits.end());
  std::sort(edits.begin(), edits.end(), [](const TextEdit &a, const TextEdit &b) { return a.start < b.start; });
  return edits;
}

/// True when `text` parses with no more ERROR/MISSING nodes than the original had.
bool verified(const std::string &text, std::size_t errorsBefore) {
  const Document doc(text);
  return doc.parsed() && doc.syntaxErrorCount() <= errorsBefore;
}

/// A diagnostic computed on the text after `rounds` of edits, in the original text's offsets.
Diagnostic inOriginal(Diagnostic d, const std::vector<std::vector<TextEdit>> &rounds) {
  for (auto round = rounds.rbegin(); round != rounds.rend(); ++round) {
    d.start = mapBack(d.start, *round, false);
    d.end = std::max(d.start, mapBack(d.end, *round, true));
    if (d.fix)
      for (TextEdit &e : d.fix.mutate().edits) {
        e.start = mapBack(e.start, *round, false);
        e.end = std::max(e.start, mapBack(e.end, *round, true));
      }
  }
  return d;
}

/// Groups equal fixes cheaply: equal fixes have equal keys; different ones rarely do (and are
/// then compared in full).
using FixKey = std::tuple<std::string_view, std::size_t, std::size_t, std::size_t>;
FixKey keyOf(const Fix &f) {
  const std::size_t start = f.edits.empty() ? 0 : f.edits.front().start;
  const std::size_t end = f.edits.empty() ? 0 : f.edits.back().end;
  return {f.title, start, end, f.edits.size()};
}

bool sameFinding(const Diagnostic &a, const Diagnostic &b) {
  return a.code == b.code && a.message == b.message && a.fix && b.fix && a.fix->title == b.fix->title;
}

} // namespace

namespace {

/// A clean parse of `fixed` (`doc`'s text with `edits` applied), found incrementally from a copy
/// of `doc`'s tree: false when the re-parse has errors or cannot be made (then a fresh parse
/// decides). A clean incremental parse proves the text can be parsed without errors, which is
/// all verification asks of it: a fresh parse, looking for the parse with the fewest errors,
/// finds a clean one too.
bool cleanIncrementally(const Document &doc, const std::vector<TextEdit> &edits, const std::string &fixed) {
  const TSTree *tree = doc.holdsTree() ? DocumentInternals::tree(doc) : nullptr;
  if (!tree || fixed.size() > UINT32_MAX || doc.text().size() > UINT32_MAX) return false;
  TSParser *parser = threadParser();
  if (!parser) return false;
  TreePtr copy(ts_tree_copy(tree));
  const LineIndex &lines = doc.lines();
  // Later edits first: each one's offsets still mean the original text then.
  for (auto e = edits.rbegin(); e != edits.rend(); ++e) {
    const Position start = lines.position(e->start, PositionEncoding::Utf8);
    const Position oldEnd = lines.position(e->end, PositionEncoding::Utf8);
    TSPoint newEnd{start.line, start.column};
    for (const char c : e->content) {
      if (c == '\n') {
        ++newEnd.row;
        newEnd.column = 0;
      } else {
        ++newEnd.column;
      }
    }
    const TSInputEdit input{static_cast<std::uint32_t>(e->start),
                            static_cast<std::uint32_t>(e->end),
                            static_cast<std::uint32_t>(e->start + e->content.size()),
                            {start.line, start.column},
                            {oldEnd.line, oldEnd.column},
                            newEnd};
    ts_tree_edit(copy.get(), &input);
  }
  const TreePtr parsed(
      ts_parser_parse_string(parser, copy.get(), fixed.data(), static_cast<std::uint32_t>(fixed.size())));
  return parsed && !ts_node_has_error(ts_tree_root_node(parsed.get()));
}

} // namespace

bool verifyFix(const Document &doc, const Fix &f) {
  const std::string fixed = applyEdits(doc.text(), f.edits);
  // A document whose edited statements are parsed on their own (an editor's, while typing): a
  // fix within them is judged by a parse of them alone (the rest parsed cleanly and stays).
  if (const std::optional<std::size_t> errors = DocumentInternals::overlayErrorsAfter(doc, f.edits, fixed))
    return *errors <= doc.syntaxErrorCount();
  // An editor asks on every cursor move next to a finding: on a large file a fresh parse per
  // question is too slow, and most fixes leave the file clean.
  if (cleanIncrementally(doc, f.edits, fixed)) return true;
  return verified(fixed, doc.syntaxErrorCount());
}

FixResult fix(const Linter &linter, std::string_view input, const FixOptions &options) {
  FixResult result;
  result.text = std::string(input);
  std::vector<std::vector<TextEdit>> rounds; // the edits applied so far, round by round
  if (!linter.mayHaveFindings(input)) return result;

  for (int round = 0;; ++round) {
    const Document doc(result.text);
    std::vector<Diagnostic> diagnostics = linter.lint(doc);
    std::vector<const Diagnostic *> candidates;
    for (const Diagnostic &d : diagnostics)
      if (applicable(d, options) && std::none_of(result.rejected.begin(), result.rejected.end(),
                                                 [&](const Diagnostic &r) { return sameFinding(r, d); }))
        candidates.push_back(&d);
    if (candidates.empty() || round == options.maxIterations) {
      result.converged = candidates.empty();
      result.remaining = std::move(diagnostics);
      break;
    }

    // Greedy: take each fix whose edits overlap none taken so far; identical fixes (one rename
    // reported at each of its occurrences, usually one shared Fix) count once. The rest wait for
    // the next round. Linear-logarithmic: a file with thousands of findings stays fast.
    std::vector<const Fix *> chosen;
    std::vector<const Diagnostic *> chosenBy;
    std::set<const Fix *> chosenSet; // the shared Fix objects taken
    std::map<FixKey, std::vector<const Fix *>> chosenByKey;
    std::multimap<std::size_t, std::size_t> taken; // start → end of the edits taken
    const auto clashes = [&](const TextEdit &e) {
      auto it = taken.lower_bound(e.start);
      if (it != taken.begin()) --it; // the last one starting before e may reach into it
      for (; it != taken.end() && it->first <= std::max(e.start, e.end); ++it)
        if (overlaps(e, TextEdit{it->first, it->second, {}})) return true;
      return false;
    };
    for (const Diagnostic *d : candidates) {
      const Fix *f = &*d->fix;
      if (chosenSet.contains(f)) continue;
      const auto same = chosenByKey.find(keyOf(*f));
      if (same != chosenByKey.end() &&
          std::any_of(same->second.begin(), same->second.end(), [&](const Fix *c) { return *c == *f; }))
        continue;
      if (std::any_of(f->edits.begin(), f->edits.end(), clashes)) continue;
      chosen.push_back(f);
      chosenBy.push_back(d);
      chosenSet.insert(f);
      chosenByKey[keyOf(*f)].push_back(f);
      for (const TextEdit &e : f->edits) taken.emplace(e.start, e.end);
    }

    const std::size_t errorsBefore = doc.syntaxErrorCount();
    std::vector<TextEdit> edits = mergeEdits(chosen);
    std::string next = applyEdits(result.text, edits);
    if (!verified(next, errorsBefore)) {
      // Find the culprits: keep each fix that verifies on its own, then re-check them together.
      std::vector<const Fix *> good;
      for (std::size_t i = 0; i < chosen.size(); ++i) {
        if (verified(applyEdits(result.text, chosen[i]->edits), errorsBefore)) good.push_back(chosen[i]);
        else result.rejected.push_back(inOriginal(*chosenBy[i], rounds));
      }
      if (good.size() > 1 && !verified(applyEdits(result.text, mergeEdits(good)), errorsBefore))
        good.resize(1); // fixes that only break together: apply one per round
      chosen = std::move(good);
      if (chosen.empty()) continue; // all rejected: re-lint, the rejected ones are now skipped
      edits = mergeEdits(chosen);
      next = applyEdits(result.text, edits);
    }
    rounds.push_back(std::move(edits));
    chosenSet = std::set<const Fix *>(chosen.begin(), chosen.end());
    chosenByKey.clear();
    for (const Fix *f : chosen) chosenByKey[keyOf(*f)].push_back(f);
    for (const Diagnostic *d : candidates) {
      const Fix *f = &*d->fix;
      const auto same = chosenByKey.find(keyOf(*f));
      if (chosenSet.contains(f) || (same != chosenByKey.end() && std::any_of(same->second.begin(), same->second.end(),
                                                                             [&](const Fix *c) { return *c == *f; })))
        ++result.fixedDiagnostics;
    }
    result.text = std::move(next);
    result.changed = true;
  }
  result.changed = result.text != input;
  return result;
}

} // namespace asyncfix
