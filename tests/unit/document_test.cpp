#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <tuple>

#include "asyncfix/document.h"
#include "asyncfix/document_internals.h"
#include "asyncfix/incremental.h"
#include "asyncfix/linter.h"
#include "text/syntax.h"

using namespace asyncfix;

namespace {
std::string sexp(const Document &doc) {
  char *s = ts_node_string(ts_tree_root_node(DocumentInternals::tree(doc)));
  std::string out(s);
  free(s);
  return out;
}
} // namespace

TEST_CASE("Document edits re-parse incrementally to the same tree as a fresh parse", "[document]") {
  Document doc("def f():\n    x = y.cuda(non_blocking=True)\n    return x\n");
  const std::size_t at = doc.text().find("non_blocking");
  doc.edit(at, at + 12, "async");
  CHECK(doc.text() == "def f():\n    x = y.cuda(async=True)\n    return x\n");
  CHECK(sexp(doc) == sexp(Document(doc.text())));
  CHECK(Linter().lint(doc).size() == 1);

  // Multi-byte text and line changes before the edit point.
  doc.edit(0, 0, "# é€中😀\n\n");
  CHECK(doc.lines().lineCount() == 6);
  CHECK(sexp(doc) == sexp(Document(doc.text())));
  const auto diags = Linter().lint(doc);
  REQUIRE(diags.size() == 1);
  CHECK(doc.lines().position(diags[0].start, PositionEncoding::Utf16) == Position{3, 15});
}

TEST_CASE("Document random edits match fresh parses", "[document]") {
  std::mt19937 rng(12345);
  const char *pieces[] = {"async", "=", "(", ")", "\n", "    ", "x.cuda(", "é", "def f(a):", ",", "await ", "#"};
  Document doc("x = 1\n");
  for (int i = 0; i < 300; ++i) {
    const std::size_t a = rng() % (doc.text().size() + 1);
    const std::size_t b = std::min(doc.text().size(), a + rng() % 4);
    doc.edit(a, b, pieces[rng() % std::size(pieces)]);
    REQUIRE(doc.parsed());
    const Document fresh(doc.text());
    REQUIRE(sexp(doc) == sexp(fresh));
  }
}

TEST_CASE("Document edit offsets are clamped and snapped to character starts", "[document]") {
  Document doc("é = 1\n");
  doc.edit(1, 1, "x"); // inside é: snapped to its start
  CHECK(doc.text() == "xé = 1\n");
  doc.edit(100, 200, "\n");
  CHECK(doc.text() == "xé = 1\n\n");
  doc.reset("async = 1\n");
  CHECK(doc.syntaxErrorCount() == 0);
  Document moved = std::move(doc);
  CHECK(moved.text() == "async = 1\n");
  CHECK(moved.lines().lineCount() == 2);
}

TEST_CASE("Document counts ERROR and MISSING nodes", "[document]") {
  CHECK(Document("x = 1\n").syntaxErrorCount() == 0);
  CHECK(Document("x = (1\n").syntaxErrorCount() > 0);
  CHECK(Document("def f(:\n  pass\n").syntaxErrorCount() > 0);
  // A MISSING hidden token (`_newline` between two names) has no visible node but is an error:
  // found by the lint+fix fuzzer, whose "fixes keep a clean file clean" took this file as clean.
  const Document missing("x = 1\nasync \xC3\xA9\n");
  CHECK(missing.syntaxErrorCount() > 0);
  const std::string crash = "\xEF\xBB\xBFs = '\xC3\xA9 async'\r\nasync \xC3\xA9\r\n";
  const Document doc(crash);
  REQUIRE(doc.syntaxErrorCount() > 0);
  for (const Diagnostic &d : Linter().lint(doc)) // and what fix() applies still verifies
    if (d.fix) CHECK(fix(Linter(), crash, {}).converged);
}

