// 1 000 random incremental edits (fixed seed): after each didChange the server's text equals the
// text a reference implementation in this file computes from the same LSP changes, and the
// diagnostics it publishes equal a fresh full lint of that text.
//
// The reference works on code points and counts columns itself (independently of LineIndex):
// a column past the end of a line means the line's end, a line past the end the text's end, a
// column inside a surrogate pair the character's start (LSP 3.17 and what LineIndex documents).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "asyncfix/linter.h"
#include "asyncfix/notebook.h"
#include "logger.h"
#include "server.h"
#include "transport.h"

namespace asyncfix::lsp {
namespace {

using Json = nlohmann::json;

std::u32string decode(const std::string &s) {
  std::u32string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out += cp;
    i += static_cast<std::size_t>(n);
  }
  return out;
}

std::string encode(const std::u32string &s) {
  std::string out;
  for (const char32_t cp : s) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  return out;
}

enum class Units { Utf8, Utf16, Utf32 };

std::uint32_t unitsOf(char32_t cp, Units u) {
  switch (u) {
  case Units::Utf8: return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  case Units::Utf16: return cp < 0x10000 ? 1 : 2;
  case Units::Utf32: return 1;
  }
  return 1;
}

/// Index (in code points) of an LSP position in `text`, clamped as LSP says.
std::size_t indexOf(const std::u32string &text, std::uint32_t line, std::uint32_t column, Units u) {
  std::size_t i = 0;
  for (std::uint32_t l = 0; l < line; ++l) {
    const std::size_t nl = text.find(U'\n', i);
    if (nl == std::u32string::npos) return text.size();
    i = nl + 1;
  }
  std::uint32_t col = 0;
  while (i < text.size() && text[i] != U'\n') {
    const std::uint32_t n = unitsOf(text[i], u);
    if (col + n > column) break;
    col += n;
    ++i;
  }
  return i;
}

/// LSP position of a byte offset into the UTF-8 form of `text`.
std::pair<std::uint32_t, std::uint32_t> positionOf(const std::u32string &text, std::size_t byteOffset, Units u) {
  std::uint32_t line = 0, col = 0;
  std::size_t bytes = 0;
  for (const char32_t cp : text) {
    if (bytes >= byteOffset) break;
    bytes += unitsOf(cp, Units::Utf8);
    if (cp == U'\n') {
      ++line;
      col = 0;
    } else {
      col += unitsOf(cp, u);
    }
  }
  return {line, col};
}

using Finding = std::tuple<std::string, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::string>;

/// Apply LSP text edits (ranges in the reference's own position arithmetic) to `text`.
std::u32string applyLspEdits(std::u32string text, const Json &edits, Units u) {
  std::vector<std::tuple<std::size_t, std::size_t, std::u32string>> spans;
  for (const Json &e : edits) {
    const Json &r = e["range"];
    spans.emplace_back(indexOf(text, r["start"]["line"], r["start"]["character"], u),
                       indexOf(text, r["end"]["line"], r["end"]["character"], u), decode(e["newText"]));
  }
  std::sort(spans.begin(), spans.end(), [](const auto &a, const auto &b) { return std::get<0>(a) > std::get<0>(b); });
  for (const auto &[start, end, insert] : spans) text = text.substr(0, start) + insert + text.substr(end);
  return text;
}

/// Load: every step edits the document, then (pull mode) asks for its diagnostics, and every
/// few steps for the code actions and the hover of a random finding. Each answer is checked
/// against a fresh lint of the reference text: the diagnostics are the same, the hover names
/// the finding's rule, and the quick fix's edit, applied to the reference, gives the engine's
/// fix of that finding.
struct LoadOptions {
  bool pull = false;
  int pullEvery = 1;    ///< pull mode: ask for and compare the diagnostics every N edits
  int requestEvery = 0; ///< 0: no code action or hover requests
};

void run(Units units, const char *encodingName, int edits, unsigned seed, LoadOptions load = {}) {
  Logger log(nullptr, LogLevel::Error);
  MemoryTransport transport;
  Server server(transport, log);
  const std::string uri = "file:///random/edits.py";
  Json capabilities = {{"general", {{"positionEncodings", {encodingName}}}}};
  if (load.pull) capabilities["textDocument"] = {{"diagnostic", {{"dynamicRegistration", false}}}};
  Json init = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", {{"capabilities", capabilities}}}};
  int nextId = 100;
  transport.push(init.dump());
  transport.push(R"({"jsonrpc":"2.0","method":"initialized","params":{}})");
  std::u32string text = decode("import torch\n\ndef f(x, async=False):\n    y = x.cuda(async=True)\n"
                               "    s = 'é€中😀'; z = y.to(0, async=async)\n    await = 1\n    return await\n");
  Json open = {
      {"jsonrpc", "2.0"},
      {"method", "textDocument/didOpen"},
      {"params", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", encode(text)}}}}}};
  transport.push(open.dump());
  server.drain();
  transport.takeOutput();

  const std::vector<std::string> pieces = {"",
                                           "a",
                                           "async",
                                           "await",
                                           "=",
                                           "(",
                                           ")",
                                           ".cuda(",
                                           "x.cuda(async=True)",
                                           "\n",
                                           "é",
                                           "€",
                                           "中",
                                           "😀",
                                           " ",
                                           "def g(async):\n",
                                           "# async\n",
                                           "'async'",
                                           "    ",
                                           ",",
                                           "async=",
                                           "True)"};
  std::mt19937 rng(seed);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  const Linter linter;
  for (int step = 0; step < edits; ++step) {
    Json changes = Json::array();
    const std::size_t count = 1 + pick(3);
    for (std::size_t c = 0; c < count; ++c) {
      const auto lines = static_cast<std::uint32_t>(std::count(text.begin(), text.end(), U'\n') + 1);
      // Positions, sometimes past the end of the line or of the document.
      const auto randomPosition = [&] {
        const auto line = static_cast<std::uint32_t>(pick(lines + 2));
        const auto column = static_cast<std::uint32_t>(pick(30));
        return std::pair{line, column};
      };
      auto a = randomPosition();
      auto b = pick(3) == 0 ? a : randomPosition();
      std::size_t ia = indexOf(text, a.first, a.second, units), ib = indexOf(text, b.first, b.second, units);
      if (ib < ia) {
        std::swap(a, b);
        std::swap(ia, ib);
      }
      if (ib - ia > 40) ib = ia, b = a; // keep the document from shrinking to nothing
      std::string insert;
      if (text.size() > 600 && ib == ia) {
        // Keep the document small (the test is about edits, not size): delete the rest of a line.
        b = {a.first, a.second + 30};
        ib = indexOf(text, b.first, b.second, units);
      } else {
        for (std::size_t k = pick(3); k > 0; --k) insert += pieces[pick(pieces.size())];
      }
      text = text.substr(0, ia) + decode(insert) + text.substr(ib);
      changes.push_back({{"range",
                          {{"start", {{"line", a.first}, {"character", a.second}}},
                           {"end", {{"line", b.first}, {"character", b.second}}}}},
                         {"text", insert}});
    }
    const int version = step + 2;
    Json change = {{"jsonrpc", "2.0"},
                   {"method", "textDocument/didChange"},
                   {"params", {{"textDocument", {{"uri", uri}, {"version", version}}}, {"contentChanges", changes}}}};
    transport.push(change.dump());
    server.drain();
    // The document goes quiet: a tree re-parsed incrementally after broken states is parsed
    // afresh, so what the client sees now equals a fresh lint (IncrementalLint's own test
    // checks the keystroke results against a lint of the same tree).
    server.settle();

    const std::string expectedText = encode(text);
    const OpenDocument *doc = server.workspace().find(uri);
    REQUIRE(doc != nullptr);
    REQUIRE(doc->doc.text() == expectedText);

    if (load.pull && step % load.pullEvery != 0) continue; // the text was compared above
    std::vector<Finding> expected;
    for (const asyncfix::Diagnostic &d : linter.lint(expectedText)) {
      const auto s = positionOf(text, d.start, units), e = positionOf(text, d.end, units);
      expected.emplace_back(std::string(d.code), s.first, s.second, e.first, e.second, d.message);
    }
    std::vector<Finding> published;
    bool sawPublish = false;
    if (load.pull) {
      const int id = nextId++;
      transport.push(Json{{"jsonrpc", "2.0"},
                          {"id", id},
                          {"method", "textDocument/diagnostic"},
                          {"params", {{"textDocument", {{"uri", uri}}}}}}
                         .dump());
      server.drain();
    }
    for (const std::string &body : transport.takeOutput()) {
      if (load.pull) {
        const Json j = Json::parse(body);
        REQUIRE(j.value("method", "") != "textDocument/publishDiagnostics"); // pull clients are never pushed
        if (!j.contains("id") || !j.contains("result")) continue;
        sawPublish = true;
        REQUIRE(j["result"]["kind"] == "full");
        for (const Json &d : j["result"]["items"])
          published.emplace_back(d["code"].get<std::string>(), d["range"]["start"]["line"].get<std::uint32_t>(),
                                 d["range"]["start"]["character"].get<std::uint32_t>(),
                                 d["range"]["end"]["line"].get<std::uint32_t>(),
                                 d["range"]["end"]["character"].get<std::uint32_t>(), d["message"].get<std::string>());
        continue;
      }
      const Json j = Json::parse(body);
      if (j.value("method", "") != "textDocument/publishDiagnostics") continue;
      sawPublish = true;
      published.clear();
      REQUIRE(j["params"]["version"] == version);
      for (const Json &d : j["params"]["diagnostics"])
        published.emplace_back(d["code"].get<std::string>(), d["range"]["start"]["line"].get<std::uint32_t>(),
                               d["range"]["start"]["character"].get<std::uint32_t>(),
                               d["range"]["end"]["line"].get<std::uint32_t>(),
                               d["range"]["end"]["character"].get<std::uint32_t>(), d["message"].get<std::string>());
    }
    REQUIRE(sawPublish);
    if (published != expected) {
      std::string diff;
      const auto show = [&](const char *label, const std::vector<Finding> &items) {
        diff += label;
        for (const Finding &f : items)
          diff += "  " + std::get<0>(f) + " " + std::to_string(std::get<1>(f)) + ":" + std::to_string(std::get<2>(f)) +
                  "-" + std::to_string(std::get<3>(f)) + ":" + std::to_string(std::get<4>(f)) + " " + std::get<5>(f) +
                  "\n";
      };
      show("published:\n", published);
      show("fresh lint:\n", expected);
      FAIL("step " << step << ": published diagnostics differ from a fresh lint\n"
                   << diff << "text:\n"
                   << expectedText);
    }
    if (load.requestEvery == 0 || step % load.requestEvery != 0) continue;
    const std::vector<asyncfix::Diagnostic> fresh = linter.lint(expectedText);
    if (fresh.empty()) continue;
    const asyncfix::Diagnostic &d = fresh[pick(fresh.size())];
    const auto s0 = positionOf(text, d.start, units), e0 = positionOf(text, d.end, units);
    const Json range = {{"start", {{"line", s0.first}, {"character", s0.second}}},
                        {"end", {{"line", e0.first}, {"character", e0.second}}}};
    const int hoverId = nextId++, actionId = nextId++;
    transport.push(Json{{"jsonrpc", "2.0"},
                        {"id", hoverId},
                        {"method", "textDocument/hover"},
                        {"params", {{"textDocument", {{"uri", uri}}}, {"position", range["start"]}}}}
                       .dump());
    transport.push(Json{
        {"jsonrpc", "2.0"},
        {"id", actionId},
        {"method", "textDocument/codeAction"},
        {"params", {{"textDocument", {{"uri", uri}}}, {"range", range}, {"context", {{"diagnostics", Json::array()}}}}}}
                       .dump());
    server.drain();
    bool sawHover = false, sawActions = false;
    for (const std::string &body : transport.takeOutput()) {
      const Json j = Json::parse(body);
      if (j.value("id", 0) == hoverId) {
        sawHover = true;
        REQUIRE(j["result"].is_object());
        CHECK(j["result"]["contents"]["value"].get<std::string>().find(std::string(d.code)) != std::string::npos);
      } else if (j.value("id", 0) == actionId) {
        sawActions = true;
        REQUIRE(j["result"].is_array());
        if (!d.fix || d.fix->applicability != asyncfix::Applicability::Safe ||
            !asyncfix::verifyFix(asyncfix::Document(expectedText), *d.fix))
          continue;
        // Another finding on the same range may have a fix of the same title: one must match.
        const std::string expectedFix = asyncfix::applyEdits(expectedText, d.fix->edits);
        bool matched = false;
        for (const Json &a : j["result"])
          if (a["title"] == d.fix->title && a.contains("edit"))
            matched = matched || encode(applyLspEdits(text, a["edit"]["changes"][uri], units)) == expectedFix;
        INFO("step " << step << ": " << d.code << " " << d.fix->title << "\n" << j.dump(1) << "\n" << expectedText);
        CHECK(matched);
      }
    }
    REQUIRE(sawHover);
    REQUIRE(sawActions);
  }
}

/// A notebook's cells as the reference keeps them.
struct RefCell {
  std::string uri;
  bool code = true;
  std::int64_t version = 1;
  std::u32string text;
  std::string language; ///< the text document's languageId
  bool linted() const { return code && language == "python"; }
};

/// Random keystrokes in a notebook's cells, with cells added, removed and moved now and then:
/// after each change the virtual document the server lints equals the one asyncfix::Notebook
/// makes of the reference cells afresh, and the diagnostics last published for each cell equal
/// a fresh lint of that text, in the cell's positions, at the cell's version.
void runNotebook(int steps, unsigned seed) {
  Logger log(nullptr, LogLevel::Error);
  MemoryTransport transport;
  Server server(transport, log);
  const Units units = Units::Utf16;
  const std::string uri = "file:///random/nb.ipynb";
  transport.push(
      Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", {{"capabilities", Json::object()}}}}
          .dump());
  transport.push(R"({"jsonrpc":"2.0","method":"initialized","params":{}})");
  int nextCell = 0;
  const auto newCell = [&](bool code, const std::string &text) {
    return RefCell{"vscode-notebook-cell:/random/nb.ipynb#c" + std::to_string(nextCell++), code, 1, decode(text),
                   code ? "python" : "markdown"};
  };
  std::vector<RefCell> cells = {newCell(true, "%matplotlib inline\nimport torch\n"),
                                newCell(false, "# Training: x.cuda(async=True)\n"),
                                newCell(true, "def f(x, async=False):\n    return x.cuda(async=async)\n"),
                                newCell(true, "!pip install torch\ny = f(1, async=True)\n"),
                                newCell(true, "%%bash\necho async=1\n"),
                                newCell(true, "await = 1\nz = y.to('cpu', non_blocking=True)\n"),
                                newCell(true, "x.cuda(async=True)\n")};
  cells.back().language = "r"; // a code cell in another language: not linted
  const auto cellJson = [](const RefCell &c) { return Json{{"kind", c.code ? 2 : 1}, {"document", c.uri}}; };
  const auto itemJson = [](const RefCell &c) {
    return Json{{"uri", c.uri}, {"languageId", c.language}, {"version", c.version}, {"text", encode(c.text)}};
  };
  Json cellList = Json::array(), items = Json::array();
  for (const RefCell &c : cells) cellList.push_back(cellJson(c)), items.push_back(itemJson(c));
  int version = 1;
  transport.push(Json{
      {"jsonrpc", "2.0"},
      {"method", "notebookDocument/didOpen"},
      {"params",
       {{"notebookDocument",
         {{"uri", uri}, {"notebookType", "jupyter-notebook"}, {"version", version}, {"cells", cellList}}},
        {"cellTextDocuments",
         items}}}}.dump());

  const std::vector<std::string> pieces = {"a",
                                           "async",
                                           "await",
                                           "=",
                                           "(",
                                           ")",
                                           "x.cuda(async=True)",
                                           "\n",
                                           "é",
                                           "😀",
                                           " ",
                                           "def g(async):\n",
                                           "'async'",
                                           "    ",
                                           "%",
                                           "%%bash\n",
                                           "!ls\n",
                                           "help?\n",
                                           "async=",
                                           "True)",
                                           "è",
                                           "ĩ"};
  std::mt19937 rng(seed);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  std::map<std::string, std::vector<Finding>> published; // the latest per cell
  std::map<std::string, std::int64_t> publishedVersion;
  // One or two edits in a cell, as one textContent entry.
  const auto keystrokes = [&](RefCell &cell) {
    Json edits = Json::array();
    for (std::size_t n = 1 + pick(2); n > 0; --n) {
      const auto lines = static_cast<std::uint32_t>(std::count(cell.text.begin(), cell.text.end(), U'\n') + 1);
      std::pair<std::uint32_t, std::uint32_t> a{static_cast<std::uint32_t>(pick(lines + 1)),
                                                static_cast<std::uint32_t>(pick(25))};
      auto b = pick(3) == 0 ? std::pair{a.first, a.second + static_cast<std::uint32_t>(pick(10))} : a;
      std::size_t ia = indexOf(cell.text, a.first, a.second, units), ib = indexOf(cell.text, b.first, b.second, units);
      std::string insert = ia == ib || pick(2) == 0 ? pieces[pick(pieces.size())] : "";
      if (cell.text.size() > 300) insert.clear();
      cell.text = cell.text.substr(0, ia) + decode(insert) + cell.text.substr(ib);
      edits.push_back({{"range",
                        {{"start", {{"line", a.first}, {"character", a.second}}},
                         {"end", {{"line", b.first}, {"character", b.second}}}}},
                       {"text", insert}});
    }
    ++cell.version;
    return Json{{"document", {{"uri", cell.uri}, {"version", cell.version}}}, {"changes", edits}};
  };
  const Linter linter;
  for (int step = 0; step <= steps; ++step) {
    Json change = Json::object();
    const std::size_t kind = step == 0 ? 99 : pick(24);
    if (kind == 0 || kind == 1 || cells.empty()) { // a new cell
      const std::size_t at = pick(cells.size() + 1);
      RefCell c = newCell(pick(4) != 0, pieces[pick(pieces.size())] + "\n");
      change["structure"] = {{"array", {{"start", at}, {"deleteCount", 0}, {"cells", Json::array({cellJson(c)})}}},
                             {"didOpen", Json::array({itemJson(c)})}};
      cells.insert(cells.begin() + static_cast<std::ptrdiff_t>(at), std::move(c));
    } else if (kind == 2) { // a cell removed
      const std::size_t at = pick(cells.size());
      change["structure"] = {{"array", {{"start", at}, {"deleteCount", 1}}},
                             {"didClose", Json::array({{{"uri", cells[at].uri}}})}};
      cells.erase(cells.begin() + static_cast<std::ptrdiff_t>(at));
    } else if (kind == 3 && cells.size() > 1) { // a cell moved down by one
      const std::size_t at = pick(cells.size() - 1);
      change["structure"] = {{"array",
                              {{"start", at},
                               {"deleteCount", 2},
                               {"cells", Json::array({cellJson(cells[at + 1]), cellJson(cells[at])})}}}};
      std::swap(cells[at], cells[at + 1]);
    } else if (kind == 4) { // a cell turned from code to markup or back (`data`)
      RefCell &cell = cells[pick(cells.size())];
      cell.code = !cell.code;
      change["data"] = Json::array({cellJson(cell)});
    } else if (kind == 5 && cells.size() > 1) { // a bad change: InvalidParams, nothing changes
      change["structure"] = {{"array", {{"start", 0}, {"deleteCount", 1}}}};
      change["textContent"] =
          Json::array({{{"document", {{"uri", "vscode-notebook-cell:/random/nb.ipynb#none"}, {"version", 1}}},
                        {"changes", Json::array()}}});
    } else if (kind != 99) { // keystrokes in one cell, or two
      change["textContent"] = Json::array();
      const std::size_t first = pick(cells.size()), second = pick(cells.size());
      for (const std::size_t which : {first, second}) {
        if (which == second && (second == first || pick(2) == 0)) break;
        change["textContent"].push_back(keystrokes(cells[which]));
      }
    }
    if (kind != 99) {
      if (kind != 5 || cells.size() <= 1) ++version; // a bad change does not make a version
      transport.push(Json{
          {"jsonrpc", "2.0"},
          {"method", "notebookDocument/didChange"},
          {"params", {{"notebookDocument", {{"uri", uri}, {"version", version}}}, {"change", {{"cells", change}}}}}}
                         .dump());
    }
    server.drain();
    server.settle();
    for (const std::string &body : transport.takeOutput()) {
      const Json j = Json::parse(body);
      if (j.value("method", "") != "textDocument/publishDiagnostics") continue;
      std::vector<Finding> &list = published[j["params"]["uri"]];
      list.clear();
      publishedVersion[j["params"]["uri"]] = j["params"].value("version", std::int64_t{-1});
      for (const Json &d : j["params"]["diagnostics"])
        list.emplace_back(d["code"].get<std::string>(), d["range"]["start"]["line"].get<std::uint32_t>(),
                          d["range"]["start"]["character"].get<std::uint32_t>(),
                          d["range"]["end"]["line"].get<std::uint32_t>(),
                          d["range"]["end"]["character"].get<std::uint32_t>(), d["message"].get<std::string>());
    }

    // The reference: the notebook made afresh from the cells, linted in full.
    Json nbJson = {{"cells", Json::array()}, {"nbformat", 4}, {"nbformat_minor", 5}, {"metadata", Json::object()}};
    for (const RefCell &c : cells)
      nbJson["cells"].push_back({{"cell_type", c.linted() ? "code" : "markdown"}, {"source", encode(c.text)}});
    auto fresh = asyncfix::Notebook::parse(nbJson.dump());
    REQUIRE(std::holds_alternative<asyncfix::Notebook>(fresh));
    const asyncfix::Notebook &layout = std::get<asyncfix::Notebook>(fresh);
    const OpenNotebook *nb = server.workspace().findNotebook(uri);
    REQUIRE(nb != nullptr);
    INFO("step " << step << ", kind " << kind << "\n" << layout.virtualText());
    REQUIRE(nb->virtualDoc->doc.text() == layout.virtualText());
    std::map<std::string, std::vector<Finding>> expected;
    for (const RefCell &c : cells)
      if (c.code) expected[c.uri]; // every code cell is published, linted or not
    for (const asyncfix::Diagnostic &d : linter.lint(layout.virtualText())) {
      std::size_t inCell = 0;
      const asyncfix::NotebookCell *cell = layout.cellAt(d.start, &inCell);
      if (!cell) continue;
      const RefCell &c = cells[cell->number - 1];
      const std::size_t end = std::min(inCell + d.end - d.start, cell->source.size());
      const auto s0 = positionOf(c.text, inCell, units), e0 = positionOf(c.text, end, units);
      expected[c.uri].emplace_back(std::string(d.code), s0.first, s0.second, e0.first, e0.second, d.message);
    }
    for (const auto &[cellUri, findings] : expected) {
      INFO(cellUri);
      REQUIRE(published.count(cellUri) == 1);
      CHECK(published[cellUri] == findings);
      const auto c = std::find_if(cells.begin(), cells.end(), [&](const RefCell &r) { return r.uri == cellUri; });
      CHECK(publishedVersion[cellUri] == c->version);
    }
    for (const auto &[cellUri, findings] : published) // a removed cell's diagnostics are cleared
      if (!expected.count(cellUri)) CHECK(findings.empty());
  }
}

} // namespace

TEST_CASE("1000 random incremental edits (utf-16) match a reference and a fresh lint", "[lsp][random]") {
  run(Units::Utf16, "utf-16", 1000, 20240611u);
}

// Hidden from the `lsp` label (a slow lane of its own: CTest test lsp.load, label `load`).
TEST_CASE("10 000 random edits interleaved with pull, hover and code-action requests", "[.load]") {
  run(Units::Utf16, "utf-16", 10000, 20261129u, LoadOptions{true, 4, 8});
}

TEST_CASE("random incremental edits with utf-8 positions", "[lsp][random]") { run(Units::Utf8, "utf-8", 200, 7u); }

TEST_CASE("random incremental edits with utf-32 positions", "[lsp][random]") { run(Units::Utf32, "utf-32", 200, 11u); }

TEST_CASE("random keystrokes and cell changes in a notebook match a fresh notebook and a fresh lint", "[lsp][random]") {
  runNotebook(400, 20261202u);
}

} // namespace asyncfix::lsp
