// asyncfix/linter_internals.h — what the engine, the tests and the benchmark ask of a Linter
// beyond its API. Internal: not installed.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "asyncfix/linter.h"

namespace asyncfix {

struct LinterInternals {
  /// lint() without the walk's pruning: every node is visited and dispatched. Must give exactly
  /// what lint() gives; tests and `asyncfix_bench_parse verify` compare the two.
  static std::vector<Diagnostic> lintWithoutPruning(const Linter &linter, const Document &doc);
  /// lint() as if no `# noqa` and no `# asyncfix: skip-file` were written: every finding the
  /// rules make (the project view asks whether a file still imports a module it renames, which a
  /// suppressed import does).
  static std::vector<Diagnostic> lintUnsuppressed(const Linter &linter, const Document &doc);
  /// lint(doc) that asks `stop` first and then as its walk goes (every few hundred nodes), and
  /// gives up once it says yes: nullopt then. `doc` must be parsed already (its parse is not
  /// asked: DocumentInternals::parseUnless). The language server's settle (lsp/analyzer.cpp),
  /// which a keystroke must not wait for.
  static std::optional<std::vector<Diagnostic>> lintUnless(const Linter &linter, const Document &doc,
                                                           const std::function<bool()> &stop);
  /// The enabled rules and their dispatch table (engine/linter_impl.h), for IncrementalLint's
  /// per-statement walks.
  static const Linter::Impl &impl(const Linter &linter) { return *linter.impl_; }

  /// Why mayHaveFindings(text) says "maybe": the first prefilter hit no judgement rejected, as
  /// its trigger's name (`keyword-name`, `non-blocking`, `to-call`, `noqa`) and byte offset;
  /// an empty name when the text is rejected. For `asyncfix_bench_parse explain`.
  struct KeptBy {
    std::string_view trigger;
    std::uint32_t offset = 0;
  };
  static KeptBy keptBy(const Linter &linter, std::string_view text);
  /// mayHaveFindings(text), which also tells whether its scan found the text plain ASCII (see
  /// mayTrigger() in text/prefilter.h: no UTF-8 check needed, no NUL); false when it cannot tell.
  static bool mayHaveFindings(const Linter &linter, std::string_view text, bool &plain);
};

} // namespace asyncfix
