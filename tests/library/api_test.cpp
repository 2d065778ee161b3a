// The C++ API as an embedding tool sees it: only <asyncfix/...> headers, linked against the
// public library target (asyncfix::asyncfix).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "asyncfix/linter.h"
#include "asyncfix/report.h"
#include "asyncfix/rules.h"
#include "asyncfix/settings.h"

using namespace asyncfix;
using Json = nlohmann::json;

namespace {

Config configFrom(std::string_view json) {
  auto parsed = parseJsonSettings(json);
  REQUIRE(std::holds_alternative<ResolvedConfig>(parsed));
  return std::get<ResolvedConfig>(parsed).config;
}

std::string settingsError(std::string_view json) {
  auto parsed = parseJsonSettings(json);
  REQUIRE(std::holds_alternative<ConfigError>(parsed));
  return std::get<ConfigError>(parsed).toString();
}

/// A two-code-cell notebook (a markdown cell between them), nbformat 4.
const std::string kNotebook = R"({
 "cells": [
  {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
   "source": ["import torch\n", "x = torch.ones(2)\n"]},
  {"cell_type": "markdown", "metadata": {}, "source": ["`x.cuda(async=True)` is old"]},
  {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
   "source": [
    "%time y = 1\n",
    "y = x.cuda(async=True)\n"
   ]}
 ],
 "metadata": {}, "nbformat": 4, "nbformat_minor": 5
}
)";

} // namespace

TEST_CASE("lint(text, path) keeps the text, so byte ranges become positions in any encoding", "[api]") {
  const Linter linter;
  // "é" is 2 bytes, 1 UTF-16 unit, 1 code point; "𝒳" is 4 bytes, 2 UTF-16 units, 1 code point.
  const std::string src = "s = 'é𝒳'; x.cuda(async=True)\n";
  const Report report = linter.lint(src, "train.py");
  REQUIRE(report.ok());
  CHECK(report.path() == "train.py");
  CHECK(report.text() == src);
  CHECK(report.notebook() == nullptr);
  REQUIRE(report.diagnostics().size() == 1);
  const Diagnostic &d = report.diagnostics()[0];
  CHECK(d.code == "AF101");
  CHECK(src.substr(d.start, d.end - d.start) == "async");
  const SourcePlace at = report.place(d.start);
  CHECK(at.cell == 0);
  CHECK(at.position(PositionEncoding::Utf8) == Position{0, 21});
  CHECK(at.position(PositionEncoding::Utf16) == Position{0, 18});
  CHECK(at.position(PositionEncoding::Utf32) == Position{0, 17});
  CHECK(report.lines().offset(Position{0, 17}, PositionEncoding::Utf32) == d.start);
  CHECK(at.label() == "1:18");
}

TEST_CASE("Report::toJson is the CLI's JSON shape", "[api]") {
  const Report report = Linter().lint("x.cuda(async=True)\n", "a.py");
  const Json array = Json::parse(report.toJson());
  REQUIRE(array.size() == 1);
  const Json &d = array[0];
  CHECK(d["code"] == "AF101");
  CHECK(d["name"] == "torch-async-kwarg");
  CHECK(d["severity"] == "error");
  CHECK(d["filename"] == "a.py");
  CHECK(d["location"] == Json{{"row", 1}, {"column", 8}});
  CHECK(d["end_location"] == Json{{"row", 1}, {"column", 13}});
  CHECK(d["fix"]["applicability"] == "safe");
  CHECK(d["fix"]["edits"][0]["content"] == "non_blocking");
  CHECK(d["url"] == ruleUrl(*findRule("AF101")));
  CHECK_FALSE(d.contains("cell"));
  // The key order is the CLI's too.
  std::vector<std::string> keys;
  const auto ordered = nlohmann::ordered_json::parse(report.toJson());
  for (const auto &item : ordered[0].items()) keys.push_back(item.key());
  CHECK(keys == std::vector<std::string>{"code", "name", "message", "severity", "filename", "location", "end_location",
                                         "fix", "url"});
  // json-lines: one object per line; an empty report is `[]`.
  CHECK(report.toJson(true).find('\n') == report.toJson(true).size() - 1);
  CHECK(Linter().lint("x = 1\n", "a.py").toJson() == "[]\n");
}

