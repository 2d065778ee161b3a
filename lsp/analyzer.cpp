#include "analyzer.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <exception>
#include <optional>

#if defined(_WIN32)
#include <io.h>
#else
#include <fcntl.h>
#include <unistd.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "asyncfix/document_internals.h"
#include "asyncfix/linter_internals.h"

namespace asyncfix::lsp {

/// One open document on the worker's side. The fields above `inbox` belong to the thread that
/// runs process() (the worker, or the caller of runQueued()); `inbox` and `queued` to mutex_.
struct Analyzer::State {
  State(Id documentId, std::string text) : id(documentId), doc(std::move(text)) {}
  const Id id;
  Document doc;
  IncrementalLint lint;
  std::shared_ptr<const Linter> linter;
  std::int64_t version = 0;
  std::uint64_t revision = 0;
  std::size_t maxBytes = 0;
  std::shared_ptr<const Findings> findings; ///< the last ones made
  bool dirty = true;                        ///< the text or the linter changed since `findings`
  bool settled = true;                      ///< the tree is a fresh parse, or nothing needs settling
  bool settling = false;                    ///< threaded: the settler is computing its fresh findings
  std::uint64_t lastUsed = 0;

  std::deque<Op> inbox;
  bool queued = false; ///< listed in ready_
};

Analyzer::Analyzer() = default;

Analyzer::~Analyzer() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  arrived_.fetch_add(1, std::memory_order_relaxed); // a settle in progress gives up
  wakeWorker_.notify_all();
  {
    std::lock_guard lock(settleMutex_);
    settleStop_ = true;
  }
  wakeSettler_.notify_all();
  if (settler_.joinable()) settler_.join(); // before the worker: it pushes to the documents
  if (thread_.joinable()) thread_.join();
  for (const int fd : wake_)
    if (fd >= 0) ::close(fd);
}

void Analyzer::start(int quietMs) {
  if (thread_.joinable()) return;
#if (defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)) || defined(_WIN32)
  // WebAssembly without threads (docs/wasm.md), and Windows, whose pipes cannot be waited on with
  // the input (docs/windows.md): the work stays inline (runQueued()).
  (void)quietMs;
  return;
#else
  // Without a way to wake the message loop, the work stays inline (runQueued()).
  if (::pipe(wake_) != 0) {
    wake_[0] = wake_[1] = -1;
    return;
  }
  for (const int fd : wake_) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  thread_ = std::thread([this, quietMs] { loop(quietMs); });
  settler_ = std::thread([this] { settleLoop(); });
#endif
}

// ---- the main thread's side ----

Analyzer::Id Analyzer::open(std::int64_t version, std::uint64_t revision, std::string text,
                            std::shared_ptr<const Linter> linter, std::size_t maxBytes) {
  std::lock_guard lock(mutex_);
  const Id id = nextId_++;
  auto state = std::make_shared<State>(id, std::move(text));
  // A keystroke re-parses the statements around it, not the whole text.
  DocumentInternals::setChunking(state->doc, kChunkBytes);
  state->linter = std::move(linter);
  state->version = version;
  state->revision = revision;
  state->maxBytes = maxBytes;
  state->queued = true; // nothing to apply: analyze it
  states_.emplace(id, std::move(state));
  ready_.push_back(id);
  arrived_.fetch_add(1, std::memory_order_relaxed);
  wakeWorker_.notify_one();
  return id;
}

void Analyzer::edit(Id id, std::int64_t version, std::uint64_t revision, std::size_t start, std::size_t end,
                    std::string text) {
  push(id, Op{.kind = Op::Kind::Edit,
              .version = version,
              .revision = revision,
              .start = start,
              .end = end,
              .text = std::move(text)});
}

void Analyzer::replace(Id id, std::int64_t version, std::uint64_t revision, std::string text) {
  push(id, Op{.kind = Op::Kind::Replace, .version = version, .revision = revision, .text = std::move(text)});
}

void Analyzer::renumber(Id id, std::int64_t version, std::uint64_t revision) {
  push(id, Op{.kind = Op::Kind::Renumber, .version = version, .revision = revision});
}

