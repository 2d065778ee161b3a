// Unit tests of the server's helpers: framing, text diffs, URIs, settings parsing.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "asyncfix/diagnostic.h"
#include "dispatcher.h"
#include "logger.h"
#include "protocol.h"
#include "server.h"
#include "text_diff.h"
#include "transport.h"
#include "uri.h"

namespace asyncfix::lsp {
namespace {

std::string frame(const std::string &body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

} // namespace

TEST_CASE("FrameReader splits a stream fed byte by byte", "[lsp][transport]") {
  Logger log(nullptr);
  FrameReader reader(log);
  const std::string stream =
      frame(R"({"a":1})") + frame("{}") + "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + frame("[é]");
  std::vector<std::string> got;
  for (char c : stream) {
    reader.feed(std::string_view(&c, 1));
    while (auto body = reader.next()) got.push_back(*body);
  }
  REQUIRE(got == std::vector<std::string>{R"({"a":1})", "{}", "[é]"});
  CHECK(reader.buffered() == 0);
}

TEST_CASE("FrameReader skips malformed headers and keeps going", "[lsp][transport]") {
  Logger log(nullptr);
  FrameReader reader(log);
  reader.feed("Content-Length: abc\r\n\r\n");                  // not a number
  reader.feed("X-Nothing: 1\r\n\r\n");                         // no Content-Length
  reader.feed("garbage without colon\r\n\r\n");                // junk
  reader.feed("content-length: 2\n\n{}");                      // lower case, bare \n line ends
  reader.feed("Content-Length: 99999999999999999999\r\n\r\n"); // overflow
  reader.feed(frame("[1]"));
  std::vector<std::string> got;
  while (auto body = reader.next()) got.push_back(*body);
  CHECK(got == std::vector<std::string>{"{}", "[1]"});
}

TEST_CASE("MemoryTransport queues in order", "[lsp][transport]") {
  MemoryTransport t;
  CHECK_FALSE(t.hasPending());
  t.push("a");
  t.push("b");
  CHECK(t.read() == "a");
  CHECK(t.read() == "b");
  CHECK_FALSE(t.read().has_value());
  t.write("out");
  CHECK(t.takeOutput() == std::vector<std::string>{"out"});
}

TEST_CASE("diffEdits turns one text into the other with small edits", "[lsp][diff]") {
  SECTION("per line, trimmed") {
    const std::string before = "a = x.cuda(async=True)\nb = 1\nc = y.to(0, async=True)\n";
    const std::string after = "a = x.cuda(non_blocking=True)\nb = 1\nc = y.to(0, non_blocking=True)\n";
    const auto edits = diffEdits(before, after);
    REQUIRE(edits.size() == 2);
    CHECK(edits[0].start == 11);
    CHECK(edits[0].end == 16);
    CHECK(applyEdits(before, edits) == after);
  }
  SECTION("lines added or removed elsewhere keep the edits small") {
    const std::string before = "import torch\nx = a.cuda(async=True)\nold = 1\ny = 2\n";
    const std::string after = "import torch\nimport os\nx = a.cuda(non_blocking=True)\ny = 2\n";
    const auto edits = diffEdits(before, after);
    REQUIRE(edits.size() == 3);
    CHECK(edits[0].start == 13); // an insertion before line 2
    CHECK(edits[0].end == 13);
    CHECK(edits[0].content == "import os\n");
    CHECK(before.substr(edits[1].start, edits[1].end - edits[1].start) == "async");
    CHECK(edits[1].content == "non_blocking");
    CHECK(before.substr(edits[2].start, edits[2].end - edits[2].start) == "old = 1\n");
    CHECK(edits[2].content.empty());
    CHECK(applyEdits(before, edits) == after);
  }
  SECTION("never splits a character") {
    const std::string before = "s = 'é'\n", after = "s = 'è'\n"; // é = C3 A9, è = C3 A8
    const auto edits = diffEdits(before, after);
    REQUIRE(edits.size() == 1);
    CHECK(edits[0].content == "è");
    CHECK(applyEdits(before, edits) == after);
  }
  SECTION("random texts") {
    std::mt19937 rng(5);
    const std::vector<std::string> pieces = {"a", "b", "\n", "é", "😀", "\r\n", " ", "async"};
    for (int i = 0; i < 500; ++i) {
      std::string a, b;
      for (auto k = rng() % 12; k > 0; --k) a += pieces[rng() % pieces.size()];
      b = a;
      for (auto k = rng() % 3; k > 0; --k) {
        const std::size_t at = b.empty() ? 0 : rng() % b.size();
        // insert at a character boundary
        std::size_t pos = at;
        while (pos > 0 && (static_cast<unsigned char>(b[pos]) & 0xC0) == 0x80) --pos;
        b.insert(pos, pieces[rng() % pieces.size()]);
      }
      REQUIRE(applyEdits(a, diffEdits(a, b)) == b);
    }
  }
}

TEST_CASE("file URIs and paths", "[lsp][uri]") {
  CHECK(uriToPath("file:///home/u/a%20b.py") == std::filesystem::path("/home/u/a b.py"));
  CHECK(uriToPath("file://localhost/x.py") == std::filesystem::path("/x.py"));
  CHECK_FALSE(uriToPath("untitled:Untitled-1").has_value());
  CHECK_FALSE(uriToPath("file://host/x.py").has_value());
  CHECK_FALSE(uriToPath("file:///a%zz").has_value());
  CHECK(pathToUri("/home/u/a b/é.py") == "file:///home/u/a%20b/%C3%A9.py");
  CHECK(uriToPath(pathToUri("/tmp/ü x#.py")) == std::filesystem::path("/tmp/ü x#.py"));
}

TEST_CASE("settings: flat or nested, camelCase or kebab-case, never fatal", "[lsp][protocol]") {
  using nlohmann::json;
  Settings s;
  fromJSON(json::parse(R"({"asyncfix": {"select": "AF1, AF001", "extend-select": ["AF002"], "targetVersion": "py36",
                           "unsafeFixes": "yes"}})"),
           s, "settings");
  REQUIRE(s.select == std::vector<std::string>{"AF1", "AF001"});
  REQUIRE(s.extendSelect == std::vector<std::string>{"AF002"});
  CHECK(s.targetVersion == "py36");
  CHECK_FALSE(s.unsafeFixes.has_value());
  CHECK(s.problems.size() == 1);
  Settings flat;
  fromJSON(json::parse(R"({"ignore": ["AF101"], "renameStyle": "is_async"})"), flat, "settings");
  CHECK(flat.ignore == std::vector<std::string>{"AF101"});
  CHECK(flat.renameStyle == "is_async");
  Settings empty;
  fromJSON(json(nullptr), empty, "settings");
  CHECK(empty.empty());
  CHECK(empty.problems.empty());
}

