// asyncfix/linter.h — run the rules over a document; apply and verify their fixes.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "asyncfix/config.h"
#include "asyncfix/diagnostic.h"
#include "asyncfix/document.h"

namespace asyncfix {

/// A configured set of rules. Immutable after construction: one Linter may serve many threads
/// calling lint()/fix() concurrently.
class Linter {
public:
  explicit Linter(Config config = {});
  ~Linter();
  Linter(Linter &&) noexcept;
  Linter &operator=(Linter &&) noexcept;

  const Config &config() const;

  /// Diagnostics for a parsed document, sorted by position then code.
  std::vector<Diagnostic> lint(const Document &doc) const;
  /// Diagnostics for a text. A cheap token scan runs first; a text that cannot hold a finding is
  /// not parsed at all.
  std::vector<Diagnostic> lint(std::string_view text) const;
  /// The prefilter alone: false only when no enabled rule can fire on `text`.
  bool mayHaveFindings(std::string_view text) const;

private:
  friend std::vector<Diagnostic> lintWithoutPruning(const Linter &, const Document &); // tests, bench
  std::vector<Diagnostic> lintImpl(const Document &doc, bool prune) const;

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct FixOptions {
  bool unsafe = false;      ///< also apply unsafe fixes
  int maxIterations = 10;   ///< lint → fix rounds before giving up
  /// Only fixes of diagnostics this returns true for are applied (all when empty).
  std::function<bool(const Diagnostic &)> filter;
};

struct FixResult {
  std::string text;                    ///< the fixed text (== input when nothing applied)
  bool changed = false;
  std::size_t fixedDiagnostics = 0;    ///< diagnostics whose fix was applied, over all rounds
  std::vector<Diagnostic> remaining;   ///< diagnostics of the final text
  /// Fixes dropped because the re-parse showed new syntax errors; ranges and edits are mapped
  /// back to the input text's offsets (a range inside an earlier fix maps to that fix's range).
  std::vector<Diagnostic> rejected;
  bool converged = true;               ///< false when maxIterations ran out with fixes left
};

/// True when applying `fix` alone to `doc`'s text gives a text that parses with no more ERROR or
/// MISSING nodes than `doc` has — the check every fix passes before a front end offers it.
bool verifyFix(const Document &doc, const Fix &fix);

/// Apply the selected fixes, re-parse, reject any fix that adds an ERROR or MISSING node, and
/// repeat until no applicable fix is left. Fixing the result again changes nothing.
FixResult fix(const Linter &linter, std::string_view text, const FixOptions &options = {});

} // namespace asyncfix
