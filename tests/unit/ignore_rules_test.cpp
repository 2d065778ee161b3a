// The pieces under GitIgnore: wildmatch, the syntax of ignore files and of git's configuration.
// (tests/cli/test_gitignore.py compares the whole with `git check-ignore` on random trees.)
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "files/git_config.h"
#include "files/ignore_rules.h"
#include "files/wildmatch.h"

using asyncfix::IgnoreRules;
using asyncfix::IgnoreVerdict;

TEST_CASE("wildmatch: git's semantics for ignore patterns", "[gitignore][wildmatch]") {
  struct Row {
    const char *pattern, *text;
    bool matches;
  };
  const std::vector<Row> rows{
      {"*", "a", true},
      {"*", "a/b", false},
      {"*.py", "x.py", true},
      {"*.py", "d/x.py", false},
      {"?", "a", true},
      {"?", "/", false},
      {"a?c", "abc", true},
      {"**", "a/b/c", true},
      {"**/b", "b", true},
      {"**/b", "a/x/b", true},
      {"**/b", "ab", false},
      {"a/**", "a/b/c", true},
      {"a/**", "a", false},
      {"a/**/b", "a/b", true},
      {"a/**/b", "a/x/y/b", true},
      {"a/**/b", "a/xb", false},
      {"a**b", "axyb", true},
      {"a**b", "a/b", false},
      {"***", "a/b", true},
      {"*/*", "a/b", true},
      {"*/*", "a/b/c", false},
      {"[abc]", "b", true},
      {"[abc]", "d", false},
      {"[a-c]x", "bx", true},
      {"[!a-c]", "b", false},
      {"[!a-c]", "d", true},
      {"[^a]", "b", true},
      {"[]]", "]", true},
      {"[!]]", "]", false},
      {"[]a]", "a", true},
      {"[a\\]]", "]", true},
      {"[/]", "/", false},
      {"[!a]", "/", false},
      {"[[:alpha:]]", "Z", true},
      {"[[:alpha:]]", "1", false},
      {"[[:digit:][:upper:]]", "7", true},
      {"[[:space:]]", " ", true},
      {"[[:punct:]]", "_", true},
      {"[[:xdigit:]]", "g", false},
      {"[[:nosuch:]]", "a", false},
      {"[a-", "a", false},
      {"[", "[", false},
      {"[a-c-e]", "-", true},
      {"[z-a]", "m", false},
      {"\\*", "*", true},
      {"\\*", "a", false},
      {"a\\", "a", false},
      {"\\[x]", "[x]", true},
      {"x", "x/", false},
      {"", "", true},
      {"", "a", false},
  };
  for (const Row &row : rows) {
    INFO(row.pattern << " vs " << row.text);
    CHECK(asyncfix::wildmatch(row.pattern, row.text) == row.matches);
  }
  // Many stars against a long name that does not match ends quickly (no exponential search).
  CHECK_FALSE(asyncfix::wildmatch("*a*a*a*a*a*a*a*a*a*a*a*b", std::string(200, 'a')));
  CHECK_FALSE(asyncfix::wildmatch("**/**/**/**/**/**/**/x", std::string(60, 'a') + "/y"));
}

namespace {
IgnoreVerdict verdict(const IgnoreRules &rules, std::string_view path, bool directory = false) {
  const std::size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return rules.verdict(path, name, [&] { return directory; });
}
} // namespace

TEST_CASE("IgnoreRules: the syntax of an ignore file", "[gitignore]") {
  const IgnoreRules rules("\xEF\xBB\xBF"
                          "*.gen\r\n"
                          "# a comment\n"
                          "\n"
                          "\\#literal\n"
                          "\\!bang\n"
                          "trailing   \n"
                          "kept\\ \n"
                          "!keep.gen\n"
                          "out/\n"
                          "/top\n"
                          "doc/*.txt\n"
                          "a**/**");
  CHECK(verdict(rules, "x.gen") == IgnoreVerdict::Ignored); // BOM skipped, CR dropped
  CHECK(verdict(rules, "d/x.gen") == IgnoreVerdict::Ignored);
  CHECK(verdict(rules, "keep.gen") == IgnoreVerdict::Included); // the last match decides
  CHECK(verdict(rules, "# a comment") == IgnoreVerdict::Unspecified);
  CHECK(verdict(rules, "#literal") == IgnoreVerdict::Ignored);
  CHECK(verdict(rules, "!bang") == IgnoreVerdict::Ignored);
  CHECK(verdict(rules, "trailing") == IgnoreVerdict::Ignored);
  CHECK(verdict(rules, "trailing ") == IgnoreVerdict::Unspecified);
  CHECK(verdict(rules, "kept ") == IgnoreVerdict::Ignored);
  CHECK(verdict(rules, "kept") == IgnoreVerdict::Unspecified);
  CHECK(verdict(rules, "out", true) == IgnoreVerdict::Ignored);
  CHECK(verdict(rules, "x/out", true) == IgnoreVerdict::Ignored);
  CHECK(verdict(rules, "out", false) == IgnoreVerdict::Unspecified); // directories only
  CHECK(verdict(rules, "top") == IgnoreVerdict::Ignored);
  CHECK(verdict(rules, "x/top") == IgnoreVerdict::Unspecified); // anchored
  CHECK(verdict(rules, "doc/a.txt") == IgnoreVerdict::Ignored);
  CHECK(verdict(rules, "x/doc/a.txt") == IgnoreVerdict::Unspecified);
  CHECK(verdict(rules, "doc/x/a.txt") == IgnoreVerdict::Unspecified);
  // git matches an anchored pattern's literal start as text and the rest on its own: a `**`
  // right after that start acts as a whole component (what `git check-ignore` answers).
  CHECK(verdict(rules, "a") == IgnoreVerdict::Ignored);
  CHECK(verdict(rules, "ab") == IgnoreVerdict::Ignored);
  CHECK(verdict(rules, "b") == IgnoreVerdict::Unspecified);
  CHECK(IgnoreRules("# only a comment\n\n   \n!\n").empty());
}

TEST_CASE("parseGitConfig: sections, quoting, comments, continuations", "[gitignore]") {
  std::vector<asyncfix::GitConfigEntry> entries;
  asyncfix::parseGitConfig("; comment\n"
                           "[Core]\n"
                           "\tExcludesFile = \"~/my ignore\"  # comment\n"
                           "\tbare\n"
                           "[remote \"Origin\"] url = a\\\n"
                           "b\n"
                           "[a.B]\n"
                           "k = x  y \\t\"  q \" ;c\n"
                           "bad line\n"
                           "[after]\n"
                           "k = never\n",
                           [&](const asyncfix::GitConfigEntry &e) { entries.push_back(e); });
  REQUIRE(entries.size() == 4);
  CHECK(entries[0].section == "core");
  CHECK(entries[0].key == "excludesfile");
  CHECK(entries[0].value == "~/my ignore");
  CHECK(entries[1].key == "bare");
  CHECK_FALSE(entries[1].value.has_value());
  CHECK(entries[2].section == "remote");
  CHECK(entries[2].subsection == "Origin");
  CHECK(entries[2].value == "ab");
  CHECK(entries[3].section == "a");
  CHECK(entries[3].subsection == "b");
  CHECK(entries[3].value == "x  y \t  q ");
}
