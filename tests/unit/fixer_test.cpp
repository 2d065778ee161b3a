#include <catch2/catch.hpp>

#include <algorithm>

#include "asyncfix/document_internals.h"
#include "asyncfix/linter.h"
#include "engine/edit_map.h"
#include "test_util.h"

using namespace asyncfix;

TEST_CASE("fix applies every safe fix in one call and is idempotent", "[fixer]") {
  const Linter linter;
  const std::string src = "def f(x):\n    async = x.cuda(async=True)\n    return async.to(d, async=async)\n";
  const FixResult r = fix(linter, src);
  CHECK(r.text == "def f(x):\n    async_ = x.cuda(non_blocking=True)\n    return async_.to(d, non_blocking=async_)\n");
  CHECK(r.changed);
  CHECK(r.converged);
  CHECK(r.remaining.empty());
  CHECK(r.fixedDiagnostics == 5); // 3 AF001 (one rename) + 2 AF101
  CHECK_FALSE(fix(linter, r.text).changed);
}

TEST_CASE("fix leaves unsafe fixes alone unless asked, and reports what remains", "[fixer]") {
  const Linter linter;
  const std::string src = "async = 1\nx.cuda(async=True)\n";
  const FixResult safe = fix(linter, src);
  CHECK(safe.text == "async = 1\nx.cuda(non_blocking=True)\n");
  REQUIRE(safe.remaining.size() == 1);
  CHECK(safe.remaining[0].code == "AF001");
  FixOptions unsafe;
  unsafe.unsafe = true;
  CHECK(fix(linter, src, unsafe).text == "async_ = 1\nx.cuda(non_blocking=True)\n");
}

TEST_CASE("fix honours a filter (fix all of one code)", "[fixer]") {
  const Linter linter;
  FixOptions only101;
  only101.filter = [](const Diagnostic &d) { return d.code == "AF101"; };
  const FixResult r = fix(linter, "def f():\n    async = 1\n    return x.cuda(async=async)\n", only101);
  CHECK(r.text == "def f():\n    async = 1\n    return x.cuda(non_blocking=async)\n");
  CHECK(r.remaining.size() == 2);
}

TEST_CASE("a text with nothing to fix is returned untouched", "[fixer]") {
  const Linter linter;
  for (const char *src : {"", "x = 1", "async def f():\n    await g()\n", "\xEF\xBB\xBFx = 1\r\n"}) {
    const FixResult r = fix(linter, src);
    CHECK(r.text == src);
    CHECK_FALSE(r.changed);
    CHECK(r.fixedDiagnostics == 0);
  }
}

TEST_CASE("fix keeps a broken file no more broken than it was", "[fixer]") {
  const Linter linter;
  const std::string src = "x = y.cuda(async=\nz.cuda(async=True)\ndef f(:\n";
  const FixResult r = fix(linter, src, asyncfix::testing::unsafeFixes());
  CHECK(Document(r.text).syntaxErrorCount() <= Document(src).syntaxErrorCount());
  CHECK(fix(linter, r.text, asyncfix::testing::unsafeFixes()).text == r.text);
}

TEST_CASE("verifyFix accepts the engine's fixes and rejects one that breaks the parse", "[fixer]") {
  const Document doc("def f(x):\n    return x.cuda(async=True)\n");
  const auto diags = Linter().lint(doc);
  REQUIRE(diags.size() == 1);
  REQUIRE(diags[0].fix);
  CHECK(verifyFix(doc, *diags[0].fix));
  const Fix broken{"break it", Applicability::Safe, {{diags[0].start, diags[0].end, "("}}};
  CHECK_FALSE(verifyFix(doc, broken));
}

