#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

#include "asyncfix/config.h"
#include "asyncfix/rules.h"

using namespace asyncfix;

TEST_CASE("RuleSelection: the most specific entry wins, ties go to ignore", "[config]") {
  RuleSelection s;
  CHECK(s.enables("AF001"));
  s.ignore = {"AF1"};
  CHECK_FALSE(s.enables("AF101"));
  CHECK(s.enables("AF001"));
  s.select = {"AF101"};
  CHECK(s.enables("AF101"));
  CHECK_FALSE(s.enables("AF001"));
  s.ignore = {"AF101"};
  CHECK_FALSE(s.enables("AF101"));
  s = {};
  s.select = {"AF0"};
  s.extendSelect = {"AF101"};
  CHECK(s.enables("AF002"));
  CHECK(s.enables("AF101"));
  s.ignore = {"ALL"};
  CHECK(s.enables("AF002")); // AF0 is more specific than ALL
  CHECK(s.unknownEntries().empty());
  s.select = {"AF8", "XYZ"};
  CHECK(s.unknownEntries() == std::vector<std::string>{"AF8", "XYZ"});
}

TEST_CASE("PythonVersion parsing", "[config]") {
  CHECK(PythonVersion::parse("py38") == PythonVersion{3, 8});
  CHECK(PythonVersion::parse("py314") == PythonVersion{3, 14});
  CHECK(PythonVersion::parse("3.6") == PythonVersion{3, 6});
  CHECK(PythonVersion::parse("py35") == PythonVersion{3, 5});
  CHECK_FALSE(PythonVersion::parse("py27"));
  CHECK_FALSE(PythonVersion::parse("py3x"));
  CHECK_FALSE(PythonVersion::parse("py315"));
  CHECK_FALSE(PythonVersion::parse(""));
  CHECK(PythonVersion{3, 10}.toString() == "py310");
}

TEST_CASE("Rename templates", "[config]") {
  Config c;
  CHECK(c.renamed("async") == "async_");
  c.renameTemplate = "is_{name}";
  CHECK(c.renamed("await") == "is_await");
  CHECK(Config::isValidRenameTemplate("{name}_"));
  CHECK(Config::isValidRenameTemplate("use_{name}_mode"));
  CHECK_FALSE(Config::isValidRenameTemplate("{name}"));
  CHECK_FALSE(Config::isValidRenameTemplate("x"));
  CHECK_FALSE(Config::isValidRenameTemplate("1{name}"));
  CHECK_FALSE(Config::isValidRenameTemplate("{name}-x"));
}

TEST_CASE("Rule catalogue: codes, names and documentation headings", "[config]") {
  REQUIRE(ruleCatalogue().size() >= 3);
  std::string_view previous;
  for (const RuleInfo *r : ruleCatalogue()) {
    INFO(r->code);
    CHECK(r->code > previous); // sorted, unique
    previous = r->code;
    CHECK(findRule(r->code) == r);
    CHECK(findRule(r->name) == r);
    for (const char *heading : {"## What it does", "## Why is this bad?", "## Example", "## Fix safety"})
      CHECK(r->doc.find(heading) != std::string_view::npos);
    CHECK(ruleUrl(*r).ends_with("/rules/" + std::string(r->code) + ".md"));
  }
  CHECK(findRule("AF999") == nullptr);
}

TEST_CASE("the README's rule table lists every rule with a link to its page", "[config]") {
  // The table and the pages are generated (scripts/gen-rule-docs.py; test docs.RulePagesTest).
  std::ifstream in(std::string(ASYNCFIX_SOURCE_DIR) + "/README.md");
  REQUIRE(in);
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const RuleInfo *r : ruleCatalogue()) {
    INFO(r->code);
    const std::string code(r->code);
    CHECK(readme.find("| [" + code + "](docs/rules/" + code + ".md) | " + std::string(r->name) + " |") !=
          std::string::npos);
    CHECK(std::ifstream(std::string(ASYNCFIX_SOURCE_DIR) + "/docs/rules/" + code + ".md").good());
  }
}
