// lsp/analyzer.h — parses and lints the open documents off the message loop.
//
// The message loop keeps each open document's text (for positions) and hands every edit to the
// Analyzer, which keeps its own copy with the syntax tree and the incremental lint results
// (IncrementalLint). On the worker thread it takes all the edits queued for a document at once,
// re-parses and lints once, and hands the findings back; work for a version that has already
// been edited again is dropped. Requests that need the tree (code actions, fixes) are tasks run
// on the worker at the version they were asked for, or told that the document changed. When the
// client has been quiet, a third thread, the settler, parses and lints a copy of an edited
// document's text afresh (what the CLI sees) and hands the findings to the worker, which
// publishes them if that version is still current; any new work stops it.
//
// Two modes with one code path: inline (runQueued() does the work on the caller's thread — the
// in-process tests replay transcripts deterministically this way) and threaded (start()).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "asyncfix/diagnostic.h"
#include "asyncfix/document.h"
#include "asyncfix/incremental.h"
#include "asyncfix/linter.h"

namespace asyncfix::lsp {

/// The findings of one version of a document. Immutable once made; shared by both threads.
struct Findings {
  std::int64_t version = 0;
  std::uint64_t revision = 0; ///< of the last change the Analyzer was told of (edits, text, linter)
  std::vector<asyncfix::Diagnostic> diagnostics;
  bool exact = true;     ///< false for a contained keystroke result (a statement left open)
  bool tooLarge = false; ///< not linted: the text is over the size limit
};

/// What a task sees on the worker: the document at the version the task was posted for.
struct Analyzed {
  const Document &doc;
  const Findings &findings;
  const Linter &linter;
};

class Analyzer {
public:
  using Id = std::uint64_t;
  /// Work for the main thread (answering a request); may be empty.
  using MainTask = std::function<void()>;
  /// Work for the worker. `at` is null when the document was edited again after the task was
  /// posted, or closed: then the task touches nothing but its own captures.
  using Task = std::function<MainTask(const Analyzed *at)>;
  /// Receives new findings on the main thread (deliver()).
  using ResultSink = std::function<void(Id, std::shared_ptr<const Findings>)>;
  /// Receives, on the main thread, what went wrong on the worker (an exception from a rule or
  /// a task): the document's findings are then empty until its next change.
  using ErrorSink = std::function<void(const std::string &)>;

  Analyzer();
  ~Analyzer();
  Analyzer(const Analyzer &) = delete;
  Analyzer &operator=(const Analyzer &) = delete;

  /// Runs the work on a thread of its own from now on (the language server's loop); without
  /// it, runQueued() does the work. `quietMs`: how long the worker waits without edits before
  /// it settles the documents (see settle()).
  void start(int quietMs);
  void setErrorSink(ErrorSink sink) { errors_ = std::move(sink); }
  bool threaded() const { return thread_.joinable(); }

  // ---- from the main thread ----
  // Each change carries the caller's revision of the document, which the findings made after it
  // carry too: findings are current when their revision is the document's latest.
  /// A new document; the documents larger than `maxBytes` are not linted (findings.tooLarge).
  Id open(std::int64_t version, std::uint64_t revision, std::string text, std::shared_ptr<const Linter> linter,
          std::size_t maxBytes);
  /// Bytes [start, end) of the text become `text`, making `version` (as Document::edit).
  void edit(Id id, std::int64_t version, std::uint64_t revision, std::size_t start, std::size_t end, std::string text);
  void replace(Id id, std::int64_t version, std::uint64_t revision, std::string text);
  /// A new version with the same text (a didChange without changes).
  void renumber(Id id, std::int64_t version, std::uint64_t revision);
  /// Lint with another linter (the configuration changed): everything is linted again.
  void relint(Id id, std::uint64_t revision, std::shared_ptr<const Linter> linter);
  /// Forgets the document; the tasks still queued for it run at once, on this thread, with `at`
  /// null, and so do their main tasks. Threaded, its tree is freed on the worker.
  void close(Id id);
  /// Runs `task` once the edits queued before it are analyzed.
  void post(Id id, Task task);

  /// Inline mode: does all the queued work now, on this thread.
  void runQueued();
  /// Inline mode: what the settler thread does once the client has been quiet: a document whose
  /// results may differ from a fresh parse's (tree-sitter's incremental recovery from a syntax
  /// error, statements parsed on their own, a contained result) is parsed and linted afresh on a
  /// copy of its text — what the CLI sees — and the findings are delivered when they differ. The
  /// document keeps its own tree for the next keystroke. The most recently analyzed go first.
  /// `stop` (the message loop: is a message waiting?) is asked before each document and while its
  /// fresh parse and then its lint run; once it says yes, the settle gives up, and the documents
  /// it has not settled wait for the next call. True when none is left to settle.
  bool settle(const std::function<bool()> &stop = {});
  /// From any thread (work the server runs beside the Analyzer, such as a workspace fix): `task`
  /// runs on the main thread, in deliver(), in order with the findings and the other main tasks.
  void deliverLater(MainTask task) { emit(std::move(task)); }
  /// Hands the new findings to `sink` and runs the main tasks, in the order they were made.
  /// False when there was nothing.
  bool deliver(const ResultSink &sink);
  /// Readable when deliver() has something to do (threaded mode; -1 before start()).
  int wakeFd() const { return wake_[0]; }