void Analyzer::relint(Id id, std::uint64_t revision, std::shared_ptr<const Linter> linter) {
  push(id, Op{.kind = Op::Kind::Relint, .revision = revision, .linter = std::move(linter)});
}

void Analyzer::post(Id id, Task task) { push(id, Op{.kind = Op::Kind::Task, .task = std::move(task)}); }

void Analyzer::push(Id id, Op op) {
  {
    std::lock_guard lock(mutex_);
    if (const auto it = states_.find(id); it != states_.end()) {
      State &s = *it->second;
      s.inbox.push_back(std::move(op));
      if (!s.queued) {
        s.queued = true;
        ready_.push_back(id);
      }
      arrived_.fetch_add(1, std::memory_order_relaxed);
      wakeWorker_.notify_one();
      return;
    }
  }
  if (op.kind == Op::Kind::Task)
    if (MainTask then = op.task(nullptr)) then(); // closed: the document changed
}

void Analyzer::close(Id id) {
  std::deque<Op> left;
  {
    std::lock_guard lock(mutex_);
    const auto it = states_.find(id);
    if (it == states_.end()) return;
    left.swap(it->second->inbox);
    // Its tree is freed on the worker: freeing a large tree is work the message loop must not wait for.
    if (threaded()) closed_.push_back(std::move(it->second));
    states_.erase(it);
  }
  arrived_.fetch_add(1, std::memory_order_relaxed);
  wakeWorker_.notify_one();
  for (Op &op : left)
    if (op.kind == Op::Kind::Task)
      if (MainTask then = op.task(nullptr)) then();
}

bool Analyzer::deliver(const ResultSink &sink) {
  // The wake-ups first, then the output: a result emitted in between leaves its byte in the pipe,
  // so the loop's next wait returns at once instead of sleeping on an undelivered result.
  if (wake_[0] >= 0) {
    char buffer[256];
    while (::read(wake_[0], buffer, sizeof buffer) > 0) {}
  }
  std::vector<Output> out;
  {
    std::lock_guard lock(outMutex_);
    out.swap(out_);
  }
  for (Output &item : out) {
    if (auto *result = std::get_if<0>(&item)) sink(result->first, std::move(result->second));
    else if (MainTask &then = std::get<1>(item)) then();
  }
  return !out.empty();
}

// ---- the worker's side ----

void Analyzer::emit(Output out) {
  {
    std::lock_guard lock(outMutex_);
    out_.push_back(std::move(out));
  }
  if (wake_[1] >= 0) {
    const char byte = 1;
    while (::write(wake_[1], &byte, 1) < 0 && errno == EINTR) {}
  }
}

template <class F> bool Analyzer::guarded(const char *what, F &&work) {
  try {
    work();
    return true;
  } catch (const std::exception &e) {
    emit(MainTask([this, message = std::string(what) + " failed: " + e.what()] {
      if (errors_) errors_(message);
    }));
  } catch (...) {
    emit(MainTask([this, message = std::string(what) + " failed"] {
      if (errors_) errors_(message);
    }));
  }
  return false;
}

void Analyzer::loop(int quietMs) {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    if (!closed_.empty()) {
      std::vector<std::shared_ptr<State>> closed;
      closed.swap(closed_);
      lock.unlock();
      closed.clear();
      lock.lock();
      continue;
    }
    if (ready_.empty()) {
      const auto work = [&] { return stop_ || !ready_.empty() || !closed_.empty(); };
      const bool unsettled = std::any_of(states_.begin(), states_.end(), [](const auto &entry) {
        return !entry.second->settled && !entry.second->settling;
      });
      if (!unsettled) {
        wakeWorker_.wait(lock, work);
        continue;
      }
      if (wakeWorker_.wait_for(lock, std::chrono::milliseconds(quietMs), work)) continue;
      // Quiet: the settler takes one document at a time, the most recently analyzed first (the
      // one being typed into: a large document edited earlier, whose settle each pause would
      // start and the next keystroke stop, must not starve it); this thread stays free for edits.
      std::vector<std::shared_ptr<State>> all;
      for (const auto &entry : states_) all.push_back(entry.second);
      std::sort(all.begin(), all.end(), [](const auto &a, const auto &b) { return a->lastUsed > b->lastUsed; });
      for (const auto &s : all) {
        if (work()) break;
        if (s->settled || s->settling) continue;
        // Read with work() under the lock: anything handed over after this stops the settle.
        const std::uint64_t arrived = arrived_.load(std::memory_order_relaxed);
        lock.unlock();
        const bool handed = handToSettler(*s, arrived);
        lock.lock();
        if (handed) break;
      }
      continue;
    }
    std::deque<Op> ops;
    const std::shared_ptr<State> s = takeReady(ops);
    if (!s) continue;
    lock.unlock();
    process(*s, ops);
    trimTrees();
    lock.lock();
  }
}

