// run.cpp — a run of asyncfix over files (asyncfix/run.h): the walk, each file's settings, the
// project view, linting or fixing each file on worker threads, the reports in path order.
#include "asyncfix/run.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <utility>
#include <variant>

#include "asyncfix/document.h"
#include "asyncfix/encoding.h"
#include "asyncfix/gitignore.h"
#include "asyncfix/linter.h"
#include "asyncfix/linter_internals.h"
#include "asyncfix/module_strings.h"
#include "asyncfix/notebook_fix.h"
#include "asyncfix/platform.h"
#include "asyncfix/report.h"
#include "asyncfix/report_format.h"
#include "asyncfix/suppression.h"
#include "asyncfix/unified_diff.h"
#include "engine/linter_impl.h"
#include "run/workers.h"
#include "text/prefilter.h"

namespace asyncfix {
namespace {

/// One Linter per distinct configuration, built on first use: files under one configuration
/// file share it, unless a per-file-ignores entry gives a file its own rule selection.
class Linters {
public:
  struct Entry {
    const Linter *linter = nullptr;
    bool unsafeFixes = false;
    /// The configuration could not be read: why (shared, so that a Job stays small).
    std::shared_ptr<const std::string> error;
  };

  explicit Linters(const ConfigResolver &resolver) : resolver_(resolver) {}

  /// The project view whose module renames and packages go into each file's Config (set before
  /// the workers start).
  void setProject(const ProjectView *project) { project_ = project; }
  const ProjectView *project() const { return project_; }

  Entry forFile(const std::string &path) { return forResolved(resolver_.forFile(path), path); }

  /// The entry of every file in the directory of `path` (one of them), when they share it: no
  /// per-file-ignores apply there and no project view is set (it configures files one by one).
  std::optional<Entry> forDirectoryOf(const std::string &path) {
    if (project_ != nullptr) return std::nullopt;
    const auto shared = resolver_.forEntriesOf(pathFromUtf8(path).parent_path(), DirectoryListing{});
    const auto *config = std::get_if<ResolvedConfig>(shared.get());
    if (config != nullptr && !config->perFileIgnores.empty()) return std::nullopt;
    return forResolved(*shared, path);
  }

  /// The entry of settings already resolved (for every file of a directory without
  /// per-file-ignores, whose files all share them; `path` is one of them, for the project view).
  Entry forResolved(const std::variant<ResolvedConfig, ConfigError> &resolved, const std::string &path = {}) {
    if (const auto *e = std::get_if<ConfigError>(&resolved))
      return {nullptr, false, std::make_shared<const std::string>(e->toString())};
    const ResolvedConfig &config = std::get<ResolvedConfig>(resolved);
    std::string key = config.source.string();
    for (const std::string &code : config.config.rules.ignore) key += '\n' + code;
    std::optional<Config> configured; // with the project's rows, when there is a project view
    if (project_ != nullptr) {
      configured = config.config;
      key += project_->configure(path, *configured);
    }
    const std::lock_guard lock(mutex_);
    auto &slot = linters_[key];
    if (!slot) slot = std::make_unique<Linter>(configured ? *configured : config.config);
    return {slot.get(), config.unsafeFixes, nullptr};
  }

private:
  const ConfigResolver &resolver_;
  const ProjectView *project_ = nullptr;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Linter>> linters_;
};

/// Everything the workers share.
struct Context {
  Linters &linters;
  const RunOptions &options;
  /// --fix / --add-noqa: the files (device, inode) being rewritten, so that two names of one file
  /// (a bind mount met twice in a walk) are never rewritten by two workers at once.
  bool writes = false;
  std::mutex *claimsMutex = nullptr;
  std::set<std::pair<std::uint64_t, std::uint64_t>> *claims = nullptr;
  /// The pipeline's first pass, before the project view is known: a file whose code may use
  /// `async`/`await` as a name (mayHavePublicNames(); the only files whose findings a project
  /// view can change) is not linted yet; its report lists its public names and is `deferred`.
  bool defer = false;
  /// With `defer`, in a run that lists its files first (one that may write, checkWholeList): every
  /// file that may change waits for the project view as well, so that no file is fixed before the
  /// view is known, and its bytes ride in its report (FileReport::read) to be fixed against.
  bool deferAll = false;
  /// deferAll: the bytes kept in reports so far, against kKeptBudget.
  std::atomic<std::size_t> *keptBytes = nullptr;
  /// Set once RunOptions::cancelled said so (every worker stops asking then).
  std::atomic<bool> *stopped = nullptr;

  /// The host's text of `path` (RunOptions::openText), if it has one.
  std::optional<ProjectSource> open(const std::string &path) const {
    return options.openText ? options.openText(path) : std::nullopt;
  }
  /// Whether the run is to stop (RunOptions::cancelled).
  bool cancelled() const {
    if (stopped == nullptr || !options.cancelled) return false;
    if (stopped->load(std::memory_order_relaxed)) return true;
    if (!options.cancelled()) return false;
    stopped->store(true, std::memory_order_relaxed);
    return true;
  }

