// asyncfix/linter.h — run the rules over a document; apply and verify their fixes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "asyncfix/config.h"
#include "asyncfix/diagnostic.h"
#include "asyncfix/document.h"
#include "asyncfix/export.h"

namespace asyncfix {

class Report;
struct FixResult;

/// A configured set of rules. Immutable after construction: one Linter may serve many threads
/// calling lint()/fix() concurrently (every call works on its own Document and returns its own
/// results; nothing in a Linter is written after the constructor). Building one costs a few
/// microseconds: make one per configuration and keep it.
///
/// Ownership: the Linter copies the Config it is given. Results own their data, except that a
/// Diagnostic's `code` and `name` point at static strings of the rule catalogue.
class ASYNCFIX_API Linter {
public:
  explicit Linter(Config config = {});
  ~Linter();
  Linter(Linter &&) noexcept;
  Linter &operator=(Linter &&) noexcept;

  const Config &config() const;

  // lint() without a path gives the bare diagnostics of Python text; with a path, a Report that
  // also knows the file: a notebook's cells, and positions for any front end. All take UTF-8
  // (a file in another encoding: see encoding.h).

  /// Diagnostics for a parsed document, sorted by position then code.
  std::vector<Diagnostic> lint(const Document &doc) const;
  /// Diagnostics for a text. A cheap token scan runs first; a text that cannot hold a finding is
  /// not parsed at all.
  std::vector<Diagnostic> lint(std::string_view text) const;
  /// The prefilter alone: false only when no enabled rule can fire on `text`.
  bool mayHaveFindings(std::string_view text) const;

  /// Diagnostics for the file `path` holding `text` (UTF-8), with the text kept for positions.
  /// A path ending in `.ipynb` makes `text` a notebook's JSON: its code cells are linted as one
  /// document and Report::place() gives cell positions. The path is only a name here: nothing is
  /// read from disk, and no configuration file is looked up (see settings.h for that). Text that
  /// cannot be checked (a NUL byte, invalid UTF-8, a broken notebook) gives a Report whose
  /// error() says why; this never throws for bad input.
  Report lint(std::string_view text, std::string_view path) const;
  /// The same for an editor's Document: its current tree is linted as it is (no re-parse), and
  /// the Report keeps a copy of its text. Not for notebooks (the document is Python text).
  Report lint(const Document &doc, std::string_view path) const;

  /// The whole text of `path` with the fixes applied whose applicability is at most
  /// `applicability` (Safe: safe fixes only; Unsafe: safe and unsafe; DisplayOnly is treated as
  /// Unsafe, display-only fixes are never applied). Verified and idempotent like asyncfix::fix();
  /// a notebook gets its changed cells' "source" rewritten and every other byte kept. On bad
  /// input, FixResult::error is set and the text is returned unchanged.
  FixResult fix(std::string_view text, std::string_view path, Applicability applicability = Applicability::Safe) const;

private:
  friend struct LinterInternals; // internal header: the unpruned walk, per-statement linting
  std::vector<Diagnostic> lintImpl(const Document &doc, bool prune) const;

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct FixOptions {
  bool unsafe = false;    ///< also apply unsafe fixes
  int maxIterations = 10; ///< lint → fix rounds before giving up
  /// Only fixes of diagnostics this returns true for are applied (all when empty).
  std::function<bool(const Diagnostic &)> filter;
};

struct FixResult {
  std::string text; ///< the fixed text (== input when nothing applied)
  bool changed = false;
  std::size_t fixedDiagnostics = 0;  ///< diagnostics whose fix was applied, over all rounds
  std::vector<Diagnostic> remaining; ///< diagnostics of the final text
  /// Fixes dropped because the re-parse showed new syntax errors; ranges and edits are mapped
  /// back to the input text's offsets (a range inside an earlier fix maps to that fix's range).
  std::vector<Diagnostic> rejected;
  bool converged = true; ///< false when maxIterations ran out with fixes left
  /// Linter::fix(text, path, …) only: why the text could not be fixed (as Report::error()).
  std::optional<std::string> error;
  /// Linter::fix(text, path, …) only: things the caller should know, e.g. that a notebook's fix
  /// would have touched IPython syntax and was not written.
  std::vector<std::string> warnings;
};

/// True when applying `fix` alone to `doc`'s text gives a text that parses with no more ERROR or
/// MISSING nodes than `doc` has — the check every fix passes before a front end offers it.
ASYNCFIX_API bool verifyFix(const Document &doc, const Fix &fix);

/// Apply the selected fixes, re-parse, reject any fix that adds an ERROR or MISSING node, and
/// repeat until no applicable fix is left. Fixing the result again changes nothing.
/// For a notebook use Linter::fix(text, path), which writes the result back into the cells.
ASYNCFIX_API FixResult fix(const Linter &linter, std::string_view text, const FixOptions &options = {});

} // namespace asyncfix