std::shared_ptr<Analyzer::State> Analyzer::takeReady(std::deque<Op> &ops) {
  const Id id = ready_.front();
  ready_.pop_front();
  const auto it = states_.find(id);
  if (it == states_.end()) return nullptr; // closed meanwhile
  it->second->queued = false;
  ops.swap(it->second->inbox);
  return it->second;
}

void Analyzer::runQueued() {
  if (threaded()) return; // the worker does it
  for (;;) {
    std::shared_ptr<State> s;
    std::deque<Op> ops;
    {
      std::lock_guard lock(mutex_);
      if (ready_.empty()) return;
      s = takeReady(ops);
      if (!s) continue;
    }
    process(*s, ops);
    trimTrees();
  }
}

bool Analyzer::settle(const std::function<bool()> &stop) {
  if (threaded()) return true; // the worker does it when the client is quiet
  spent_.reset();              // the fresh document of the last settle, if a keystroke stopped it: quiet now
  runQueued();
  std::vector<std::shared_ptr<State>> all;
  {
    std::lock_guard lock(mutex_);
    for (const auto &entry : states_) all.push_back(entry.second);
  }
  // The one being typed into first, as the threaded settle does (see loop()).
  std::sort(all.begin(), all.end(), [](const auto &a, const auto &b) { return a->lastUsed > b->lastUsed; });
  const std::function<bool()> never = [] { return false; };
  const std::function<bool()> &asked = stop ? stop : never;
  for (const auto &s : all) {
    if (!needsSettling(*s)) continue;
    if (asked() || !settleOne(*s, asked)) return false;
  }
  return true;
}

bool Analyzer::editQueued(State &s) {
  std::lock_guard lock(mutex_);
  return std::any_of(s.inbox.begin(), s.inbox.end(),
                     [](const Op &op) { return op.kind == Op::Kind::Edit || op.kind == Op::Kind::Replace; });
}

void Analyzer::process(State &s, std::deque<Op> &ops) {
  for (std::size_t i = 0; i < ops.size(); ++i) {
    Op &op = ops[i];
    switch (op.kind) {
    case Op::Kind::Edit:
      s.lint.willEdit(s.doc, op.start, op.end, op.text); // before the text changes
      s.doc.edit(op.start, op.end, op.text);
      s.version = op.version;
      s.revision = op.revision;
      s.dirty = true;
      s.settled = false;
      break;
    case Op::Kind::Replace:
      s.doc.reset(std::move(op.text));
      s.lint.reset();
      s.version = op.version;
      s.revision = op.revision;
      s.dirty = true;
      s.settled = true;
      break;
    case Op::Kind::Renumber:
      s.version = op.version;
      s.revision = op.revision;
      s.dirty = true;    // nothing changed: the incremental lint of the same tree costs next to nothing
      s.settled = false; // which gives the keystroke path's result: settle it again when quiet
      break;
    case Op::Kind::Relint:
      s.linter = std::move(op.linter);
      s.lint.reset();
      s.revision = op.revision;
      s.dirty = true;
      s.settled = false; // a lint of the keystroke path's tree, maybe split into statements
      break;
    case Op::Kind::Settled:
      s.settling = false;
      // Stopped by new work (settled stays false: tried again after the next quiet period), or
      // made for a revision edited since (which made settled false).
      if (!op.settledDiagnostics || op.revision != s.revision || s.dirty) break;
      s.settled = true;
      publishSettled(s, std::move(*op.settledDiagnostics));
      break;
    case Op::Kind::Task: {
      // Outdated when the document is edited after it: the task's version is gone.
      const bool later = std::any_of(ops.begin() + static_cast<std::ptrdiff_t>(i) + 1, ops.end(), [](const Op &o) {
        return o.kind == Op::Kind::Edit || o.kind == Op::Kind::Replace;
      });
      MainTask then;
      if (later || editQueued(s)) {
        then = op.task(nullptr);
      } else {
        analyze(s);
        const Analyzed at{s.doc, *s.findings, *s.linter};
        // A task that throws is answered as if the document had changed.
        if (!guarded("a request", [&] { then = op.task(&at); })) then = op.task(nullptr);
      }
      op.task = nullptr;
      if (then) emit(std::move(then));
      break;
    }
    }
  }
  // A version edited again meanwhile is not analyzed: the newest one is, next.
  if (s.dirty && !editQueued(s)) analyze(s);
}

