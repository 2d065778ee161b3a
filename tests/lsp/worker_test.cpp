// The language server with its Analyzer on the worker thread (Server::run over pipes), against
// the same server driven inline (drain()), and the Analyzer's own rules: newest version only,
// tasks at their version or told it changed. Label `lsp`, which the tsan preset runs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <variant>
#include <vector>

#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <sys/ioctl.h>
#include <unistd.h>

#include "analyzer.h"
#include "asyncfix/document_internals.h"
#include "asyncfix/linter.h"
#include "logger.h"
#include "server.h"
#include "transport.h"

namespace asyncfix::lsp {
namespace {

using Json = nlohmann::json;
using namespace std::chrono_literals;

// ---- the Analyzer alone, inline ----

std::shared_ptr<const Linter> defaultLinter() { return std::make_shared<const Linter>(); }

struct Delivered {
  std::vector<std::shared_ptr<const Findings>> findings;
  void take(Analyzer &analyzer) {
    analyzer.deliver([&](Analyzer::Id, std::shared_ptr<const Findings> f) { findings.push_back(std::move(f)); });
  }
};

TEST_CASE("Analyzer: a burst of edits is analyzed once, at its last version", "[analyzer]") {
  Analyzer analyzer;
  const auto id = analyzer.open(1, 1, "x.cuda(async=True)\n", defaultLinter(), 1 << 20);
  Delivered out;
  analyzer.runQueued();
  out.take(analyzer);
  REQUIRE(out.findings.size() == 1);
  CHECK(out.findings[0]->version == 1);
  CHECK(out.findings[0]->diagnostics.size() == 1);

  analyzer.edit(id, 2, 2, 0, 0, "y = 1\n");
  analyzer.edit(id, 3, 3, 0, 0, "z = 2\n");
  analyzer.edit(id, 4, 4, 12, 12, "w.cuda(async=True)\n");
  analyzer.runQueued();
  out.findings.clear();
  out.take(analyzer);
  REQUIRE(out.findings.size() == 1); // versions 2 and 3 were never analyzed
  CHECK(out.findings[0]->version == 4);
  CHECK(out.findings[0]->diagnostics == Linter().lint("z = 2\ny = 1\nw.cuda(async=True)\nx.cuda(async=True)\n"));
}

TEST_CASE("Analyzer: a task sees its own version, or null once the document changed", "[analyzer]") {
  Analyzer analyzer;
  const auto id = analyzer.open(1, 1, "a = 1\n", defaultLinter(), 1 << 20);
  std::vector<std::string> seen;
  const auto task = [&](const Analyzed *at) -> Analyzer::MainTask {
    const std::string what = at ? std::to_string(at->findings.version) + ":" + at->doc.text() : "changed";
    return [&seen, what] { seen.push_back(what); };
  };
  analyzer.post(id, task);
  analyzer.edit(id, 2, 2, 0, 0, "b = 2\n");
  analyzer.post(id, task);
  analyzer.runQueued();
  Delivered out;
  out.take(analyzer);
  CHECK(seen == std::vector<std::string>{"changed", "2:b = 2\na = 1\n"});

  analyzer.post(id, task);
  analyzer.close(id); // queued tasks are answered at once
  CHECK(seen.back() == "changed");
  analyzer.post(id, task); // and so are tasks for a closed document
  CHECK(seen.size() == 4);
  CHECK(seen.back() == "changed");
}

TEST_CASE("Analyzer: settling a broken tree agrees with a fresh parse", "[analyzer]") {
  Analyzer analyzer;
  const std::string text = "def f(x):\n    return x.cuda(async=True)\n";
  const auto id = analyzer.open(1, 1, text, defaultLinter(), 1 << 20);
  analyzer.runQueued();
  // Type an unclosed bracket and close it again, keystroke by keystroke.
  std::string now = text;
  std::int64_t version = 1;
  for (const std::string piece : {"(", "[", "x", "]", ")"}) {
    ++version;
    analyzer.edit(id, version, static_cast<std::uint64_t>(version), 10, 10, piece);
    now.insert(10, piece);
    analyzer.runQueued();
  }
  Delivered out;
  out.take(analyzer);
  analyzer.settle();
  out.take(analyzer);
  REQUIRE(!out.findings.empty());
  CHECK(out.findings.back()->version == version);
  CHECK(out.findings.back()->diagnostics == Linter().lint(now));
}

TEST_CASE("Analyzer: settling a broken text leaves the keystrokes' tree split into statements", "[analyzer]") {
  // Settling parses the whole text afresh. Done in place, the fresh tree of a text with a bracket
  // left open could not be split into statements, and every keystroke after the pause parsed the
  // whole document again until the bracket was closed (0.6-0.9 s each at 20 000 lines).
  std::string text;
  for (int i = 0; i < 200; ++i) text += "def f" + std::to_string(i) + "(x):\n    return x.cuda(async=True)\n\n";
  Analyzer analyzer;
  const auto id = analyzer.open(1, 1, text, defaultLinter(), 1 << 20);
  analyzer.runQueued();
  const std::size_t at = text.find("def f100");
  std::int64_t version = 1;
  const auto type = [&](const std::string &piece) {
    ++version;
    analyzer.edit(id, version, static_cast<std::uint64_t>(version), at, at, piece);
    text.insert(at, piece);
    analyzer.runQueued();
  };
  type("y = g(");
  Delivered out;
  analyzer.settle();
  out.take(analyzer);
  REQUIRE(!out.findings.empty());
  CHECK(out.findings.back()->diagnostics == Linter().lint(text)); // what the CLI reports
  type("1");
  bool split = false;
  std::int64_t seen = 0;
  analyzer.post(id, [&](const Analyzed *now) -> Analyzer::MainTask {
    REQUIRE(now != nullptr);
    split = DocumentInternals::chunked(now->doc); // the keystroke parsed its statements alone
    seen = now->findings.version;
    return nullptr;
  });
  analyzer.runQueued();
  out.take(analyzer);
  CHECK(seen == version);
  CHECK(split);
  analyzer.settle();
  out.take(analyzer);
  CHECK(out.findings.back()->diagnostics == Linter().lint(text));
}

TEST_CASE("Analyzer: a new version with the same text or another linter is settled again", "[analyzer]") {
  // A renumbering (didChange without changes) and a relint (the configuration changed) analyze
  // the keystroke path's tree again, whose result may differ from a fresh parse's: with a bracket
  // left open in a document over 32 KB, that result is contained (no fixes). Each is settled again.
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "def f" + std::to_string(i) + "(x):\n    return x + 1\n\n";
  Analyzer analyzer;
  const auto id = analyzer.open(1, 1, text, defaultLinter(), 1 << 20);
  analyzer.runQueued();
  const std::size_t at = text.find("def f300");
  std::int64_t version = 1;
  for (const char c : std::string("y = x.cuda(async=True")) {
    ++version;
    analyzer.edit(id, version, static_cast<std::uint64_t>(version), at + static_cast<std::size_t>(version - 2),
                  at + static_cast<std::size_t>(version - 2), std::string(1, c));
    text.insert(at + static_cast<std::size_t>(version - 2), 1, c);
    analyzer.runQueued();
  }
  Delivered out;
  const auto settledEqualsFresh = [&] {
    analyzer.settle();
    out.take(analyzer);
    REQUIRE(!out.findings.empty());
    CHECK(out.findings.back()->version == version);
    CHECK(out.findings.back()->exact);
    CHECK(out.findings.back()->diagnostics == Linter().lint(text));
  };
  settledEqualsFresh();
  ++version;
  analyzer.renumber(id, version, static_cast<std::uint64_t>(version));
  analyzer.runQueued();
  settledEqualsFresh();
  analyzer.relint(id, static_cast<std::uint64_t>(version) + 1, defaultLinter());
  analyzer.runQueued();
  settledEqualsFresh();
}

/// A document over 32 KB with `y = x.cuda(async=True` typed into it key by key, its bracket left
/// open: the keystrokes' result is contained (not exact), which a settle always publishes again.
struct OpenBracket {
  std::string text;
  Analyzer::Id id = 0;
  std::int64_t version = 1;
  OpenBracket(Analyzer &analyzer, int functions) {
    for (int i = 0; i < functions; ++i) text += "def f" + std::to_string(i) + "(x):\n    return x + 1\n\n";
    id = analyzer.open(1, 1, text, defaultLinter(), 1 << 22);
    analyzer.runQueued();
    const std::size_t at = text.find("def f" + std::to_string(functions / 2));
    for (const char c : std::string("y = x.cuda(async=True")) {
      const std::size_t where = at + static_cast<std::size_t>(version - 1);
      ++version;
      analyzer.edit(id, version, static_cast<std::uint64_t>(version), where, where, std::string(1, c));
      text.insert(where, 1, c);
      analyzer.runQueued();
    }
  }
};

TEST_CASE("Analyzer: an inline settle stops between documents when asked, and the next one finishes", "[analyzer]") {
  // The message loop without threads asks whether a message is waiting; a settle told to stop
  // leaves the documents it has not settled for the next quiet period, so that a keystroke is
  // answered without waiting for all of them. The most recently edited document goes first.
  Analyzer analyzer;
  std::vector<OpenBracket> docs;
  for (int i = 0; i < 3; ++i) docs.emplace_back(analyzer, 1200);
  Delivered out;
  out.take(analyzer);
  for (const OpenBracket &d : docs) {
    INFO("document " << d.id);
    const auto it = std::find_if(out.findings.rbegin(), out.findings.rend(),
                                 [&](const auto &f) { return f->version == d.version; });
    REQUIRE(it != out.findings.rend());
    REQUIRE(!(*it)->exact); // contained: a settle publishes it again
  }
  out.findings.clear();

  int asked = 0;
  CHECK(!analyzer.settle([&] { return ++asked > 0; })); // input waits already: nothing is settled
  CHECK(asked == 1);
  out.take(analyzer);
  CHECK(out.findings.empty());

  // Stops once a document's fresh findings are out (a message arrived meanwhile).
  std::vector<Analyzer::Id> settledIds;
  const auto collect = [&] {
    analyzer.deliver([&](Analyzer::Id id, std::shared_ptr<const Findings> f) {
      settledIds.push_back(id);
      out.findings.push_back(std::move(f));
    });
  };
  CHECK(!analyzer.settle([&] {
    collect();
    return !settledIds.empty();
  }));
  collect();
  REQUIRE(settledIds.size() == 1);
  CHECK(settledIds[0] == docs.back().id); // the most recently edited
  CHECK(out.findings[0]->diagnostics == Linter().lint(docs.back().text));

  // The next quiet period settles the other two, as a fresh parse gives; then nothing is left.
  CHECK(analyzer.settle([] { return false; }));
  collect();
  REQUIRE(settledIds.size() == 3);
  for (std::size_t i = 1; i < 3; ++i) {
    const auto d = std::find_if(docs.begin(), docs.end(), [&](const OpenBracket &x) { return x.id == settledIds[i]; });
    REQUIRE(d != docs.end());
    CHECK(d->id != docs.back().id);
    CHECK(out.findings[i]->version == d->version);
    CHECK(out.findings[i]->exact);
    CHECK(out.findings[i]->diagnostics == Linter().lint(d->text));
  }
  CHECK(analyzer.settle([] { return true; })); // nothing to settle: not even asked
}

TEST_CASE("Analyzer: an inline settle stops inside a document's fresh parse", "[analyzer]") {
  // A fresh parse of a large broken text is the long part of a settle: it asks `stop` as it goes
  // (tree-sitter's progress callback), and gives up once told. The document stays unsettled.
  const auto settleCounting = [](Analyzer &analyzer, int stopAt) {
    int asked = 0;
    const bool done = analyzer.settle([&] { return ++asked >= stopAt; });
    return std::pair{done, asked};
  };
  Analyzer whole;
  const OpenBracket big(whole, 6000);
  const auto [wholeDone, wholeAsked] = settleCounting(whole, std::numeric_limits<int>::max());
  CHECK(wholeDone);
  REQUIRE(wholeAsked > 10); // asked before the document and many times while it was parsed

  Analyzer analyzer;
  OpenBracket doc(analyzer, 6000);
  Delivered out;
  out.take(analyzer);
  out.findings.clear();
  const auto [done, asked] = settleCounting(analyzer, 2); // the first question inside the parse
  CHECK(!done);
  CHECK(asked <= 3); // the parse gave up at once (asked once more after it, before the lint)
  out.take(analyzer);
  CHECK(out.findings.empty());

  // A stop said once is kept: the server's predicate looks at the input at most once a
  // millisecond and says no in between. The settle used to go on to the lint after a parse that
  // gave up, which parsed the whole text again and could not be stopped (seconds under
  // WebAssembly).
  int calls = 0;
  CHECK(!analyzer.settle([&] { return ++calls == 2; }));
  out.take(analyzer);
  CHECK(out.findings.empty());

  // Not settled yet: the next settle parses it afresh, and gives what the CLI reports.
  CHECK(analyzer.settle());
  out.take(analyzer);
  REQUIRE(out.findings.size() == 1);
  CHECK(out.findings[0]->version == doc.version);
  CHECK(out.findings[0]->diagnostics == Linter().lint(doc.text));
}

TEST_CASE("Analyzer: an inline settle stops inside a document's lint", "[analyzer]") {
  // After the fresh parse comes the lint of the whole tree (every node: the text has a syntax
  // error), tens of milliseconds for 20 000 lines under WebAssembly; it asks `stop` as it goes
  // too. It used to run to its end, and a keystroke arriving meanwhile waited for it.
  Analyzer analyzer;
  OpenBracket doc(analyzer, 6000);
  Delivered out;
  out.take(analyzer);
  out.findings.clear();
  // The questions of the fresh parse alone (the same text parses the same way every time).
  int parseAsked = 0;
  const Document fresh{doc.text};
  REQUIRE(DocumentInternals::parseUnless(fresh, [&] { return ++parseAsked < 0; }));
  // The settle asks once before the document, `parseAsked` times during its parse, once before
  // its lint; each question after those is the lint's.
  const int lintStart = 1 + parseAsked + 1;
  int wholeAsked = 0;
  {
    Analyzer counting;
    const OpenBracket same(counting, 6000);
    CHECK(counting.settle([&] { return ++wholeAsked < 0; }));
  }
  REQUIRE(wholeAsked > lintStart + 10); // asked many times while it linted
  for (const int stopAt : {lintStart + 1, (lintStart + wholeAsked) / 2, wholeAsked}) {
    INFO("stopped at question " << stopAt << " of " << wholeAsked << " (the lint's from " << lintStart + 1 << ")");
    int asked = 0;
    CHECK(!analyzer.settle([&] { return ++asked >= stopAt; }));
    CHECK(asked == stopAt);
    out.take(analyzer);
    CHECK(out.findings.empty());
  }
  // Not settled yet: the next settle gives what the CLI reports.
  CHECK(analyzer.settle());
  out.take(analyzer);
  REQUIRE(out.findings.size() == 1);
  CHECK(out.findings[0]->version == doc.version);
  CHECK(out.findings[0]->diagnostics == Linter().lint(doc.text));
}

// ---- the server over pipes, the worker on its own thread ----

/// An LSP client over pipes to a Server::run() on a thread of this process.
class PipeClient {
public:
  /// `quietMs`: how long the server's worker waits before it settles. `inlineAnalysis`: the
  /// server's loop does the Analyzer's work itself, as the WebAssembly server's does.
  explicit PipeClient(int quietMs = Server::kQuietMs, bool inlineAnalysis = false)
      : log_(stderr, LogLevel::Error), frames_(log_) {
    REQUIRE(::pipe(toServer_) == 0);
    REQUIRE(::pipe(toClient_) == 0);
    transport_ = std::make_unique<StreamTransport>(toServer_[0], toClient_[1], log_);
    server_ = std::make_unique<Server>(*transport_, log_);
    server_->quietMs = quietMs;
    server_->inlineAnalysis = inlineAnalysis;
    serverThread_ = std::thread([this] { exitCode_ = server_->run(); });
    reader_ = std::thread([this] { readLoop(); });
  }
  ~PipeClient() {
    if (toServer_[1] >= 0) ::close(toServer_[1]); // end of input: the server stops
    if (serverThread_.joinable()) serverThread_.join();
    ::close(toClient_[1]);
    reader_.join();
    ::close(toServer_[0]);
    ::close(toClient_[0]);
  }
  void send(const Json &message) { sendAll({message}); }
  /// The messages as one write: the server reads them all before its worker can answer any.
  void sendAll(const std::vector<Json> &messages) {
    std::string frames;
    for (const Json &message : messages) {
      const std::string body = message.dump();
      frames += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    }
    std::size_t done = 0;
    while (done < frames.size()) {
      const ssize_t n = ::write(toServer_[1], frames.data() + done, frames.size() - done);
      REQUIRE(n > 0);
      done += static_cast<std::size_t>(n);
    }
  }
  void stop() {
    send({{"jsonrpc", "2.0"}, {"id", 999999}, {"method", "shutdown"}});
    send({{"jsonrpc", "2.0"}, {"method", "exit"}});
    ::close(toServer_[1]);
    toServer_[1] = -1;
    serverThread_.join();
  }
  /// Waits until `done(messages)` holds (or 240 s pass); returns it. Every caller expects it to
  /// hold: the deadline only turns a hang into a failure before ctest's timeout does, and is long
  /// enough for a large document's fix under ThreadSanitizer on a loaded machine (60 s was not,
  /// at load 18).
  template <class F> bool waitFor(F done) {
    const auto deadline = std::chrono::steady_clock::now() + 240s;
    for (;;) {
      {
        std::lock_guard lock(mutex_);
        if (done(received_)) return true;
      }
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(1ms);
    }
  }
  std::vector<Json> messages() {
    std::lock_guard lock(mutex_);
    return received_;
  }
  int exitCode() const { return exitCode_; }

private:
  void readLoop() {
    char buffer[1 << 16];
    for (;;) {
      const ssize_t n = ::read(toClient_[0], buffer, sizeof buffer);
      if (n <= 0) return;
      frames_.feed(std::string_view(buffer, static_cast<std::size_t>(n)));
      while (auto body = frames_.next()) {
        std::lock_guard lock(mutex_);
        received_.push_back(Json::parse(*body));
      }
    }
  }
  Logger log_;
  FrameReader frames_;
  int toServer_[2] = {-1, -1}, toClient_[2] = {-1, -1};
  std::unique_ptr<StreamTransport> transport_;
  std::unique_ptr<Server> server_;
  std::thread serverThread_, reader_;
  int exitCode_ = -1;
  std::mutex mutex_;
  std::vector<Json> received_;
};

const char *kUri = "file:///tmp/asyncfix-worker-test/train.py";

/// Dense training code: a finding in every function.
std::string trainingCode(int functions) {
  std::string text = "import torch\n\n";
  for (int i = 0; i < functions; ++i)
    text += "def step" + std::to_string(i) + "(batch, model):\n    x = batch.cuda(async=True)\n    return model(x)\n\n";
  return text;
}

Json position(const std::string &text, std::size_t offset) {
  std::uint32_t line = 0, column = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 0;
    } else {
      ++column; // ASCII only: bytes are UTF-16 units
    }
  }
  return {{"line", line}, {"character", column}};
}