  /// How many documents keep their syntax tree (the most recently analyzed); the others' trees
  /// are freed (a tree costs about 40 times its text) and re-made from scratch when edited. Four,
  /// as clangd keeps three ASTs: the files being edited at once, within the memory the benchmark
  /// allows 100 open files (bench/lsp).
  static constexpr std::size_t kTreesKept = 4;
  /// Documents at least this large are chunked while edited (DocumentInternals::setChunking):
  /// all of them. Small ones too: a bracket typed open makes tree-sitter's error recovery re-read
  /// the rest of an unchunked file on every keystroke and code action.
  static constexpr std::size_t kChunkBytes = 1;

private:
  struct Op {
    enum class Kind : std::uint8_t { Edit, Replace, Renumber, Relint, Task, Settled } kind;
    std::int64_t version = 0;
    std::uint64_t revision = 0;
    std::size_t start = 0, end = 0;
    std::string text{};
    std::shared_ptr<const Linter> linter{};
    Task task{};
    /// Settled: the fresh findings of `revision`; none when the settle gave way to new work.
    std::optional<std::vector<asyncfix::Diagnostic>> settledDiagnostics{};
  };
  /// What the settler computes: the fresh findings of a document's text at a revision.
  struct SettleJob {
    Id id = 0;
    std::uint64_t revision = 0;
    std::string text;
    std::shared_ptr<const Linter> linter;
    std::uint64_t arrived = 0; ///< arrived_ when handed over: the settle stops when it moves
  };
  struct State;
  using Output = std::variant<std::pair<Id, std::shared_ptr<const Findings>>, MainTask>;

  void push(Id id, Op op);
  void loop(int quietMs);
  /// The first document of ready_ and its queued ops (nullptr when it was closed). mutex_ held.
  std::shared_ptr<State> takeReady(std::deque<Op> &ops);
  /// Applies `ops` to the document (worker side) and analyzes it.
  void process(State &s, std::deque<Op> &ops);
  void analyze(State &s);
  /// Whether `s` may differ from a fresh parse and lint (else it is marked settled).
  bool needsSettling(State &s);
  /// A fresh parse and lint of `text` (what the CLI reports); nullopt when `stop` said so first,
  /// and then the fresh document goes to `spent` (when given) instead of being freed here.
  std::optional<std::vector<asyncfix::Diagnostic>> freshFindings(const std::string &text, const Linter &linter,
                                                                 const std::function<bool()> &stop,
                                                                 std::optional<Document> *spent);
  /// Makes `diagnostics` the findings of `s`'s current version, emitted when they differ.
  void publishSettled(State &s, std::vector<asyncfix::Diagnostic> diagnostics);
  /// Inline mode: settles `s` on this thread, unless `stop` says so first (false: `s` stays
  /// unsettled).
  bool settleOne(State &s, const std::function<bool()> &stop);
  /// Threaded: gives `s` to the settler if it needs settling; the settle stops as soon as
  /// arrived_ is no longer `arrived`. True when nothing more should be handed until the next
  /// quiet period (it was handed, or the settler is busy).
  bool handToSettler(State &s, std::uint64_t arrived);
  /// The settler thread: fresh parses off the worker, so that the worker answers an edit that
  /// arrives meanwhile at once (tree-sitter looks at the stop flag only now and then: tens of
  /// milliseconds apart while it recovers from a syntax error in a large file).
  void settleLoop();
  /// Whether an edit of `s` is queued (its current version is outdated).
  bool editQueued(State &s);
  void emit(Output out);
  /// Runs `work`; an exception becomes a message for errors_ (on the main thread).
  template <class F> bool guarded(const char *what, F &&work);
  void trimTrees();

  std::mutex mutex_; ///< guards the inboxes, ready_, closed_, states_ and stop_
  std::condition_variable wakeWorker_;
  std::map<Id, std::shared_ptr<State>> states_;
  std::deque<Id> ready_;                       ///< documents with queued ops, in order
  std::vector<std::shared_ptr<State>> closed_; ///< threaded: closed documents, for the worker to free
  bool stop_ = false;
  Id nextId_ = 1;

  std::mutex outMutex_; ///< guards out_
  std::vector<Output> out_;
  int wake_[2] = {-1, -1};
  ErrorSink errors_; ///< called on the main thread only

  std::uint64_t clock_ = 0; ///< worker side: last-use order of the trees
  /// Inline mode: the fresh document of a settle that a message stopped, freed when the next
  /// settle starts (the client quiet again), not while that message waits: the release of a
  /// 20 000-line tree took 15-20 ms under WebAssembly.
  std::optional<Document> spent_;
  /// Counts the work handed to the worker (edits, tasks, closes, stop): a settle in progress
  /// gives way when it moves (settleOne).
  std::atomic<std::uint64_t> arrived_{0};

  std::mutex settleMutex_; ///< guards settleJob_, settleBusy_ and settleStop_
  std::condition_variable wakeSettler_;
  std::optional<SettleJob> settleJob_;
  bool settleBusy_ = false;
  bool settleStop_ = false;
  std::thread settler_;
  std::thread thread_;
};

} // namespace asyncfix::lsp
