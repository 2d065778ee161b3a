// The C API's behaviour (asyncfix.h), from C++ for Catch2's sake; c99_test.c checks that the
// header compiles as strict C99 and links against the shared library.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

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

namespace {

/// A directory of its own under the system's temporary directory, removed at the end.
struct ScratchDir {
  std::filesystem::path path;
  ScratchDir() {
    path = std::filesystem::temp_directory_path() / ("asyncfix-capi-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::string write(const std::string &name, const std::string &text) const {
    const auto file = path / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file.string();
  }
};

std::vector<std::string> codes(asyncfix_report *report) {
  REQUIRE(report != nullptr);
  std::vector<std::string> out;
  for (size_t i = 0; i < asyncfix_report_count(report); ++i) out.emplace_back(asyncfix_diagnostic_code(report, i));
  asyncfix_report_free(report);
  return out;
}

} // namespace

TEST_CASE("C: a project takes each file's settings from its nearest configuration file", "[capi]") {
  const ScratchDir dir;
  const std::string plain = dir.write("plain/legacy.py", kLegacy);
  const std::string quiet = dir.write("quiet/legacy.py", kLegacy);
  dir.write("quiet/pyproject.toml", "[tool.asyncfix]\nignore = [\"AF001\"]\n");
  const std::string broken = dir.write("broken/legacy.py", kLegacy);
  dir.write("broken/asyncfix.toml", "selct = [\"AF1\"]\n");

  asyncfix_project *project = asyncfix_project_new(nullptr, nullptr);
  REQUIRE(project != nullptr);
  const auto check = [&](const std::string &path) {
    return asyncfix_project_check(project, kLegacy.data(), kLegacy.size(), path.c_str());
  };
  CHECK(codes(check(plain)) == std::vector<std::string>{"AF001", "AF101"});
  CHECK(codes(check(quiet)) == std::vector<std::string>{"AF101"});
  CHECK(codes(check(plain)) == std::vector<std::string>{"AF001", "AF101"}); // the cached linter
  CHECK(asyncfix_last_error() == nullptr);

  CHECK(check(broken) == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_CONFIG);
  CHECK(lastError().find("asyncfix.toml:1:1: unknown key `selct`") != std::string::npos);
  CHECK(asyncfix_project_check(project, "\xff", 1, plain.c_str()) == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_INPUT);
  CHECK(lastError().starts_with(plain + ": "));
  asyncfix_project_free(project);

  // Overrides win over the files; a py36 target makes the findings warnings.
  project = asyncfix_project_new("py36", "is_async");
  REQUIRE(project != nullptr);
  asyncfix_report *report = check(quiet);
  REQUIRE(asyncfix_report_count(report) == 1);
  CHECK(asyncfix_diagnostic_severity(report, 0) == ASYNCFIX_SEVERITY_WARNING);
  asyncfix_report_free(report);
  asyncfix_project_free(project);

  CHECK(asyncfix_project_new("py99", nullptr) == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_OPTIONS);
  CHECK(lastError() == "target version must be one of py35 … py314, not `py99`");
  CHECK(asyncfix_project_new(nullptr, "not an identifier") == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_OPTIONS);
  CHECK(asyncfix_project_check(nullptr, "", 0, nullptr) == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_ARGUMENT);
  asyncfix_project_free(nullptr);
}

namespace {

/// asyncfix_run() over `paths`: its JSON (parsed) and its messages; the run must not fail.
struct RunOutput {
  nlohmann::json json;
  std::string messages;
};
RunOutput runOver(const std::vector<std::string> &paths, const char *options, int mode) {
  std::vector<const char *> pointers;
  for (const std::string &path : paths) pointers.push_back(path.c_str());
  char *messages = nullptr;
  char *json = asyncfix_run(pointers.data(), pointers.size(), options, mode, &messages);
  INFO(lastError());
  REQUIRE(json != nullptr);
  REQUIRE(messages != nullptr);
  CHECK(asyncfix_last_error() == nullptr);
  RunOutput out{nlohmann::json::parse(take(json)), take(messages)};
  return out;
}

std::vector<std::string> fileAndCodes(const nlohmann::json &json, const std::string &base) {
  std::vector<std::string> out;
  for (const auto &d : json)
    out.push_back(std::filesystem::relative(d["filename"].get<std::string>(), base).string() + " " +
                  d["code"].get<std::string>());
  return out;
}

std::string readAll(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

TEST_CASE("C: asyncfix_run checks a tree as the command does, configuration per directory", "[capi][run]") {
  const ScratchDir dir;
  const std::string base = dir.path.string();
  dir.write("a.py", kLegacy);
  dir.write("quiet/b.py", kLegacy);
  dir.write("quiet/asyncfix.toml", "ignore = [\"AF001\"]\n");
  dir.write("gen/c.py", kLegacy);
  dir.write("asyncfix.toml", "extend-exclude = [\"gen\"]\n");
  dir.write("notes.txt", kLegacy);

  RunOutput out = runOver({base}, nullptr, ASYNCFIX_RUN_CHECK);
  // Path order; gen/ is excluded, quiet/ has its own configuration, notes.txt is no Python file.
  CHECK(fileAndCodes(out.json, base) == std::vector<std::string>{"a.py AF001", "a.py AF101", "quiet/b.py AF101"});
  CHECK(out.messages.empty());
  // Each object is the one asyncfix_check_json() makes for the file.
  char *one = asyncfix_check_json(kLegacy.data(), kLegacy.size(), (dir.path / "a.py").c_str(), nullptr);
  const nlohmann::json single = nlohmann::json::parse(take(one));
  REQUIRE(single.size() == 2);
  CHECK(out.json[0] == single[0]);
  CHECK(out.json[1] == single[1]);

  // The options win over the files; a file named explicitly is checked even when excluded.
  out = runOver({base, (dir.path / "gen/c.py").string()}, R"({"select": ["AF0"], "jobs": 1})", ASYNCFIX_RUN_CHECK);
  CHECK(fileAndCodes(out.json, base) == std::vector<std::string>{"a.py AF001", "gen/c.py AF001"});
  out = runOver({base}, R"({"isolated": true})", ASYNCFIX_RUN_CHECK);
  CHECK(out.json.size() == 6); // no configuration file: gen/ walked, quiet/ not quiet
  // Selectors as the command takes them: blanks around them and empty entries do not count.
  out = runOver({base}, R"({"select": [" AF0 ", ""], "jobs": 1})", ASYNCFIX_RUN_CHECK);
  CHECK(fileAndCodes(out.json, base) == std::vector<std::string>{"a.py AF001"});

  // Nothing was written by a check.
  CHECK(readAll(dir.path / "a.py") == kLegacy);
}

TEST_CASE("C: asyncfix_run fixes files on disk and reports what remains", "[capi][run]") {
  const ScratchDir dir;
  const std::string base = dir.path.string();
  dir.write("pkg/lib.py", "def load(batch, async=False):\n    return batch.cuda(async=async)\n");
  dir.write("pkg/use.py", "from pkg.lib import load\nload(x, async=True)\n");
  dir.write("asyncfix.toml", "src = [\".\"]\n"); // pkg is a top-level package of the project

  RunOutput out = runOver({base}, nullptr, ASYNCFIX_RUN_FIX); // safe fixes only: the parameter stays
  CHECK(readAll(dir.path / "pkg/lib.py").find("def load(batch, async=False)") != std::string::npos);
  CHECK(!out.json.empty());
  CHECK(out.messages.empty());

  out = runOver({base}, R"({"unsafe-fixes": true})", ASYNCFIX_RUN_FIX);
  CHECK(out.json == nlohmann::json::array());
  CHECK(out.messages.empty());
  CHECK(readAll(dir.path / "pkg/lib.py") ==
        "def load(batch, async_=False):\n    return batch.cuda(non_blocking=async_)\n");
  CHECK(readAll(dir.path / "pkg/use.py") == "from pkg.lib import load\nload(x, async_=True)\n"); // across files
  // A second run finds nothing to do.
  out = runOver({base}, R"({"unsafe-fixes": true})", ASYNCFIX_RUN_FIX);
  CHECK(out.json == nlohmann::json::array());
}

TEST_CASE("C: asyncfix_run's problems: messages for the files, errors for the call", "[capi][run]") {
  const ScratchDir dir;
  const std::string missing = (dir.path / "missing.py").string();
  dir.write("broken/asyncfix.toml", "selct = [\"AF1\"]\n");
  const std::string broken = dir.write("broken/x.py", kLegacy);

  RunOutput out = runOver({missing, broken}, nullptr, ASYNCFIX_RUN_CHECK);
  CHECK(out.json == nlohmann::json::array());
  CHECK(out.messages.starts_with("error: " + missing + ": "));
  CHECK(out.messages.find("asyncfix.toml:1:1: unknown key `selct`") != std::string::npos);
  CHECK(out.messages.ends_with("\n"));

  const char *paths[] = {broken.c_str()};
  char *messages = reinterpret_cast<char *>(1);
  CHECK(asyncfix_run(paths, 1, R"({"select": ["AF999"]})", ASYNCFIX_RUN_CHECK, &messages) == nullptr);
  CHECK(messages == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_OPTIONS);
  CHECK(lastError().find("AF999") != std::string::npos);
  CHECK(asyncfix_run(paths, 1, R"({"selct": ["AF1"]})", ASYNCFIX_RUN_CHECK, nullptr) == nullptr);
  CHECK(lastError() == "options: unknown key `selct`");
  // `docs-url` is judged as in a configuration file: a scheme before `://`, something after.
  for (const char *url :
       {R"({"docs-url": "://docs.test"})", R"({"docs-url": "1x://docs.test"})", R"({"docs-url": "https://"})"}) {
    INFO(url);
    CHECK(asyncfix_run(paths, 1, url, ASYNCFIX_RUN_CHECK, nullptr) == nullptr);
    CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_OPTIONS);
  }
  CHECK(asyncfix_run(paths, 1, "[1", ASYNCFIX_RUN_CHECK, nullptr) == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_OPTIONS);
  CHECK(asyncfix_run(paths, 1, R"({"config": "x.toml", "isolated": true})", ASYNCFIX_RUN_CHECK, nullptr) == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_OPTIONS);
  CHECK(asyncfix_run(paths, 1, nullptr, 7, nullptr) == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_ARGUMENT);
  CHECK(asyncfix_run(nullptr, 1, nullptr, ASYNCFIX_RUN_CHECK, nullptr) == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_ARGUMENT);
  const char *holes[] = {nullptr};
  CHECK(asyncfix_run(holes, 1, nullptr, ASYNCFIX_RUN_CHECK, nullptr) == nullptr);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_ERROR_ARGUMENT);
  // Without `messages` the run still runs; a later success clears the error.
  char *json = asyncfix_run(paths, 1, R"({"isolated": true})", ASYNCFIX_RUN_CHECK, nullptr);
  CHECK(nlohmann::json::parse(take(json)).size() == 2);
  CHECK(asyncfix_last_error_code() == ASYNCFIX_OK);
}