TEST_CASE("verifyFix on a chunked document decides from the edited statements alone", "[fixer][chunks]") {
  // An editor's document while typing: the statements around the edits are parsed on their own.
  // Verifying a fix there must not re-parse the whole text (the chunks stay), and must agree
  // with a verification of the whole text.
  std::string text = "import torch\n\n";
  for (int i = 0; i < 200; ++i)
    text += "def f" + std::to_string(i) + "(x):\n    return x.to('cuda', non_blocking=True)\n\n";
  Document doc(text);
  DocumentInternals::setChunking(doc, 1);
  REQUIRE(doc.parsed());
  const std::size_t at = doc.text().find("    return", doc.text().find("def f100("));
  const std::string typed = "    y = x.cuda(async=True)\n";
  doc.edit(at, at, typed);
  REQUIRE(DocumentInternals::chunked(doc));
  const auto diags = Linter().lint(doc);
  const auto found = std::find_if(diags.begin(), diags.end(), [&](const Diagnostic &d) { return d.start > at; });
  REQUIRE(found != diags.end());
  REQUIRE(found->fix);
  const Document whole(doc.text());
  CHECK(verifyFix(doc, *found->fix));
  CHECK(verifyFix(whole, *found->fix));
  CHECK(DocumentInternals::chunked(doc)); // decided without folding the chunks back
  const Fix broken{"break it", Applicability::Safe, {{found->start, found->end, "("}}};
  CHECK_FALSE(verifyFix(doc, broken));
  CHECK_FALSE(verifyFix(whole, broken));
  CHECK(DocumentInternals::chunked(doc));
  // A fix that reaches outside the edited statements is verified on the whole text.
  const Fix far{"far", Applicability::Safe, {{2, 2, "("}}};
  CHECK_FALSE(verifyFix(doc, far));
  CHECK_FALSE(verifyFix(whole, far));
}

TEST_CASE("verifyFix on a chunked document with lone CR line ends", "[fixer][chunks]") {
  // The parser is shown each lone CR as a line break (as Python reads it): the edited
  // statements, re-parsed with a fix, must be read the same way.
  std::string text = "import torch\r\r";
  for (int i = 0; i < 100; ++i) text += "def f" + std::to_string(i) + "(x):\r    return x\r\r";
  text += "try:\r    y = x.cuda(non_blocking=True)\r    z = 1\rexcept TypeError:\r    y = x.cuda(async=True)\r";
  for (int i = 100; i < 200; ++i) text += "def f" + std::to_string(i) + "(x):\r    return x\r\r";
  Document doc(text);
  DocumentInternals::setChunking(doc, 1);
  REQUIRE(doc.parsed());
  const std::size_t at = doc.text().find("z = 1");
  doc.edit(at + 3, at + 3, " "); // the try statement is parsed on its own
  REQUIRE(DocumentInternals::chunked(doc));
  REQUIRE_FALSE(DocumentInternals::hasError(doc));
  const auto diags = Linter().lint(doc);
  REQUIRE_FALSE(diags.empty());
  for (const Diagnostic &d : diags) {
    INFO(d.code);
    REQUIRE(d.fix);
    CHECK(verifyFix(doc, *d.fix));
    CHECK(verifyFix(Document(doc.text()), *d.fix));
  }
}

TEST_CASE("applyEdits splices sorted edits", "[fixer]") {
  CHECK(applyEdits("abcdef", {{1, 2, "X"}, {4, 4, "YY"}, {5, 6, ""}}) == "aXcdYYe");
  CHECK(applyEdits("", {{0, 0, "z"}}) == "z");
}

TEST_CASE("mapBack maps offsets after edits to offsets before them", "[fixer]") {
  // "abcdef" → "aXXcdYe": b → XX (grows by 1), insert Y at 5, f deleted... as edits on the old text:
  const std::vector<TextEdit> edits{{1, 2, "XX"}, {4, 4, "Y"}, {5, 6, ""}};
  const std::string after = applyEdits("abcdef", edits);
  REQUIRE(after == "aXXcdYe");
  CHECK(mapBack(0, edits, false) == 0); // a
  CHECK(mapBack(3, edits, false) == 2); // c
  CHECK(mapBack(4, edits, false) == 3); // d
  CHECK(mapBack(1, edits, false) == 1); // start of XX → start of b
  CHECK(mapBack(2, edits, false) == 1); // inside XX → start of b
  CHECK(mapBack(3, edits, true) == 2);  // end of XX → end of b
  CHECK(mapBack(6, edits, false) == 4); // e: after the insert
  CHECK(mapBack(7, edits, true) == 6);  // end of text
  // Every character outside the edits maps back to itself in the old text.
  const std::string before = "abcdef";
  for (std::size_t i : {0u, 3u, 4u, 6u}) CHECK(before[mapBack(i, edits, false)] == after[i]);
}
