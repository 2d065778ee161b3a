// bench/lsp/lsp_latency.cpp — keystroke latency of asyncfix-lsp on a large file.
//
// Starts the server, opens a generated Python file (20 000 lines by default, a few of them
// flagged), sends single-character incremental edits one at a time and measures the time from
// writing each didChange to reading the publishDiagnostics for that version. Two scenarios:
//   valid:  a character is appended to a name and removed again (the file always parses cleanly);
//   broken: a `(` is inserted and removed again (every other version has a syntax error).
// Reports median / p99 / max per scenario and the server's peak RSS (VmHWM).
//
//   asyncfix_lsp_bench [--server PATH] [--lines N] [--edits N] [--seed N] [--dense]
//   asyncfix_lsp_bench [--server PATH] --open N [--lines N]
//   asyncfix_lsp_bench [--server PATH] --typing [--lines N] [--at FRACTION] [--repeat N] [--pause MS]
//   asyncfix_lsp_bench [--server PATH] --first-async [--lines N] [--at FRACTION] [--repeat N]
//   asyncfix_lsp_bench [--server PATH] --notebook CELLS [--repeat N] [--pause MS]
//
// With --typing, the file is a training script as people write them (generateTraining(): loaders
// with and without `pin_memory`, loops over `enumerate(loader)`, `non_blocking=True` copies, a
// loss and `.item()` in every function, coroutines) and a user types
// `    y = batch.cuda(async=True)` as a new line in the middle of it (after a function's
// `model.train()`), one character per didChange, then deletes it with backspaces: most
// intermediate states are syntax errors. --first-async types `async def prefetch(queue):` on a
// blank line in the middle of the same script without its coroutines (no `async` nor `await`
// anywhere yet), and deletes it. Both also report the keystroke that completes the word `async`.
// Reports median / p90 / p99 / max from each didChange to the publishDiagnostics of its
// version, and checks that the typed finding appears and disappears; then types the line again
// with a hover and a code action sent right behind each keystroke and reports their latency;
// and compares didOpen with a bare parse of the file. --at places the typed line at that fraction
// of the file (0 to 0.95, default 0.5: the middle); --repeat types and deletes it N times (default
// 5: 310 keystrokes, so that p99 is not the slowest one); didOpen is the best of 4 opens of the file,
// its bare parse the best of 3. --notebook types the same line
// into the middle cell of a notebook of CELLS code cells (notebookDocument/didChange).
// --pause MS makes the typist stop for MS ms after typing `(` and `)` and after deleting the `)`
// (past the server's 400 ms quiet period, the document is settled with a bracket open or closed),
// and reports the keystrokes right after a pause on their own too.
//
// With --open, the server instead opens N different documents of --lines lines each (every one
// with a finding, so each is parsed and linted) and reports their total size and the server's
// resident memory (VmRSS) once all are published.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <optional>

#include <nlohmann/json.hpp>

#include "asyncfix/document.h"
#include "training_script.h"
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef ASYNCFIX_LSP_BINARY
#define ASYNCFIX_LSP_BINARY "asyncfix-lsp"
#endif

namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "lsp_latency: %s\n", message.c_str());
  std::exit(1);
}