TEST_CASE("a path ending in .ipynb lints a notebook's code cells, with cell positions", "[api]") {
  const Report report = Linter().lint(kNotebook, "nb.ipynb");
  REQUIRE(report.ok());
  REQUIRE(report.notebook() != nullptr);
  REQUIRE(report.diagnostics().size() == 1);
  const SourcePlace at = report.place(report.diagnostics()[0].start);
  CHECK(at.cell == 3); // the markdown cell counts, as in Jupyter
  CHECK(at.position(PositionEncoding::Utf32) == Position{1, 11});
  const Json d = Json::parse(report.toJson())[0];
  CHECK(d["cell"] == 3);
  CHECK(d["location"] == Json{{"row", 2}, {"column", 12}});
}

TEST_CASE("bad input gives a Report with an error, never an exception", "[api]") {
  const Linter linter;
  const Report binary = linter.lint(std::string("x = 1\n\0y\n", 9), "b.py");
  REQUIRE_FALSE(binary.ok());
  CHECK(binary.error()->find("NUL byte at byte offset 6, line 2") != std::string::npos);
  CHECK(binary.diagnostics().empty());
  const Report latin1 = linter.lint("x = 'caf\xE9'\n", "c.py");
  REQUIRE_FALSE(latin1.ok());
  CHECK(latin1.error()->find("not valid UTF-8 (byte 0xE9") != std::string::npos);
  const Report notebook = linter.lint("{\"cells\": 3}", "n.ipynb");
  REQUIRE_FALSE(notebook.ok());
  CHECK_FALSE(notebook.error()->empty());
  CHECK(notebook.toJson() == "[]\n");
  const Report empty;
  CHECK(empty.ok());
  CHECK(empty.diagnostics().empty());
  CHECK(empty.text().empty());
}

TEST_CASE("Linter::fix(text, path, applicability)", "[api]") {
  const Linter linter;
  const std::string src = "async = 1\nx.cuda(async=True)\n";
  const FixResult safe = linter.fix(src, "m.py");
  CHECK(safe.text == "async = 1\nx.cuda(non_blocking=True)\n");
  CHECK_FALSE(safe.error);
  const FixResult unsafe = linter.fix(src, "m.py", Applicability::Unsafe);
  CHECK(unsafe.text == "async_ = 1\nx.cuda(non_blocking=True)\n");
  CHECK(linter.fix(unsafe.text, "m.py", Applicability::Unsafe).text == unsafe.text); // idempotent

  const FixResult bad = linter.fix("x = '\xFF'\n", "m.py");
  REQUIRE(bad.error);
  CHECK(bad.text == "x = '\xFF'\n");
}

TEST_CASE("Linter::fix rewrites only the changed notebook cells", "[api]") {
  const FixResult fixed = Linter().fix(kNotebook, "nb.ipynb");
  REQUIRE_FALSE(fixed.error);
  CHECK(fixed.changed);
  std::string expected = kNotebook;
  expected.replace(expected.find("x.cuda(async=True)\\n"), 18, "x.cuda(non_blocking=True)");
  CHECK(fixed.text == expected); // every other byte, the markdown cell's `async=` included, kept
  CHECK(Json::parse(fixed.text)["cells"][2]["source"][0] == "%time y = 1\n");
}

TEST_CASE("a notebook with inline source arrays keeps its separators when fixed", "[api]") {
  // Regression: the cell's new source was written with "," and no blank between elements.
  const std::string notebook = R"({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [],)"
                               R"( "source": ["import torch\n", "x.cuda(async=True)\n", "y = 1"]}],)"
                               R"( "metadata": {}, "nbformat": 4, "nbformat_minor": 5})";
  const FixResult fixed = Linter().fix(notebook, "inline.ipynb");
  std::string expected = notebook;
  expected.replace(expected.find("async=True"), 5, "non_blocking");
  CHECK(fixed.text == expected);
}

TEST_CASE("lint(Document, path) lints an edited document's current tree", "[api]") {
  const Linter linter;
  Document doc("x = 1\n");
  CHECK(linter.lint(doc, "d.py").diagnostics().empty());
  doc.edit(4, 5, "y.cuda(async=True)");
  const Report report = linter.lint(doc, "d.py");
  CHECK(report.text() == "x = y.cuda(async=True)\n");
  REQUIRE(report.diagnostics().size() == 1);
  CHECK(report.diagnostics()[0].code == "AF101");
}