void Analyzer::analyze(State &s) {
  if (!s.dirty) return;
  s.dirty = false;
  auto findings = std::make_shared<Findings>();
  findings->version = s.version;
  findings->revision = s.revision;
  if (s.doc.text().size() > s.maxBytes) {
    // Never parsed: nothing here asks for its tree.
    s.lint.reset();
    s.doc.releaseTree();
    findings->tooLarge = true;
  } else if (!s.lint.holdsResults() && !s.linter->mayHaveFindings(s.doc.text())) {
    // A lint from scratch passes the CLI's prefilter first (a text it rejects is not linted);
    // after that, keystrokes are linted incrementally, and settleOne() restores agreement with
    // a fresh parse. The tree is kept current all the same, as for a linted document: the
    // keystroke that makes the text worth linting (`async` typed into `x.cuda(`) may leave a
    // bracket open, and a tree first parsed in a broken state cannot be split into statements,
    // so every keystroke after it would re-parse the whole document. Its statements are held
    // as linted with no finding: that keystroke lints the statements it changed, not all.
    if (!guarded("parsing", [&] {
          if (s.doc.parsed()) s.lint.adoptRejected(*s.linter, s.doc);
        }))
      s.lint.reset();
  } else if (!guarded("linting", [&] {
               findings->diagnostics = s.lint.update(*s.linter, s.doc, /*contain=*/true);
               findings->exact = s.lint.exact();
             })) {
    s.lint.reset(); // what it held may be half made: the next change lints everything
    findings->diagnostics.clear();
  }
  s.lastUsed = ++clock_;
  s.findings = findings;
  emit(std::pair{s.id, std::shared_ptr<const Findings>(std::move(findings))});
}

bool Analyzer::needsSettling(State &s) {
  if (s.settled) return false;
  // What the CLI reports is a lint of a fresh parse of the whole text. The keystroke path's
  // results may differ from it: a contained result (a statement left open), statements parsed
  // on their own, tree-sitter's incremental recovery from a syntax error. Settling computes it on
  // a copy of the text, so that the keystroke path keeps its tree split into statements: the
  // fresh tree of a broken text cannot be split, and in its place every keystroke after a pause
  // would re-parse the whole document until the bracket is closed. A clean whole tree linted
  // exactly is what a fresh parse gives already.
  const bool needed =
      !s.dirty && s.findings && s.lint.holdsResults() &&
      (!s.lint.exact() || DocumentInternals::chunked(s.doc) || !s.doc.holdsTree() || s.doc.syntaxErrorCount() > 0);
  if (!needed) s.settled = true;
  return needed;
}