TEST_CASE("Document parses on first use, merges edits, and re-parses after releaseTree", "[document]") {
  Document doc("def f(async):\n    return async\n");
  CHECK_FALSE(doc.holdsTree()); // nothing asked for the tree yet
  REQUIRE(doc.parsed());
  CHECK(doc.holdsTree());

  // Several edits before the tree is asked for again: one re-parse sees them all.
  std::mt19937 rng(7);
  const char *pieces[] = {"async", "(", ")", "\n", "x.cuda(", "é", ",", "await ", "#", "    "};
  for (int round = 0; round < 50; ++round) {
    for (int k = 0; k < 5; ++k) {
      const std::size_t a = rng() % (doc.text().size() + 1);
      doc.edit(a, std::min(doc.text().size(), a + rng() % 3), pieces[rng() % std::size(pieces)]);
    }
    CHECK(doc.holdsTree()); // edited, not yet re-parsed
    REQUIRE(sexp(doc) == sexp(Document(doc.text())));
  }

  doc.releaseTree();
  CHECK_FALSE(doc.holdsTree());
  doc.edit(0, 0, "import torch\n");
  CHECK(sexp(doc) == sexp(Document(doc.text())));
  CHECK(doc.holdsTree());
  doc.reset("x.cuda(async=True)\n");
  CHECK_FALSE(doc.holdsTree());
  CHECK(Linter().lint(doc).size() == 1);
}

TEST_CASE("Document: a lone CR ends a line for the parser, as in Python and LineIndex", "[document]") {
  for (const std::string eol : {"\n", "\r\n", "\r"}) {
    INFO("line break " << (eol == "\n" ? "LF" : eol == "\r\n" ? "CRLF" : "CR"));
    const std::string text = "def f(x):" + eol + "    # a comment" + eol + "    return x" + eol + "y = f(1)" + eol;
    const Document doc(text);
    CHECK(doc.syntaxErrorCount() == 0);
    // The tree's rows are LineIndex's lines.
    const TSNode last = ts_node_named_child(ts_tree_root_node(DocumentInternals::tree(doc)), 1);
    CHECK(ts_node_start_byte(last) == text.find("y = "));
    CHECK(ts_node_start_point(last).row == doc.lines().lineOf(text.find("y = ")));
  }
  // An incremental re-parse reads the lone CRs the same way.
  Document doc("x = 1\ry = 2\r");
  doc.edit(6, 6, "def f(a):\r    return a\r");
  CHECK(doc.syntaxErrorCount() == 0);
  CHECK(sexp(doc) == sexp(Document(doc.text())));
  // And the rules see the file as Python does: a parameter, renamed with its uses.
  const std::vector<Diagnostic> found = Linter().lint("def f(async):\r    return async\r");
  REQUIRE(found.size() == 2);
  CHECK(found[0].message.find("parameter name") != std::string::npos);
  CHECK(found[0].fix.has_value());
}

namespace {

/// The two trees have the same nodes: kind, byte range and children, walked in lockstep.
bool sameTree(TSNode a, TSNode b) {
  if (ts_node_symbol(a) != ts_node_symbol(b) || ts_node_start_byte(a) != ts_node_start_byte(b) ||
      ts_node_end_byte(a) != ts_node_end_byte(b) || ts_node_child_count(a) != ts_node_child_count(b) ||
      ts_node_is_missing(a) != ts_node_is_missing(b))
    return false;
  for (std::uint32_t i = 0; i < ts_node_child_count(a); ++i)
    if (!sameTree(ts_node_child(a, i), ts_node_child(b, i))) return false;
  return true;
}

std::string readFixture(const std::string &name) {
  std::FILE *f = std::fopen((std::string(ASYNCFIX_FIXTURES_DIR) + "/" + name).c_str(), "rb");
  REQUIRE(f != nullptr);
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) out.append(buffer, n);
  std::fclose(f);
  return out;
}

} // namespace