class Server {
public:
  explicit Server(const std::string &path) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) die("pipe failed");
    pid_ = fork();
    if (pid_ < 0) die("fork failed");
    if (pid_ == 0) {
      dup2(in[0], STDIN_FILENO);
      dup2(out[1], STDOUT_FILENO);
      close(in[1]);
      close(out[0]);
      execl(path.c_str(), path.c_str(), "--log-level", "error", static_cast<char *>(nullptr));
      std::perror("exec");
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }

  void send(const Json &message) { sendFrame(frame(message)); }

  /// The message as the wire carries it: made before a timed send, so that the client's own
  /// JSON encoding (milliseconds for a 20 000-line didOpen) is not counted as the server's latency.
  static std::string frame(const Json &message) {
    const std::string body = message.dump();
    return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  }

  void sendFrame(const std::string &frame) {
    for (std::size_t done = 0; done < frame.size();) {
      const ssize_t n = write(to_, frame.data() + done, frame.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) die("write to the server failed");
      done += static_cast<std::size_t>(n);
    }
  }

  Json read() {
    for (;;) {
      const std::size_t headerEnd = buffer_.find("\r\n\r\n");
      if (headerEnd != std::string::npos) {
        const std::size_t length = std::stoul(buffer_.substr(std::strlen("Content-Length: "), headerEnd));
        if (buffer_.size() >= headerEnd + 4 + length) {
          Json message = Json::parse(buffer_.substr(headerEnd + 4, length));
          buffer_.erase(0, headerEnd + 4 + length);
          return message;
        }
      }
      pollfd p{from_, POLLIN, 0};
      if (poll(&p, 1, 120000) <= 0) die("no answer from the server within 120 s");
      char chunk[1 << 16];
      const ssize_t n = ::read(from_, chunk, sizeof chunk);
      if (n <= 0) die("the server closed its output");
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

  Json waitFor(const std::function<bool(const Json &)> &predicate) {
    for (;;) {
      Json message = read();
      if (predicate(message)) return message;
    }
  }

  /// CPU time (user + system) the server has used, in milliseconds: unlike latency, barely
  /// affected by other processes competing for the CPU.
  double cpuMs() const {
    std::ifstream stat("/proc/" + std::to_string(pid_) + "/stat");
    std::string content((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const std::size_t close = content.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream fields(content.substr(close + 2));
    std::string field;
    double ticks = 0;
    for (int i = 3; fields >> field; ++i) { // field 3 is the state; 14 utime, 15 stime
      if (i == 14 || i == 15) ticks += std::stod(field);
      if (i == 15) break;
    }
    return ticks * 1000.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
  }

  /// CPU time of all the server's threads in nanoseconds, from the scheduler's own accounting
  /// (/proc/PID/task/*/schedstat): precise where cpuMs()'s clock ticks (10 ms) are not, and,
  /// unlike latency, barely moved by other work on the machine.
  double cpuNs() const {
    double total = 0;
    const std::string tasks = "/proc/" + std::to_string(pid_) + "/task";
    std::error_code ec;
    for (std::filesystem::directory_iterator it(tasks, ec), end; !ec && it != end; it.increment(ec)) {
      std::ifstream stat(it->path() / "schedstat");
      double ns = 0;
      if (stat >> ns) total += ns;
    }
    return total;
  }

  /// Returns once the server has used no CPU for 20 ms (at most 2 s).
  void waitIdle() const {
    for (int i = 0; i < 100; ++i) {
      const double before = cpuNs();
      usleep(20000);
      if (cpuNs() - before < 2e5) return;
    }
  }

  long statusKb(const char *key) const {
    std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
    const std::size_t n = std::strlen(key);
    for (std::string line; std::getline(status, line);)
      if (line.compare(0, n, key) == 0) return std::strtol(line.c_str() + n, nullptr, 10);
    return -1;
  }
  long peakRssKb() const { return statusKb("VmHWM:"); }

  int finish() {
    close(to_);
    int status = 0;
    waitpid(pid_, &status, 0);
    close(from_);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buffer_;
};

/// Ordinary training-loop code; every 500th block holds an AF101 finding. With `dense`, every
/// block also copies with `non_blocking=True` (thousands of copies: a stress case for the rules
/// that follow such copies, AF104/AF106).
std::string generate(int lines, bool dense) {
  std::string text = "import torch\nimport torch.nn as nn\n\n\n";
  int line = 4;
  for (int block = 0; line < lines; ++block) {
    const std::string n = std::to_string(block);
    text += "def step_" + n + "(model, batch, device):\n";
    text += "    images, target = batch\n";
    if (block % 500 == 7) text += "    images = images.cuda(async=True)\n";
    else if (dense) text += "    images = images.to(device, non_blocking=True)\n";
    else text += "    images = images.to(device)\n";
    text += "    value_" + n + " = model(images).sum() * " + n + "\n";
    text += "    return value_" + n + ", target\n\n";
    line += 6;
  }
  return text;
}

struct Stats {
  double median, p90 = 0, p99, max;
  double cpuPerEdit = 0; ///< server CPU ms per didChange
};

Stats stats(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  const auto at = [&](double q) {
    return ms[std::min(ms.size() - 1, static_cast<std::size_t>(q * static_cast<double>(ms.size())))];
  };
  return {at(0.5), at(0.9), at(0.99), ms.back()};
}

/// Opens `count` documents (each different: its own numbers, one finding) and reports their
/// total size and the server's resident memory once every one has been published.
int openMany(Server &s, int count, int lines) {
  std::size_t total = 0;
  for (int d = 0; d < count; ++d) {
    std::string text = generate(lines, false);
    text += "\nLABEL_" + std::to_string(d) + " = " + std::to_string(d) + "\n";
    text += "copy = images.cuda(async=True)\n";
    total += text.size();
    const std::string uri = "file:///bench/doc_" + std::to_string(d) + ".py";
    s.send({{"jsonrpc", "2.0"},
            {"method", "textDocument/didOpen"},
            {"params", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}}}});
    s.waitFor([&](const Json &m) {
      return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"].value("uri", "") == uri;
    });
  }
  const long rss = s.statusKb("VmRSS:"), peak = s.peakRssKb();
  s.send({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}});
  s.waitFor([](const Json &m) { return m.contains("id") && m["id"] == 2; });
  s.send({{"jsonrpc", "2.0"}, {"method", "exit"}});
  const int code = s.finish();
  std::printf("open documents: %d of %d lines; open documents: %zu bytes; RSS %.1f MiB (peak %.1f MiB); exit code %d\n",
              count, lines, total, static_cast<double>(rss) / 1024.0, static_cast<double>(peak) / 1024.0, code);
  return code == 0 ? 0 : 1;
}

/// This thread's CPU time in milliseconds.
double threadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

/// A bare tree-sitter parse of `text` through the engine's Document (the floor for didOpen):
/// the best of three, in milliseconds; with `cpuMs`, its CPU time too (the best of three), to
/// compare with the server's.
double bareParseMs(const std::string &text, double *cpuMs = nullptr) {
  double best = 1e300, bestCpu = 1e300;
  for (int i = 0; i < 3; ++i) {
    const auto start = Clock::now();
    const double cpuStart = threadCpuMs();
    const asyncfix::Document doc(text);
    if (!doc.parsed()) die("the file did not parse");
    best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    bestCpu = std::min(bestCpu, threadCpuMs() - cpuStart);
  }
  if (cpuMs) *cpuMs = bestCpu;
  return best;
}

std::string report(const char *what, const std::vector<double> &ms) {
  const Stats st = stats(ms);
  char line[256];
  std::snprintf(line, sizeof line, "%s: median %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms", what, st.median, st.p90,
                st.p99, st.max);
  return line;
}

/// Types `typed` at (line, 0) of `uri` one character per didChange, then deletes it with
/// backspaces. `version` is the document's (or the cell's) version. With `withRequests`, each
/// didChange is followed at once by a hover (and every other one by a code-action request) at
/// the typing position, whose latencies go to `requestMs`; otherwise the time to the
/// publishDiagnostics of each version goes to `ms`. `count` gives how many diagnostics a
/// publish holds; it must rise above `before` while typing and come back to it.
struct Typist {
  Server &s;
  std::string uri;    ///< what didChange names (a document, or a notebook)
  std::string target; ///< the text document typed into (the same, or a cell)
  bool notebook = false;
  int line = 0;
  int version = 1; ///< of `target`
  int notebookVersion = 1;
  int nextId = 100;
  /// With a pause: after typing `(` and `)` and after deleting the `)`, the typist waits this
  /// long — past the server's quiet period, so it settles the document with a bracket open or
  /// closed — and the next keystroke's latency goes to `afterPause` too.
  int pauseMs = 0;
  std::vector<double> afterPause{};

  Json change(int character, int endLine, int endCharacter, const std::string &insert) {
    ++version;
    Json range = {{"start", {{"line", line}, {"character", character}}},
                  {"end", {{"line", endLine}, {"character", endCharacter}}}};
    Json edit = {{"range", range}, {"text", insert}};
    if (!notebook)
      return {{"jsonrpc", "2.0"},
              {"method", "textDocument/didChange"},
              {"params",
               {{"textDocument", {{"uri", uri}, {"version", version}}}, {"contentChanges", Json::array({edit})}}}};
    ++notebookVersion;
    Json content = {{"document", {{"uri", target}, {"version", version}}}, {"changes", Json::array({edit})}};
    return {{"jsonrpc", "2.0"},
            {"method", "notebookDocument/didChange"},
            {"params",
             {{"notebookDocument", {{"uri", uri}, {"version", notebookVersion}}},
              {"change", {{"cells", {{"textContent", Json::array({content})}}}}}}}};
  }

  std::size_t waitPublish() {
    const Json published = s.waitFor([&](const Json &m) {
      return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"].value("uri", "") == target &&
             m["params"].value("version", -1) == version;
    });
    return published["params"]["diagnostics"].size();
  }

  /// One keystroke; returns the diagnostics published for it.
  std::size_t key(int character, int endLine, int endCharacter, const std::string &insert, std::vector<double> &ms,
                  std::vector<double> *hoverMs, std::vector<double> *actionMs) {
    const auto start = Clock::now();
    s.send(change(character, endLine, endCharacter, insert));
    if (hoverMs) {
      const int hover = nextId++;
      s.send({{"jsonrpc", "2.0"},
              {"id", hover},
              {"method", "textDocument/hover"},
              {"params", {{"textDocument", {{"uri", target}}}, {"position", {{"line", line}, {"character", 0}}}}}});
      int action = -1;
      if (version % 2 == 0) {
        action = nextId++;
        s.send(
            {{"jsonrpc", "2.0"},
             {"id", action},
             {"method", "textDocument/codeAction"},
             {"params",
              {{"textDocument", {{"uri", target}}},
               {"range", {{"start", {{"line", line}, {"character", 0}}}, {"end", {{"line", line}, {"character", 0}}}}},
               {"context", {{"diagnostics", Json::array()}}}}}});
      }
      std::optional<std::size_t> published; // a publish may come before the replies
      for (int pending = action < 0 ? 1 : 2; pending > 0; --pending) {
        const Json reply = s.waitFor([&](const Json &m) {
          if (m.value("method", "") == "textDocument/publishDiagnostics" && m["params"].value("uri", "") == target &&
              m["params"].value("version", -1) == version)
            published = m["params"]["diagnostics"].size();
          return m.contains("id") && (m["id"] == hover || m["id"] == action);
        });
        const double elapsed = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        if (reply.contains("error")) die("request failed: " + reply.dump());
        (reply["id"] == hover ? *hoverMs : *actionMs).push_back(elapsed);
      }
      return published ? *published : waitPublish();
    }
    const std::size_t n = waitPublish();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    return n;
  }

  /// Types and deletes `typed`; returns the most diagnostics seen and the count at the end.
  std::pair<std::size_t, std::size_t> run(const std::string &typed, std::vector<double> &ms,
                                          std::vector<double> *hoverMs, std::vector<double> *actionMs) {
    std::size_t most = 0;
    int column = 0;
    bool paused = false;
    // A keystroke, and after a pause its latency in `afterPause` too.
    const auto timed = [&](int character, int endLine, int endCharacter, const std::string &insert) {
      const std::size_t before = ms.size();
      const std::size_t n = key(character, endLine, endCharacter, insert, ms, hoverMs, actionMs);
      if (paused && ms.size() > before) afterPause.push_back(ms.back());
      paused = false;
      return n;
    };
    const auto pause = [&] {
      if (pauseMs <= 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(pauseMs));
      paused = true;
    };
    for (const char c : typed) {
      most = std::max(most, timed(column, line, column, std::string(1, c)));
      ++column;
      if (c == '(' || c == ')') pause();
    }
    std::size_t last = timed(column - 1, line + 1, 0, ""); // the line break
    for (--column; column > 0; --column) {
      last = timed(column - 1, line, column, "");
      if (typed[static_cast<std::size_t>(column) - 1] == ')') pause(); // a bracket open again
    }
    return {most, last};
  }
};

/// "; N keystrokes after a pause of M ms: median …" when the typist paused; "" otherwise.
std::string pausedReport(const Typist &t) {
  if (t.pauseMs <= 0) return "";
  return "; " + report((std::to_string(t.afterPause.size()) + " keystrokes after a pause of " +
                        std::to_string(t.pauseMs) + " ms")
                           .c_str(),
                       t.afterPause);
}

const std::string kTyped = "    y = batch.cuda(async=True)\n";
/// What --first-async types: the file's first `async` (its fifth keystroke makes the word).
const std::string kTypedAsync = "async def prefetch(queue):\n";

/// The typing trace (see the header), typed and deleted `repeat` times. Returns the process exit
/// code.
int typing(Server &s, int lines, double where, int repeat, int pauseMs, bool firstAsync) {
  // The training script; for the first `async`, without its coroutines.
  const std::string text = bench::generateTraining(lines, !firstAsync);
  // At `where` of the file (the middle by default): after a training function's `model.train()`,
  // or for the first `async` on the blank line before a function.
  const std::string anchor = firstAsync ? "\n\n\ndef " : "    model.train()\n";
  std::size_t at = text.find(anchor, static_cast<std::size_t>(static_cast<double>(text.size()) * where));
  if (at == std::string::npos) die("no function to type into");
  at = firstAsync ? at + 2 : at + anchor.size();
  const std::string typed = firstAsync ? kTypedAsync : kTyped;
  int line = 0;
  for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n';
  const std::string uri = "file:///bench/typing.py";
  double parseCpuMs = 0;
  const double parseMs = bareParseMs(text, &parseCpuMs); // the best of 3
  // didOpen -> publish, the best of 4 as the parse is the best of 3: three more documents of the
  // same text are opened and closed first.
  double openMs = 1e300, openCpuMs = 1e300, closeMs = 1e300;
  Json first;
  for (int i = 0; i < 4; ++i) {
    const std::string name = i == 3 ? uri : "file:///bench/open_" + std::to_string(i) + ".py";
    const std::string frame = Server::frame(
        {{"jsonrpc", "2.0"},
         {"method", "textDocument/didOpen"},
         {"params", {{"textDocument", {{"uri", name}, {"languageId", "python"}, {"version", 1}, {"text", text}}}}}});
    const double cpuBefore = s.cpuNs();
    const auto open = Clock::now();
    s.sendFrame(frame);
    first = s.waitFor([&](const Json &m) {
      return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"].value("uri", "") == name;
    });
    openMs = std::min(openMs, std::chrono::duration<double, std::milli>(Clock::now() - open).count());
    openCpuMs = std::min(openCpuMs, (s.cpuNs() - cpuBefore) / 1e6);
    if (i < 3) {
      // Closed, its diagnostics cleared, and its tree freed (5 ms for 20 000 lines) before
      // the next open is timed: that is the close's cost, not the open's.
      const auto close = Clock::now();
      s.send(
          {{"jsonrpc", "2.0"}, {"method", "textDocument/didClose"}, {"params", {{"textDocument", {{"uri", name}}}}}});
      s.waitFor([&](const Json &m) {
        return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"].value("uri", "") == name;
      });
      closeMs = std::min(closeMs, std::chrono::duration<double, std::milli>(Clock::now() - close).count());
      s.waitIdle();
    }
  }
  const std::size_t before = first["params"]["diagnostics"].size();
  Typist t{s, uri, uri, false, line};
  t.pauseMs = pauseMs;
  std::vector<double> ms, hoverMs, actionMs, unused;
  const double cpuBefore = s.cpuMs();
  std::vector<double> completing; // the keystrokes that complete the word `async`
  for (int r = 0; r < repeat; ++r) {
    const std::size_t from = ms.size();
    const auto [most, last] = t.run(typed, ms, nullptr, nullptr);
    completing.push_back(ms[from + typed.find("async") + 4]);
    if (!firstAsync && most <= before) die("the typed `async=True` was never reported");
    if (last != before) die("the findings did not come back to those of the file");
  }
  const double cpu = (s.cpuMs() - cpuBefore) / static_cast<double>(ms.size());
  // Again, with a hover and a code action right behind each keystroke.
  for (int r = 0; r < repeat; ++r) t.run(typed, unused, &hoverMs, &actionMs);
  const long rss = s.peakRssKb();
  s.send({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}});
  s.waitFor([](const Json &m) { return m.contains("id") && m["id"] == 2; });
  s.send({{"jsonrpc", "2.0"}, {"method", "exit"}});
  const int code = s.finish();
  std::printf("%s, %d lines (training script), %zu bytes, %zu findings, typed at %.0f%% of the file: "
              "didOpen -> publish %.2f ms "
              "(bare parse %.2f ms, %.2fx; CPU time: server %.2f ms, bare parse %.2f ms, %.2fx); "
              "didClose -> publish %.2f ms; "
              "%s; %s; server CPU %.2f ms per keystroke%s; %s; %s; peak RSS %.1f MiB; exit code %d\n",
              firstAsync ? "first-async trace" : "typing trace", lines, text.size(), before, where * 100, openMs,
              parseMs, openMs / parseMs, openCpuMs, parseCpuMs, openCpuMs / parseCpuMs, closeMs,
              report((std::to_string(ms.size()) + " keystrokes didChange -> publishDiagnostics").c_str(), ms).c_str(),
              report("the keystroke completing `async`", completing).c_str(), cpu, pausedReport(t).c_str(),
              report("hover while typing", hoverMs).c_str(), report("code action while typing", actionMs).c_str(),
              static_cast<double>(rss) / 1024.0, code);
  return code == 0 ? 0 : 1;
}