std::optional<std::vector<asyncfix::Diagnostic>> Analyzer::freshFindings(const std::string &text, const Linter &linter,
                                                                         const std::function<bool()> &stop,
                                                                         std::optional<Document> *spent) {
  std::vector<asyncfix::Diagnostic> diagnostics;
  // Once `stop` says so, it is so: a predicate that looks now and then (Server::settleUntilInput)
  // may say no again, and the lint after a parse that gave up would parse the whole text again,
  // where nothing stops it.
  bool stopped = false;
  const std::function<bool()> sticky = [&] { return stopped || (stopped = stop()); };
  std::optional<Document> fresh;
  const bool done = guarded("settling", [&] {
    fresh.emplace(text);
    if (!linter.mayHaveFindings(fresh->text())) return;
    (void)DocumentInternals::parseUnless(*fresh, sticky); // a parser that gave up lints as nothing
    // The lint asks too (during the parse or since, then as its walk goes): a keystroke waits
    // for neither (tens of milliseconds each for 20 000 lines under WebAssembly).
    if (auto found = LinterInternals::lintUnless(linter, *fresh, sticky)) diagnostics = std::move(*found);
  });
  if (stopped) {
    // Nor for the release of the fresh tree, when the caller keeps it (settle()).
    if (spent) *spent = std::move(fresh);
    return std::nullopt;
  }
  if (!done) diagnostics.clear();
  return diagnostics;
}

void Analyzer::publishSettled(State &s, std::vector<asyncfix::Diagnostic> diagnostics) {
  if (diagnostics == s.findings->diagnostics && s.findings->exact) return;
  auto findings = std::make_shared<Findings>();
  findings->version = s.version;
  findings->revision = s.revision;
  findings->diagnostics = std::move(diagnostics);
  s.findings = findings;
  emit(std::pair{s.id, std::shared_ptr<const Findings>(std::move(findings))});
}

bool Analyzer::settleOne(State &s, const std::function<bool()> &stop) {
  auto diagnostics = freshFindings(std::string(s.doc.text()), *s.linter, stop, &spent_);
  if (!diagnostics) return false; // stopped: tried again after the next quiet period
  s.settled = true;
  publishSettled(s, std::move(*diagnostics));
  return true;
}

bool Analyzer::handToSettler(State &s, std::uint64_t arrived) {
  if (!needsSettling(s)) return false;
  std::lock_guard lock(settleMutex_);
  if (settleJob_ || settleBusy_) return true; // one at a time: this one waits for the next quiet period
  settleJob_ = SettleJob{s.id, s.revision, std::string(s.doc.text()), s.linter, arrived};
  s.settling = true;
  wakeSettler_.notify_one();
  return true;
}

void Analyzer::settleLoop() {
  std::unique_lock lock(settleMutex_);
  for (;;) {
    wakeSettler_.wait(lock, [&] { return settleStop_ || settleJob_.has_value(); });
    if (settleStop_) return;
    SettleJob job = std::move(*settleJob_);
    settleJob_.reset();
    settleBusy_ = true;
    lock.unlock();
    const std::uint64_t arrived = job.arrived;
    Op op{.kind = Op::Kind::Settled, .revision = job.revision};
    op.settledDiagnostics = freshFindings(
        job.text, *job.linter, [this, arrived] { return arrived_.load(std::memory_order_relaxed) != arrived; },
        nullptr);
    const Id id = job.id;
    job = SettleJob{}; // its text and linter are freed here, not on the worker
    push(id, std::move(op));
    lock.lock();
    settleBusy_ = false;
  }
}

void Analyzer::trimTrees() {
  std::vector<std::shared_ptr<State>> holding;
  {
    std::lock_guard lock(mutex_);
    for (const auto &entry : states_) holding.push_back(entry.second);
  }
  std::erase_if(holding, [](const std::shared_ptr<State> &s) { return !s->doc.holdsTree(); });
  if (holding.size() <= kTreesKept) return;
  std::nth_element(holding.begin(), holding.end() - kTreesKept, holding.end(),
                   [](const auto &a, const auto &b) { return a->lastUsed < b->lastUsed; });
  for (auto it = holding.begin(); it != holding.end() - kTreesKept; ++it) {
    (*it)->doc.releaseTree();
    (*it)->lint.reset(); // the next tree is a full parse
    (*it)->settled = true;
  }
#if defined(__GLIBC__)
  malloc_trim(0); // give the freed trees back to the system, not only to malloc's free lists
#endif
}

} // namespace asyncfix::lsp
