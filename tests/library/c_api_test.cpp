// The C API's behaviour (asyncfix.h), from C++ for Catch2's sake; c99_test.c checks that the
// header compiles as strict C99 and links against the shared library.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "asyncfix.h"

namespace {

/// Takes ownership of a string returned by the library.
std::string take(char *s) {
  REQUIRE(s != nullptr);
  std::string out(s);
  asyncfix_string_free(s);
  return out;
}

std::string lastError() {
  const char *e = asyncfix_last_error();
  return e == nullptr ? std::string() : std::string(e);
}

const std::string kLegacy = "async = 1\nx.cuda(async=True)\n";

} // namespace

TEST_CASE("C: asyncfix_version and the ABI version", "[capi]") {
  CHECK(std::string(asyncfix_version()) == ASYNCFIX_TEST_VERSION);
  CHECK(asyncfix_abi_version() == ASYNCFIX_ABI_VERSION);
}

TEST_CASE("C: asyncfix_check_json returns the CLI's JSON array", "[capi]") {
  const std::string json = take(asyncfix_check_json(kLegacy.data(), kLegacy.size(), "m.py", nullptr));
  CHECK(asyncfix_last_error() == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_OK);
  const auto array = nlohmann::json::parse(json);
  REQUIRE(array.size() == 2);
  CHECK(array[0]["code"] == "AF001");
  CHECK(array[1]["code"] == "AF101");
  CHECK(array[1]["filename"] == "m.py");

  const std::string only = take(
      asyncfix_check_json(kLegacy.data(), kLegacy.size(), nullptr, R"({"select":["AF1"],"target-version":"py38"})"));
  const auto selected = nlohmann::json::parse(only);
  REQUIRE(selected.size() == 1);
  CHECK(selected[0]["code"] == "AF101");
  CHECK(selected[0]["filename"] == "-");
  CHECK(take(asyncfix_check_json("", 0, "e.py", nullptr)) == "[]\n");
  CHECK(take(asyncfix_check_json(nullptr, 0, "e.py", nullptr)) == "[]\n");
}