TEST_CASE("settings from JSON take the configuration file's keys", "[api][settings]") {
  const std::string src = "async = x.cuda(async=True)\n";
  CHECK(Linter(configFrom("")).lint(src, "a.py").diagnostics().size() == 2);
  CHECK(Linter(configFrom("{}")).lint(src, "a.py").diagnostics().size() == 2);
  const Report only1 = Linter(configFrom(R"({"select": ["AF1"]})")).lint(src, "a.py");
  REQUIRE(only1.diagnostics().size() == 1);
  CHECK(only1.diagnostics()[0].code == "AF101");
  const Report ignored = Linter(configFrom(R"({"ignore": ["AF101"], "target-version": "py36"})")).lint(src, "a.py");
  REQUIRE(ignored.diagnostics().size() == 1);
  CHECK(ignored.diagnostics()[0].code == "AF001");
  CHECK(ignored.diagnostics()[0].severity == Severity::Warning); // py36: only a DeprecationWarning
  const Config style = configFrom(R"({"rename-style": "is_async", "severity": {"AF101": "info"}})");
  CHECK(style.renamed("async") == "is_async");
  CHECK(style.severity.at("AF101") == Severity::Info);

  auto perFile = parseJsonSettings(R"({"per-file-ignores": {"tests/*.py": ["AF001"]}})", "tests/t.py");
  REQUIRE(std::holds_alternative<ResolvedConfig>(perFile));
  CHECK_FALSE(std::get<ResolvedConfig>(perFile).config.rules.enables("AF001"));
  CHECK(std::get<ResolvedConfig>(perFile).config.rules.enables("AF101"));
  auto unsafe = parseJsonSettings(R"({"unsafe-fixes": true})");
  CHECK(std::get<ResolvedConfig>(unsafe).unsafeFixes);
}

TEST_CASE("settings from JSON: every mistake is a clear error", "[api][settings]") {
  CHECK(settingsError(R"({"select": ["AF999"]})") == "options: unknown rule code `AF999` in `select`");
  CHECK(settingsError(R"({"selct": ["AF1"]})") == "options: unknown key `selct`");
  CHECK(settingsError(R"({"target-version": "py27"})") == "options: `target-version` must be one of py35 … py314");
  CHECK(settingsError(R"({"select": "AF1"})") == "options: `select` must be an array of rule codes");
  CHECK(settingsError(R"({"unsafe-fixes": 1})") == "options: `unsafe-fixes` must be true or false");
  CHECK(settingsError(R"({"select": null})") == "options: `select` must not be null");
  CHECK(settingsError(R"(["AF1"])").starts_with("options: must be a JSON object"));
  CHECK(settingsError(R"({"select": [)").starts_with("options: invalid JSON: parse error at line 1, column "));
  CHECK(settingsError(R"({"renames": {"module": [{"old": "a.async"}]}})") ==
        "options: `renames.module[0]` needs `new`");
}

TEST_CASE("the rule catalogue is reachable from the public headers", "[api]") {
  const auto rules = ruleCatalogue();
  REQUIRE(rules.size() >= 12);
  CHECK(std::is_sorted(rules.begin(), rules.end(),
                       [](const RuleInfo *a, const RuleInfo *b) { return a->code < b->code; }));
  const RuleInfo *rule = findRule("torch-async-kwarg");
  REQUIRE(rule != nullptr);
  CHECK(rule->code == "AF101");
  CHECK(rule->doc.find("## What it does") != std::string_view::npos);
  // A rule's page in the manual: under the address given, else under defaultDocsUrl().
  CHECK(ruleUrl(*rule, "https://docs.test/asyncfix/") == "https://docs.test/asyncfix/rules/AF101.md");
  CHECK(ruleUrl(*rule, "https://docs.test/asyncfix") == "https://docs.test/asyncfix/rules/AF101.md");
  CHECK(ruleUrl(*rule) == defaultDocsUrl() + "/rules/AF101.md");
  CHECK(ruleUrl(*rule, "") == ruleUrl(*rule));
  CHECK(defaultDocsUrl().find("://") != std::string::npos);
  CHECK(defaultDocsUrl().find("asyncfix.dev") == std::string::npos);
  CHECK(defaultDocsUrl() == defaultDocsUrl()); // worked out once
}

TEST_CASE("the JSON report links each finding to the rule's page under the address given", "[api]") {
  const Report report = Linter().lint("x.cuda(async=True)\n", "a.py");
  const FileDiagnostics view = report.view();
  const Json hosted = Json::parse(renderJson(std::span(&view, 1), false, "https://docs.test/asyncfix"));
  REQUIRE(hosted.size() == 1);
  CHECK(hosted[0]["url"] == "https://docs.test/asyncfix/rules/AF101.md");
  const Json lines = Json::parse(renderJson(std::span(&view, 1), true, "https://docs.test/asyncfix"));
  CHECK(lines["url"] == "https://docs.test/asyncfix/rules/AF101.md");
  CHECK(Json::parse(renderJson(std::span(&view, 1)))[0]["url"] == ruleUrl(*findRule("AF101")));
}