TEST_CASE("publishDiagnostics written directly is the text nlohmann writes", "[lsp][protocol]") {
  Diagnostic full;
  full.range = {{3, 14}, {3, 19}};
  full.severity = DiagnosticSeverity::Warning;
  full.code = "AF104";
  full.codeDescriptionHref = "https://example.org/rules/AF104";
  full.source = "asyncfix";
  full.message = "`non_blocking=True` is synchronous here: the DataLoader on line 12 does not pin memory";
  full.tags = {DiagnosticTag::Deprecated, DiagnosticTag::Unnecessary};
  full.data = DiagnosticData{.version = 42, .start = 1234567, .end = 1234572, .fix = "unsafe"};
  full.relatedInformation = {{.uri = "file:///a.py", .range = {{11, 0}, {11, 0}}, .message = "The DataLoader"},
                             {.uri = "file:///a.py", .range = {{2, 4}, {2, 4}}, .message = "a \"quoted\" one"}};
  Diagnostic bare;
  bare.message = std::string("quote \" backslash \\ tab \t line\n cr\r \x01\x1f del \x7f \xC3\xA9 bad \xFF\xC3 end");
  bare.data = DiagnosticData{.version = -1, .start = 0, .end = 0, .fix = std::nullopt};
  const std::vector<PublishDiagnosticsParams> cases{
      {.uri = "file:///a%20b/t\u00e9st.py", .version = 7, .diagnostics = {full, bare, full}},
      {.uri = "untitled:Untitled-1", .version = std::nullopt, .diagnostics = {}},
      {.uri = "file:///x.py", .version = 0, .diagnostics = {Diagnostic{}}},
  };
  for (const PublishDiagnosticsParams &p : cases)
    CHECK(toJSONText(p) == toJSON(p).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));

  // And the whole message, as notify() sends it.
  MemoryTransport direct, built;
  Logger log;
  Dispatcher a(direct, log), b(built, log);
  a.notifyText("textDocument/publishDiagnostics", toJSONText(cases[0]));
  b.notify("textDocument/publishDiagnostics", cases[0]);
  CHECK(direct.takeOutput() == built.takeOutput());
}

