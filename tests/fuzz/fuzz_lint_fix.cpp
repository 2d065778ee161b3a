// Fuzzer (a): lint + fix on arbitrary bytes. Invariants, each a crash when broken:
//  - no crash, no sanitizer report;
//  - every diagnostic's range lies inside the document, start <= end, and (for UTF-8 input) on
//    code point boundaries; so does every edit of every fix, and a fix's edits are sorted and
//    disjoint;
//  - in a file without syntax errors, every fix (safe or unsafe), applied alone, re-parses clean;
//  - fix() converges, its result re-parses with no more errors than the input, and fixing the
//    result again changes nothing (idempotent);
//  - LineIndex conversions round-trip for every code point boundary in all three encodings.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "asyncfix/document.h"
#include "asyncfix/line_index.h"
#include "asyncfix/linter.h"
#include "asyncfix/utf8.h"

namespace {

using namespace asyncfix;

[[noreturn]] void fail(const char *what, std::size_t a = 0, std::size_t b = 0) {
  std::fprintf(stderr, "invariant broken: %s (%zu, %zu)\n", what, a, b);
  std::abort();
}

bool boundary(std::string_view text, std::size_t offset) {
  return offset >= text.size() || (static_cast<unsigned char>(text[offset]) & 0xC0) != 0x80;
}

void checkRange(std::string_view text, bool utf8, std::size_t start, std::size_t end, const char *what) {
  if (start > end || end > text.size()) fail(what, start, end);
  if (utf8 && (!boundary(text, start) || !boundary(text, end))) fail(what, start, end);
}

void checkLineIndex(std::string_view text) {
  const LineIndex lines(text);
  // A BOM is not part of line 1's columns: offset 0 is not addressable, offset 3 is (0, 0).
  const std::size_t first = lines.hasBom() ? 3 : 0;
  for (const PositionEncoding enc : {PositionEncoding::Utf8, PositionEncoding::Utf16, PositionEncoding::Utf32}) {
    for (std::size_t offset = first; offset <= text.size(); ++offset) {
      if (!boundary(text, offset)) continue;
      // Between the \r and \n of a CRLF is inside one line break: no position names it.
      if (offset > 0 && offset < text.size() && text[offset - 1] == '\r' && text[offset] == '\n') continue;
      const Position pos = lines.position(offset, enc);
      const std::size_t back = lines.offset(pos, enc);
      if (back != offset) fail("LineIndex round trip", offset, back);
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  const bool utf8 = !firstInvalidUtf8(text).has_value();
  static const Linter linter;
  FixOptions unsafe;
  unsafe.unsafe = true;

  const Document doc(text);
  const std::vector<Diagnostic> diagnostics = linter.lint(doc);
  const bool clean = doc.parsed() && doc.syntaxErrorCount() == 0;
  std::set<const Fix *> seen;
  for (const Diagnostic &d : diagnostics) {
    checkRange(text, utf8, d.start, d.end, "diagnostic range");
    if (!d.fix || !seen.insert(&*d.fix).second) continue;
    std::size_t last = 0;
    bool first = true;
    for (const TextEdit &e : d.fix->edits) {
      checkRange(text, utf8, e.start, e.end, "edit range");
      if (!first && e.start < last) fail("edits overlap or are unsorted", e.start, last);
      last = e.end;
      first = false;
    }
    // In a file that parses cleanly, every fix keeps it clean. (With syntax errors already there,
    // tree-sitter's recovery may count differently after an edit: the fixer and the server verify
    // each fix before they apply or offer it, which fix() below checks.)
    if (clean && d.fix->applicability != Applicability::DisplayOnly && !verifyFix(doc, *d.fix))
      fail("a fix adds syntax errors to a clean file", d.start, d.end);
  }

  const FixResult fixed = fix(linter, text, unsafe);
  if (!fixed.converged) fail("fix did not converge");
  if (fixed.changed) {
    const Document after(fixed.text);
    if (after.syntaxErrorCount() > doc.syntaxErrorCount())
      fail("fixed text has new syntax errors", doc.syntaxErrorCount(), after.syntaxErrorCount());
    const FixResult again = fix(linter, fixed.text, unsafe);
    if (again.text != fixed.text) fail("fix is not idempotent");
    if (utf8 && firstInvalidUtf8(fixed.text)) fail("fix made the text invalid UTF-8");
  }
  if (utf8) checkLineIndex(text);
  return 0;
}