  /// True when the file may be rewritten under this name (the first name to ask wins).
  bool claim(std::pair<std::uint64_t, std::uint64_t> identity) const {
    const std::lock_guard lock(*claimsMutex);
    return claims->insert(identity).second;
  }
};

void fail(FileReport &report, std::string_view reason) {
  report.failed = true;
  report.messages.push_back("error: " + report.path + ": " + std::string(reason));
}

void warn(FileReport &report, const std::string &what) {
  report.messages.push_back("warning: " + report.path + ": " + what);
}

/// The diagnostics of a fixing run whose result must not be used (e.g. the write failed).
void reportUnfixed(FileReport &report, const Linter &linter, std::string &&original) {
  report.diagnostics = linter.lint(std::string_view(original));
  report.fixed = 0;
  report.changed = false;
  report.text = std::move(original);
}

/// Warnings for the fixes that fix() rejected; their ranges are offsets into `text` (a notebook's
/// virtual text when `notebook` is set).
void warnRejected(FileReport &report, const std::vector<Diagnostic> &rejected, std::string_view text,
                  const Notebook *notebook) {
  if (rejected.empty()) return;
  const SourceMap map(FileDiagnostics{report.path, text, {}, notebook});
  for (const Diagnostic &d : rejected) {
    report.messages.push_back("warning: " + report.path + ":" + map.at(d.start).label() + ": skipped the " +
                              std::string(d.code) + " fix, which would have introduced a syntax error");
  }
}

/// The diagnostics of a notebook's virtual text, kept with the notebook they refer to.
void reportNotebook(FileReport &report, Notebook &&notebook, std::vector<Diagnostic> &&diagnostics) {
  if (keepReportableInCells(notebook, diagnostics) > 0) {
    warn(report, "internal error: dropped a finding outside the notebook's code cells");
  }
  report.diagnostics = std::move(diagnostics);
  if (!report.diagnostics.empty()) {
    report.notebook = std::make_unique<Notebook>(std::move(notebook));
  }
}

/// Lints or fixes a Jupyter notebook: its code cells as one virtual Python text (IPython syntax
/// masked), fixes written back into the changed cells' "source" only. `bytes` passed
/// decodeSource() (notebooks are UTF-8 JSON); `stamp` as in checkText.
FileReport checkNotebook(FileReport report, std::string bytes, const FileStamp *stamp, const Context &ctx,
                         const Linters::Entry &entry) {
  const RunOptions &options = ctx.options;
  const Linter &linter = *entry.linter;
  // On stdin, --fix and --add-noqa print the input when they cannot or need not change it.
  report.fixedSource = stamp == nullptr ? bytes : std::string();
  auto parsed = Notebook::parse(std::move(bytes));
  if (const auto *error = std::get_if<std::string>(&parsed)) {
    fail(report, *error);
    return report;
  }
  Notebook notebook = std::get<Notebook>(std::move(parsed));
  const std::string &virtualText = notebook.virtualText();

  if (options.addNoqa) {
    std::size_t added = 0;
    const std::string text = addNoqa(linter, virtualText, &added);
    if (added == 0) return report;
    auto written = withFixedCells(notebook, text);
    if (const auto *warning = std::get_if<std::string>(&written)) {
      warn(report, *warning);
      return report;
    }
    const Notebook &fixed = std::get<Notebook>(written);
    if (stamp != nullptr) {
      if (const auto error = writeFileAtomically(report.path, fixed.json(), *stamp)) {
        fail(report, *error);
        return report;
      }
    }
    report.fixed = added;
    report.changed = true;
    if (stamp == nullptr) report.fixedSource = fixed.json();
    return report;
  }
  if (options.fixMode == FixMode::None) {
    std::vector<Diagnostic> diagnostics = linter.lint(std::string_view(virtualText));
    reportNotebook(report, std::move(notebook), std::move(diagnostics));
    return report;
  }

  FixOptions fixOptions;
  fixOptions.unsafe = entry.unsafeFixes;
  NotebookFix fixing = fixNotebook(linter, notebook, fixOptions);
  FixResult &result = fixing.result;
  warnRejected(report, result.rejected, virtualText, &notebook);
  if (!result.converged) {
    warn(report, "fixes did not converge after " + std::to_string(fixOptions.maxIterations) +
                     " rounds; the file may still hold fixable findings");
  }
  if (fixing.warning) warn(report, *fixing.warning);
  if (!fixing.fixed) {
    reportNotebook(report, std::move(notebook), std::move(result.remaining));
    return report;
  }
  std::optional<Notebook> &fixed = fixing.fixed;
  if (options.fixMode == FixMode::Diff) {
    report.diff = unifiedDiff(notebook.json(), fixed->json(), report.path);
  } else if (options.fixMode == FixMode::Collect) {
    report.before = notebook.json();
    report.after = fixed->json();
  } else if (stamp != nullptr) {
    if (const auto error = writeFileAtomically(report.path, fixed->json(), *stamp)) {
      fail(report, *error);
      std::vector<Diagnostic> diagnostics = linter.lint(std::string_view(virtualText));
      reportNotebook(report, std::move(notebook), std::move(diagnostics));
      return report;
    }
  }
  report.changed = true;
  report.fixed = result.fixedDiagnostics;
  report.fixedSource = stamp == nullptr ? fixed->json() : std::string();
  reportNotebook(report, std::move(*fixed), std::move(result.remaining)); // they refer to its virtual text
  return report;
}

/// Does `text` spell `async` or `await` anywhere (code, strings, comments, JSON escapes aside)?
/// With memmem, which skips through the text by pairs of bytes: string_view::find stops at every
/// `a`, one byte in twenty of Python code.
bool spellsKeyword(std::string_view text) {
  const auto spells = [&](std::string_view word) { return containsBytes(text, word); };
  return spells("async") || spells("await");
}

/// With a project view that renames modules: AF201 warnings (no fix) for the strings of `text`
/// (the text the report's diagnostics refer to) that name one of them; strings are never edited.
void addModuleStrings(FileReport &report, std::string_view text, const ProjectView *project) {
  if (project == nullptr || !mentionsRenamedModule(text, project->renamedModules())) return;
  std::vector<Diagnostic> found = moduleStrings(text, project->renamedModules(), Severity::Warning);
  report.diagnostics.insert(report.diagnostics.end(), found.begin(), found.end());
  std::stable_sort(report.diagnostics.begin(), report.diagnostics.end(),
                   [](const Diagnostic &a, const Diagnostic &b) { return a.start < b.start; });
}

/// addModuleStrings() for a file of the pipeline's first pass (one that uses `async`/`await` as
/// no name): the project view changes none of its findings, but a string of it may name a
/// renamed module. Its text is read again when the report kept none.
void addLateModuleStrings(FileReport &report, const ProjectView &project, const Context &ctx) {
  if (report.failed || report.notebook) return;
  if (!report.text.empty()) {
    addModuleStrings(report, report.text, &project);
    return;
  }
  if (std::optional<ProjectSource> open = ctx.open(report.path)) {
    if (!open->readOnly.empty()) return;
    addModuleStrings(report, open->text, &project);
    if (!report.diagnostics.empty()) report.text = std::move(open->text);
    return;
  }
  ReadResult read = readSourceFile(report.path);
  if (read.error) return;
  SourceText source = decodeSourceFrom(read.bytes);
  if (source.error) return;
  std::string text = std::move(source.text); // UTF-8, whether or not the bytes moved into it
  addModuleStrings(report, text, &project);
  if (!report.diagnostics.empty()) report.text = std::move(text);
}

/// --add-noqa on one text (UTF-8 `bytes`; `original`: the file's bytes when it declares another
/// `encoding`): a `# noqa` comment on each line with a finding, written back when `stamp` is set.
void addNoqaComments(FileReport &report, const Linter &linter, std::string bytes, std::string original,
                     const std::string &encoding, const FileStamp *stamp) {
  std::size_t added = 0;
  std::string text = addNoqa(linter, bytes, &added);
  std::optional<std::string> out = encodeSource(text, encoding);
  if (!out) {
    fail(report, "a noqa comment does not fit the declared encoding `" + encoding + "`; not written");
    report.fixedSource = encoding.empty() ? std::move(bytes) : std::move(original);
    return;
  }
  if (added > 0 && stamp != nullptr) {
    if (const auto error = writeFileAtomically(report.path, *out, *stamp)) {
      fail(report, *error);
      return;
    }
  }
  report.fixed = added;
  report.changed = added > 0;
  report.fixedSource = std::move(*out);
}

/// Lints `bytes` into `report` (no fix); `maybe` is the prefilter's verdict when asked already.
/// A text that needs no parse is left in `bytes` (the caller's); one that does is taken.
void lintOnly(FileReport &report, const Linter &linter, std::string &bytes, std::optional<bool> maybe,
              const Context &ctx) {
  if (!maybe) maybe = linter.mayHaveFindings(bytes);
  if (!*maybe) { // as lint() would: no finding without a parse
    addModuleStrings(report, bytes, ctx.linters.project());
    if (!report.diagnostics.empty()) report.text = std::move(bytes);
    return;
  }
  // The Document takes the bytes as they were read; the text is copied back out only for a
  // report with findings, which shows their lines.
  const Document document(std::move(bytes));
  report.diagnostics = linter.lint(document);
  addModuleStrings(report, document.text(), ctx.linters.project());
  if (!report.diagnostics.empty()) report.text = document.text();
}

/// What the pipeline's first pass (Context::defer) does with a Python text: check it now, finish
/// it (nothing to report or change), or defer it to the pass after the project view (with its
/// public names in `names`). `maybe` gets the prefilter's verdict, unless it holds it already.
enum class FirstPass { Check, Finished, Deferred };
FirstPass firstPass(std::unique_ptr<PublicNames> &names, const Linter &linter, std::string_view bytes,
                    const Context &ctx, std::optional<bool> &maybe) {
  const RunOptions &options = ctx.options;
  // One prefilter scan for most files. A linter that looks for `async`/`await` as names
  // (AF001/AF002) and finds no reason to parse finds none, so mayHavePublicNames(), which asks
  // the prefilter for those alone, would find none either; and lint() or fix() would stop at
  // the same scan.
  if (!maybe) maybe = linter.mayHaveFindings(bytes);
  const bool looksForNames = (LinterInternals::impl(linter).triggers & kPrefilterKeywordName) != 0;
  if ((*maybe || !looksForNames) && mayHavePublicNames(bytes)) {
    names = std::make_unique<PublicNames>(findPublicNames(bytes));
    return FirstPass::Deferred;
  }
  if (ctx.deferAll && (*maybe || options.addNoqa)) return FirstPass::Deferred;
  // (fix() would stop at the same scan: nothing changes, nothing remains)
  if (!*maybe && !options.addNoqa &&
      (options.fixMode == FixMode::None || options.fixMode == FixMode::Diff || ctx.deferAll))
    return FirstPass::Finished; // nothing to report, nothing to change
  return FirstPass::Check;
}

/// Lints or fixes one text. `stamp` is set for a file on disk (which --fix rewrites), null for
/// stdin and a host's text; `decoded`: the bytes are UTF-8 text already (a host's, whatever
/// encoding its file declares). `keep`: where a file that Context::deferAll defers leaves its
/// bytes (as they were given, in their declared encoding). `bytes` is taken where the report
/// keeps it; otherwise (most files: nothing found) its memory is the caller's again. `maybe`: the
/// prefilter's verdict on `bytes`, when asked already (of a file with no declared encoding).
FileReport checkText(std::string path, std::string &bytes, const FileStamp *stamp, const Context &ctx,
                     const Linters::Entry *given = nullptr, bool decoded = false, std::string *keep = nullptr,
                     std::optional<bool> maybe = std::nullopt) {
  FileReport report;
  report.path = std::move(path);
  const RunOptions &options = ctx.options;
  const Linters::Entry entry = given != nullptr ? *given : ctx.linters.forFile(report.path);
  if (entry.error) {
    fail(report, "configuration error: " + *entry.error);
    report.fixedSource = std::move(bytes);
    return report;
  }
  const Linter &linter = *entry.linter;
  report.unsafeFixes = entry.unsafeFixes;
  SourceText source;
  if (decoded) {
    source.error = checkSourceText(bytes);
    if (!source.error) source.text = std::exchange(bytes, std::string());
  } else {
    source = decodeSourceFrom(bytes); // a UTF-8 file's bytes move into source.text
  }
  if (source.error) {
    fail(report, *source.error);
    report.fixedSource = std::move(bytes); // stdin --fix echoes what it cannot process
    return report;
  }
  if (bytes.empty()) {
    bytes = std::move(source.text); // taken back: they are the text
  }
  if (isNotebookName(report.path)) {
    // Its cells are JSON strings: a `\u` escape may spell the keywords too.
    if (ctx.defer && (ctx.deferAll || spellsKeyword(bytes) || bytes.find("\\u") != std::string::npos)) {
      report.deferred = true;
      if (keep != nullptr) *keep = std::move(bytes);
      return report;
    }
    return checkNotebook(std::move(report), std::move(bytes), stamp, ctx, entry);
  }
  // A file in a declared encoding (PEP 263) is linted and fixed as UTF-8; what is written, shown
  // as a diff or echoed goes back into its encoding (`original` keeps its bytes).
  const std::string encoding = std::move(source.encoding);
  std::string original;
  if (!encoding.empty()) {
    original = std::exchange(bytes, std::move(source.text));
  }
  if (ctx.defer) {
    const FirstPass pass = firstPass(report.names, linter, bytes, ctx, maybe);
    if (pass == FirstPass::Finished) return report;
    if (pass == FirstPass::Deferred) {
      report.deferred = true;
      if (keep != nullptr) *keep = std::move(encoding.empty() ? bytes : original);
      return report;
    }
  }
  const auto encoded = [&](const std::string &text) { return encodeSource(text, encoding); };
  if (options.addNoqa) {
    addNoqaComments(report, linter, std::move(bytes), std::move(original), encoding, stamp);
    return report;
  }
  if (options.fixMode == FixMode::None) {
    lintOnly(report, linter, bytes, maybe, ctx);
    return report;
  }

  FixOptions fixOptions;
  fixOptions.unsafe = entry.unsafeFixes;
  FixResult result = fix(linter, bytes, fixOptions);
  // Rejected fixes come back in the input's offsets: say where each one was.
  warnRejected(report, result.rejected, bytes, nullptr);
  if (!result.converged) {
    warn(report, "fixes did not converge after " + std::to_string(fixOptions.maxIterations) +
                     " rounds; the file may still hold fixable findings");
  }
  const bool changed = result.changed && result.text != bytes;
  std::optional<std::string> out = changed ? encoded(result.text) : std::nullopt;
  if (changed && !out) {
    fail(report, "a fix does not fit the declared encoding `" + encoding + "`; not written");
    reportUnfixed(report, linter, std::move(bytes));
    report.fixedSource = std::move(original);
    return report;
  }
  if (options.fixMode == FixMode::Diff) {
    if (changed) {
      report.diff = unifiedDiff(encoding.empty() ? bytes : original, *out, report.path);
    }
  } else if (options.fixMode == FixMode::Collect) {
    if (changed) {
      report.before = bytes; // UTF-8, whatever the file's encoding
      report.after = result.text;
    }
  } else if (changed && stamp != nullptr) {
    if (const auto error = writeFileAtomically(report.path, *out, *stamp)) {
      fail(report, *error);
      reportUnfixed(report, linter, std::move(bytes));
      return report;
    }
  }
  report.changed = changed;
  report.fixed = changed ? result.fixedDiagnostics : 0;
  report.diagnostics = std::move(result.remaining);
  addModuleStrings(report, result.text, ctx.linters.project());
  if (stamp == nullptr) {
    report.fixedSource = changed ? std::move(*out) : encoding.empty() ? result.text : original;
  }
  if (!report.diagnostics.empty()) {
    report.text = std::move(result.text);
  }
  return report;
}

/// What ends a path's directory part.
#if defined(_WIN32)
constexpr std::string_view kSeparators = "/\\:"; // (`C:x.py` is in the current directory of C:)
#else
constexpr std::string_view kSeparators = "/";
#endif

/// Where the directory part of `path` ends (its last separator), npos in none.
std::size_t lastSeparator(std::string_view path) {
  if constexpr (kSeparators.size() == 1) return path.rfind(kSeparators[0]); // (find_last_of: a loop)
  return path.find_last_of(kSeparators);
}

/// The most bytes the first pass of a run that lists its files first keeps for its second
/// (FileReport::read): the files past it are read again.
constexpr std::size_t kKeptBudget = std::size_t{512} << 20;
/// The most jobs that wait for a worker before the producer checks one itself (JobQueue): the walk
/// stays close enough behind the workers that the directories it keeps open (walkPaths) still hold
/// the files they check, which are then opened relative to them, in most trees.
constexpr std::size_t kAhead = 128;
/// The largest read buffer a worker keeps for its next file (checkFile's `buffer`).
constexpr std::size_t kSpareMost = std::size_t{4} << 20;

/// A report that says nothing but that its file was checked (most of a run's): held as this
/// until the reports are put in order, not as a FileReport of 320 bytes. A run over a tree the
/// prefilter rejects whole made, moved and sorted one large report per file (~5 % of its time).
struct BareReport {
  std::string path;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> identity;
  bool unsafeFixes = false;