TEST_CASE("Document: edits that make and unmake lone CRs re-parse as a fresh parse", "[document]") {
  // The Document counts its lone CRs as it is edited (a parse reads no whole text to find them):
  // a CR whose LF is deleted, an LF typed after a CR, a byte typed between them, CRs at either
  // end of the text and of an edit.
  Document doc("x = 1\r\ny = 2\r\n");
  const auto check = [&] {
    INFO(doc.text());
    REQUIRE(doc.parsed());
    CHECK(sexp(doc) == sexp(Document(doc.text())));
  };
  check();
  doc.edit(6, 7, ""); // "x = 1\ry = 2\r\n": a lone CR
  check();
  doc.edit(6, 6, "\n"); // CRLF again
  check();
  doc.edit(6, 6, "z"); // "\rz\n": both end a line
  check();
  doc.edit(6, 7, ""); // CRLF again
  check();
  doc.edit(doc.text().size() - 1, doc.text().size(), ""); // a CR ends the text
  check();
  doc.edit(doc.text().size(), doc.text().size(), "\n");
  check();
  doc.edit(0, 0, "\r");
  check();
  doc.edit(0, 1, "w = 0\r");
  check();
  std::mt19937 rng(7);
  const char *pieces[] = {"\r", "\n", "\r\n", "x", "def f(a):", "    return a", "(", ")", ""};
  for (int i = 0; i < 400; ++i) {
    const std::size_t a = rng() % (doc.text().size() + 1);
    const std::size_t b = std::min(doc.text().size(), a + rng() % 3);
    doc.edit(a, b, pieces[rng() % std::size(pieces)]);
    check();
  }
}

TEST_CASE("an identifier respelled without a re-parse has the tree and findings of a fresh parse", "[document]") {
  std::mt19937 rng(41);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  const std::string letters = "abcdefghijklmnopqrstuvwxyzAEIOUTF_019";
  const Linter linter;
  std::size_t skipped = 0, total = 0;
  for (const char *name : {"AF001.py", "AF002.py", "AF101.py", "AF102.py", "AF103.py", "AF105.py", "AF201.py",
                           "AF202.py", "AF001.fixed.py", "AF101.fixed.py"}) {
    INFO(name);
    const std::string original = readFixture(name);
    Document doc(original);
    REQUIRE(doc.parsed());
    for (int step = 0; step < 150; ++step) {
      const std::string &text = doc.text();
      // A place inside or at the end of a word, and an edit of name characters there.
      std::size_t at = 1 + pick(text.size() - 1);
      const auto word = [&](std::size_t i) {
        const char c = text[i];
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      };
      if (!word(at - 1)) continue;
      std::size_t end = at;
      std::string insert;
      if (pick(3) == 0 && at < text.size() && word(at)) end = at + 1; // delete a character
      else
        for (std::size_t k = 1 + pick(2); k > 0; --k) insert += letters[pick(letters.size())];
      if (pick(4) == 0) insert = std::string(pick(2) ? "f" : "e"); // near-keywords: `if`, `def`, `else`
      INFO("step " << step << ": " << at << ".." << end << " -> " << insert);
      doc.edit(at, end, insert);
      ++total;
      if (!DocumentInternals::treeIsCurrent(doc)) { // a re-parse is due: take it, then go on
        ++skipped;
        if (doc.syntaxErrorCount() > 0) doc.reset(original); // from a clean tree again
        doc.parsed();
        continue;
      }
      const Document fresh(doc.text());
      REQUIRE(sameTree(ts_tree_root_node(DocumentInternals::heldTree(doc)),
                       ts_tree_root_node(DocumentInternals::tree(fresh))));
      REQUIRE(linter.lint(doc) == linter.lint(fresh));
    }
  }
  // Most of these edits respell a name: the test is about them, so they must have happened.
  CHECK(total - skipped > total / 3);
}

TEST_CASE("respelling a name into a word of the grammar re-parses", "[document]") {
  for (const auto &[text, at, insert] : {std::tuple{"x = 1\ni = 2\n", 7, "f"},             // `if`
                                         std::tuple{"from __future_ import a\n", 13, "_"}, // `__future__`
                                         std::tuple{"x = Tru\n", 7, "e"},                  // `True`
                                         std::tuple{"y = prin\n", 8, "t"}}) {              // `print`
    INFO(text);
    Document doc(text);
    REQUIRE(doc.parsed());
    REQUIRE(doc.syntaxErrorCount() == 0);
    doc.edit(static_cast<std::size_t>(at), static_cast<std::size_t>(at), insert);
    CHECK_FALSE(DocumentInternals::treeIsCurrent(doc));
    CHECK(sexp(doc) == sexp(Document(doc.text())));
  }
  Document doc("x = Tru\n");
  doc.parsed();
  doc.edit(7, 7, "th"); // `Truth`: a name still
  CHECK(DocumentInternals::treeIsCurrent(doc));
}