TEST_CASE("C: the `docs-url` option moves the links to the rule pages", "[capi]") {
  const auto hosted = nlohmann::json::parse(take(asyncfix_check_json(
      kLegacy.data(), kLegacy.size(), "m.py", R"({"select":["AF101"],"docs-url":"https://docs.test/asyncfix/"})")));
  REQUIRE(hosted.size() == 1);
  CHECK(hosted[0]["url"] == "https://docs.test/asyncfix/rules/AF101.md");
  CHECK(asyncfix_check_json(kLegacy.data(), kLegacy.size(), "m.py", R"({"docs-url":"docs.test"})") == nullptr);
  CHECK(std::string(asyncfix_last_error()).find("`docs-url` must be an absolute URL") != std::string::npos);
}

TEST_CASE("C: failures return NULL with a per-thread error code and message", "[capi]") {
  CHECK(asyncfix_check_json("x", 1, "a.py", "{\"select\": [") == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_OPTIONS);
  CHECK(lastError().starts_with("options: invalid JSON"));

  CHECK(asyncfix_check_json("x", 1, "a.py", R"({"select":["AF999"]})") == nullptr);
  CHECK(lastError() == "options: unknown rule code `AF999` in `select`");

  const std::string latin1 = "x = 'caf\xE9'\n";
  CHECK(asyncfix_check_json(latin1.data(), latin1.size(), "l.py", nullptr) == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_INPUT);
  CHECK(lastError().starts_with("l.py: not valid UTF-8 (byte 0xE9"));
  CHECK(asyncfix_fix(latin1.data(), latin1.size(), "l.py", nullptr, 0) == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_INPUT);

  CHECK(asyncfix_check_json(nullptr, 3, "a.py", nullptr) == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_ARGUMENT);

  // The record is per thread: another thread sees no error.
  std::string other = "unset";
  std::thread([&] { other = lastError(); }).join();
  CHECK(other.empty());
  CHECK_FALSE(lastError().empty());

  // A success clears it.
  asyncfix_string_free(asyncfix_check_json("x = 1\n", 6, "a.py", nullptr));
  CHECK(asyncfix_last_error() == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_OK);
}

TEST_CASE("C: asyncfix_fix applies safe fixes, and unsafe ones when asked", "[capi]") {
  CHECK(take(asyncfix_fix(kLegacy.data(), kLegacy.size(), "m.py", nullptr, 0)) ==
        "async = 1\nx.cuda(non_blocking=True)\n");
  CHECK(take(asyncfix_fix(kLegacy.data(), kLegacy.size(), "m.py", nullptr, 1)) ==
        "async_ = 1\nx.cuda(non_blocking=True)\n");
  CHECK(take(asyncfix_fix(kLegacy.data(), kLegacy.size(), "m.py", R"({"unsafe-fixes": true})", 0)) ==
        "async_ = 1\nx.cuda(non_blocking=True)\n");
  CHECK(take(asyncfix_fix(kLegacy.data(), kLegacy.size(), "m.py", R"({"rename-style": "is_async"})", 1)) ==
        "is_async = 1\nx.cuda(non_blocking=True)\n");
  CHECK(take(asyncfix_fix("x = 1\n", 6, "m.py", nullptr, 1)) == "x = 1\n");
  // The length is what counts, not a NUL terminator.
  CHECK(take(asyncfix_fix("x.cuda(async=True)\nGARBAGE", 19, "m.py", nullptr, 0)) == "x.cuda(non_blocking=True)\n");
}

TEST_CASE("C: linters, reports and their accessors", "[capi]") {
  asyncfix_linter *linter = asyncfix_linter_new(R"({"target-version": "py36"})");
  REQUIRE(linter != nullptr);
  const std::string src = "s = '\xC3\xA9'; x.cuda(async=True)\n";
  asyncfix_report *report = asyncfix_linter_check(linter, src.data(), src.size(), "r.py");
  REQUIRE(report != nullptr);
  REQUIRE(asyncfix_report_count(report) == 1);
  CHECK(std::string(asyncfix_diagnostic_code(report, 0)) == "AF101");
  CHECK(std::string(asyncfix_diagnostic_name(report, 0)) == "torch-async-kwarg");
  CHECK(std::string(asyncfix_diagnostic_message(report, 0)).find("non_blocking") != std::string::npos);
  CHECK(asyncfix_diagnostic_severity(report, 0) == ASYNCFIX_SEVERITY_WARNING); // py36
  size_t start = 0, end = 0;
  REQUIRE(asyncfix_diagnostic_bytes(report, 0, &start, &end) == ASYNCFIX_OK);
  CHECK(src.substr(start, end - start) == "async");
  asyncfix_position from{}, to{};
  REQUIRE(asyncfix_diagnostic_range(report, 0, ASYNCFIX_ENCODING_UTF8, &from, &to) == ASYNCFIX_OK);
  CHECK((from.cell == 0 && from.line == 0 && from.column == 17 && to.column == 22));
  REQUIRE(asyncfix_diagnostic_range(report, 0, ASYNCFIX_ENCODING_UTF16, &from, nullptr) == ASYNCFIX_OK);
  CHECK(from.column == 16);
  CHECK(asyncfix_diagnostic_range(report, 0, 7, &from, &to) == ASYNCFIX_ERROR_ARGUMENT);
  CHECK(asyncfix_diagnostic_fix_applicability(report, 0) == ASYNCFIX_FIX_SAFE);
  CHECK(std::string(asyncfix_diagnostic_fix_title(report, 0)) == "Replace `async=` with `non_blocking=`");
  REQUIRE(asyncfix_diagnostic_edit_count(report, 0) == 1);
  const char *content = nullptr;
  size_t length = 0;
  REQUIRE(asyncfix_diagnostic_edit(report, 0, 0, &start, &end, &content, &length) == ASYNCFIX_OK);
  CHECK(std::string(content, length) == "non_blocking");
  CHECK(asyncfix_diagnostic_edit(report, 0, 1, &start, &end, &content, &length) == ASYNCFIX_ERROR_ARGUMENT);

  // Out of range: NULL / -1 / an error code, and the reason.
  CHECK(asyncfix_diagnostic_code(report, 1) == nullptr);
  CHECK(lastError() == "diagnostic index 1 is out of range (1 diagnostics)");
  CHECK(asyncfix_diagnostic_severity(report, 5) == -1);
  CHECK(asyncfix_diagnostic_fix_applicability(report, 5) == ASYNCFIX_FIX_NONE);
  CHECK(asyncfix_report_count(nullptr) == 0);
  CHECK(asyncfix_linter_check(nullptr, "x", 1, "a.py") == nullptr);
  CHECK(lastError() == "linter is NULL");

  const std::string json = take(asyncfix_report_json(report));
  CHECK(nlohmann::json::parse(json)[0]["severity"] == "warning");
  asyncfix_report_free(report);

  size_t fixedLength = 0;
  const std::string fixed = take(asyncfix_linter_fix(linter, src.data(), src.size(), "r.py", 0, &fixedLength));
  CHECK(fixed == "s = '\xC3\xA9'; x.cuda(non_blocking=True)\n");
  CHECK(fixedLength == fixed.size());
  asyncfix_linter_free(linter);
  asyncfix_linter_free(nullptr);
  asyncfix_report_free(nullptr);

  CHECK(asyncfix_linter_new(R"({"rename-style": "not an identifier"})") == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_OPTIONS);
}

TEST_CASE("C: a linter's per-file-ignores follow each call's path", "[capi]") {
  asyncfix_linter *linter = asyncfix_linter_new(R"({"per-file-ignores": {"tests/*.py": ["AF101"]}})");
  REQUIRE(linter != nullptr);
  const std::string src = "x.cuda(async=True)\n";
  asyncfix_report *lib = asyncfix_linter_check(linter, src.data(), src.size(), "lib/a.py");
  asyncfix_report *test = asyncfix_linter_check(linter, src.data(), src.size(), "tests/a.py");
  CHECK(asyncfix_report_count(lib) == 1);
  CHECK(asyncfix_report_count(test) == 0);
  CHECK(take(asyncfix_linter_fix(linter, src.data(), src.size(), "tests/a.py", 0, nullptr)) == src);
  CHECK(take(asyncfix_linter_fix(linter, src.data(), src.size(), "lib/a.py", 0, nullptr)) ==
        "x.cuda(non_blocking=True)\n");
  asyncfix_report_free(lib);
  asyncfix_report_free(test);
  asyncfix_linter_free(linter);
  CHECK(take(asyncfix_check_json(src.data(), src.size(), "tests/b.py",
                                 R"({"per-file-ignores": {"tests/*.py": ["AF1"]}})")) == "[]\n");
}

TEST_CASE("C: documents are edited incrementally and linted as they are", "[capi]") {
  asyncfix_linter *linter = asyncfix_linter_new(nullptr);
  asyncfix_document *doc = asyncfix_document_new("x = 1\n", 6);
  REQUIRE(doc != nullptr);
  asyncfix_report *before = asyncfix_linter_check_document(linter, doc, "d.py");
  CHECK(asyncfix_report_count(before) == 0);
  REQUIRE(asyncfix_document_edit(doc, 4, 5, "y.cuda(async=True)", 18) == ASYNCFIX_OK);
  size_t length = 0;
  CHECK(std::string(asyncfix_document_text(doc, &length)) == "x = y.cuda(async=True)\n");
  CHECK(length == 23);
  asyncfix_report *after = asyncfix_linter_check_document(linter, doc, "d.py");
  REQUIRE(asyncfix_report_count(after) == 1);
  CHECK(std::string(asyncfix_diagnostic_code(after, 0)) == "AF101");
  CHECK(asyncfix_document_edit(nullptr, 0, 0, "", 0) == ASYNCFIX_ERROR_ARGUMENT);
  asyncfix_report_free(before);
  asyncfix_report_free(after);
  asyncfix_document_free(doc);
  asyncfix_linter_free(linter);
}

TEST_CASE("C: the rule catalogue", "[capi]") {
  const size_t count = asyncfix_rule_count();
  REQUIRE(count >= 12);
  bool found = false;
  for (size_t i = 0; i < count; ++i) {
    if (std::strcmp(asyncfix_rule_code(i), "AF101") == 0) {
      found = true;
      CHECK(std::string(asyncfix_rule_name(i)) == "torch-async-kwarg");
      CHECK(std::string(asyncfix_rule_doc(i)).find("## What it does") != std::string::npos);
      const std::string url = asyncfix_rule_url(i); // the page in the manual, installed or in the repository
      CHECK(url.ends_with("/rules/AF101.md"));
      CHECK(url.find("://") != std::string::npos);
      CHECK(std::strlen(asyncfix_rule_summary(i)) > 0);
    }
  }
  CHECK(found);
  CHECK(asyncfix_rule_code(count) == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_ARGUMENT);
}