  /// The report `full` as one, when it says nothing else: every field of FileReport is asked of
  /// (run.h says so beside them).
  static std::optional<BareReport> of(FileReport &full) {
    const bool bare = full.text.empty() && full.diagnostics.empty() && !full.notebook && full.diff.empty() &&
                      full.fixedSource.empty() && full.before.empty() && full.after.empty() && full.fixed == 0 &&
                      !full.changed && !full.failed && full.messages.empty() && !full.skipped && !full.names &&
                      !full.deferred && !full.read;
    if (!bare) return std::nullopt;
    return BareReport{std::move(full.path), full.identity, full.unsafeFixes};
  }
  /// Fills `report`, a new one, as the report it was.
  void into(FileReport &report) && {
    report.path = std::move(path);
    report.identity = identity;
    report.unsafeFixes = unsafeFixes;
  }
};

/// A file's report as a worker makes it: whole, or bare for a file the first pass finishes as it
/// reads it (finishedAsRead()).
using Checked = std::variant<FileReport, BareReport>;

/// One file to check, handed from the walk to a worker.
struct Job {
  std::string path;
  /// The settings of every file in the job's directory, when they are the same for all of them
  /// (no per-file-ignores); nullopt: resolve them for this file.
  std::optional<Linters::Entry> entry;
  /// The directory the walk found it in, still open: the file is read from it (its name is the
  /// path's last component). Null: read by path.
  std::shared_ptr<const OpenDirectory> directory{};
  /// The file as an earlier read of this run found it (the first pass of a whole-list run):
  /// checked and written against those bytes and that stamp, not read again. (A pointer: a Job
  /// is moved through the queue, and most have none.)
  std::unique_ptr<ReadResult> read{};
  /// Its place among the jobs of its queue, in the order they were pushed (JobQueue::push).
  std::size_t seq = 0;
};

/// Checks the host's text of a file (RunOptions::openText); one it cannot edit is left alone.
FileReport checkOpen(Job &job, ProjectSource open, const Context &ctx) {
  if (!open.readOnly.empty()) {
    FileReport report;
    report.path = job.path;
    warn(report, open.readOnly + "; not checked");
    return report;
  }
  return checkText(job.path, open.text, nullptr, ctx, job.entry ? &*job.entry : nullptr, true);
}

/// The first pass (Context::defer) over a file it finishes (FirstPass::Finished: nothing to report
/// or change; most files of a run), told from the bytes where the worker read them: its bare
/// report, with no copy of the bytes and no FileReport made. Nullopt for any other file (a
/// notebook, a declared encoding, invalid UTF-8 or a NUL, a configuration error, settings of its
/// own, the prefilter's "maybe"): checkText() decides, `maybe` holding the prefilter's verdict
/// when it was asked.
std::optional<BareReport> finishedAsRead(Job &job, std::string_view bytes, const Context &ctx,
                                         std::optional<std::pair<std::uint64_t, std::uint64_t>> identity,
                                         std::optional<bool> &maybe) {
  if (!ctx.defer || !job.entry || job.entry->error || isNotebookName(job.path)) return std::nullopt;
  // decodeSourceFrom() takes such a file's bytes as its text, in no declared encoding. The
  // prefilter's scan reads every byte of a text it rejects: one it finds plain ASCII needs no
  // UTF-8 check (a second pass over every byte).
  if (declaredEncoding(bytes)) return std::nullopt;
  bool plain = false;
  if (!maybe) maybe = LinterInternals::mayHaveFindings(*job.entry->linter, bytes, plain);
  if (!plain && checkSourceText(bytes)) return std::nullopt;
  std::unique_ptr<PublicNames> names;
  if (firstPass(names, *job.entry->linter, bytes, ctx, maybe) != FirstPass::Finished) return std::nullopt;
  return BareReport{std::move(job.path), identity, job.entry->unsafeFixes};
}

/// Checks one file; `buffer`: the memory the worker reads each file into (readSourceFileInto()).
/// A file the first pass finishes is judged there (finishedAsRead()); any other is copied out
/// into its own string for checkText().
Checked checkFile(Job &job, const Context &ctx, ReadBuffer &buffer) {
  const std::string &path = job.path;
  try {
    if (std::optional<ProjectSource> open = ctx.open(path)) return Checked{checkOpen(job, std::move(*open), ctx)};
    std::size_t size = 0;
    const bool buffered = !job.read; // else the bytes of an earlier read, in their own string
    ReadResult read = job.read ? std::move(*job.read)
                      : job.directory
                          ? readSourceFileInto(job.directory->fd(), path.c_str() + (path.rfind('/') + 1), buffer, size)
                          : readSourceFileInto(path, buffer, size);
    job.directory.reset(); // the directory closes with its last file
    std::optional<std::pair<std::uint64_t, std::uint64_t>> identity;
    if (!read.error) {
      identity.emplace(read.stamp.device, read.stamp.inode);
    } else {
      identity = fileIdentity(path);
    }
    // A file with other hard links is never rewritten (writeFileAtomically refuses): each name
    // is checked, and the later names are dropped at the end, as for a check without --fix.
    if (ctx.writes && identity && !read.error && read.links <= 1 && !ctx.claim(*identity)) {
      FileReport report;
      report.path = path;
      report.skipped = true;
      return Checked{std::move(report)};
    }
    if (read.error) {
      FileReport report;
      report.path = path;
      report.identity = identity;
      fail(report, *read.error);
      return Checked{std::move(report)};
    }
    std::optional<bool> maybe;
    if (buffered) {
      const std::string_view bytes(buffer.data.get(), size);
      std::optional<BareReport> bare = finishedAsRead(job, bytes, ctx, identity, maybe);
      if (!bare) read.bytes.assign(bytes);
      if (buffer.capacity > kSpareMost) buffer = ReadBuffer(); // a large file's memory is not kept
      if (bare) return Checked{std::move(*bare)};
    }
    std::string kept; // a deferred file's bytes, for the second pass
    FileReport report = checkText(path, read.bytes, &read.stamp, ctx, job.entry ? &*job.entry : nullptr, false,
                                  ctx.deferAll ? &kept : nullptr, maybe);
    report.identity = identity;
    if (report.deferred && ctx.deferAll && ctx.keptBytes->fetch_add(kept.size()) + kept.size() <= kKeptBudget) {
      read.bytes = std::move(kept);
      report.read = std::make_unique<ReadResult>(std::move(read));
    }
    return Checked{std::move(report)};
  } catch (const std::exception &e) {
    FileReport report;
    report.path = path;
    fail(report, std::string("internal error: ") + e.what());
    return Checked{std::move(report)};
  }
}

/// A file of the run as the project view's audit reads it: decoded as a check decodes it (a
/// notebook's JSON as it is); nullopt, with why, when the check would report an error and the
/// bytes may name a module (they spell `async` or `await`).
std::optional<ProjectSource> diskText(const std::string &file, std::string &why) {
  ReadResult read = readSourceFile(file);
  if (read.error) {
    why = "cannot be read: " + *read.error;
    return std::nullopt;
  }
  if (isNotebookName(file)) return ProjectSource{std::move(read.bytes), {}};
  SourceText source = decodeSourceFrom(read.bytes);
  if (!source.error) return ProjectSource{std::move(source.text), {}};
  if (read.bytes.find("async") == std::string::npos && read.bytes.find("await") == std::string::npos)
    return ProjectSource{}; // names no module of the project
  std::string_view error = *source.error;
  if (error.ends_with(", skipped")) error.remove_suffix(std::string_view(", skipped").size());
  why = "cannot be read: " + std::string(error);
  return std::nullopt;
}

/// The files of the run as the project view reads them: the host's text (RunOptions::openText),
/// else diskText().
ProjectText projectText(const Context &ctx) {
  if (!ctx.options.openText) return diskText;
  return [&ctx](const std::string &file, std::string &why) -> std::optional<ProjectSource> {
    if (std::optional<ProjectSource> open = ctx.open(file)) return open;
    return diskText(file, why);
  };
}

/// Jobs handed from the walk (the producer) to the workers as it finds them.
class JobQueue {
public:
  /// Each batch handed over then has the producer check jobs itself (`help`) while more than
  /// `ahead` wait: a walk that ran far ahead of the readers closed the directories it had listed
  /// (OpenDirectory), and their files were opened by their whole path, a lookup of each component
  /// in the kernel.
  void helpWhileAhead(std::size_t ahead, std::function<void(Job &)> help) {
    ahead_ = ahead;
    help_ = std::move(help);
  }

