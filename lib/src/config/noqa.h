// noqa.h — finding and applying `# noqa` suppressions. Private; the public part (editing a
// comment) is asyncfix/suppression.h.
//
// What suppresses what:
//   - a finding that is a syntax error on the target version — one over an `async`/`await` token
//     used as a name, with a target of Python 3.7 or later — is hidden only by a directive that
//     names its code: `# noqa: AF201` on its line (or statement), or `# asyncfix: noqa: AF201` in
//     the file's header. A blanket `# noqa` is most often another tool's (flake8's unused-import
//     `# noqa`), and a file that does not compile must not look clean; Ruff likewise never lets
//     `noqa` hide a syntax error. Blanket `# asyncfix: noqa` (line or header) is no different: to
//     keep such a file out of a run, `# asyncfix: skip-file` or `exclude` says so;
//   - every other finding is hidden by a blanket directive too, as flake8 and Ruff do;
//   - `# asyncfix: skip-file` in the header skips the file whole: it is an exclusion, not a
//     suppression (a vendored Python 2 file), and reports nothing.
#pragma once

#include <tree_sitter/api.h>

#include <string>
#include <string_view>
#include <vector>

#include "asyncfix/config.h"
#include "asyncfix/diagnostic.h"
#include "asyncfix/document.h"

namespace asyncfix {

/// One code in a `# noqa: …` list.
struct NoqaCode {
  std::string code;
  std::size_t start = 0, end = 0; ///< its bytes in the text
  bool used = false;
};

/// One `# noqa` / `# asyncfix: noqa` directive inside a comment (a comment may hold several:
/// `# noqa  # noqa: AF201`, a blanket one for another tool and a named one for asyncfix).
struct NoqaDirective {
  std::size_t start = 0; ///< the `#` that starts the directive
  std::size_t end = 0;   ///< end of the directive (after its last code)
  std::size_t commentStart = 0, commentEnd = 0;
  std::uint32_t firstLine = 0, lastLine = 0; ///< lines it covers (a whole multi-line statement)
  bool blanket = true;                       ///< no codes: every code
  std::vector<NoqaCode> codes;
};

struct Suppressions {
  bool skipFile = false;
  bool fileAll = false;               ///< `# asyncfix: noqa` in the header
  std::vector<std::string> fileCodes; ///< `# asyncfix: noqa: AF001` in the header
  std::vector<NoqaDirective> directives;
};

/// Parses the `noqa` directives in a comment's text, in order. `offset` is the comment's start.
/// Sets start/end/blanket/codes only.
std::vector<NoqaDirective> parseNoqa(std::string_view comment, std::size_t offset);

/// Whether the finding over bytes [start, end) of `text` is an `async`/`await` name, which does
/// not compile from Python 3.7 on: the rules report such a finding over the token itself, or over
/// the dotted path that ends with it (`kombu.async`); rules/rule.h, keywordSeverity.
bool onReservedWord(std::string_view text, std::size_t start, std::size_t end);

/// Whether only a directive naming `d`'s code may hide it: `d` is a syntax error on the target
/// version (onReservedWord, and a target of Python 3.7 or later).
bool suppressedOnlyByCode(const Diagnostic &d, std::string_view text, const Config &config);

/// Reads the suppressions of a document from its comment nodes (in source order).
Suppressions collectSuppressions(const Document &doc, const std::vector<TSNode> &comments);

/// The file-level directives of `text` alone (skipFile, fileAll, fileCodes; no directives): its
/// header — the blank and comment lines before its first statement — parsed as
/// collectSuppressions() reads it. For a file that is not linted here (the module a project
/// renames).
Suppressions headerSuppressions(std::string_view text);

/// Drops suppressed diagnostics (marking the codes that were used), then — when AF900 is
/// enabled — adds an AF900 diagnostic for each unknown or unused code in a directive.
void applySuppressions(const Document &doc, Suppressions &suppressions, const Config &config,
                       std::vector<Diagnostic> &diagnostics);

} // namespace asyncfix
