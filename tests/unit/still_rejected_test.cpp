// engine/still_rejected.h: a text the prefilter rejected as a whole is judged again from the
// statements an edit touches only while it holds no word whose judgement reads beyond its
// statement. Checked against the prefilter itself: every string its sources spell, typed into
// rejected texts in every context, and the traces an editor makes (a first `async`, `await`, a
// first `import torch`, `torch` in a string or a comment, a quote that opens a string over the
// rest of the file): wherever an update keeps the text rejected by the edited statements alone,
// the prefilter's answer for the whole text is "rejected" too, and the findings are the CLI's.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "asyncfix/document.h"
#include "asyncfix/document_internals.h"
#include "asyncfix/incremental.h"
#include "asyncfix/linter.h"
#include "engine/still_rejected.h"
#include "test_util.h"

using namespace asyncfix;
namespace fs = std::filesystem;

namespace {

/// A script the prefilter rejects with no word that reads beyond its statement: `.to(` calls
/// without a bool, a coroutine without `await`, the words in strings and comments, a `noqa`
/// naming no AF code.
const std::string kBase =
    "import os\n\ndevice = 'cuda'\n\n"
    "def move(batch):\n    \"\"\"Moves a batch: `x.to(device, True)`, async.\"\"\"\n"
    "    x, y = batch\n    return x.to(device), y.to(device)\n\n\n"
    "async def fetch(queue):\n    item = queue.get()  # noqa: E501\n    return item\n\n"
    "class Step:\n    name = 'step async'\n\n    def run(self, x):\n"
    "        # async in a comment, x.to(y, True) too\n        return [v.to(device) for v in x]\n\n"
    "total = sum(len(str(k)) for k in range(3))\nlabel = 'to go'\n";

/// The diagnostics, one per line: what a mismatch shows.
std::string describe(const std::vector<Diagnostic> &diagnostics) {
  std::string out;
  for (const Diagnostic &d : diagnostics)
    out +=
        std::string(d.code) + " [" + std::to_string(d.start) + ", " + std::to_string(d.end) + ") " + d.message + "\n";
  return out;
}

struct Typed {
  std::size_t keystrokes = 0, judgedLocally = 0, kept = 0; ///< kept: the whole text no longer rejected
};

/// Types `typed` into `source` at `at` (one character per edit, or all at once), the text held
/// as the language server holds a rejected one; checks every update against the CLI's findings
/// and every local rejection against the prefilter's whole answer.
Typed typeInto(const Linter &linter, const std::string &source, std::size_t at, std::string_view typed,
               bool oneEdit = false) {
  Document doc(source);
  REQUIRE(!linter.mayHaveFindings(doc.text()));
  REQUIRE(doc.parsed());
  IncrementalLint inc;
  inc.adoptRejected(linter, doc);
  Typed t;
  const std::size_t step = oneEdit ? typed.size() : 1;
  for (std::size_t k = 0; k < typed.size(); k += step) {
    const std::string piece(typed.substr(k, step));
    inc.willEdit(doc, at + k, at + k, piece);
    doc.edit(at + k, at + k, piece);
    const auto &got = inc.update(linter, doc);
    const bool maybe = linter.mayHaveFindings(doc.text());
    INFO("typed " << typed.substr(0, k + step) << " into:\n" << doc.text());
    if (inc.stats().rejectedLocally) REQUIRE(!maybe);
    REQUIRE(describe(got) == describe(maybe ? linter.lint(doc) : std::vector<Diagnostic>{}));
    ++t.keystrokes;
    t.judgedLocally += inc.stats().rejectedLocally ? 1 : 0;
    t.kept += maybe ? 1 : 0;
  }
  return t;
}

/// Where to type in kBase: a blank line between two statements, a function's body, the end.
struct Place {
  std::size_t at;
  std::string indent;
};
std::vector<Place> places() {
  return {{kBase.find("\n\n\nasync def") + 2, ""}, {kBase.find("    x, y = batch"), "    "}, {kBase.size(), ""}};
}

/// The string literals of the prefilter's sources (lib/src/text/prefilter*, torch_words*), each
/// whole and each identifier in it: whatever word a judgement may look for.
std::vector<std::string> prefilterVocabulary() {
  std::set<std::string> words;
  for (const auto &entry : fs::directory_iterator(fs::path(ASYNCFIX_SOURCE_DIR) / "lib" / "src" / "text")) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("prefilter") && !name.starts_with("torch_words")) continue;
    const std::string src = asyncfix::testing::readFile(entry.path());
    for (std::size_t i = src.find('"'); i != std::string::npos; i = src.find('"', i + 1)) {
      if (i > 0 && src[i - 1] == '\'') continue; // the character literal '"'
      const std::size_t end = src.find_first_of("\"\n\\", i + 1);
      if (end == std::string::npos) break;
      if (src[end] != '"') {
        i = end;
        continue;
      }
      const std::string literal = src.substr(i + 1, end - i - 1);
      i = end;
      if (literal.empty() || literal.size() > 40) continue;
      words.insert(literal);
      for (std::size_t k = 0; k < literal.size();) {
        std::size_t e = k;
        while (e < literal.size() && (std::isalnum(static_cast<unsigned char>(literal[e])) || literal[e] == '_')) ++e;
        if (e > k) words.insert(literal.substr(k, e - k));
        k = e + 1;
      }
    }
  }
  return {words.begin(), words.end()};
}

} // namespace

