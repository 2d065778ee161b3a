// Reusing a lint result across edits (editKeepsFindings + shiftPastEdit) must give exactly what
// a fresh lint of the new text gives. Random respellings over real files check it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "asyncfix/document.h"
#include "asyncfix/linter.h"
#include "test_util.h"

using namespace asyncfix;
namespace fs = std::filesystem;
using asyncfix::testing::readFile;

namespace {


bool isNameByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// Plenty of functions no rule looks at, next to ones they do (module-level legacy code too).
std::string generated() {
  std::string t = "import torch\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader\n\n"
                  "loader = DataLoader(data, pin_memory=True)\nmodel = nn.Linear(2, 2)\n\n";
  for (int i = 0; i < 40; ++i) {
    const std::string n = std::to_string(i);
    t += "def step_" + n + "(model, batch, device=None):\n    images, target = batch\n";
    if (i % 7 == 3) t += "    images = images.cuda(async=True)\n";
    else if (i % 7 == 5) t += "    out = images.to('cpu', non_blocking=True)\n    print(out)\n";
    else t += "    images = images.to(device)\n";
    t += "    value_" + n + " = model(images).sum() * " + n + "\n    return value_" + n + ", target\n\n";
  }
  t += "for x, y in loader:\n    x = x.cuda(non_blocking=True)\n    y = y.to('cpu', non_blocking=True)\n    total = y\n";
  t += "model.cuda(async=True)\nasync = 1\n\ndef uses_async(flag=async):\n    return flag\n";
  // A local spelt like the rename's candidate, and a function reading a module-level name.
  t += "\ndef local_conflict(a):\n    async_x = a\n    return async_x\n\ndef free_user():\n    return model.weight\n";
  return t;
}

} // namespace

TEST_CASE("findings kept across identifier respellings equal a fresh lint", "[incremental]") {
  std::vector<std::string> sources{generated()};
  for (const auto &entry : fs::directory_iterator(fs::path(ASYNCFIX_SOURCE_DIR) / "tests" / "fixtures"))
    if (entry.path().extension() == ".py") sources.push_back(readFile(entry.path()));
  for (const auto &entry : fs::recursive_directory_iterator(fs::path(ASYNCFIX_SOURCE_DIR) / "examples"))
    if (entry.path().extension() == ".py") sources.push_back(readFile(entry.path()));

  const Linter linter;
  std::mt19937 rng(2026);
  int kept = 0, relinted = 0;
  for (std::size_t n = 0; n < sources.size(); ++n) {
    const std::string &source = sources[n];
    const int steps = n == 0 ? 1500 : 100; // the generated file has the most room to keep findings
    Document doc(source);
    LintFootprint footprint;
    std::vector<Diagnostic> diagnostics = linter.lint(doc, footprint);
    for (int step = 0; step < steps; ++step) {
      // Random edits pile up syntax errors (after which nothing is kept): start over now and then.
      if (step % 40 == 39) {
        doc.reset(source);
        diagnostics = linter.lint(doc, footprint);
      }
      const std::string &text = doc.text();
      // Somewhere inside or at the edge of a word, mostly.
      std::size_t at = rng() % (text.size() + 1);
      for (int tries = 0; tries < 20 && !(at < text.size() && isNameByte(text[at])); ++tries)
        at = rng() % (text.size() + 1);
      std::size_t end = at;
      std::string insert;
      switch (rng() % 3) {
      case 0: insert = std::string(1, "abxyz_Q9"[rng() % 8]); break;        // type a character
      case 1: end = std::min(text.size(), at + 1); break;                     // delete one
      default: end = std::min(text.size(), at + 1); insert = "k"; break;      // overtype
      }
      const bool keep = editKeepsFindings(doc, footprint, at, end, insert);
      doc.edit(at, end, insert);
      if (keep) {
        ++kept;
        shiftPastEdit(diagnostics, footprint, at, end, insert.size());
        INFO("after respelling at byte " << at << ":\n" << doc.text());
        REQUIRE(diagnostics == linter.lint(Document(doc.text())));
      } else {
        ++relinted;
        diagnostics = linter.lint(doc, footprint);
      }
    }
  }
  // Both paths must have been taken many times for the comparison to mean something.
  CHECK(kept > 150);
  CHECK(relinted > 500);
}

TEST_CASE("editKeepsFindings says no to what can change findings", "[incremental]") {
  const Linter linter;
  const std::string source = "def f(batch):\n    x = batch.cuda(async=True)\n\ndef g(a):\n    b = a + 1\n    return b\n";
  Document doc(source);
  LintFootprint fp;
  REQUIRE(linter.lint(doc, fp).size() == 1);
  const std::size_t b = source.find("b = a");
  CHECK(editKeepsFindings(doc, fp, b + 1, b + 1, "z"));          // bz = a + 1, in g: nobody looks
  CHECK_FALSE(editKeepsFindings(doc, fp, b + 1, b + 1, " "));    // not a respelling
  CHECK_FALSE(editKeepsFindings(doc, fp, b, b + 1, "if"));       // a keyword
  CHECK_FALSE(editKeepsFindings(doc, fp, b, b + 1, "async"));    // a trigger
  CHECK_FALSE(editKeepsFindings(doc, fp, b + 1, b + 1, "('"));   // a string
  const std::size_t x = source.find("x = batch");
  CHECK_FALSE(editKeepsFindings(doc, fp, x, x + 1, "y"));        // the statement a rule checked
  const std::size_t a = source.find("(a)");
  CHECK_FALSE(editKeepsFindings(doc, fp, a + 1, a + 2, "batch")); // a name the rules asked about

  // The rename of a module-level `async` checks that `async_` is free everywhere, locals included.
  const std::string renamed = "async = 1\nprint(async)\n\ndef g():\n    async_x = 2\n    return async_x\n";
  Document doc2(renamed);
  LintFootprint fp2;
  REQUIRE_FALSE(linter.lint(doc2, fp2).empty());
  const std::size_t x2 = renamed.find("async_x =") + 6;
  CHECK_FALSE(editKeepsFindings(doc2, fp2, x2, x2 + 1, ""));     // would spell `async_`
  CHECK(editKeepsFindings(doc2, fp2, x2, x2 + 1, "y"));          // `async_y`: still no conflict

  // A function's own local spelt like a name the rules asked about: other edits there are fine,
  // but respelling that local could unbind it (its other uses would then see the module's).
  const std::string shadow = "images = load()\nimages.cuda(async=True)\n\ndef g():\n    images = 1\n"
                             "    other = 2\n    return images, other\n";
  Document doc3(shadow);
  LintFootprint fp3;
  REQUIRE_FALSE(linter.lint(doc3, fp3).empty());
  const std::size_t local = shadow.find("images = 1");
  const std::size_t other = shadow.find("other = 2");
  CHECK(editKeepsFindings(doc3, fp3, other + 1, other + 1, "x"));   // `oxther`: nobody asked
  CHECK_FALSE(editKeepsFindings(doc3, fp3, local + 6, local + 6, "x")); // `imagesx = 1`
}