/// The typing trace in a cell in the middle of a notebook of `cells` code cells.
int notebookTyping(Server &s, int cells, int repeat, int pauseMs) {
  const std::string uri = "file:///bench/train.ipynb";
  Json cellList = Json::array(), documents = Json::array();
  for (int c = 0; c < cells; ++c) {
    const std::string cellUri = "vscode-notebook-cell:/bench/train.ipynb#c" + std::to_string(c);
    std::string text = c == 0 ? "import torch\nimport torch.nn as nn\n" : "";
    text += "def step_" + std::to_string(c) +
            "(model, batch, device):\n    images, target = batch\n"
            "    images = images.to(device, non_blocking=True)\n    return model(images), target\n";
    cellList.push_back({{"kind", 2}, {"document", cellUri}});
    documents.push_back({{"uri", cellUri}, {"languageId", "python"}, {"version", 1}, {"text", text}});
  }
  const auto open = Clock::now();
  s.send({{"jsonrpc", "2.0"},
          {"method", "notebookDocument/didOpen"},
          {"params",
           {{"notebookDocument",
             {{"uri", uri}, {"notebookType", "jupyter-notebook"}, {"version", 1}, {"cells", cellList}}},
            {"cellTextDocuments", documents}}}});
  const std::string target = "vscode-notebook-cell:/bench/train.ipynb#c" + std::to_string(cells / 2);
  s.waitFor([&](const Json &m) {
    return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"].value("uri", "") == target;
  });
  const double openMs = std::chrono::duration<double, std::milli>(Clock::now() - open).count();
  Typist t{s, uri, target, true, 2};
  t.pauseMs = pauseMs;
  std::vector<double> ms;
  const double cpuBefore = s.cpuMs();
  for (int r = 0; r < repeat; ++r) {
    const auto [most, last] = t.run(kTyped, ms, nullptr, nullptr);
    if (most == 0) die("the typed `async=True` was never reported in the cell");
    if (last != 0) die("the finding did not go away with the text");
  }
  const double cpu = (s.cpuMs() - cpuBefore) / static_cast<double>(ms.size());
  s.send({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}});
  s.waitFor([](const Json &m) { return m.contains("id") && m["id"] == 2; });
  s.send({{"jsonrpc", "2.0"}, {"method", "exit"}});
  const int code = s.finish();
  std::printf(
      "notebook typing trace, %d cells: didOpen -> first cell published %.2f ms; %s; server CPU %.2f ms per "
      "keystroke%s; exit code %d\n",
      cells, openMs,
      report((std::to_string(ms.size()) + " keystrokes in a cell -> its publishDiagnostics").c_str(), ms).c_str(), cpu,
      pausedReport(t).c_str(), code);
  return code == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  std::string server = ASYNCFIX_LSP_BINARY;
  int lines = 20000, edits = 500;
  unsigned seed = 1;
  bool dense = false;
  int openDocs = 0;
  bool typingTrace = false;
  bool firstAsync = false;
  int notebookCells = 0;
  double where = 0.5;
  int pauseMs = 0;
  int repeat = 5; // the typing traces: 310 keystrokes, so that p99 is not simply the slowest one
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--dense") {
      dense = true;
      continue;
    }
    if (arg == "--typing") {
      typingTrace = true;
      continue;
    }
    if (arg == "--first-async") {
      firstAsync = true;
      continue;
    }
    if (i + 1 >= argc) die("missing value after " + arg);
    const char *value = argv[++i];
    if (arg == "--server") server = value;
    else if (arg == "--lines") lines = std::atoi(value);
    else if (arg == "--edits") edits = std::atoi(value);
    else if (arg == "--seed") seed = static_cast<unsigned>(std::atoi(value));
    else if (arg == "--open") openDocs = std::atoi(value);
    else if (arg == "--notebook") notebookCells = std::atoi(value);
    else if (arg == "--repeat") repeat = std::max(1, std::atoi(value));
    else if (arg == "--pause") pauseMs = std::max(0, std::atoi(value));
    else if (arg == "--at") where = std::clamp(std::atof(value), 0.0, 0.95);
    else die("unknown argument " + arg);
  }
  signal(SIGPIPE, SIG_IGN);
  const std::string text = generate(lines, dense);
  std::vector<std::size_t> valueLines; // lines `    value_N = ...`: edits go after `value_N`
  {
    std::size_t lineNo = 0;
    for (std::size_t at = 0; at < text.size(); ++lineNo) {
      const std::size_t end = text.find('\n', at);
      if (text.compare(at, 10, "    value_") == 0) valueLines.push_back(lineNo);
      at = end + 1;
    }
  }

  Server s(server);
  s.send({{"jsonrpc", "2.0"},
          {"id", 1},
          {"method", "initialize"},
          // As VS Code declares: code actions' edits computed on codeAction/resolve.
          {"params",
           {{"capabilities",
             {{"general", {{"positionEncodings", {"utf-16"}}}},
              {"textDocument",
               {{"codeAction", {{"dataSupport", true}, {"resolveSupport", {{"properties", {"edit"}}}}}}}}}}}}});
  s.waitFor([](const Json &m) { return m.contains("id") && m["id"] == 1; });
  s.send({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", Json::object()}});
  if (openDocs > 0) return openMany(s, openDocs, lines);
  if (typingTrace || firstAsync) return typing(s, lines, where, repeat, pauseMs, firstAsync);
  if (notebookCells > 0) return notebookTyping(s, notebookCells, repeat, pauseMs);
  const std::string uri = "file:///bench/big.py";
  const auto open = Clock::now();
  s.send({{"jsonrpc", "2.0"},
          {"method", "textDocument/didOpen"},
          {"params", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}}}});
  const Json first =
      s.waitFor([](const Json &m) { return m.value("method", "") == "textDocument/publishDiagnostics"; });
  const double openMs = std::chrono::duration<double, std::milli>(Clock::now() - open).count();
  const std::size_t flagged = first["params"]["diagnostics"].size();

  std::mt19937 rng(seed);
  int version = 1;
  const auto run = [&](const std::string &insert) {
    std::vector<double> ms;
    const double cpuBefore = s.cpuMs();
    for (int e = 0; e < edits; ++e) {
      const auto line = static_cast<int>(valueLines[rng() % valueLines.size()]);
      const int column = 10; // just after `    value_`: inside the name (valid) or before it (broken)
      // Insert, then remove the same character: each keystroke is one didChange.
      for (int k = 0; k < 2; ++k) {
        ++version;
        Json range = {{"start", {{"line", line}, {"character", column}}},
                      {"end", {{"line", line}, {"character", k == 0 ? column : column + 1}}}};
        const auto start = Clock::now();
        Json change = {{"range", range}, {"text", k == 0 ? insert : std::string()}};
        Json params = {{"textDocument", {{"uri", uri}, {"version", version}}},
                       {"contentChanges", Json::array({change})}};
        s.send({{"jsonrpc", "2.0"}, {"method", "textDocument/didChange"}, {"params", params}});
        const Json published = s.waitFor([&](const Json &m) {
          return m.value("method", "") == "textDocument/publishDiagnostics" &&
                 m["params"].value("version", -1) == version;
        });
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        if (published["params"]["diagnostics"].size() < flagged)
          die("lost a diagnostic at version " + std::to_string(version));
      }
    }
    Stats result = stats(ms);
    result.cpuPerEdit = (s.cpuMs() - cpuBefore) / static_cast<double>(ms.size());
    return result;
  };
  const Stats valid = run("x");
  const Stats broken = run("(");
  const long rss = s.peakRssKb();
  s.send({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}});
  s.waitFor([](const Json &m) { return m.contains("id") && m["id"] == 2; });
  s.send({{"jsonrpc", "2.0"}, {"method", "exit"}});
  const int code = s.finish();

  std::printf("file: %d lines%s, %zu bytes, %zu flagged; %d edits per scenario (each a keystroke and its undo)\n",
              lines, dense ? " (dense)" : "", text.size(), flagged, edits);
  std::printf("didOpen -> first publishDiagnostics: %.2f ms\n", openMs);
  std::printf("valid edits   didChange -> publishDiagnostics: median %.2f ms, p99 %.2f ms, max %.2f ms; "
              "server CPU %.2f ms per edit\n",
              valid.median, valid.p99, valid.max, valid.cpuPerEdit);
  std::printf("broken edits  didChange -> publishDiagnostics: median %.2f ms, p99 %.2f ms, max %.2f ms; "
              "server CPU %.2f ms per edit\n",
              broken.median, broken.p99, broken.max, broken.cpuPerEdit);
  std::printf("server peak RSS (VmHWM): %.1f MiB; exit code %d\n", static_cast<double>(rss) / 1024.0, code);
  return code == 0 ? 0 : 1;
}