TEST_CASE("a rejected text's edits: the first async, await, import torch, torch in strings, an open quote",
          "[incremental][still_rejected]") {
  const Linter linter;
  const std::vector<Place> at = places();
  // A statement of its own typed between two functions: judged locally while it is clean, until
  // `async` alone (a name) makes the file worth linting.
  Typed t = typeInto(linter, kBase, at[0].at, "x = 1\nasync def prefetch(queue):\n    return queue\n");
  CHECK(t.judgedLocally >= 4);
  CHECK(t.kept > 0);
  t = typeInto(linter, kBase, at[1].at, "z = 2\n    q = await (z)\n    ");
  CHECK(t.judgedLocally >= 3);
  CHECK(t.kept > 0); // `await (z)` outside a coroutine is a name
  // A first `import torch` (`numpy`), and the package in a string and a comment: in a text with
  // no AF3xx word the package spelt changes nothing, judged locally; in one with a word waiting
  // for its package (`np.float`, NumPy's where the file spells `numpy`), never.
  const std::string waiting = kBase + "y = np.float(x)\n";
  for (const std::string_view package : {"torch", "numpy"})
    for (const std::string &typed :
         {"import " + std::string(package) + " as np\n", "s = '" + std::string(package) + "'\n",
          "# " + std::string(package) + " and more\n"}) {
      // (A string left open while its word is typed makes the lexer lose its way: every word
      // counts then, no answer is local.)
      const bool string = typed[0] == 's';
      t = typeInto(linter, kBase, at[0].at, typed);
      if (!string) CHECK(t.judgedLocally * 2 >= t.keystrokes);
      t = typeInto(linter, waiting, at[0].at, typed);
      CHECK(t.judgedLocally == 0);
      if (!string) CHECK((t.kept > 0) == (package == "numpy"));
    }
  // A quote that opens a string over the rest of the file: the `async` in a later comment or
  // docstring is then read by no lexer, and counts.
  for (const std::string_view typed : {"'''", "\"", "s = \"\"\"", "#"}) {
    t = typeInto(linter, kBase, at[0].at, typed);
    t = typeInto(linter, kBase, at[1].at, typed);
  }
  // A blank the judgements do not read in code anywhere (a vertical tab, which tree-sitter reads
  // as a blank): no judgement of the whole text, every word counts, in comments too. Not judged
  // locally.
  const std::string blank = "z = 1\x0b+ 1\n\n\ndef f(x):\n    return x + 1\n\n\ndef g(x):\n    return x\n\n\n"
                            "def h(x):\n    return x\n";
  t = typeInto(linter, blank, blank.find("\n\n\ndef h") + 2, "# async\n");
  CHECK(t.judgedLocally == 0);
  CHECK(t.kept > 0);
  // A byte of another character in code (a name `é`): whatever the prefilter makes of it (a
  // judgement it may not trust), a local answer must agree with the whole text's.
  for (const Place &place : at) (void)typeInto(linter, kBase, place.at, place.indent + "\xC3\xA9 = 1\n");
  t = typeInto(linter, kBase, at[0].at, "s = '''", true);
  CHECK(t.judgedLocally == 0);
  CHECK(t.kept == 1);
}

TEST_CASE("every word the prefilter's sources spell, typed into a rejected text, is judged as the whole text is",
          "[incremental][still_rejected]") {
  const Linter linter;
  const std::vector<std::string> words = prefilterVocabulary();
  REQUIRE(words.size() > 100);
  std::size_t judgedLocally = 0, kept = 0;
  for (const std::string &w : words)
    for (const Place &place : places())
      for (const std::string &context :
           {w + "\n", "x = " + w + "\n", "# " + w + "\n", "s = '" + w + "'\n", "import " + w + "\n",
            "from " + w + " import *\n", "y = x." + w + "(a, True)\n", "y.to(a, " + w + ")\n"}) {
        const Typed t = typeInto(linter, kBase, place.at, place.indent + context, true);
        judgedLocally += t.judgedLocally;
        kept += t.kept;
      }
  // Both answers were given many times: the check above means something.
  CHECK(judgedLocally > 500);
  CHECK(kept > 300);
}

TEST_CASE("the words that read beyond their statement are found in a window around an edit", "[still_rejected]") {
  CHECK(holdsCrossStatementWord("x.to(y, non_blocking=True)", {}));
  CHECK(holdsCrossStatementWord("q = await (x)", {}));
  CHECK(holdsCrossStatementWord("# await in a comment", {}));
  CHECK(holdsCrossStatementWord("y = F.softmax(x)", {}));
  CHECK(holdsCrossStatementWord("y = old_api(x)", {"old_api"}));
  CHECK_FALSE(holdsCrossStatementWord(kBase, {}));
  CHECK(crossStatementWordReach({}) > std::string_view("non_blocking").size());
  CHECK(crossStatementWordReach({std::string(80, 'a')}) > 80);
  // The statements after an edit: a hit, or the lexer left in a string, is no "still rejected".
  CHECK(statementsStayRejected("def f(x):\n    return x.to(device)\n", ~0U));
  CHECK_FALSE(statementsStayRejected("def f(x):\n    return x.to(device, True)\n", ~0U));
  CHECK_FALSE(statementsStayRejected("async = 1\n", ~0U));
  CHECK_FALSE(statementsStayRejected("s = '''open\n", ~0U));
  CHECK_FALSE(statementsStayRejected("s = 'a\\u00a0b'\n x\xC2\xA0= 1\n", ~0U));
  CHECK(statementsStayRejected("# async in a comment\ns = 'async'\n", ~0U));
}