namespace {

/// Each statement's kind, range and syntax, one per line: what a mismatch shows.
std::string describeStatements(const std::vector<TSNode> &statements) {
  std::string out;
  for (const TSNode node : statements) {
    char *s = ts_node_string(node);
    out += std::to_string(ts_node_start_byte(node)) + ".." + std::to_string(ts_node_end_byte(node)) + " " + s + "\n";
    free(s);
  }
  return out;
}

std::vector<TSNode> childrenOf(TSNode root) {
  std::vector<TSNode> out;
  for (std::uint32_t i = 0, n = ts_node_child_count(root); i < n; ++i) out.push_back(ts_node_child(root, i));
  return out;
}

/// Training code: top-level functions, a module-level loop, a class.
std::string trainingModule(int functions) {
  std::string t = "import torch\n\nmodel = torch.nn.Linear(2, 2)\n\n";
  for (int i = 0; i < functions; ++i) {
    const std::string n = std::to_string(i);
    t += "def step_" + n + "(batch, device):\n    images, target = batch\n";
    t += i % 9 == 4 ? "    images = images.cuda(async=True)\n" : "    images = images.to(device, non_blocking=True)\n";
    t += "    return model(images).sum() * " + n + ", target\n\n";
  }
  t += "for x in range(3):\n    y = x.to('cpu', non_blocking=True)\n    print(y)\n";
  t += "\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x.cuda(async=True)\n";
  return t;
}

} // namespace

TEST_CASE("a chunked document has the statements of a whole parse wherever it is clean", "[document][chunks]") {
  // Typing into a large file re-parses only the statements around the edits (an overlay). Where
  // the overlay parses cleanly, the statements, their syntax and the findings must be those of a
  // fresh parse of the whole text; where it does not, a whole re-parse may recover differently,
  // but the statements still tile the text in order.
  const std::string source = trainingModule(80);
  const std::vector<std::string> typed{"    y = batch.cuda(async=True)\n",
                                       "def extra(a, async=False):\n    return a\n\n", "x = [1,\n     2]\n",
                                       "s = '''doc\n'''\n", "        z = (\n"};
  const Linter linter;
  std::mt19937 rng(11);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  std::size_t cleanChunked = 0, brokenChunked = 0, folds = 0;
  for (int trace = 0; trace < 24; ++trace) {
    Document doc(source);
    DocumentInternals::setChunking(doc, 1);
    REQUIRE(doc.parsed());
    // Where to type: the start of a line, anywhere in the file.
    std::vector<std::size_t> lineStarts{0};
    for (std::size_t i = 0; i < source.size(); ++i)
      if (source[i] == '\n' && i + 1 < source.size()) lineStarts.push_back(i + 1);
    std::size_t at = lineStarts[pick(lineStarts.size())];
    const std::string &piece = typed[pick(typed.size())];
    std::vector<std::pair<std::size_t, std::string>> steps; // (offset, insertion) or backspace ("")
    for (std::size_t k = 0; k < piece.size(); ++k) steps.emplace_back(at + k, piece.substr(k, 1));
    for (std::size_t k = piece.size(); k > 0; --k) steps.emplace_back(at + k, "");
    for (std::size_t s = 0; s < steps.size(); ++s) {
      const auto &[offset, insert] = steps[s];
      if (insert.empty()) doc.edit(offset - 1, offset, "");
      else doc.edit(offset, offset, insert);
      if (s == steps.size() / 2 && trace % 3 == 0) { // an edit elsewhere: the overlay folds back
        const std::size_t elsewhere = lineStarts[pick(lineStarts.size())];
        if (elsewhere + 20 < at || elsewhere > at + piece.size() + 20) {
          const bool before = elsewhere < at;
          doc.edit(elsewhere, elsewhere, "#\n");
          if (before)
            for (std::size_t r = s + 1; r < steps.size(); ++r) steps[r].first += 2;
          at += before ? 2 : 0;
          ++folds;
        }
      }
      INFO("trace " << trace << ", step " << s << ", typing `" << piece << "` at " << at);
      const std::vector<TSNode> statements = DocumentInternals::statements(doc);
      for (std::size_t i = 0; i + 1 < statements.size(); ++i)
        REQUIRE(ts_node_end_byte(statements[i]) <= ts_node_start_byte(statements[i + 1]));
      if (!statements.empty()) REQUIRE(ts_node_end_byte(statements.back()) <= doc.text().size());
      if (DocumentInternals::hasError(doc)) {
        brokenChunked += DocumentInternals::chunked(doc) ? 1 : 0;
        continue;
      }
      cleanChunked += DocumentInternals::chunked(doc) ? 1 : 0;
      const Document fresh(doc.text());
      REQUIRE(describeStatements(statements) ==
              describeStatements(childrenOf(ts_tree_root_node(DocumentInternals::tree(fresh)))));
      REQUIRE(linter.lint(doc) == linter.lint(fresh));
    }
    // Asking for the whole tree folds the chunks back into one.
    DocumentInternals::tree(doc);
    CHECK_FALSE(DocumentInternals::chunked(doc));
    CHECK(describeStatements(DocumentInternals::statements(doc)) ==
          describeStatements(childrenOf(ts_tree_root_node(DocumentInternals::tree(Document(doc.text()))))));
  }
  // The cases this is about happened.
  CHECK(cleanChunked > 100);
  CHECK(brokenChunked > 50);
  CHECK(folds > 3);
}