  /// Queues `job`; the workers see it with the next batch (kBatch jobs), or at close().
  void push(Job job) {
    job.seq = pushed_++;
    batch_.push_back(std::move(job));
    if (batch_.size() >= kBatch) flush();
  }
  /// The jobs pushed so far (by the producer: read by it, or after it is done).
  std::size_t pushed() const { return pushed_; }
  /// No more jobs will come.
  void close() {
    flush();
    {
      const std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }
  /// The next jobs, a batch at most (into `jobs`, emptied first); false when the queue is closed
  /// and empty.
  bool pop(std::vector<Job> &jobs) {
    jobs.clear();
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return !jobs_.empty() || closed_; });
    while (!jobs_.empty() && jobs.size() < kBatch) {
      jobs.push_back(std::move(jobs_.front()));
      jobs_.pop_front();
    }
    return !jobs.empty();
  }

private:
  /// Jobs go over in batches: a lock and a wake-up per batch, not per file, on either side.
  static constexpr std::size_t kBatch = 16;

  /// Hands the batch to the workers, then checks jobs itself while more than `ahead_` wait.
  void flush() {
    if (batch_.empty()) return;
    std::size_t waiting = 0;
    {
      const std::lock_guard lock(mutex_);
      for (Job &job : batch_) jobs_.push_back(std::move(job));
      waiting = jobs_.size();
    }
    batch_.clear();
    ready_.notify_all();
    for (Job ahead; help_ && waiting > ahead_ && tryPop(ahead); --waiting) help_(ahead);
  }