/// The text typed and deleted again, one character per change, at `at` (ASCII).
struct Keystroke {
  std::size_t start, end;
  std::string text;
};
std::vector<Keystroke> typing(std::size_t at, const std::string &line) {
  std::vector<Keystroke> out;
  for (std::size_t i = 0; i < line.size(); ++i) out.push_back({at + i, at + i, line.substr(i, 1)});
  for (std::size_t i = line.size(); i > 0; --i) out.push_back({at + i - 1, at + i, ""});
  return out;
}

Json didChange(const std::string &before, int version, const Keystroke &k) {
  return {
      {"jsonrpc", "2.0"},
      {"method", "textDocument/didChange"},
      {"params",
       {{"textDocument", {{"uri", kUri}, {"version", version}}},
        {"contentChanges",
         {{{"range", {{"start", position(before, k.start)}, {"end", position(before, k.end)}}}, {"text", k.text}}}}}}};
}

Json initialize() {
  return {{"jsonrpc", "2.0"},
          {"id", 1},
          {"method", "initialize"},
          {"params", {{"capabilities", {{"general", {{"positionEncodings", {"utf-16"}}}}}}}}};
}

Json didOpen(const std::string &text) {
  return {{"jsonrpc", "2.0"},
          {"method", "textDocument/didOpen"},
          {"params", {{"textDocument", {{"uri", kUri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}}}};
}

/// The last publishDiagnostics for kUri in `messages`, if any.
const Json *lastPublish(const std::vector<Json> &messages) {
  const Json *last = nullptr;
  for (const Json &m : messages)
    if (m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == kUri) last = &m;
  return last;
}

/// One client's messages sent to two servers: one driven inline (drain()), one run() over pipes
/// (threaded, or with `inlineRun` its loop doing the Analyzer's work), both initialized and with
/// `text` open.
struct SideBySide {
  SideBySide(int quietMs, const std::string &text, bool inlineRun = false)
      : inlineServer(memory, quiet), client(quietMs, inlineRun) {
    both(initialize());
    both({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", Json::object()}});
    both(didOpen(text));
  }
  void both(const Json &message) {
    memory.push(message.dump());
    client.send(message);
  }
  /// Drains the inline server (and settles it, if asked); its last publish, if any.
  std::optional<Json> inlinePublish(bool settle = false) {
    inlineServer.drain();
    if (settle) inlineServer.settle();
    std::vector<Json> out;
    for (const std::string &body : memory.takeOutput()) out.push_back(Json::parse(body));
    const Json *last = lastPublish(out);
    return last ? std::optional<Json>(*last) : std::nullopt;
  }

  MemoryTransport memory;
  Logger quiet{stderr, LogLevel::Error};
  Server inlineServer;
  PipeClient client;
};

TEST_CASE("worker: keystroke by keystroke, the threaded server publishes what the inline one does",
          "[threads][worker]") {
  const std::string start = trainingCode(30);
  // No settle while the test runs (a slow keystroke under a sanitizer could give the worker
  // 400 ms of quiet): the inline server never settles between drains either.
  SideBySide two(3'600'000, start);
  PipeClient &client = two.client;
  (void)two.inlinePublish();
  std::string text = start;
  int version = 1;
  const std::size_t at = text.find("    return model(x)\n", text.size() / 2);
  for (const Keystroke &k : typing(at, "    y = batch.to(0, async=True).cuda(async=(x))\n")) {
    two.both(didChange(text, ++version, k));
    text.replace(k.start, k.end - k.start, k.text);
    const std::optional<Json> inlineLast = two.inlinePublish();
    const Json *expected = inlineLast ? &*inlineLast : nullptr;
    // Waited for, so nothing is coalesced: the worker analyzes every version.
    REQUIRE(client.waitFor([&](const std::vector<Json> &messages) {
      const Json *last = lastPublish(messages);
      return last && (*last)["params"]["version"] == version;
    }));
    REQUIRE(expected != nullptr);
    const std::vector<Json> threadedOut = client.messages();
    CHECK((*lastPublish(threadedOut))["params"] == (*expected)["params"]);
  }
  client.stop();
}

TEST_CASE("worker: pauses settle off the worker, and what they publish is a fresh parse's", "[threads][worker]") {
  // Keystrokes with pauses around the server's quiet period: settles start, give way to the next
  // keystroke or finish, on the settler thread. After the last one, the threaded server settles
  // on what the inline one does after settle(): a lint of a fresh parse.
  const std::string start = trainingCode(60);
  SideBySide two(5, start);
  PipeClient &client = two.client;
  std::string text = start;
  int version = 1;
  std::mt19937 rng(3);
  const std::size_t at = text.find("    return model(x)\n", text.size() / 2);
  // Stops with `(` still open: the settled text has a syntax error.
  const std::vector<Keystroke> keys = typing(at, "    y = batch.to(0, async=True).cuda(async=(x))\n");
  for (std::size_t i = 0; i < keys.size() / 2 + 12; ++i) {
    two.both(didChange(text, ++version, keys[i]));
    text.replace(keys[i].start, keys[i].end - keys[i].start, keys[i].text);
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 12));
  }
  const std::optional<Json> expected = two.inlinePublish(/*settle=*/true);
  REQUIRE(expected.has_value());
  CHECK(client.waitFor([&](const std::vector<Json> &messages) {
    const Json *last = lastPublish(messages);
    return last && (*last)["params"] == (*expected)["params"];
  }));
  client.stop();
  CHECK(client.exitCode() == 0);
}

TEST_CASE("inline run: keystrokes are not settled between them, only after a quiet period", "[worker]") {
  // The loop of a server without threads (the WebAssembly one) does the Analyzer's work itself.
  // A settle (a fresh parse and lint of the whole document) between two keystrokes would hold
  // up the second one. Typed with a bracket left open in a document over 32 KB, each keystroke's
  // result is contained, which a settle publishes again as a fresh parse's. With a quiet period
  // longer than the test, each version is published once.
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "def f" + std::to_string(i) + "(x):\n    return x + 1\n\n";
  PipeClient client(3'600'000, /*inlineAnalysis=*/true);
  client.send(initialize());
  client.send({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", Json::object()}});
  client.send(didOpen(text));
  int version = 1;
  const auto published = [&](const std::vector<Json> &messages) {
    const Json *last = lastPublish(messages);
    return last && (*last)["params"]["version"] == version;
  };
  REQUIRE(client.waitFor(published));
  const std::size_t at = text.find("def f300");
  std::size_t column = 0;
  for (const char c : std::string("y = x.cuda(async=True")) {
    const Keystroke k{at + column, at + column, std::string(1, c)};
    client.send(didChange(text, ++version, k));
    text.insert(at + column++, 1, c);
    REQUIRE(client.waitFor(published)); // the next keystroke comes right after the publish
  }
  client.stop(); // shutdown and exit: read after the last keystroke's publish
  CHECK(client.exitCode() == 0);
  std::map<int, int> publishes; // version -> publishDiagnostics of it
  for (const Json &m : client.messages())
    if (m.value("method", "") == "textDocument/publishDiagnostics") ++publishes[m["params"]["version"].get<int>()];
  CHECK(publishes.size() == static_cast<std::size_t>(version));
  for (const auto &[v, n] : publishes) {
    INFO("version " << v);
    CHECK(n == 1);
  }
}

TEST_CASE("inline run: after a quiet period the documents are settled, as a fresh parse gives", "[worker]") {
  // The same loop after keystrokes with pauses around its quiet period, the last one left with a
  // `(` open: it settles as the threaded server does, on what the inline one gives after
  // settle(), a lint of a fresh parse.
  const std::string start = trainingCode(60);
  SideBySide two(5, start, /*inlineRun=*/true);
  PipeClient &client = two.client;
  std::string text = start;
  int version = 1;
  std::mt19937 rng(5);
  const std::size_t at = text.find("    return model(x)\n", text.size() / 2);
  const std::vector<Keystroke> keys = typing(at, "    y = batch.to(0, async=True).cuda(async=(x))\n");
  for (std::size_t i = 0; i < keys.size() / 2 + 12; ++i) {
    two.both(didChange(text, ++version, keys[i]));
    text.replace(keys[i].start, keys[i].end - keys[i].start, keys[i].text);
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 12));
  }
  const std::optional<Json> expected = two.inlinePublish(/*settle=*/true);
  REQUIRE(expected.has_value());
  CHECK(client.waitFor([&](const std::vector<Json> &messages) {
    const Json *last = lastPublish(messages);
    return last && (*last)["params"] == (*expected)["params"];
  }));
  client.stop();
  CHECK(client.exitCode() == 0);
}

/// Server::run()'s input in steps: message bodies and pauses. At a pause no message is waiting
/// until the server has waited for one with a time limit (its quiet period, which passes at
/// once); then the next message arrives at the `looks`-th time the server looks for input after
/// that, i.e. during the settle the quiet period started. Everything happens in one sequence of
/// events: what the server wrote, and when the message after each pause arrived.
class ScriptedTransport final : public Transport {
public:
  void push(const Json &message) { steps_.emplace_back(message.dump()); }
  void pause(int looks) { steps_.emplace_back(Pause{.looks = looks}); }
  std::optional<std::string> read() override {
    if (!hasPending() || steps_.empty()) return std::nullopt; // the end of the input
    std::string body = std::get<std::string>(std::move(steps_.front()));
    steps_.pop_front();
    return body;
  }
  bool hasPending() override {
    if (steps_.empty()) return true; // the end of the input: read() returns at once
    auto *pause = std::get_if<Pause>(&steps_.front());
    if (!pause) return true;
    if (!pause->waited || ++pause->seen < pause->looks) return false;
    arrived();
    return hasPending();
  }
  bool waitPending(int timeoutMs, int /*wakeFd*/) override {
    if (hasPending()) return true;
    auto &pause = std::get<Pause>(steps_.front());
    if (timeoutMs >= 0 && !pause.waited) {
      pause.waited = true; // the quiet period passed
      events.emplace_back("quiet");
      return false;
    }
    arrived(); // waiting without a limit: the message arrives
    return hasPending();
  }
  void write(std::string_view body) override { events.emplace_back(body); }
  std::vector<std::string> events; ///< JSON bodies written, "quiet", "arrived"

private:
  struct Pause {
    int looks = 1;
    bool waited = false;
    int seen = 0;
  };
  void arrived() {
    steps_.pop_front();
    events.emplace_back("arrived");
  }
  std::deque<std::variant<std::string, Pause>> steps_;
};

TEST_CASE("inline run: a keystroke during a settle stops it, and the next quiet period finishes it", "[worker]") {
  // Three documents typed into with a bracket left open (their results contained, which a settle
  // publishes again), then a quiet period; the next keystroke arrives as the settle starts. It is
  // answered before any document is settled; the quiet period after it settles all three, as a
  // fresh parse gives (the inline server's settle() after drain()).
  ScriptedTransport script;
  MemoryTransport memory;
  Logger quiet{stderr, LogLevel::Error};
  Server reference(memory, quiet);
  const auto both = [&](const Json &message) {
    script.push(message);
    memory.push(message.dump());
  };
  both(initialize());
  both({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", Json::object()}});
  std::vector<std::string> uris;
  std::map<std::string, int> versions;
  std::string typed;
  for (int i = 0; i < 3; ++i) {
    const std::string uri = "file:///tmp/asyncfix-worker-test/doc" + std::to_string(i) + ".py";
    uris.push_back(uri);
    std::string text;
    for (int f = 0; f < 1200; ++f) text += "def f" + std::to_string(f) + "(x):\n    return x + 1\n\n";
    Json open = didOpen(text);
    open["params"]["textDocument"]["uri"] = uri;
    both(open);
    int version = 1;
    const std::size_t at = text.find("def f600");
    for (const char c : std::string("y = x.cuda(async=True")) {
      Json change = didChange(text, ++version, {at + typed.size(), at + typed.size(), std::string(1, c)});
      change["params"]["textDocument"]["uri"] = uri;
      both(change);
      text.insert(at + typed.size(), 1, c);
      typed += c;
    }
    typed.clear();
    versions[uri] = version;
  }
  script.pause(1); // the keystroke arrives at the settle's first look for input
  {
    Json change = didChange("", versions[uris[0]] + 1, {0, 0, "\n"});
    change["params"]["textDocument"]["uri"] = uris[0];
    both(change);
    ++versions[uris[0]];
  }
  script.pause(std::numeric_limits<int>::max()); // a quiet period with nothing after it: settled
  script.push({{"jsonrpc", "2.0"}, {"id", 99}, {"method", "shutdown"}});
  script.push({{"jsonrpc", "2.0"}, {"method", "exit"}});

  Server server(script, quiet);
  server.inlineAnalysis = true;
  CHECK(server.run() == 0);

  // Between the first quiet period and the keystroke's publish: no settle's publish.
  const auto &events = script.events;
  const auto firstQuiet = std::find(events.begin(), events.end(), "quiet");
  REQUIRE(firstQuiet != events.end());
  REQUIRE(firstQuiet + 1 != events.end());
  CHECK(*(firstQuiet + 1) == "arrived");
  std::map<std::string, Json> last; // uri -> the last publish's params
  bool keystrokeAnswered = false;
  for (auto it = firstQuiet + 1; it != events.end(); ++it) {
    if (*it == "quiet" || *it == "arrived") continue;
    const Json m = Json::parse(*it);
    if (m.value("method", "") != "textDocument/publishDiagnostics") continue;
    const std::string uri = m["params"]["uri"];
    if (!keystrokeAnswered) {
      INFO(m.dump());
      CHECK(uri == uris[0]); // the keystroke's, and nothing settled before it
      CHECK(m["params"]["version"] == versions[uris[0]]);
      keystrokeAnswered = true;
    }
    last[uri] = m["params"];
  }
  CHECK(keystrokeAnswered);

  // Once settled: what the inline server publishes after drain() and settle().
  reference.drain();
  reference.settle();
  std::map<std::string, Json> expected;
  for (const std::string &body : memory.takeOutput()) {
    const Json m = Json::parse(body);
    if (m.value("method", "") == "textDocument/publishDiagnostics") expected[m["params"]["uri"]] = m["params"];
  }
  for (const std::string &uri : uris) {
    INFO(uri);
    REQUIRE(last.count(uri) == 1);
    CHECK(last[uri] == expected[uri]);
  }
}

TEST_CASE("StreamTransport: a message larger than a non-blocking output holds is written whole", "[worker]") {
  // Node.js makes the standard output of the process that runs the WebAssembly server
  // non-blocking: a write then fails with EAGAIN once the pipe is full. The server used to take
  // that for a broken output and wrote nothing more. The reader here starts reading only once
  // the pipe is full, so the write meets EAGAIN.
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  REQUIRE(::fcntl(fds[1], F_SETFL, ::fcntl(fds[1], F_GETFL) | O_NONBLOCK) == 0);
  const int capacity = ::fcntl(fds[1], F_GETPIPE_SZ);
  REQUIRE(capacity > 0);
  const std::string body(static_cast<std::size_t>(capacity) * 4, 'x');
  std::string got;
  std::thread reader([&] {
    for (int waiting = 0; waiting < capacity;) {
      std::this_thread::sleep_for(1ms);
      if (::ioctl(fds[0], FIONREAD, &waiting) != 0) break;
    }
    char buffer[1 << 16];
    ssize_t n;
    while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) got.append(buffer, static_cast<std::size_t>(n));
  });
  Logger log(stderr, LogLevel::Error);
  {
    StreamTransport transport(-1, fds[1], log);
    transport.write(body);
    transport.write("{}");
  }
  ::close(fds[1]);
  reader.join();
  ::close(fds[0]);
  const std::string header = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  CHECK(got.size() == header.size() + body.size() + std::string("Content-Length: 2\r\n\r\n{}").size());
  CHECK(got == header + body + "Content-Length: 2\r\n\r\n{}");
}

TEST_CASE("worker: a code action and a resolve cancelled while queued are answered RequestCancelled",
          "[threads][worker]") {
  // The worker is busy with a code action on another, large document — "Fix all AF101" runs
  // fix() over its megabyte for a client that does not resolve, and answers with two small
  // edits — when a small document, code action and resolve requests for it and their
  // cancellations arrive, all in one write: the message loop (which only hands the work over)
  // marks the requests cancelled long before the worker gets to them, and the worker answers
  // them RequestCancelled. (An answer of thousands of edits would keep the message loop busy
  // writing it, under a sanitizer, while the worker went on.)
  PipeClient client;
  client.send(initialize());
  client.send({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", Json::object()}});
  const std::string largeUri = "file:///tmp/asyncfix-worker-test/large.py";
  std::string large = "import torch\nx = a.cuda(async=True)\ny = b.cuda(async=True)\n";
  for (int i = 0; i < 15000; ++i) large += "def f" + std::to_string(i) + "(a, b):\n    return a + b\n\n";
  client.send(
      {{"jsonrpc", "2.0"},
       {"method", "textDocument/didOpen"},
       {"params", {{"textDocument", {{"uri", largeUri}, {"languageId", "python"}, {"version", 1}, {"text", large}}}}}});
  REQUIRE(client.waitFor([&](const std::vector<Json> &messages) {
    return std::any_of(messages.begin(), messages.end(), [&](const Json &m) {
      return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == largeUri;
    });
  }));
  const Json busy = {
      {"jsonrpc", "2.0"},
      {"id", 40},
      {"method", "textDocument/codeAction"},
      {"params",
       {{"textDocument", {{"uri", largeUri}}},
        {"range", {{"start", position(large, large.find("async"))}, {"end", position(large, large.find("async"))}}},
        {"context", {{"diagnostics", Json::array()}}}}}};
  const std::string text = "import torch\nx = batch.cuda(async=True)\ny = batch.cuda(async=True)\n";
  const Json codeAction = {{"jsonrpc", "2.0"},
                           {"id", 41},
                           {"method", "textDocument/codeAction"},
                           {"params",
                            {{"textDocument", {{"uri", kUri}}},
                             {"range", {{"start", position(text, 20)}, {"end", position(text, 20)}}},
                             {"context", {{"diagnostics", Json::array()}}}}}};
  const Json resolve = {{"jsonrpc", "2.0"},
                        {"id", 42},
                        {"method", "codeAction/resolve"},
                        {"params",
                         {{"title", "Fix all AF101 problems in this file"},
                          {"kind", "quickfix"},
                          {"data", {{"uri", kUri}, {"version", 1}, {"action", "fixAll"}, {"code", "AF101"}}}}}};
  client.sendAll({busy,
                  didOpen(text),
                  codeAction,
                  resolve,
                  {{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", 41}}}},
                  {{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", 42}}}}});
  for (const int id : {41, 42}) {
    INFO("request " << id);
    REQUIRE(client.waitFor([&](const std::vector<Json> &messages) {
      return std::any_of(messages.begin(), messages.end(), [&](const Json &m) { return m.value("id", 0) == id; });
    }));
    for (const Json &m : client.messages())
      if (m.value("id", 0) == id) {
        INFO(m.dump());
        CHECK_FALSE(m.contains("result"));
        CHECK(m["error"]["code"] == -32800);
      }
  }
  client.stop();
  CHECK(client.exitCode() == 0);
}

TEST_CASE("worker: a client flooding edits and requests gets the newest version and every answer",
          "[threads][worker]") {
  std::string text = trainingCode(200);
  PipeClient client;
  client.send(initialize());
  client.send({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", Json::object()}});
  client.send(didOpen(text));
  std::mt19937 rng(7);
  int version = 1, nextId = 10;
  std::map<int, int> asked; // request id -> the version it was asked at
  const std::string line = "    z = x.cuda(async=True)[(\n";
  for (int burst = 0; burst < 6; ++burst) {
    const std::size_t at = text.find("    return model(x)\n", rng() % text.size());
    for (const Keystroke &k : typing(at == std::string::npos ? 0 : at, line)) {
      client.send(didChange(text, ++version, k));
      text.replace(k.start, k.end - k.start, k.text);
      if (version % 5 == 0) {
        const std::size_t finding = text.find("async=True", rng() % text.size());
        const Json where = position(text, finding == std::string::npos ? 0 : finding);
        asked[nextId] = version;
        client.send({{"jsonrpc", "2.0"},
                     {"id", nextId++},
                     {"method", "textDocument/hover"},
                     {"params", {{"textDocument", {{"uri", kUri}}}, {"position", where}}}});
        asked[nextId] = version;
        client.send({{"jsonrpc", "2.0"},
                     {"id", nextId++},
                     {"method", "textDocument/codeAction"},
                     {"params",
                      {{"textDocument", {{"uri", kUri}}},
                       {"range", {{"start", where}, {"end", where}}},
                       {"context", {{"diagnostics", Json::array()}}}}}});
        if (version % 3 == 0) // and cancel it at once
          client.send({{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", nextId - 1}}}});
      }
    }
  }
  // Quiet now: the last version is published, then settled (a fresh parse) if it differs.
  REQUIRE(client.waitFor([&](const std::vector<Json> &messages) {
    const Json *last = lastPublish(messages);
    return last && (*last)["params"]["version"] == version;
  }));
  // ... and, once settled, it equals a fresh lint of the final text.
  std::vector<std::tuple<std::string, Json>> expected;
  for (const asyncfix::Diagnostic &d : Linter().lint(text))
    expected.emplace_back(std::string(d.code), position(text, d.start));
  const auto lastPublished = [](const std::vector<Json> &messages) {
    std::vector<std::tuple<std::string, Json>> got;
    if (const Json *last = lastPublish(messages))
      for (const Json &d : (*last)["params"]["diagnostics"]) got.emplace_back(d["code"], d["range"]["start"]);
    return got;
  };
  const bool settled =
      client.waitFor([&](const std::vector<Json> &messages) { return lastPublished(messages) == expected; });
  client.stop();
  const std::vector<Json> messages = client.messages();

  // Every request answered once: with a result, or ContentModified / RequestCancelled.
  std::map<int, int> answers;
  std::int64_t published = 0;
  std::size_t publishes = 0;
  for (const Json &m : messages) {
    if (m.contains("id") && m["id"].is_number_integer() && asked.contains(m["id"].get<int>())) {
      const int id = m["id"];
      ++answers[id];
      if (m.contains("error")) {
        const int code = m["error"]["code"];
        CHECK((code == -32801 || code == -32800)); // ContentModified, RequestCancelled
        continue;
      }
      // A code action's edits are for the version it was asked at, never a later one.
      for (const Json &action : m["result"].is_array() ? m["result"] : Json::array())
        if (action.contains("edit"))
          for (const Json &change : action["edit"].value("documentChanges", Json::array()))
            CHECK(change["textDocument"]["version"] == asked[id]);
    }
    if (m.value("method", "") == "textDocument/publishDiagnostics") {
      const std::int64_t v = m["params"]["version"];
      CHECK(v >= published); // never backwards
      published = v;
      ++publishes;
    }
  }
  for (const auto &[id, v] : asked) CHECK(answers[id] == 1);
  INFO(publishes << " publishes for " << version << " versions");
  CHECK(settled);
  CHECK(lastPublished(messages) == expected);
  CHECK(client.exitCode() == 0);
}

} // namespace
} // namespace asyncfix::lsp

namespace asyncfix::lsp {
namespace {

// ---- the Workspace's side of the Analyzer: which findings are current, and moved findings ----

void deliverTo(Workspace &ws) {
  ws.analyzer().runQueued();
  ws.analyzer().deliver([&](Analyzer::Id id, std::shared_ptr<const Findings> f) {
    if (OpenDocument *doc = ws.findByAnalysis(id)) ws.accept(*doc, std::move(f));
  });
}

TEST_CASE("Workspace: findings of the same version are not current after the text or linter changed", "[analyzer]") {
  Workspace ws;
  OpenDocument &doc = ws.open("untitled:a.py", 1, "x.cuda(async=True)\n");
  CHECK(doc.current() == nullptr);
  deliverTo(ws);
  REQUIRE(doc.current() != nullptr);
  CHECK(doc.current()->diagnostics.size() == 1);

  // A configuration change: the old linter's findings are not the current ones any more.
  ConfigOverrides overrides;
  overrides.ignore = std::vector<std::string>{"AF101"};
  ws.setOverrides(overrides);
  CHECK(doc.current() == nullptr);
  deliverTo(ws);
  REQUIRE(doc.current() != nullptr);
  CHECK(doc.current()->diagnostics.empty());

  // Saved text that differs, at the same version.
  ws.setOverrides({});
  deliverTo(ws);
  ws.replaceText(doc, 1, "y = 1\n");
  CHECK(doc.current() == nullptr);
  deliverTo(ws);
  REQUIRE(doc.current() != nullptr);
  CHECK(doc.current()->diagnostics.empty());

  // A didChange without changes: a new version of the same findings.
  ws.replaceText(doc, 2, "x.cuda(async=True)\n");
  deliverTo(ws);
  ws.renumber(doc, 3);
  CHECK(doc.current() == nullptr);
  deliverTo(ws);
  REQUIRE(doc.current() != nullptr);
  CHECK(doc.current()->version == 3);
  CHECK(doc.current()->diagnostics.size() == 1);
}

TEST_CASE("Workspace: findings made before edits are moved past them, also edits before the first findings",
          "[analyzer]") {
  Workspace ws;
  OpenDocument &doc = ws.open("untitled:b.py", 1, "x.cuda(async=True)\n");
  ws.analyzer().runQueued(); // the worker has made version 1's findings, not yet handed over
  ws.edit(doc, 2, 0, 0, "# a comment\n");
  ws.analyzer().deliver([&](Analyzer::Id id, std::shared_ptr<const Findings> f) {
    if (OpenDocument *d = ws.findByAnalysis(id)) ws.accept(*d, std::move(f));
  });
  CHECK(doc.current() == nullptr); // version 2 is not analyzed yet
  const auto moved = doc.latest(); // what hover answers from meanwhile
  REQUIRE(moved.size() == 1);
  CHECK(doc.doc.text().substr(moved[0].start, moved[0].end - moved[0].start) == "async");
}

TEST_CASE("a didChange without changes is published at its version", "[analyzer]") {
  MemoryTransport transport;
  Logger quiet(stderr, LogLevel::Error);
  Server server(transport, quiet);
  transport.push(initialize().dump());
  transport.push(didOpen("x.cuda(async=True)\n").dump());
  server.drain();
  transport.takeOutput();
  transport.push(
      Json{{"jsonrpc", "2.0"},
           {"method", "textDocument/didChange"},
           {"params", {{"textDocument", {{"uri", kUri}, {"version", 2}}}, {"contentChanges", Json::array()}}}}
          .dump());
  server.drain();
  std::vector<Json> out;
  for (const std::string &body : transport.takeOutput()) out.push_back(Json::parse(body));
  const Json *published = lastPublish(out);
  REQUIRE(published != nullptr);
  CHECK((*published)["params"]["version"] == 2);
  CHECK((*published)["params"]["diagnostics"].size() == 1);
}

TEST_CASE("a notebook's cells are pushed to a client that pulls, and their pulls are empty", "[analyzer]") {
  // VS Code's language client 9 pulls text documents but never notebook cells: without a push,
  // cells would show nothing there.
  MemoryTransport transport;
  Logger quiet(stderr, LogLevel::Error);
  Server server(transport, quiet);
  Json init = initialize();
  init["params"]["capabilities"]["textDocument"] = {{"diagnostic", {{"dynamicRegistration", false}}}};
  transport.push(init.dump());
  const std::string cellUri = "vscode-notebook-cell:/tmp/t.ipynb#c1";
  transport.push(
      Json{{"jsonrpc", "2.0"},
           {"method", "notebookDocument/didOpen"},
           {"params",
            {{"notebookDocument",
              {{"uri", "file:///tmp/t.ipynb"},
               {"notebookType", "jupyter-notebook"},
               {"version", 1},
               {"cells", {{{"kind", 2}, {"document", cellUri}}}}}},
             {"cellTextDocuments",
              {{{"uri", cellUri}, {"languageId", "python"}, {"version", 1}, {"text", "x.cuda(async=True)\n"}}}}}}}
          .dump());
  transport.push(Json{{"jsonrpc", "2.0"},
                      {"id", 7},
                      {"method", "textDocument/diagnostic"},
                      {"params", {{"textDocument", {{"uri", cellUri}}}}}}
                     .dump());
  server.drain();
  bool pushed = false, pulled = false;
  for (const std::string &body : transport.takeOutput()) {
    const Json m = Json::parse(body);
    if (m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == cellUri) {
      pushed = true;
      CHECK(m["params"]["diagnostics"].size() == 1);
    }
    if (m.contains("id") && m["id"] == 7) {
      pulled = true;
      CHECK(m["result"]["kind"] == "full");
      CHECK(m["result"]["items"].empty());
    }
  }
  CHECK(pushed);
  CHECK(pulled);
}

} // namespace
} // namespace asyncfix::lsp