TEST_CASE("a chunked document: typing at the next statement's start is not the overlay's", "[document][chunks]") {
  // The overlay ends where the next statement starts: a character typed there joins that
  // statement (`xdef f():` is a syntax error), which a parse of the overlay alone cannot see.
  const std::string source = trainingModule(40);
  Document doc(source);
  DocumentInternals::setChunking(doc, 1);
  REQUIRE(doc.parsed());
  const std::size_t body = source.find("    return", source.find("def step_20("));
  doc.edit(body, body, "    y = 1\n");
  REQUIRE(DocumentInternals::statements(doc).size() ==
          childrenOf(ts_tree_root_node(DocumentInternals::tree(Document(doc.text())))).size());
  REQUIRE(DocumentInternals::chunked(doc));
  const std::size_t next = doc.text().find("def step_21(");
  doc.edit(next, next, "x");
  const Document fresh(doc.text());
  REQUIRE(fresh.syntaxErrorCount() > 0);
  CHECK(DocumentInternals::hasError(doc));
  CHECK(doc.syntaxErrorCount() > 0);
}

namespace {

/// The diagnostics, one per line (code, range, fix edits and applicability): what a mismatch shows.
std::string describeFindings(const std::vector<Diagnostic> &diagnostics) {
  std::string out;
  for (const Diagnostic &d : diagnostics) {
    out += std::string(d.code) + " [" + std::to_string(d.start) + ", " + std::to_string(d.end) + ")";
    if (d.fix) {
      out += d.fix->applicability == Applicability::Safe ? " safe" : " unsafe";
      for (const TextEdit &e : d.fix->edits)
        out += " {" + std::to_string(e.start) + "," + std::to_string(e.end) + ":" + e.content + "}";
    }
    out += "\n";
  }
  return out;
}

/// A chunked document of `source`, its overlay started by a space typed after `anchor`'s `=`.
Document chunkedAt(const std::string &source, const std::string &anchor) {
  Document doc(source);
  DocumentInternals::setChunking(doc, 1);
  REQUIRE(doc.parsed());
  const std::size_t at = source.find(anchor);
  REQUIRE(at != std::string::npos);
  const std::size_t eq = source.find('=', at);
  doc.edit(eq + 1, eq + 1, " ");
  REQUIRE(DocumentInternals::chunked(doc));
  return doc;
}

/// Whether `doc` (chunked) has what a whole parse of its text has: the statements, the syntax
/// errors' presence, the findings with their fixes.
void requireAsWhole(const Document &doc) {
  const Document fresh(doc.text());
  CHECK(DocumentInternals::hasError(doc) == DocumentInternals::hasError(fresh));
  CHECK(describeStatements(DocumentInternals::statements(doc)) ==
        describeStatements(DocumentInternals::statements(fresh)));
  CHECK(describeFindings(Linter().lint(doc)) == describeFindings(Linter().lint(fresh)));
}

std::string withLineEnds(const std::string &text, const char *eol) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') out += eol;
    else out += c;
  }
  return out;
}

} // namespace