  /// The next job, if one waits.
  bool tryPop(Job &job) {
    const std::lock_guard lock(mutex_);
    if (jobs_.empty()) return false;
    job = std::move(jobs_.front());
    jobs_.pop_front();
    return true;
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> jobs_;
  std::vector<Job> batch_; ///< pushed, not handed over yet (the producer's own)
  bool closed_ = false;
  std::size_t pushed_ = 0;
  std::size_t ahead_ = 0;
  std::function<void(Job &)> help_;
};

/// One worker's reports, in the order it made them (deques: no report moves as they grow, as
/// a vector's reallocations moved every bare report made before).
struct WorkerReports {
  WorkerReports() = default;
  WorkerReports(WorkerReports &&) = default; // (a report is move-only)
  WorkerReports(const WorkerReports &) = delete;
  WorkerReports &operator=(WorkerReports &&) = default;
  WorkerReports &operator=(const WorkerReports &) = delete;
  ~WorkerReports() = default;

  std::deque<FileReport> full;
  std::deque<BareReport> bare;
  /// The Job::seq of each report of `full` and of `bare`.
  std::deque<std::size_t> fullSeq, bareSeq;
};

/// A report of a run, whole or bare, as inPathOrder() takes it.
struct ReportRef {
  std::string_view path; ///< (a view: the sort compares with one indirection less)
  FileReport *full = nullptr;
  BareReport *bare = nullptr; ///< when `full` is null (both null: no report)
  ReportRef() = default;
  explicit ReportRef(FileReport &report) : path(report.path), full(&report) {}
  explicit ReportRef(BareReport &report) : path(report.path), bare(&report) {}
};

/// The reports `order` refers to, moved into path order; with `oneEach`, each file once (of
/// several names for one file, the first in path order; none that another name's fix skipped).
std::vector<FileReport> inPathOrder(std::vector<ReportRef> order, bool oneEach) {
  // Most runs made them in path order already (a walk of one directory: walkPaths()).
  const auto byPath = [](const ReportRef &a, const ReportRef &b) { return a.path < b.path; };
  if (!std::is_sorted(order.begin(), order.end(), byPath)) std::sort(order.begin(), order.end(), byPath);
  const auto skipped = [](const ReportRef &r) { return r.full != nullptr && r.full->skipped; };
  const auto identity = [](const ReportRef &r) { return r.full != nullptr ? r.full->identity : r.bare->identity; };
  // The later names of one file: its identities sorted with their places in path order (one
  // vector sorted, not a node allocated per file in a set).
  std::vector<bool> later(order.size());
  if (oneEach) {
    std::vector<std::pair<std::pair<std::uint64_t, std::uint64_t>, std::size_t>> identities;
    identities.reserve(order.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      if (const auto id = identity(order[i]); !skipped(order[i]) && id) identities.emplace_back(*id, i);
    std::sort(identities.begin(), identities.end());
    for (std::size_t k = 1; k < identities.size(); ++k)
      if (identities[k].first == identities[k - 1].first) later[identities[k].second] = true;
  }
  std::vector<FileReport> sorted;
  sorted.reserve(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (oneEach && (skipped(order[i]) || later[i])) continue;
    if (order[i].full != nullptr) sorted.push_back(std::move(*order[i].full));
    else std::move(*order[i].bare).into(sorted.emplace_back());
  }
  return sorted;
}

/// Checks the jobs `produce` pushes into the queue (and then closes it) on `jobs` threads while
/// it runs: the calling thread produces, then joins the workers. Returns the reports in path
/// order, each file once unless `oneEach` is false (inPathOrder()).
std::vector<FileReport> checkJobs(const std::function<void(JobQueue &)> &produce, const Context &ctx, unsigned jobs,
                                  RunProgress &progress, bool oneEach = true) {
  JobQueue queue;
  std::mutex doneMutex;
  // Each worker's reports stay where they were made until they are moved once, in path order,
  // into the result: a report is large.
  std::vector<WorkerReports> done;
  const auto checkOne = [&](Job &job, WorkerReports &mine, ReadBuffer &buffer) {
    if (ctx.cancelled()) return; // the queue is emptied: the producer never waits
    Checked checked = checkFile(job, ctx, buffer);
    if (auto *bare = std::get_if<BareReport>(&checked)) {
      progress.advance();
      mine.bare.push_back(std::move(*bare));
      mine.bareSeq.push_back(job.seq);
      return;
    }
    FileReport &report = std::get<FileReport>(checked);
    if (!report.deferred) progress.advance();
    if (std::optional<BareReport> bare = BareReport::of(report)) {
      mine.bare.push_back(std::move(*bare));
      mine.bareSeq.push_back(job.seq);
    } else {
      mine.full.push_back(std::move(report));
      mine.fullSeq.push_back(job.seq);
    }
  };
  const auto work = [&] {
    WorkerReports mine;
    ReadBuffer buffer; // the memory of this worker's reads
    for (std::vector<Job> batch; queue.pop(batch);)
      for (Job &job : batch) checkOne(job, mine, buffer);
    const std::lock_guard lock(doneMutex);
    done.push_back(std::move(mine));
  };
  // The producer's own reports, of the jobs it checks while it is far ahead.
  WorkerReports helped;
  ReadBuffer helpedBuffer;
  queue.helpWhileAhead(kAhead, [&](Job &job) { checkOne(job, helped, helpedBuffer); });
  std::vector<std::thread> pool;
  startWorkers(pool, std::max(jobs, 1U) - 1, work);
  try {
    produce(queue);
  } catch (...) {
    queue.close(); // the workers stop at the end of the queue: no thread is left waiting
    for (std::thread &thread : pool) {
      thread.join();
    }
    throw;
  }
  queue.close();
  work();
  for (std::thread &thread : pool) {
    thread.join();
  }
  done.push_back(std::move(helped));
  // The reports in the order of their jobs (the walk's), each in its job's place: none for a job
  // that made none (cancelled).
  std::vector<ReportRef> order(queue.pushed());
  for (WorkerReports &reports : done) {
    for (std::size_t i = 0; i < reports.full.size(); ++i) order[reports.fullSeq[i]] = ReportRef(reports.full[i]);
    for (std::size_t i = 0; i < reports.bare.size(); ++i) order[reports.bareSeq[i]] = ReportRef(reports.bare[i]);
  }
  std::erase_if(order, [](const ReportRef &r) { return r.full == nullptr && r.bare == nullptr; });
  return inPathOrder(std::move(order), oneEach);
}

/// What a walk skips, decided directory by directory: the entries that the `exclude` globs of the
/// configuration that applies there match, then — unless it says otherwise — those git ignores.
/// The configuration is resolved once per directory, and shared by the directories under one
/// configuration file (ConfigResolver::forEntriesOf). Single-threaded, like a walk.
class SkipRules {
public:
  using Resolved = std::shared_ptr<const std::variant<ResolvedConfig, ConfigError>>;

  explicit SkipRules(const ConfigResolver &resolver) : resolver_(resolver) {}

  /// The walk lists `directory` now, whose entries `listing` tells.
  void enter(std::filesystem::path directory, const DirectoryListing &listing) {
    directory_ = std::move(directory);
    listing_ = listing;
    resolved_.reset();
    matcherHere_ = false;
  }

  /// Whether the entry `name` of the directory entered last is skipped.
  bool excluded(std::string_view name, bool isDirectory) {
    const auto *config = std::get_if<ResolvedConfig>(resolved().get());
    if (config == nullptr) return false; // the error is reported when the file is checked
    if (!matcherHere_) {
      // The directories under one configuration file share its resolution; where none of its
      // globs holds a `/` (the defaults), a matcher's answers do not depend on the directory.
      const bool sameAnswers =
          matcher_ && matcherConfig_ == resolved_ &&
          std::none_of(config->exclude.begin(), config->exclude.end(),
                       [](const std::string &glob) { return glob.find('/') != std::string::npos; });
      if (!sameAnswers) matcher_.emplace(*config, directory_);
      matcherConfig_ = resolved_;
      matcherHere_ = true;
    }
    return matcher_->excluded(name) ||
           (config->respectGitignore && git_.ignored(directory_, name, isDirectory, listing_));
  }

  /// The settings of the directory entered last (for every entry: no per-file-ignores applied).
  const Resolved &resolved() {
    if (!resolved_) resolved_ = resolver_.forEntriesOf(directory_, listing_);
    return resolved_;
  }
  const std::filesystem::path &directory() const { return directory_; }

private:
  const ConfigResolver &resolver_;
  GitIgnore git_;
  std::filesystem::path directory_;
  DirectoryListing listing_;
  Resolved resolved_;
  /// The last matcher made (kept across directories), the resolution it was made for, and
  /// whether it was made for the directory entered last.
  std::optional<ExcludeMatcher> matcher_;
  Resolved matcherConfig_;
  bool matcherHere_ = false;
};

/// The walk's side of the pipeline: decides what to skip, directory by directory, and hands each
/// file to the workers at once, with its directory's settings when all its files share them.
class CheckWalk final : public WalkVisitor {
public:
  CheckWalk(const ConfigResolver &resolver, Linters &linters, JobQueue &queue, bool overlapping)
      : skips_(resolver), linters_(linters), queue_(queue), overlapping_(overlapping) {}

  void enterDirectory(std::filesystem::path directory, const DirectoryListing &listing) override {
    skips_.enter(std::move(directory), listing);
  }

  bool excluded(std::string_view name, bool isDirectory) override { return skips_.excluded(name, isDirectory); }

  void file(std::string path, bool named, std::shared_ptr<const OpenDirectory> directory) override {
    if (overlapping_ && !seen_.insert(path).second) return;
    if (!modules_) noteModule(path);
    Job job{std::move(path), std::nullopt, std::move(directory)};
    if (!named) {
      // The settings of every file of the directory, when they are the same for all of them (no
      // per-file-ignores): one entry for all the directories under one configuration file.
      const SkipRules::Resolved &resolved = skips_.resolved();
      if (resolved != entryOf_) {
        entryOf_ = resolved;
        const auto *config = std::get_if<ResolvedConfig>(resolved.get());
        entry_.reset();
        if (config == nullptr || config->perFileIgnores.empty()) entry_ = linters_.forResolved(*resolved);
      }
      job.entry = entry_;
    }
    queue_.push(std::move(job));
    ++files_;
  }

  void error(PathError error) override { errors_.push_back(std::move(error)); }

  std::vector<PathError> &errors() { return errors_; }
  std::size_t files() const { return files_; }
  /// A file found is one of a module named `async`/`await` (ProjectView::mentionsKeywordModule).
  bool keywordModules() const { return modules_; }

private:
  SkipRules skips_; // the walk is single-threaded
  Linters &linters_;
  JobQueue &queue_;
  const bool overlapping_; ///< several paths given: one spelling may come twice
  std::unordered_set<std::string> seen_;
  std::vector<PathError> errors_;
  std::size_t files_ = 0;
  SkipRules::Resolved entryOf_;         ///< the settings `entry_` was made for
  std::optional<Linters::Entry> entry_; ///< their Linter, when no per-file-ignores apply
  bool modules_ = false;
  std::string directory_; ///< the directory part (with its separator) noteModule() asked about last

  /// Asks mentionsKeywordModule() of a path found as the walk finds it (its bytes still in the
  /// cache): of its directory part once per run of a directory's files (they come together), then
  /// of its name.
  void noteModule(std::string_view path) {
    const std::size_t slash = lastSeparator(path);
    const std::string_view in = path.substr(0, slash == std::string_view::npos ? 0 : slash + 1);
    if (in != directory_) {
      directory_.assign(in);
      modules_ = ProjectView::mentionsKeywordModule(in);
    }
    // (a name is a module's when it is `async` or `await` and maybe `.py` or `.pyi`: 9 bytes at most)
    const std::string_view name = path.substr(in.size());
    modules_ = modules_ || (name.size() <= 9 && ProjectView::mentionsKeywordModule(name));
  }
};

/// After the files were checked: adds the diagnostic that stands for each module rename to its
/// file's report and, with --fix, renames the modules (their imports are written by now).
/// Problems (a target that exists) go to `errors` under --fix, to the reports as warnings else.
void finishProject(const ProjectView &project, std::vector<FileReport> &reports, const RunOptions &options, bool unsafe,
                   std::vector<std::string> &errors) {
  const bool collect = options.fixMode == FixMode::Collect;
  if (options.addNoqa) return;
  std::vector<bool> done;
  if (options.fixMode == FixMode::Apply) errors = applyModuleRenames(project, unsafe, done);
  for (std::size_t i = 0; i < project.renames().size(); ++i) {
    const ModuleRename &r = project.renames()[i];
    const auto report = std::find_if(reports.begin(), reports.end(),
                                     [&](const FileReport &f) { return normalizedPath(f.path) == r.reportedIn; });
    if (report == reports.end() || r.ignored) continue;
    if (r.refusal && options.fixMode != FixMode::Apply) warn(*report, *r.refusal + "; the module is not renamed");
    const bool applies = moduleRenameApplies(r, unsafe);
    if (options.fixMode == FixMode::Apply ? i < done.size() && done[i]
                                          : (options.fixMode == FixMode::Diff || collect) && applies) {
      ++report->fixed;
      report->changed = true;
      continue;
    }
    Diagnostic d = ProjectView::moduleDiagnostic(r);
    if (report->text.empty() && report->notebook == nullptr && report->diagnostics.empty()) {
      if (std::optional<ProjectSource> open = options.openText ? options.openText(report->path) : std::nullopt) {
        if (open->readOnly.empty()) report->text = std::move(open->text);
      } else if (ReadResult read = readSourceFile(report->path); !read.error) { // the line the diagnostic shows
        report->text = std::move(read.bytes);
      }
    }
    report->diagnostics.insert(report->diagnostics.begin(), std::move(d));
  }
}

/// The project view of the run's `files` (`names`: their public names) read through `text`, built
/// and audited. Without RunOptions::renameModules, the files of its modules named `async`/`await`
/// are left out of it (their imports are then left as they are) and `kept` names those modules.
ProjectView makeProjectView(const std::vector<std::string> &files,
                            std::vector<std::pair<std::string, PublicNames>> names, const ConfigResolver &resolver,
                            const RunOptions &options, const ProjectText &text, unsigned jobs,
                            std::vector<std::string> &kept) {
  ProjectView project = ProjectView::build(files, resolver, names, options.defaultBases, text);
  const std::vector<std::string> *viewFiles = &files;
  std::vector<std::string> others;
  if (!options.renameModules && !project.renames().empty()) {
    const auto moved = [&](const std::string &file) {
      const std::string path = normalizedPath(file);
      return std::any_of(project.renames().begin(), project.renames().end(), [&](const ModuleRename &r) {
        return path == r.path.from || (r.directory && path.starts_with(r.path.from + "/"));
      });
    };
    for (const ModuleRename &r : project.renames())
      if (std::find(kept.begin(), kept.end(), r.module) == kept.end()) kept.push_back(r.module);
    std::copy_if(files.begin(), files.end(), std::back_inserter(others),
                 [&](const std::string &f) { return !moved(f); });
    std::erase_if(names, [&](const auto &entry) { return moved(entry.first); });
    project = ProjectView::build(others, resolver, names, options.defaultBases, text);
    viewFiles = &others;
  }
  // A shard walks its roots in part: importers in the other shards keep the old name.
  project.audit(*viewFiles, options.partial ? std::vector<std::string>{} : options.roots, resolver, text, jobs);
  return project;
}

/// A run over its whole file list `list`, made first: a shard is a share of the deduplicated
/// list; several paths to rewrite may name one file twice (dropped there, before any worker can
/// rewrite it under both names); and a run that writes must know the project view (a module named
/// `async` renamed with its imports, a public parameter with its calls) before it rewrites any
/// file. Each file is read once: a first pass reads every file, finishes those that cannot change
/// (the prefilter finds no reason to parse them and they take or pass no public name) and keeps
/// the others' bytes (Context::deferAll), which the second pass checks and fixes once the project
/// view is known.
void checkWholeList(FileList list, const ConfigResolver &resolver, const RunOptions &options, Context &ctx,
                    unsigned jobs, RunProgress &progress, RunResult &result) {
  ProjectView &project = result.project;
  result.pathErrors = std::move(list.errors);
  if (ctx.cancelled()) return;
  const bool writes = ctx.writes;
  std::atomic<std::size_t> keptBytes{0};
  ctx.writes = false; // the first pass changes no file
  ctx.defer = ctx.deferAll = true;
  ctx.keptBytes = &keptBytes;
  progress.start(list.files.size());
  // Every name of a file, as the project view and the claims of the second pass need them.
  std::vector<FileReport> first = checkJobs(
      [&](JobQueue &queue) {
        // The files are sorted: those of one directory come together, and share its settings.
        std::string_view directory;
        std::optional<Linters::Entry> entry;
        for (const std::string &file : list.files) {
          const std::size_t slash = lastSeparator(file);
          const std::string_view in = std::string_view(file).substr(0, slash == std::string::npos ? 0 : slash + 1);
          if (directory.data() == nullptr || in != directory) {
            directory = in; // (list.files outlives the walk of it)
            entry = ctx.linters.forDirectoryOf(file);
          }
          queue.push({file, entry});
        }
      },
      ctx, jobs, progress, /*oneEach=*/false);
  ctx.writes = writes;
  ctx.defer = ctx.deferAll = false;
  ctx.keptBytes = nullptr;
  // Cancelled: the files the first pass finished are reported, the others are not checked.
  const auto finishCancelled = [&] {
    std::erase_if(first, [](const FileReport &r) { return r.deferred; });
    std::vector<ReportRef> order;
    order.reserve(first.size());
    for (FileReport &report : first) order.emplace_back(report);
    result.reports = inPathOrder(std::move(order), /*oneEach=*/true);
    result.checks = result.reports.size();
  };
  if (ctx.cancelled()) return finishCancelled();
  // Of several names for one file (`a.py` and a link to it named on the command line, a bind
  // mount met twice), the first in path order is the run's, as sortAndRemoveAliases() keeps it:
  // told by the (device, inode) its read found, not by a stat of every file after the walk.
  {
    std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
    std::vector<std::string> files;
    files.reserve(first.size());
    for (FileReport &report : first) {
      const auto identity = report.identity ? report.identity : fileIdentity(report.path);
      if (identity && !seen.insert(*identity).second) {
        if (report.deferred) progress.advance(); // counted, never checked
        report.skipped = true;
        continue;
      }
      files.push_back(report.path);
    }
    std::erase_if(first, [](const FileReport &r) { return r.skipped; });
    list.files = std::move(files);
  }
  std::vector<std::pair<std::string, PublicNames>> names;
  for (FileReport &report : first)
    if (report.names && !report.names->empty()) names.emplace_back(report.path, std::move(*report.names));
  project =
      makeProjectView(list.files, std::move(names), resolver, options, projectText(ctx), jobs, result.keptModules);
  if (ctx.cancelled()) return finishCancelled();
  if (project.active()) ctx.linters.setProject(&project);
  std::vector<FileReport> second = checkJobs(
      [&](JobQueue &queue) {
        for (FileReport &report : first)
          if (report.deferred) queue.push({report.path, std::nullopt, nullptr, std::move(report.read)});
      },
      ctx, jobs, progress);
  std::erase_if(first, [](const FileReport &r) { return r.deferred; });
  // A string of any of them may name a module the view renames (rare: the view renames one).
  if (!project.renamedModules().empty())
    for (FileReport &report : first)
      if (!isNotebookName(report.path)) addLateModuleStrings(report, project, ctx);
  std::vector<ReportRef> order;
  order.reserve(first.size() + second.size());
  for (FileReport &report : first) order.emplace_back(report);
  for (FileReport &report : second) order.emplace_back(report);
  result.reports = inPathOrder(std::move(order), /*oneEach=*/true);
  result.checks = result.reports.size();
}

/// The pipeline: workers check files while the walk is still finding them, except those the
/// project view may change (Context::defer), which are checked once it is known.
void checkPipelined(const ConfigResolver &resolver, const RunOptions &options, Context &ctx, unsigned jobs,
                    RunProgress &progress, RunResult &result) {
  ProjectView &project = result.project;
  ctx.defer = true;
  bool modules = false; // a file of a module named `async`/`await`
  std::vector<FileReport> first = checkJobs(
      [&](JobQueue &queue) {
        CheckWalk walk(resolver, ctx.linters, queue, options.roots.size() > 1);
        walkPaths(options.roots, walk, /*keepOpen=*/true);
        result.pathErrors = std::move(walk.errors());
        modules = walk.keywordModules();
        progress.start(walk.files());
      },
      ctx, jobs, progress);
  ctx.defer = false;
  // The project view needs every file of the run, known only now, and the public parameters
  // and calls the deferred files list.
  std::vector<std::string> files, deferred;
  std::vector<std::pair<std::string, PublicNames>> names;
  for (FileReport &report : first) {
    if (report.names && !report.names->empty()) names.emplace_back(report.path, std::move(*report.names));
    if (report.deferred) deferred.push_back(report.path);
  }
  // Without either the view is empty, whatever the files (most runs): no copy of every path.
  if (modules || !names.empty()) {
    files.reserve(first.size());
    for (const FileReport &report : first) files.push_back(report.path);
  }
  project = makeProjectView(files, std::move(names), resolver, options, projectText(ctx), jobs, result.keptModules);
  if (project.active()) ctx.linters.setProject(&project);
  std::vector<FileReport> second = checkJobs(
      [&](JobQueue &queue) {
        for (std::string &file : deferred) queue.push({std::move(file), std::nullopt});
      },
      ctx, jobs, progress);
  std::erase_if(first, [](const FileReport &r) { return r.deferred; });
  result.checks = first.size() + second.size();
  // A string of any of them may name a module the view renames (rare: the view renames one).
  if (!project.renamedModules().empty())
    for (FileReport &report : first)
      if (!isNotebookName(report.path)) addLateModuleStrings(report, project, ctx);
  if (second.empty()) { // nothing deferred (most runs): the reports are in order already
    result.reports = std::move(first);
    return;
  }
  result.reports.reserve(first.size() + second.size());
  std::merge(std::make_move_iterator(first.begin()), std::make_move_iterator(first.end()),
             std::make_move_iterator(second.begin()), std::make_move_iterator(second.end()),
             std::back_inserter(result.reports),
             [](const FileReport &a, const FileReport &b) { return a.path < b.path; });
}

} // namespace

/// The most worker threads a run starts: one where there are no threads (a WebAssembly build
/// without them, docs/wasm.md), so `-j N` is accepted there and the run is single-threaded.
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
constexpr unsigned kMaxJobs = 1;
#else
constexpr unsigned kMaxJobs = std::numeric_limits<unsigned>::max();
#endif

unsigned defaultJobs() {
  const unsigned n = std::thread::hardware_concurrency();
  return std::clamp(n, 1U, kMaxJobs);
}

Run::Run(const ConfigResolver &resolver, RunOptions options) : resolver_(resolver), options_(std::move(options)) {}
Run::~Run() = default;

FileList Run::files() const { return files(true); }

FileList Run::files(bool aliases) const {
  // The configuration that applies where an entry lives decides whether a walk skips it.
  SkipRules skips(resolver_);
  bool entered = false;
  const auto excluded = [&](const std::filesystem::path &directory, std::string_view name, bool isDirectory,
                            const DirectoryListing &listing) {
    if (!entered || directory.native() != skips.directory().native()) {
      entered = true;
      skips.enter(directory, listing);
    }
    return skips.excluded(name, isDirectory);
  };
  FileList list = collectFiles(options_.roots, excluded, aliases || options_.keep);
  if (options_.keep) std::erase_if(list.files, [&](const std::string &file) { return !options_.keep(file); });
  return list;
}

RunResult Run::check(RunProgress &progress) {
  RunResult result;
  Linters linters(resolver_);
  Context ctx{linters, options_};
  const bool writes = options_.addNoqa || options_.fixMode == FixMode::Apply;
  std::mutex claimsMutex;
  std::set<std::pair<std::uint64_t, std::uint64_t>> claims;
  ctx.writes = writes;
  ctx.claimsMutex = &claimsMutex;
  ctx.claims = &claims;
  std::atomic<bool> stopped{false};
  ctx.stopped = &stopped;
  const unsigned jobs = options_.jobs == 0 ? defaultJobs() : std::min(options_.jobs, kMaxJobs);
  // Collecting fixes is fixing: the project view is known before any file is fixed.
  if (options_.listFirst || options_.keep || writes || options_.fixMode == FixMode::Collect)
    checkWholeList(files(false), resolver_, options_, ctx, jobs, progress, result);
  else checkPipelined(resolver_, options_, ctx, jobs, progress, result);
  result.cancelled = stopped.load();
  finish(result);
  return result;
}

RunResult Run::checkSource(const std::string &name, ReadResult read) {
  RunResult result;
  Linters linters(resolver_);
  Context ctx{linters, options_};
  if (read.error) {
    FileReport report;
    report.path = name;
    fail(report, *read.error);
    result.reports.push_back(std::move(report));
  } else {
    result.reports.push_back(checkText(name, read.bytes, nullptr, ctx));
    result.checks = 1;
  }
  finish(result);
  return result;
}

void Run::finish(RunResult &result) const {
  const std::vector<FileReport> &reports = result.reports;
  result.unsafe =
      options_.unsafeFixes.value_or(!reports.empty() && std::all_of(reports.begin(), reports.end(),
                                                                    [](const FileReport &r) { return r.unsafeFixes; }));
  if (!result.project.renames().empty() && !result.cancelled) // renamed only when every file is fixed
    finishProject(result.project, result.reports, options_, result.unsafe, result.projectErrors);
}

} // namespace asyncfix
