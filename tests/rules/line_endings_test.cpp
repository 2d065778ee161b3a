// Every rule's fixture (tests/fixtures/<CODE>.py) with CR-only and with CRLF line ends instead of
// LF: the same diagnostics (rows, columns, messages), the same fixes (the places of their edits,
// and their text with any line break it holds spelt as the file's own), and the same fixed text
// with the line ends kept. Python — and LineIndex, where every position comes from — end a line at
// "\n", "\r\n" or a lone "\r"; tree-sitter counts rows at "\n" only, so a rule that took a line
// from the tree, or looked for "\n" to find one, gets CR-only files wrong.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "asyncfix/linter.h"
#include "asyncfix/rules.h"
#include "test_util.h"

namespace fs = std::filesystem;
using asyncfix::testing::readFile;
using namespace asyncfix;

namespace {

/// `text` with each "\n" spelt `eol`.
std::string withLineEnds(std::string_view text, std::string_view eol) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') out += eol;
    else out += c;
  }
  return out;
}

std::string place(const Document &doc, std::size_t offset) {
  const Position p = doc.lines().position(offset, PositionEncoding::Utf32);
  return std::to_string(p.line + 1) + ":" + std::to_string(p.column + 1);
}

/// The diagnostics, one line each, with their fixes' edits; the edits' text with "\n" spelt `eol`
/// (the LF file's, to compare with another file's own).
std::string render(const Document &doc, const std::vector<Diagnostic> &diagnostics, std::string_view eol) {
  std::ostringstream out;
  for (const Diagnostic &d : diagnostics) {
    out << place(doc, d.start) << "-" << place(doc, d.end) << " " << d.code << " " << d.message << "\n";
    if (!d.fix) continue;
    out << "  fix [" << toString(d.fix->applicability) << "] " << d.fix->title << "\n";
    for (const TextEdit &e : d.fix->edits)
      out << "  " << place(doc, e.start) << "-" << place(doc, e.end) << " `" << withLineEnds(e.content, eol) << "`\n";
  }
  return out.str();
}

} // namespace

TEST_CASE("every rule's messages and fixes are the same with CR-only and CRLF line ends", "[fixtures][line-ends]") {
  for (const RuleInfo *rule : ruleCatalogue()) {
    const std::string lf = readFile(fs::path(ASYNCFIX_FIXTURES_DIR) / (std::string(rule->code) + ".py"));
    REQUIRE_FALSE(lf.empty());
    Config config;
    config.rules.select = {std::string(rule->code)};
    if (rule->code == "AF900") config.rules.extendSelect = {"ALL"}; // it judges the others' codes
    const Linter linter(config);
    const Document lfDoc(lf);
    const std::vector<Diagnostic> lfDiagnostics = linter.lint(lfDoc);
    REQUIRE_FALSE(lfDiagnostics.empty());
    const std::string lfFixed = fix(linter, lf, asyncfix::testing::unsafeFixes()).text;
    for (const std::string_view eol : {std::string_view("\r"), std::string_view("\r\n")}) {
      INFO("rule " << rule->code << (eol == "\r" ? ", CR-only" : ", CRLF"));
      const std::string source = withLineEnds(lf, eol);
      const Document doc(source);
      CHECK(doc.syntaxErrorCount() == lfDoc.syntaxErrorCount());
      CHECK(render(doc, linter.lint(doc), "\n") == render(lfDoc, lfDiagnostics, eol));
      CHECK(fix(linter, source, asyncfix::testing::unsafeFixes()).text == withLineEnds(lfFixed, eol));
    }
  }
}
