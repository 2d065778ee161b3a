// noqa.h — finding and applying `# noqa` suppressions. Private; the public part (editing a
// comment) is asyncfix/suppression.h.
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

/// One `# noqa` / `# asyncfix: noqa` directive inside a comment.
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

/// Parses the `noqa` directive in a comment's text, if any. `offset` is the comment's start.
/// Sets start/end/blanket/codes only.
bool parseNoqa(std::string_view comment, std::size_t offset, NoqaDirective &out);

/// Reads the suppressions of a document from its comment nodes (in source order).
Suppressions collectSuppressions(const Document &doc, const std::vector<TSNode> &comments);

/// Drops suppressed diagnostics (marking the codes that were used), then — when AF900 is
/// enabled — adds an AF900 diagnostic for each unknown or unused code in a directive.
void applySuppressions(const Document &doc, Suppressions &suppressions, const Config &config,
                       std::vector<Diagnostic> &diagnostics);

} // namespace asyncfix