TEST_CASE("a chunked document: a first line that continues the statement before is not parsed alone",
          "[document][chunks]") {
  // An indented line alone parses cleanly (`    x = 1`), but after a function it is that
  // function's body: an overlay whose first statement does not start its line is parsed with the
  // rest of the text.
  std::string source = "import torch\n\n";
  for (int i = 0; i < 40; ++i) source += "def f" + std::to_string(i) + "(x):\n    return x\n";
  source += "async = 1\n";
  for (int i = 40; i < 80; ++i) source += "def f" + std::to_string(i) + "(x):\n    return x\n";
  SECTION("indentation typed at its start") {
    Document doc = chunkedAt(source, "async = 1");
    const std::size_t at = doc.text().find("async =");
    doc.edit(at, at, "    "); // a local of f39 now: its rename is safe
    requireAsWhole(doc);
    doc.edit(at, at + 4, "\t");
    requireAsWhole(doc);
  }
  SECTION("its first line commented out") {
    const std::string text = trainingModule(40);
    Document doc =
        chunkedAt(text, "images = images.to(device, non_blocking=True)\n    return model(images).sum() * 20");
    const std::size_t def = doc.text().find("def step_20(");
    REQUIRE(DocumentInternals::overlay(doc).start == def);
    doc.edit(def, def, "# "); // its body continues step_19's
    requireAsWhole(doc);
  }
  SECTION("a line continuation before it") {
    Document doc = chunkedAt(source, "async = 1");
    const std::size_t at = doc.text().find("async =");
    doc.edit(at, at, "\\\n\t");
    requireAsWhole(doc);
  }
}

TEST_CASE("a chunked document: a backslash at the end of the edited statements joins the next", "[document][chunks]") {
  std::string source;
  for (int i = 0; i < 40; ++i) {
    source += "v_" + std::to_string(i) + " = " + std::to_string(i) + "\n";
    if (i == 10) source += "[async] = [1]\n";
  }
  Document doc = chunkedAt(source, "v_10 =");
  const std::size_t eol = doc.text().find('\n', doc.text().find("v_10 ="));
  doc.edit(eol, eol, " \\"); // `v_10 =  10 \` and `[async] = [1]`: one statement, a subscript
  requireAsWhole(doc);
  doc.edit(eol, eol + 2, "");
  requireAsWhole(doc);
}

TEST_CASE("a chunked document: a deletion to the end of the text leaves no statements behind", "[document][chunks]") {
  // ts_tree_edit shrinks the statements a deletion swallows to zero width at its start, which for
  // a deletion to the end is the text's end: neither the statements after an overlay that ends
  // the text nor the spans kept when it is made may list them.
  std::string text = "import torch\n";
  for (int i = 0; i < 20; ++i) text += "v" + std::to_string(i) + " = torch.zeros(1).cuda(async=True)\n";
  text += "b = 2\nc = 3\nd = 4\n";
  const std::size_t b = text.find("b = 2");
  const auto check = [](const Document &doc) {
    const Document fresh(doc.text());
    REQUIRE(DocumentInternals::chunked(doc));
    REQUIRE_FALSE(DocumentInternals::hasError(doc));
    const std::vector<DocumentInternals::Span> spans = DocumentInternals::statementSpans(doc);
    for (std::size_t i = 0; i < spans.size(); ++i) DocumentInternals::statement(doc, i);
    CHECK(DocumentInternals::statementLookupMisses(doc) == 0);
    CHECK(describeStatements(DocumentInternals::statements(doc)) ==
          describeStatements(DocumentInternals::statements(fresh)));
    CHECK(spans.size() == DocumentInternals::statements(fresh).size());
  };
  SECTION("the deletion makes the overlay") {
    Document doc(text);
    DocumentInternals::setChunking(doc, 1);
    REQUIRE(DocumentInternals::statementSpans(doc).size() == 24);
    doc.edit(b + 6, text.size(), ""); // a selection from `c = 3` to the end
    check(doc);
  }
  SECTION("the deletion is inside an overlay that ends the text") {
    Document doc(text);
    DocumentInternals::setChunking(doc, 1);
    REQUIRE(doc.parsed());
    const std::size_t c = text.find("c = 3");
    doc.edit(c + 4, text.size() - 2, "33\nd = 44"); // an overlay over `c = 33` and `d = 44`, to the end
    REQUIRE(DocumentInternals::chunked(doc));
    REQUIRE(DocumentInternals::overlay(doc).end == doc.text().size());
    doc.edit(c + 6, doc.text().size(), ""); // `c = 33` stays
    check(doc);
  }
}