TEST_CASE("fromJSON names the offending field", "[lsp][protocol]") {
  TextDocumentPositionParams p;
  try {
    fromJSON(
        nlohmann::json::parse(R"({"textDocument": {"uri": "file:///a.py"}, "position": {"line": -1, "character": 0}})"),
        p, "params");
    FAIL("no error");
  } catch (const LspError &e) {
    CHECK(e.code == ErrorCode::InvalidParams);
    CHECK(std::string(e.what()).starts_with("params.position.line:"));
  }
}

} // namespace asyncfix::lsp

TEST_CASE("a document over the size limit is not linted as you type and blocks nothing", "[lsp][limits]") {
  using namespace asyncfix::lsp;
  Logger log(nullptr, LogLevel::Error);
  MemoryTransport transport;
  Server server(transport, log);
  server.workspace().maxLintBytes = 4096; // stands for the 8 MB default
  const auto open = [&](const std::string &uri, const std::string &text) {
    nlohmann::json m = {
        {"jsonrpc", "2.0"},
        {"method", "textDocument/didOpen"},
        {"params", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}}}};
    transport.push(m.dump());
  };
  transport.push(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}})");
  transport.push(R"({"jsonrpc":"2.0","method":"initialized","params":{}})");
  std::string big = "x.cuda(async=True)\n";
  while (big.size() <= 4096) big += "y = 1\n";
  open("file:///big.py", big);
  open("file:///small.py", "x.cuda(async=True)\n");
  server.drain();
  std::map<std::string, std::size_t> published;
  int notices = 0;
  for (const std::string &out : transport.takeOutput()) {
    const auto m = nlohmann::json::parse(out);
    if (m.value("method", "") == "textDocument/publishDiagnostics")
      published[m["params"]["uri"]] = m["params"]["diagnostics"].size();
    if (m.value("method", "") == "window/showMessage" &&
        m["params"]["message"].get<std::string>().find("file:///big.py") != std::string::npos)
      ++notices;
  }
  CHECK(published["file:///big.py"] == 0);   // not linted: no findings, no parse
  CHECK(published["file:///small.py"] == 1); // the others are served as usual
  CHECK(notices == 1);
  // Typing in it still gives no diagnostics, and no second notice.
  transport.push(
      R"({"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///big.py","version":2},"contentChanges":[{"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":0}},"text":"z"}]}})");
  server.drain();
  for (const std::string &out : transport.takeOutput()) {
    const auto m = nlohmann::json::parse(out);
    CHECK(m.value("method", "") != "window/showMessage");
    if (m.value("method", "") == "textDocument/publishDiagnostics") CHECK(m["params"]["diagnostics"].empty());
  }
}
