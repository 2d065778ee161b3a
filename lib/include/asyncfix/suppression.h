// asyncfix/suppression.h — `# noqa` comments: editing them (the engine honours them in lint()).
//
// Forms: `# noqa` (every code on the line), `# noqa: AF101, AF001`, `# asyncfix: noqa[: codes]`;
// file level, in the first comment block: `# asyncfix: skip-file`, `# asyncfix: noqa[: codes]`.
// A suppression on the last line of a multi-line statement covers the whole statement.
// A finding that is a syntax error on the target version (an `async`/`await` name, target ≥ 3.7)
// is hidden only by a directive that names its code: a blanket `# noqa`, often another tool's,
// does not hide it. `# asyncfix: skip-file` skips the file whole.
#pragma once

#include <string_view>

#include "asyncfix/diagnostic.h"
#include "asyncfix/document.h"

#include "asyncfix/export.h"

namespace asyncfix {

/// The edit that suppresses `code` on the line holding byte `offset`: appends `  # noqa: CODE`
/// at the end of the line, or adds CODE to a `# noqa: …` comment already there. Returns an
/// empty-content, zero-width edit at the line end when the line already names `code`. A blanket
/// `# noqa` there does not count: a finding it covers and did not hide is a syntax error on the
/// target, which only a named code hides, so `  # noqa: CODE` follows it (the blanket directive
/// keeps meaning "everything" to the tool it was written for).
ASYNCFIX_API TextEdit noqaEdit(const Document &doc, std::size_t offset, std::string_view code);

class Linter;

/// `check --add-noqa`: the text with a `# noqa: CODE` for every current finding of `linter` (codes
/// on one line share a comment). `added` receives the number of codes added.
ASYNCFIX_API std::string addNoqa(const Linter &linter, std::string_view text, std::size_t *added = nullptr);

} // namespace asyncfix
