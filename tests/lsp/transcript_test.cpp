// Transcript tests, clangd style: tests/lsp/transcripts/NAME.jsonrpc holds the client's messages,
// NAME.expected the server's output for them.
//
// Input format: lines `---` separate steps; within a step, lines `+++` separate messages that
// arrive together (queued before the server looks, e.g. a request and its $/cancelRequest). Lines
// starting with `#` are comments. A message is sent as written (so it may be invalid JSON);
// `${WORKSPACE}` stands for the file URI of tests/lsp/workspace, `${PROJECTS}` for that of
// tests/lsp/projects (small projects for the workspace-wide module rename). After each step the
// server handles everything queued, then does its deferred work (publishing diagnostics).
//
// Output format: for each step, a `=== N: <methods>` line, then each message the server wrote,
// as pretty-printed JSON with sorted keys; the two URIs are written back as `${WORKSPACE}` and
// `${PROJECTS}`, the address of the manual the links to rule pages start with (defaultDocsUrl(),
// which depends on where the build is) as `${DOCS}`, and the modification time in the result id
// of a file read from disk as `<mtime>`.
// ASYNCFIX_UPDATE_TRANSCRIPTS=1 rewrites the .expected files (review them before committing).
// Every transcript also checks that each client request got exactly one response.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asyncfix/rules.h"
#include "logger.h"
#include "server.h"
#include "transport.h"
#include "uri.h"

namespace asyncfix::lsp {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

const fs::path kDir = ASYNCFIX_LSP_TESTS_DIR;

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string trim(const std::string &s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

void replaceAll(std::string &text, const std::string &from, const std::string &to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

/// Steps of messages.
std::vector<std::vector<std::string>> parseTranscript(const std::string &text, const std::string &workspaceUri,
                                                      const std::string &projectsUri) {
  std::vector<std::vector<std::string>> steps(1);
  std::string message;
  const auto endMessage = [&] {
    std::string m = trim(message);
    message.clear();
    if (m.empty()) return;
    replaceAll(m, "${WORKSPACE}", workspaceUri);
    replaceAll(m, "${PROJECTS}", projectsUri);
    steps.back().push_back(m);
  };
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.starts_with("#")) continue;
    if (line == "---") {
      endMessage();
      if (!steps.back().empty()) steps.emplace_back();
    } else if (line == "+++") {
      endMessage();
    } else {
      message += line + "\n";
    }
  }
  endMessage();
  if (steps.back().empty()) steps.pop_back();
  return steps;
}

std::string describe(const std::string &raw) {
  const Json j = Json::parse(raw, nullptr, false);
  if (j.is_discarded()) return "(invalid JSON)";
  if (!j.is_object()) return "(not an object)";
  std::string out = j.contains("method") && j["method"].is_string() ? j["method"].get<std::string>() : "(response)";
  if (j.contains("id")) out += " #" + j["id"].dump();
  return out;
}

struct Replay {
  std::string output;
  std::vector<std::string> problems; ///< broken invariants
};

Replay replay(const std::string &transcript) {
  const std::string workspaceUri = pathToUri(kDir / "workspace");
  const std::string projectsUri = pathToUri(kDir / "projects");
  const std::string docsUrl = defaultDocsUrl();
  Logger log(nullptr, LogLevel::Error);
  MemoryTransport transport;
  Server server(transport, log);
  Replay result;
  std::map<std::string, int> requests; // client request id → responses seen
  const auto steps = parseTranscript(transcript, workspaceUri, projectsUri);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    // Appends, not `" " + std::string`: GCC 12 -O3 warns falsely (-Wrestrict) on that.
    std::string header = "=== ";
    header.append(std::to_string(i + 1)).append(":");
    for (const std::string &message : steps[i]) {
      header.append(" ").append(describe(message));
      const Json j = Json::parse(message, nullptr, false);
      if (j.is_object() && j.contains("method") && j.contains("id") &&
          (j["id"].is_number_integer() || j["id"].is_string()) && !server.exited())
        requests.try_emplace(j["id"].dump(), 0);
      transport.push(message);
    }
    result.output += header + "\n";
    server.drain();
    for (const std::string &body : transport.takeOutput()) {
      const Json j = Json::parse(body, nullptr, false);
      REQUIRE_FALSE(j.is_discarded());
      if (j.contains("id") && !j.contains("method")) {
        const std::string id = j["id"].dump();
        if (id != "null" && ++requests[id] > 1) result.problems.push_back("request " + id + " answered twice");
      }
      std::string text = j.dump(2);
      replaceAll(text, docsUrl, "${DOCS}");
      replaceAll(text, workspaceUri, "${WORKSPACE}");
      replaceAll(text, projectsUri, "${PROJECTS}");
      // Result ids of files on disk hold their modification time: not reproducible.
      static const std::regex diskResultId(R"re("disk:(\d+):-?\d+:(\d+)")re");
      text = std::regex_replace(text, diskResultId, "\"disk:$1:<mtime>:$2\"");
      result.output += text + "\n";
    }
  }
  result.output +=
      server.exited() ? "=== exit code " + std::to_string(server.exitCode()) + "\n" : "=== still running\n";
  for (const auto &[id, count] : requests)
    if (count == 0 && !server.exited()) result.problems.push_back("request " + id + " never answered");
    else if (count == 0) result.problems.push_back("request " + id + " never answered before exit");
  return result;
}