TEST_CASE("a chunked document: asking for the whole tree folds the chunks, also before a re-parse",
          "[document][chunks]") {
  const std::string source = trainingModule(40);
  Document doc(source);
  DocumentInternals::setChunking(doc, 1);
  REQUIRE(doc.parsed());
  const std::size_t body = source.find("    return", source.find("def step_20("));
  doc.edit(body, body, "    y = 1\n"); // not parsed yet
  const TSTree *tree = DocumentInternals::tree(doc);
  CHECK_FALSE(DocumentInternals::chunked(doc));
  CHECK(describeStatements(childrenOf(ts_tree_root_node(tree))) ==
        describeStatements(childrenOf(ts_tree_root_node(DocumentInternals::tree(Document(doc.text()))))));
}

TEST_CASE("chunked documents under random edits equal a whole parse wherever they are clean", "[document][chunks]") {
  // Random edits anywhere (code, brackets, quotes, line ends of every kind, indentation,
  // backslashes), undone now and then, with the language server's quiet-time fold; LF, CRLF,
  // CR-only and BOM texts. At every step: the statements tile the text, the incremental lint
  // equals a lint of the same trees, and where the chunks are clean, the statements, findings
  // and fix verdicts are those of a whole parse.
  const std::vector<std::string> pieces{"(",
                                        ")",
                                        "[",
                                        "]",
                                        "'",
                                        "\"",
                                        "'''",
                                        "\n",
                                        "\r\n",
                                        "\r",
                                        "    ",
                                        "\t",
                                        "\\",
                                        "x",
                                        "async",
                                        " = 1",
                                        "def g():\n    pass\n",
                                        "if x:\n",
                                        "else:\n",
                                        "# c\n",
                                        "y = a.cuda(async=True)\n",
                                        ":",
                                        ",",
                                        "@d\n",
                                        "\xC3\xA9",
                                        "\\\n",
                                        "class C:\n",
                                        "    z = b.to('cpu', non_blocking=True)\n    z.numpy()\n",
                                        "# noqa\n",
                                        "try:\n",
                                        "except TypeError:\n",
                                        "f'{"};
  const std::string base = trainingModule(30);
  const std::vector<std::string> sources{base, withLineEnds(base, "\r\n"), withLineEnds(base, "\r"),
                                         "\xEF\xBB\xBF" + base};
  const Linter linter;
  std::mt19937 rng(7);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  std::size_t cleanChunked = 0, fixesCompared = 0;
  for (int trace = 0; trace < 12; ++trace) {
    Document doc(sources[static_cast<std::size_t>(trace) % sources.size()]);
    DocumentInternals::setChunking(doc, 1);
    IncrementalLint inc;
    REQUIRE(doc.parsed());
    inc.update(linter, doc);
    std::vector<std::tuple<std::size_t, std::size_t, std::string>> undo;
    const auto apply = [&](std::size_t s, std::size_t e, const std::string &r) {
      const std::string &t = doc.text();
      s = std::min(s, t.size());
      e = std::min(std::max(s, e), t.size());
      undo.emplace_back(s, s + r.size(), t.substr(s, e - s));
      inc.willEdit(doc, s, e, r);
      doc.edit(s, e, r);
    };
    const auto check = [&](int step) {
      INFO("trace " << trace << ", step " << step);
      // First the incremental lint, which asks for spans and looks up single statements, then
      // the same by the list of statements().
      const auto &got = inc.update(linter, doc);
      const std::vector<DocumentInternals::Span> spans = DocumentInternals::statementSpans(doc);
      std::vector<TSNode> looked;
      for (std::size_t i = 0; i < spans.size(); ++i) looked.push_back(DocumentInternals::statement(doc, i));
      REQUIRE(DocumentInternals::statementLookupMisses(doc) == 0);
      const std::vector<TSNode> statements = DocumentInternals::statements(doc);
      REQUIRE(spans.size() == statements.size());
      for (std::size_t i = 0; i < statements.size(); ++i) {
        REQUIRE(spans[i].start == ts_node_start_byte(statements[i]));
        REQUIRE(spans[i].end == ts_node_end_byte(statements[i]));
        REQUIRE(ts_node_eq(looked[i], statements[i]));
      }
      for (std::size_t i = 0; i + 1 < statements.size(); ++i)
        REQUIRE(ts_node_end_byte(statements[i]) <= ts_node_start_byte(statements[i + 1]));
      REQUIRE(describeFindings(got) == describeFindings(linter.lint(doc)));
      if (!DocumentInternals::chunked(doc) || DocumentInternals::hasError(doc)) return;
      ++cleanChunked;
      const Document fresh(doc.text());
      REQUIRE(describeStatements(statements) == describeStatements(DocumentInternals::statements(fresh)));
      REQUIRE(describeFindings(got) == describeFindings(linter.lint(fresh)));
      for (const Diagnostic &d : got)
        if (d.fix && step % 4 == 0) {
          REQUIRE(verifyFix(doc, *d.fix) == verifyFix(fresh, *d.fix));
          ++fixesCompared;
        }
    };
    for (int step = 0; step < 120; ++step) {
      const std::string &t = doc.text();
      const std::size_t kind = pick(10), at = pick(t.size() + 1);
      if (kind < 6) {
        std::size_t where = at;
        if (kind < 2)
          while (where > 0 && t[where - 1] != '\n' && t[where - 1] != '\r') --where;
        if (kind == 2)
          while (where < t.size() && t[where] != '\n' && t[where] != '\r') ++where;
        apply(where, where, pieces[pick(pieces.size())]);
      } else {
        apply(at, at + 1 + pick(kind == 9 ? 60 : 8), "");
      }
      check(step);
      if (DocumentInternals::hasError(doc) || pick(5) == 0) { // take it back
        const auto [s, e, r] = undo.back();
        undo.pop_back();
        apply(s, e, r);
        undo.pop_back();
        check(step);
      }
      if (step % 30 == 29) { // the language server's quiet time
        DocumentInternals::tree(doc);
        check(step);
      }
    }
  }
  CHECK(cleanChunked > 500);
  CHECK(fixesCompared > 50);
}

TEST_CASE("Document: a parse asked to stop gives up, and the next parse is whole", "[document]") {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "def f" + std::to_string(i) + "(x):\n    return g(x,\n";
  for (const bool loneCr : {false, true}) { // both ways of reading the text
    const std::string source = loneCr ? text + "y = 1\rz = 2\r" : text;
    const Document doc(source);
    int asked = 0;
    CHECK_FALSE(DocumentInternals::parseUnless(doc, [&] { return ++asked > 3; }));
    CHECK(asked > 3);
    CHECK_FALSE(DocumentInternals::treeIsCurrent(doc));
    // The same thread's parser starts afresh: the tree is a whole parse's.
    REQUIRE(DocumentInternals::parseUnless(doc, [] { return false; }));
    const Document fresh(source);
    CHECK(sameTree(ts_tree_root_node(DocumentInternals::heldTree(doc)),
                   ts_tree_root_node(DocumentInternals::tree(fresh))));
    CHECK(doc.syntaxErrorCount() == fresh.syntaxErrorCount());
  }
}
