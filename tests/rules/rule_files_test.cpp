// One name leads to every piece of a rule (tests/rules/README.md): for each rule of the catalogue,
// its source lib/src/rules/<name>.cpp defines its RuleInfo, registry.def lists that file, its
// tests are tests/rules/<name>_test.cpp, its fixtures tests/fixtures/<CODE>.*, and the README's
// table has its row. <name> is the kebab name with `-` as `_`.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <string>

#include "asyncfix/rules.h"
#include "test_util.h"

namespace fs = std::filesystem;
using asyncfix::testing::readFile;

TEST_CASE("every rule's pieces are found by its name and code", "[rules][registry]") {
  const fs::path root = ASYNCFIX_SOURCE_DIR;
  const std::string registry = readFile(root / "lib/src/rules/registry.def");
  const std::string table = readFile(root / "tests/rules/README.md");
  REQUIRE_FALSE(registry.empty());
  REQUIRE_FALSE(table.empty());
  for (const asyncfix::RuleInfo *rule : asyncfix::ruleCatalogue()) {
    const std::string code(rule->code), name(rule->name);
    std::string file = name;
    for (char &c : file)
      if (c == '-') c = '_';
    INFO("rule " << code << " " << name);
    const std::string source = readFile(root / "lib/src/rules" / (file + ".cpp"));
    // Its RuleInfo: the code, then the name (however the formatter lays them out).
    CHECK(std::regex_search(source, std::regex("\"" + code + "\",\\s*\"" + name + "\"")));
    CHECK(registry.find("\nASYNCFIX_RULE(" + file + ",") != std::string::npos);
    CHECK(readFile(root / "tests/rules" / (file + "_test.cpp")).find("[" + code + "]") != std::string::npos);
    for (const char *suffix : {".py", ".expected", ".fixed.py"})
      CHECK(fs::exists(root / "tests/fixtures" / (code + suffix)));
    CHECK(table.find("| " + code + " | " + name + " | `" + file + ".cpp` | `" + file + "_test.cpp` |") !=
          std::string::npos);
  }
}

TEST_CASE("every cross-file test the rules' map names exists", "[rules][registry]") {
  const fs::path root = ASYNCFIX_SOURCE_DIR;
  const std::string table = readFile(root / "tests/rules/README.md");
  const std::size_t from = table.find("## Cross-file tests");
  REQUIRE(from != std::string::npos);
  const std::string section = table.substr(from, table.find("\n## ", from + 1) - from);
  // Every `tests/...` path, and the transcripts listed by name after the first one.
  const std::regex path("`(tests/[^`]+|module_rename[a-z_]*\\.jsonrpc)`");
  std::size_t count = 0;
  for (auto it = std::sregex_iterator(section.begin(), section.end(), path); it != std::sregex_iterator(); ++it) {
    std::string named = (*it)[1];
    if (!named.starts_with("tests/")) named = "tests/lsp/transcripts/" + named;
    INFO(named);
    CHECK(fs::exists(root / named));
    ++count;
  }
  CHECK(count >= 8);
}
