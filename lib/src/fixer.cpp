#include <algorithm>

#include "asyncfix/linter.h"
#include "edit_map.h"

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
      for (TextEdit &e : d.fix->edits) {
        e.start = mapBack(e.start, *round, false);
        e.end = std::max(e.start, mapBack(e.end, *round, true));
      }
  }
  return d;
}

bool sameFinding(const Diagnostic &a, const Diagnostic &b) {
  return a.code == b.code && a.message == b.message && a.fix && b.fix && a.fix->title == b.fix->title;
}

} // namespace

bool verifyFix(const Document &doc, const Fix &f) {
  return verified(applyEdits(doc.text(), f.edits), doc.syntaxErrorCount());
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
      if (applicable(d, options) &&
          std::none_of(result.rejected.begin(), result.rejected.end(),
                       [&](const Diagnostic &r) { return sameFinding(r, d); }))
        candidates.push_back(&d);
    if (candidates.empty() || round == options.maxIterations) {
      result.converged = candidates.empty();
      result.remaining = std::move(diagnostics);
      break;
    }

    // Greedy: take each fix whose edits overlap none taken so far; identical fixes (one rename
    // reported at each of its occurrences) count once. The rest wait for the next round.
    std::vector<const Fix *> chosen;
    std::vector<const Diagnostic *> chosenBy;
    std::vector<TextEdit> taken;
    for (const Diagnostic *d : candidates) {
      if (std::any_of(chosen.begin(), chosen.end(), [&](const Fix *f) { return *f == *d->fix; })) continue;
      const bool clash = std::any_of(d->fix->edits.begin(), d->fix->edits.end(), [&](const TextEdit &e) {
        return std::any_of(taken.begin(), taken.end(), [&](const TextEdit &t) { return overlaps(e, t); });
      });
      if (clash) continue;
      chosen.push_back(&*d->fix);
      chosenBy.push_back(d);
      taken.insert(taken.end(), d->fix->edits.begin(), d->fix->edits.end());
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
    for (const Diagnostic *d : candidates)
      if (std::any_of(chosen.begin(), chosen.end(), [&](const Fix *f) { return *f == *d->fix; }))
        ++result.fixedDiagnostics;
    result.text = std::move(next);
    result.changed = true;
  }
  result.changed = result.text != input;
  return result;
}

} // namespace asyncfix
