// Fixture files: tests/fixtures/<CODE>.py is linted with that rule alone; its diagnostics must
// equal <CODE>.expected (one `row:col-endrow:endcol CODE [fix] message` line each) and the text
// fixed with unsafe fixes on must equal <CODE>.fixed.py, re-parse without new errors and be
// idempotent. ASYNCFIX_UPDATE_FIXTURES=1 rewrites the expectations (review the diff!).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "asyncfix/linter.h"
#include "asyncfix/linter_internals.h"
#include "asyncfix/rules.h"
#include "config/noqa.h"
#include "test_util.h"

namespace fs = std::filesystem;
using asyncfix::testing::readFile;
using namespace asyncfix;

namespace {

void writeFile(const fs::path &p, const std::string &text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

std::string render(const Document &doc, const std::vector<Diagnostic> &diagnostics) {
  std::ostringstream out;
  for (const Diagnostic &d : diagnostics) {
    const Position s = doc.lines().position(d.start, PositionEncoding::Utf32);
    const Position e = doc.lines().position(d.end, PositionEncoding::Utf32);
    out << s.line + 1 << ":" << s.column + 1 << "-" << e.line + 1 << ":" << e.column + 1 << " " << d.code;
    if (d.fix) out << " [" << toString(d.fix->applicability) << "]";
    out << " " << d.message << "\n";
  }
  return out.str();
}

} // namespace

TEST_CASE("rule fixtures", "[fixtures]") {
  const bool update = std::getenv("ASYNCFIX_UPDATE_FIXTURES") != nullptr;
  const fs::path dir = ASYNCFIX_FIXTURES_DIR;
  int seen = 0;
  for (const RuleInfo *rule : ruleCatalogue()) {
    const fs::path input = dir / (std::string(rule->code) + ".py");
    INFO("rule " << rule->code << " needs the fixture " << input);
    REQUIRE(fs::exists(input)); // every rule has a fixture
    ++seen;
    Config config;
    config.rules.select = {std::string(rule->code)};
    // AF900 judges the codes of the other rules in `noqa` comments: they must be enabled.
    if (rule->code == "AF900") config.rules.extendSelect = {"ALL"};
    const Linter linter(config);
    const std::string source = readFile(input);
    const Document doc(source);
    const std::string diagnostics = render(doc, linter.lint(doc));
    // The prefilter never skips a file with findings: linting the text gives the same result.
    CHECK(render(doc, linter.lint(std::string_view(source))) == diagnostics);
    // The walk skips only subtrees without a prefilter mark: visiting everything finds the same.
    CHECK(render(doc, LinterInternals::lintWithoutPruning(linter, doc)) == diagnostics);
    FixOptions options;
    options.unsafe = true;
    const FixResult fixed = fix(linter, source, options);
    const fs::path expectedPath = dir / (std::string(rule->code) + ".expected");
    const fs::path fixedPath = dir / (std::string(rule->code) + ".fixed.py");
    if (update) {
      writeFile(expectedPath, diagnostics);
      writeFile(fixedPath, fixed.text);
    }
    CHECK_FALSE(diagnostics.empty());
    CHECK(diagnostics == readFile(expectedPath));
    CHECK(fixed.text == readFile(fixedPath));
    CHECK(fixed.converged);
    CHECK(fixed.rejected.empty());
    CHECK(Document(fixed.text).syntaxErrorCount() <= doc.syntaxErrorCount());
    CHECK(fix(linter, fixed.text, options).text == fixed.text);
  }
  CHECK(seen == static_cast<int>(ruleCatalogue().size()));
}

// The suppression pass tells a syntax error on the target (which only a `# noqa` naming its code
// hides) by the token the finding stands on; the rules say it by their severity. The two agree on
// every fixture, for targets before and after 3.7.
TEST_CASE("a finding is a syntax error on the target exactly when it is an async/await token", "[fixtures]") {
  const fs::path dir = ASYNCFIX_FIXTURES_DIR;
  for (const PythonVersion target : {PythonVersion{3, 6}, PythonVersion{3, 8}}) {
    Config config;
    config.target = target;
    const Linter linter(config);
    int errors = 0;
    for (const RuleInfo *rule : ruleCatalogue()) {
      const std::string source = readFile(dir / (std::string(rule->code) + ".py"));
      for (const Diagnostic &d : LinterInternals::lintWithoutPruning(linter, Document(source))) {
        INFO(rule->code << ".py: " << d.code << " at byte " << d.start << ": " << d.message);
        CHECK((d.severity == Severity::Error) == suppressedOnlyByCode(d, source, config));
        errors += d.severity == Severity::Error ? 1 : 0;
      }
    }
    CHECK((errors > 0) == (target >= PythonVersion{3, 7}));
  }
}