void checkTranscript(const std::string &name) {
  const fs::path input = kDir / "transcripts" / (name + ".jsonrpc");
  const fs::path expectedPath = kDir / "transcripts" / (name + ".expected");
  REQUIRE(fs::exists(input));
  const Replay got = replay(readFile(input));
  for (const std::string &problem : got.problems) FAIL_CHECK(name << ": " << problem);
  const char *update = std::getenv("ASYNCFIX_UPDATE_TRANSCRIPTS");
  if (update && std::string(update) == "1") {
    std::ofstream(expectedPath, std::ios::binary) << got.output;
    WARN("updated " << expectedPath.string());
    return;
  }
  REQUIRE(fs::exists(expectedPath));
  const std::string expected = readFile(expectedPath);
  if (got.output == expected) {
    SUCCEED();
    return;
  }
  // Show the first difference with some context.
  std::istringstream a(expected), b(got.output);
  std::string la, lb;
  int line = 0;
  while (true) {
    const bool ha = static_cast<bool>(std::getline(a, la)), hb = static_cast<bool>(std::getline(b, lb));
    ++line;
    if (!ha && !hb) break;
    if (la != lb || ha != hb) {
      FAIL(name << ".expected differs at line " << line << "\n  expected: " << (ha ? la : "<end>") << "\n  actual:   "
                << (hb ? lb : "<end>") << "\n(ASYNCFIX_UPDATE_TRANSCRIPTS=1 rewrites the expected files)");
    }
  }
}

} // namespace

#define TRANSCRIPT(name)                                                                                               \
  TEST_CASE("transcript " name, "[lsp][transcript]") { checkTranscript(name); }

TRANSCRIPT("lifecycle")
TRANSCRIPT("exit_without_shutdown")
TRANSCRIPT("errors")
TRANSCRIPT("push_diagnostics")
TRANSCRIPT("related_information")
TRANSCRIPT("pull_diagnostics")
TRANSCRIPT("positions_utf16")
TRANSCRIPT("positions_utf8")
TRANSCRIPT("positions_utf32")
TRANSCRIPT("incremental_edits")
TRANSCRIPT("code_actions")
TRANSCRIPT("code_action_resolve")
TRANSCRIPT("hover")
TRANSCRIPT("docs_url")
TRANSCRIPT("notebooks")
TRANSCRIPT("notebook_resolve")
TRANSCRIPT("configuration")
TRANSCRIPT("execute_command")
TRANSCRIPT("module_rename")
TRANSCRIPT("module_rename_inline")
TRANSCRIPT("module_rename_unsupported")
TRANSCRIPT("module_rename_taken")
TRANSCRIPT("module_rename_unsafe")
TRANSCRIPT("robustness")
TRANSCRIPT("torch_migration")

} // namespace asyncfix::lsp
