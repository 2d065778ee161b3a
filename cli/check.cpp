// cli/check.cpp — `asyncfix check`: files in, diagnostics / fixes / diffs out, in parallel.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>

#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <set>
#include <unordered_set>

#include "asyncfix/encoding.h"
#include "asyncfix/gitignore.h"
#include "asyncfix/linter.h"
#include "asyncfix/notebook.h"
#include "asyncfix/public_names.h"
#include "asyncfix/settings.h"
#include "asyncfix/suppression.h"
#include "commands.h"
#include "diff.h"
#include "files.h"
#include "files_from.h"
#include "progress.h"
#include "project.h"
#include "source_io.h"

namespace asyncfix::cli {
namespace {

/// What checking one file produced; filled by a worker thread, printed by the main thread.
struct FileReport {
  std::string path;
  std::string text; ///< the text `diagnostics` refer to (kept only when there are some)
  std::vector<Diagnostic> diagnostics;
  /// A notebook with diagnostics: they refer to its virtual text (and `text` is empty).
  std::optional<Notebook> notebook;
  std::string diff;                  ///< --diff: the unified diff
  std::string fixedSource;           ///< --fix on stdin: what to print (the input when nothing changed)
  std::size_t fixed = 0;             ///< diagnostics fixed (or that --diff would fix)
  bool changed = false;              ///< the text changed (written with --fix, diffed with --diff)
  bool failed = false;               ///< could not be read, decoded or written
  bool unsafeFixes = false;          ///< the file's settings enable unsafe fixes
  std::vector<std::string> messages; ///< complete "error: ..." / "warning: ..." lines for stderr
  /// The file's device and inode (when it could be stat'ed): of several names for one file, only
  /// the first in path order is reported.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> identity;
  bool skipped = false; ///< another name of the same file is being fixed: not checked, not reported
  /// Context::collectNames: the file's public parameters and calls named `async`/`await`, for
  /// the project view (nullopt when mayHavePublicNames() ruled them out).
  std::optional<PublicNames> names;
};

/// One Linter per distinct configuration, built on first use: files under one configuration
/// file share it, unless a per-file-ignores entry gives a file its own rule selection.
class Linters {
public:
  struct Entry {
    const Linter *linter = nullptr;
    bool unsafeFixes = false;
    std::optional<std::string> error; ///< the configuration could not be read
  };

  explicit Linters(const ConfigResolver &resolver) : resolver_(resolver) {}

  /// The project view whose module renames and packages go into each file's Config (set before
  /// the workers start).
  void setProject(const ProjectView *project) { project_ = project; }
  const ProjectView *project() const { return project_; }

  Entry forFile(const std::string &path) { return forResolved(resolver_.forFile(path), path); }

  /// The entry of settings already resolved (for every file of a directory without
  /// per-file-ignores, whose files all share them; `path` is one of them, for the project view).
  Entry forResolved(const std::variant<ResolvedConfig, ConfigError> &resolved, const std::string &path = {}) {
    if (const auto *e = std::get_if<ConfigError>(&resolved)) return {nullptr, false, e->toString()};
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
    return {slot.get(), config.unsafeFixes, std::nullopt};
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
  const CheckOptions &options;
  /// --fix / --add-noqa: the files (device, inode) being rewritten, so that two names of one file
  /// (a bind mount met twice in a walk) are never rewritten by two workers at once.
  bool writes = false;
  std::mutex *claimsMutex = nullptr;
  std::set<std::pair<std::uint64_t, std::uint64_t>> *claims = nullptr;
  /// Each report lists the file's public parameters and calls (FileReport::names): the pass
  /// that comes before the project view is known.
  bool collectNames = false;

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
    report.notebook = std::move(notebook);
  }
}

/// Lints or fixes a Jupyter notebook: its code cells as one virtual Python text (IPython syntax
/// masked), fixes written back into the changed cells' "source" only. `bytes` passed
/// decodeSource() (notebooks are UTF-8 JSON); `stamp` as in checkText.
FileReport checkNotebook(FileReport report, std::string bytes, const FileStamp *stamp, const Context &ctx,
                         const Linters::Entry &entry) {
  const CheckOptions &options = ctx.options;
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

  // The notebook JSON after the virtual text became `fixed`, and that notebook; nullopt (with a
  // warning) when the change cannot be written back into the cells.
  const auto rewritten = [&](std::string_view fixed) -> std::optional<Notebook> {
    const std::optional<std::string> json = notebook.withVirtualText(fixed);
    if (!json) {
      warn(report, "a fix touched notebook IPython syntax; not written");
      return std::nullopt;
    }
    auto again = Notebook::parse(*json);
    if (auto *ok = std::get_if<Notebook>(&again)) return std::move(*ok);
    warn(report,
         "internal error: the fixed notebook does not parse (" + std::get<std::string>(again) + "); not written");
    return std::nullopt;
  };

  if (options.addNoqa) {
    std::size_t added = 0;
    const std::string text = addNoqa(linter, virtualText, &added);
    if (added == 0) return report;
    const std::optional<Notebook> fixed = rewritten(text);
    if (!fixed) return report;
    if (stamp != nullptr) {
      if (const auto error = writeFileAtomically(report.path, fixed->json(), *stamp)) {
        fail(report, *error);
        return report;
      }
    }
    report.fixed = added;
    report.changed = true;
    if (stamp == nullptr) report.fixedSource = fixed->json();
    return report;
  }
  if (options.fixMode == FixMode::None) {
    std::vector<Diagnostic> diagnostics = linter.lint(std::string_view(virtualText));
    reportNotebook(report, std::move(notebook), std::move(diagnostics));
    return report;
  }

  FixOptions fixOptions;
  fixOptions.unsafe = entry.unsafeFixes;
  FixResult result = fix(linter, virtualText, fixOptions);
  warnRejected(report, result.rejected, virtualText, &notebook);
  if (!result.converged) {
    warn(report, "fixes did not converge after " + std::to_string(fixOptions.maxIterations) +
                     " rounds; the file may still hold fixable findings");
  }
  if (!result.changed || result.text == virtualText) {
    reportNotebook(report, std::move(notebook), std::move(result.remaining));
    return report;
  }
  std::optional<Notebook> fixed = rewritten(result.text);
  if (!fixed) {
    std::vector<Diagnostic> diagnostics = linter.lint(std::string_view(virtualText));
    reportNotebook(report, std::move(notebook), std::move(diagnostics));
    return report;
  }
  if (options.fixMode == FixMode::Diff) {
    report.diff = unifiedDiff(notebook.json(), fixed->json(), report.path);
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
  // The remaining diagnostics refer to result.text, which the fixed notebook's virtual text is
  // (lint it again should the two ever differ).
  std::vector<Diagnostic> remaining = fixed->virtualText() == result.text
                                          ? std::move(result.remaining)
                                          : linter.lint(std::string_view(fixed->virtualText()));
  reportNotebook(report, std::move(*fixed), std::move(remaining));
  return report;
}

/// With a project view that renames modules: AF201 warnings (no fix) for the strings of `text`
/// (the text the report's diagnostics refer to) that name one of them; strings are never edited.
void addModuleStrings(FileReport &report, std::string_view text, const Context &ctx) {
  const ProjectView *project = ctx.linters.project();
  if (project == nullptr || !mentionsRenamedModule(text, project->renamedModules())) return;
  std::vector<Diagnostic> found = moduleStrings(text, project->renamedModules(), Severity::Warning);
  report.diagnostics.insert(report.diagnostics.end(), found.begin(), found.end());
  std::stable_sort(report.diagnostics.begin(), report.diagnostics.end(),
                   [](const Diagnostic &a, const Diagnostic &b) { return a.start < b.start; });
}

/// Lints or fixes one text. `stamp` is set for a file on disk (which --fix rewrites), null for
/// stdin.
FileReport checkText(std::string path, std::string bytes, const FileStamp *stamp, const Context &ctx,
                     const Linters::Entry *given = nullptr) {
  FileReport report;
  report.path = std::move(path);
  const CheckOptions &options = ctx.options;
  const Linters::Entry entry = given != nullptr ? *given : ctx.linters.forFile(report.path);
  if (entry.error) {
    fail(report, "configuration error: " + *entry.error);
    report.fixedSource = std::move(bytes);
    return report;
  }
  const Linter &linter = *entry.linter;
  report.unsafeFixes = entry.unsafeFixes;
  SourceText source = decodeSourceFrom(bytes); // a UTF-8 file's bytes move into source.text
  if (source.error) {
    fail(report, *source.error);
    report.fixedSource = std::move(bytes); // stdin --fix echoes what it cannot process
    return report;
  }
  if (bytes.empty()) {
    bytes = std::move(source.text); // taken back: they are the text
  }
  if (isNotebookPath(report.path)) {
    return checkNotebook(std::move(report), std::move(bytes), stamp, ctx, entry);
  }
  // A file in a declared encoding (PEP 263) is linted and fixed as UTF-8; what is written, shown
  // as a diff or echoed goes back into its encoding (`original` keeps its bytes).
  const std::string encoding = std::move(source.encoding);
  std::string original;
  if (!encoding.empty()) {
    original = std::exchange(bytes, std::move(source.text));
  }
  const auto encoded = [&](const std::string &text) { return encodeSource(text, encoding); };
  if (options.addNoqa) {
    std::size_t added = 0;
    std::string text = addNoqa(linter, bytes, &added);
    std::optional<std::string> out = encoded(text);
    if (!out) {
      fail(report, "a noqa comment does not fit the declared encoding `" + encoding + "`; not written");
      report.fixedSource = encoding.empty() ? std::move(bytes) : std::move(original);
      return report;
    }
    if (added > 0 && stamp != nullptr) {
      if (const auto error = writeFileAtomically(report.path, *out, *stamp)) {
        fail(report, *error);
        return report;
      }
    }
    report.fixed = added;
    report.changed = added > 0;
    report.fixedSource = std::move(*out);
    return report;
  }
  if (options.fixMode == FixMode::None) {
    report.diagnostics = linter.lint(std::string_view(bytes));
    // Only a file where `async`/`await` is a name (AF001/AF002) can take or pass such a parameter:
    // a legacy PyTorch file with `x.cuda(async=True)` alone is not parsed again.
    if (ctx.collectNames && std::any_of(report.diagnostics.begin(), report.diagnostics.end(),
                                        [](const Diagnostic &d) { return d.code == "AF001" || d.code == "AF002"; }))
      report.names = findPublicNames(bytes);
    addModuleStrings(report, bytes, ctx);
    if (!report.diagnostics.empty()) {
      report.text = std::move(bytes);
    }
    return report;
  }

  if (ctx.collectNames && mayHavePublicNames(bytes)) report.names = findPublicNames(bytes);
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
  addModuleStrings(report, result.text, ctx);
  if (stamp == nullptr) {
    report.fixedSource = changed ? std::move(*out) : encoding.empty() ? result.text : original;
  }
  if (!report.diagnostics.empty()) {
    report.text = std::move(result.text);
  }
  return report;
}

/// One file to check, handed from the walk to a worker.
struct Job {
  std::string path;
  /// The settings of every file in the job's directory, when they are the same for all of them
  /// (no per-file-ignores); nullopt: resolve them for this file.
  std::optional<Linters::Entry> entry;
  /// The directory the walk found it in, still open: the file is read from it (its name is the
  /// path's last component). Null: read by path.
  std::shared_ptr<const OpenDirectory> directory{};
  /// The file as an earlier read of this run found it (scanPublicNames): checked and written
  /// against those bytes and that stamp, not read again.
  std::optional<ReadResult> read{};
};

FileReport checkFile(Job &job, const Context &ctx) {
  const std::string &path = job.path;
  try {
    ReadResult read = job.read        ? std::move(*job.read)
                      : job.directory ? readSourceFileAt(job.directory->fd(), path.c_str() + (path.rfind('/') + 1))
                                      : readSourceFile(path);
    job.directory.reset(); // the directory closes with its last file
    std::optional<std::pair<std::uint64_t, std::uint64_t>> identity;
    if (!read.error) {
      identity.emplace(read.stamp.device, read.stamp.inode);
    } else if (struct stat st{}; ::stat(path.c_str(), &st) == 0) {
      identity.emplace(static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino));
    }
    // A file with other hard links is never rewritten (writeFileAtomically refuses): each name
    // is checked, and the later names are dropped at the end, as for a check without --fix.
    if (ctx.writes && identity && !read.error && read.links <= 1 && !ctx.claim(*identity)) {
      FileReport report;
      report.path = path;
      report.skipped = true;
      return report;
    }
    if (read.error) {
      FileReport report;
      report.path = path;
      report.identity = identity;
      fail(report, *read.error);
      return report;
    }
    FileReport report = checkText(path, std::move(read.bytes), &read.stamp, ctx, job.entry ? &*job.entry : nullptr);
    report.identity = identity;
    return report;
  } catch (const std::exception &e) {
    FileReport report;
    report.path = path;
    fail(report, std::string("internal error: ") + e.what());
    return report;
  }
}

/// What findPublicNames() lists in the files that mayHavePublicNames() keeps, read on `jobs`
/// threads (a run that writes needs the project view before it fixes any file). A file that
/// cannot be read or decoded is left out here and reported when it is checked. The files it
/// parsed keep what was read in `kept` (by index in `files`): they are fixed against it, so a
/// change made since this read is never overwritten, and they are not read twice.
std::vector<std::pair<std::string, PublicNames>> scanPublicNames(const std::vector<std::string> &files, unsigned jobs,
                                                                 std::vector<std::optional<ReadResult>> &kept) {
  std::vector<std::optional<PublicNames>> found(files.size());
  kept.assign(files.size(), std::nullopt);
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      if (isNotebookPath(files[i])) continue; // notebooks are not modules
      try {
        ReadResult read = readSourceFile(files[i]);
        if (read.error) continue;
        std::string bytes = read.bytes;
        const SourceText source = decodeSourceFrom(bytes); // UTF-8 bytes move into source.text
        if (source.error || !mayHavePublicNames(source.text)) continue;
        found[i] = findPublicNames(source.text);
        kept[i] = std::move(read);
      } catch (const std::exception &) {
        continue; // reported when the file is checked
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::max(jobs, 1U); ++t) pool.emplace_back(work);
  work();
  for (std::thread &thread : pool) thread.join();
  std::vector<std::pair<std::string, PublicNames>> out;
  for (std::size_t i = 0; i < files.size(); ++i)
    if (found[i] && !found[i]->empty()) out.emplace_back(files[i], std::move(*found[i]));
  return out;
}

/// A file of the run as the project view's audit reads it: decoded as a check decodes it (a
/// notebook's JSON as it is); nullopt, with why, when the check would report an error and the
/// bytes may name a module (they spell `async` or `await`).
std::optional<ProjectSource> projectText(const std::string &file, std::string &why) {
  ReadResult read = readSourceFile(file);
  if (read.error) {
    why = "cannot be read: " + *read.error;
    return std::nullopt;
  }
  if (isNotebookPath(file)) return ProjectSource{std::move(read.bytes), {}};
  SourceText source = decodeSourceFrom(read.bytes);
  if (!source.error) return ProjectSource{std::move(source.text), {}};
  if (read.bytes.find("async") == std::string::npos && read.bytes.find("await") == std::string::npos)
    return ProjectSource{}; // names no module of the project
  std::string_view error = *source.error;
  if (error.ends_with(", skipped")) error.remove_suffix(std::string_view(", skipped").size());
  why = "cannot be read: " + std::string(error);
  return std::nullopt;
}

/// Jobs handed from the walk (the producer) to the workers as it finds them.
class JobQueue {
public:
  void push(Job job) {
    {
      const std::lock_guard lock(mutex_);
      jobs_.push_back(std::move(job));
    }
    ready_.notify_one();
  }
  /// No more jobs will come.
  void close() {
    {
      const std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }
  /// The next job; false when the queue is closed and empty.
  bool pop(Job &job) {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return !jobs_.empty() || closed_; });
    if (jobs_.empty()) return false;
    job = std::move(jobs_.front());
    jobs_.pop_front();
    return true;
  }

private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> jobs_;
  bool closed_ = false;
};

/// Checks the jobs `produce` pushes into the queue (and then closes it) on `jobs` threads while
/// it runs: the calling thread produces, then joins the workers. Returns the reports in path
/// order, each file once (of several names for one file, the first in path order).
std::vector<FileReport> checkJobs(const std::function<void(JobQueue &)> &produce, const Context &ctx, unsigned jobs,
                                  ProgressBar &progress) {
  JobQueue queue;
  std::mutex doneMutex;
  std::vector<FileReport> reports;
  const auto work = [&] {
    std::vector<FileReport> mine;
    for (Job job; queue.pop(job);) {
      mine.push_back(checkFile(job, ctx));
      progress.advance();
    }
    const std::lock_guard lock(doneMutex);
    reports.insert(reports.end(), std::make_move_iterator(mine.begin()), std::make_move_iterator(mine.end()));
  };
  std::vector<std::thread> pool;
  const unsigned threads = std::max(jobs, 1U);
  pool.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t) {
    pool.emplace_back(work);
  }
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
  // Sorted through a permutation: a report is large, and moved once this way.
  std::vector<std::uint32_t> order(reports.size());
  std::iota(order.begin(), order.end(), 0U);
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return reports[a].path < reports[b].path; });
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
  std::vector<FileReport> sorted;
  sorted.reserve(reports.size());
  for (const std::uint32_t i : order) {
    FileReport &r = reports[i];
    if (r.skipped || (r.identity && !seen.insert(*r.identity).second)) continue;
    sorted.push_back(std::move(r));
  }
  return sorted;
}

/// The walk's side of the pipeline: decides what to skip, directory by directory, and hands each
/// file to the workers at once, with its directory's settings when all its files share them.
class CheckWalk final : public WalkVisitor {
public:
  CheckWalk(const ConfigResolver &resolver, Linters &linters, JobQueue &queue, bool overlapping)
      : resolver_(resolver), linters_(linters), queue_(queue), overlapping_(overlapping) {}

  void enterDirectory(const std::filesystem::path &directory, const DirectoryListing &listing) override {
    directory_ = directory;
    listing_ = listing;
    resolved_.reset();
    matcher_.reset();
    entry_.reset();
    entryKnown_ = false;
  }

  bool excluded(std::string_view name, bool isDirectory) override {
    // Every entry of one directory has the same configuration: resolved once per directory.
    if (!resolved_) resolved_ = resolver_.forFile(directory_ / name, listing_);
    const auto *config = std::get_if<ResolvedConfig>(&*resolved_);
    if (config == nullptr) return false; // the error is reported when the file is checked
    if (!matcher_) matcher_.emplace(*config, directory_);
    return matcher_->excluded(name) ||
           (config->respectGitignore && git_.ignored(directory_, name, isDirectory, listing_));
  }

  void file(std::string path, bool named, std::shared_ptr<const OpenDirectory> directory) override {
    if (overlapping_ && !seen_.insert(path).second) return;
    Job job{std::move(path), std::nullopt, std::move(directory)};
    if (!named && resolved_) {
      if (!entryKnown_) {
        entryKnown_ = true;
        const auto *config = std::get_if<ResolvedConfig>(&*resolved_);
        if (config == nullptr || config->perFileIgnores.empty()) entry_ = linters_.forResolved(*resolved_);
      }
      job.entry = entry_;
    }
    queue_.push(std::move(job));
    ++files_;
  }

  void error(PathError error) override { errors_.push_back(std::move(error)); }

  std::vector<PathError> &errors() { return errors_; }
  std::size_t files() const { return files_; }

private:
  const ConfigResolver &resolver_;
  Linters &linters_;
  JobQueue &queue_;
  const bool overlapping_; ///< several paths given: one spelling may come twice
  GitIgnore git_;          // the walk is single-threaded
  std::unordered_set<std::string> seen_;
  std::vector<PathError> errors_;
  std::size_t files_ = 0;
  // The directory being listed.
  std::filesystem::path directory_;
  DirectoryListing listing_;
  std::optional<std::variant<ResolvedConfig, ConfigError>> resolved_;
  std::optional<ExcludeMatcher> matcher_;
  std::optional<Linters::Entry> entry_;
  bool entryKnown_ = false;
};

bool colorFor(int fd) {
  const char *noColor = std::getenv("NO_COLOR");
  if (noColor != nullptr && *noColor != '\0') {
    return false;
  }
  const char *term = std::getenv("TERM");
  if (term != nullptr && std::string_view(term) == "dumb") {
    return false;
  }
  return ::isatty(fd) == 1;
}

void write(std::FILE *stream, std::string_view text) {
  if (!text.empty()) {
    std::fwrite(text.data(), 1, text.size(), stream);
  }
}

unsigned defaultJobs() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

} // namespace

namespace {

ConfigResolver makeResolver(const CheckOptions &options) {
  ConfigResolver::Options o;
  o.overrides = options.overrides;
  if (options.configFile) o.configFile = *options.configFile;
  o.isolated = options.isolated;
  return ConfigResolver(std::move(o));
}

/// The manual's address for the run's links to rule pages: --docs-url, else `docs-url` of the
/// configuration that applies in the current directory (or --config's); "" for the default.
std::string runDocsUrl(const ConfigResolver &resolver) {
  const auto resolved = resolver.forFile("-"); // an entry of the current directory
  const auto *config = std::get_if<ResolvedConfig>(&resolved);
  return config != nullptr ? config->docsUrl : std::string();
}

std::string joined(const std::vector<std::string> &items) {
  std::string out = "[";
  for (const std::string &item : items) out += (out.size() > 1 ? ", \"" : "\"") + item + "\"";
  return out + "]";
}

/// `--show-settings FILE`: the settings that apply to FILE, each with where it came from.
int showSettings(const ConfigResolver &resolver, const std::string &file) {
  const auto resolved = resolver.forFile(file);
  if (const auto *e = std::get_if<ConfigError>(&resolved)) {
    std::fprintf(stderr, "error: %s\n", e->toString().c_str());
    return kExitFailure;
  }
  const ResolvedConfig &r = std::get<ResolvedConfig>(resolved);
  std::string out = "Settings for " + file + "\n";
  out += "Configuration file: " + (r.source.empty() ? std::string("(none: defaults)") : r.source.string()) + "\n\n";
  const auto line = [&](const std::string &key, const std::string &value) {
    out += key + " = " + value + "  # " + r.origins.at(key) + "\n";
  };
  line("select", joined(r.config.rules.select));
  line("extend-select", joined(r.config.rules.extendSelect));
  line("ignore", joined(r.config.rules.ignore));
  std::vector<std::string> perFile;
  for (const auto &[glob, codes] : r.perFileIgnores) perFile.push_back(glob + " = " + joined(codes));
  line("per-file-ignores", joined(perFile));
  line("target-version", "\"" + r.config.target.toString() + "\"");
  line("rename-style", "\"" + r.config.renameTemplate + "\"");
  line("unsafe-fixes", r.unsafeFixes ? "true" : "false");
  std::vector<std::string> severity;
  for (const auto &[code, level] : r.config.severity) severity.push_back(code + " = " + std::string(toString(level)));
  line("severity", joined(severity));
  line("exclude", joined(r.exclude));
  line("respect-gitignore", r.respectGitignore ? "true" : "false");
  line("src", joined(r.src));
  line("module-rename-style", "\"" + r.moduleRenameStyle + "\"");
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitClean;
}

/// Adds to `roots` the `--files-from` entries to check. An entry is a named path, as on the
/// command line (a directory is walked; a file is checked even where `exclude` or `.gitignore`
/// would skip it in a walk), with two differences that suit a list from `git diff --name-only`,
/// which names every kind of file and the deleted ones too: a file that is not `.py`, `.pyi` or
/// `.ipynb` is skipped, and an entry that does not exist is skipped with a note (not an error).
void addListedPaths(std::vector<std::string> &roots, const std::vector<std::string> &listed,
                    const CheckOptions &options) {
  for (const std::string &entry : listed) {
    std::error_code ec;
    const std::filesystem::file_status status = std::filesystem::status(entry, ec);
    const bool missing = ec ? ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory
                            : !std::filesystem::exists(status);
    if (missing) {
      if (!options.quiet) {
        write(stderr, "note: " + entry + ": listed in --files-from but does not exist; skipped\n");
      }
      continue;
    }
    // Whatever else cannot be used (permission denied) is reported as for a named path.
    if (!ec && !std::filesystem::is_directory(status) && !isPythonPath(entry)) continue;
    roots.push_back(entry);
  }
}

/// After the files were checked: adds the diagnostic that stands for each module rename to its
/// file's report and, with --fix, renames the modules (their imports are written by now).
/// Problems (a target that exists) go to `errors` under --fix, to the reports as warnings else.
void finishProject(const ProjectView &project, std::vector<FileReport> &reports, const CheckOptions &options,
                   bool unsafe, std::vector<std::string> &errors) {
  if (options.addNoqa) return;
  std::vector<bool> done;
  if (options.fixMode == FixMode::Apply) errors = applyModuleRenames(project, unsafe, done);
  for (std::size_t i = 0; i < project.renames().size(); ++i) {
    const ModuleRename &r = project.renames()[i];
    const auto report = std::find_if(reports.begin(), reports.end(), [&](const FileReport &f) {
      return std::filesystem::path(f.path).lexically_normal().generic_string() == r.reportedIn;
    });
    if (report == reports.end() || r.ignored) continue;
    if (r.refusal && options.fixMode != FixMode::Apply) warn(*report, *r.refusal + "; the module is not renamed");
    const bool applies = !r.refusal && (unsafe || r.applicability() == Applicability::Safe);
    if (options.fixMode == FixMode::Apply ? i < done.size() && done[i] : options.fixMode == FixMode::Diff && applies) {
      ++report->fixed;
      report->changed = true;
      continue;
    }
    Diagnostic d = ProjectView::moduleDiagnostic(r);
    if (report->text.empty() && report->notebook == std::nullopt && report->diagnostics.empty()) {
      ReadResult read = readSourceFile(report->path); // the line the diagnostic shows
      if (!read.error) report->text = std::move(read.bytes);
    }
    report->diagnostics.insert(report->diagnostics.begin(), std::move(d));
  }
}

/// A check reads thousands of files into strings that live for a moment each. glibc gives the
/// memory of a freed block above 128 KB back to the kernel at once (and maps and unmaps large
/// files), so the next file faulted fresh pages in again: a third of a check's page faults on
/// the torch corpus. Freed memory is kept for reuse now, unless the user tuned malloc.
void keepFreedMemory() {
  if (std::getenv("GLIBC_TUNABLES") != nullptr || std::getenv("MALLOC_TRIM_THRESHOLD_") != nullptr ||
      std::getenv("MALLOC_MMAP_THRESHOLD_") != nullptr)
    return;
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20); // glibc's largest
}

} // namespace

int runCheck(const CheckOptions &options) {
  keepFreedMemory();
  const ConfigResolver resolver = makeResolver(options);
  if (options.showSettings) return showSettings(resolver, *options.showSettings);
  Linters linters(resolver);
  Context ctx{linters, options};
  const bool fromStdin =
      options.stdinFilename.has_value() || (options.paths.size() == 1 && options.paths.front() == "-");

  std::vector<PathError> pathErrors;
  std::vector<FileReport> reports;
  ProjectView project; // the run's modules; empty for stdin
  if (fromStdin) {
    const std::string name = options.stdinFilename.value_or("-");
    for (const std::string &path : options.paths) {
      if (path != "-" && !options.quiet) {
        write(stderr, "warning: ignoring " + path + " in favour of standard input\n");
      }
    }
    ReadResult read = readStdin();
    if (read.error) {
      FileReport report;
      report.path = name;
      fail(report, *read.error);
      reports.push_back(std::move(report));
    } else {
      reports.push_back(checkText(name, std::move(read.bytes), nullptr, ctx));
    }
  } else {
    std::vector<std::string> roots = options.paths;
    if (options.filesFrom) {
      auto listed = readFileList(*options.filesFrom, options.filesFromNul);
      if (const auto *reason = std::get_if<std::string>(&listed)) {
        write(stderr, "error: --files-from " + *options.filesFrom + ": " + *reason + "\n");
        return kExitFailure;
      }
      addListedPaths(roots, std::get<std::vector<std::string>>(listed), options);
    } else if (roots.empty()) {
      roots.emplace_back(".");
    }
    // The configuration that applies where an entry lives decides whether a walk skips it:
    // its `exclude` globs, then — unless it says otherwise — git's ignore rules.
    const bool writes = options.addNoqa || options.fixMode == FixMode::Apply;
    std::mutex claimsMutex;
    std::set<std::pair<std::uint64_t, std::uint64_t>> claims;
    ctx.writes = writes;
    ctx.claimsMutex = &claimsMutex;
    ctx.claims = &claims;
    const unsigned jobs = options.jobs == 0 ? defaultJobs() : options.jobs;
    const bool progressWanted = !options.quiet && ::isatty(STDERR_FILENO) == 1;
    ProgressBar progress(STDERR_FILENO);
    if (options.showFiles || options.shard || writes) {
      // The whole list first: --show-files prints it; a shard is a share of the deduplicated
      // list; several paths to rewrite may name one file twice (dropped here, before any worker
      // can rewrite it under both names); and a run that writes must know the project view (a
      // module named `async` renamed with its imports, a public parameter with its calls) before
      // it rewrites any file: the files that may take or pass one are read and parsed first.
      GitIgnore git;
      std::filesystem::path lastDirectory;
      std::optional<std::variant<ResolvedConfig, ConfigError>> lastResolved;
      const auto excluded = [&](const std::filesystem::path &directory, std::string_view name, bool isDirectory,
                                const DirectoryListing &listing) {
        const std::filesystem::path path = directory / name;
        if (!lastResolved || directory.native() != lastDirectory.native()) {
          lastDirectory = directory;
          lastResolved = resolver.forFile(path, listing);
        }
        const auto *config = std::get_if<ResolvedConfig>(&*lastResolved);
        if (config == nullptr) return false; // the error is reported when the file is checked
        return config->excluded(path) ||
               (config->respectGitignore && git.ignored(directory, name, isDirectory, listing));
      };
      FileList list = collectFiles(roots, excluded);
      if (options.shard) {
        std::erase_if(list.files, [&](const std::string &file) {
          return shardOf(file, options.shard->count) != options.shard->index;
        });
      }
      if (options.showFiles) {
        for (const std::string &file : list.files) write(stdout, file + "\n");
        for (const PathError &error : list.errors) write(stderr, "error: " + error.path + ": " + error.reason + "\n");
        return list.errors.empty() ? kExitClean : kExitFailure;
      }
      pathErrors = std::move(list.errors);
      std::vector<std::optional<ReadResult>> kept;
      project = ProjectView::build(list.files, resolver, scanPublicNames(list.files, jobs, kept), {}, projectText);
      // A shard walks its roots in part: importers in the other shards keep the old name.
      project.audit(list.files, options.shard ? std::vector<std::string>{} : roots, resolver, projectText, jobs);
      if (project.active()) linters.setProject(&project);
      progress.start(list.files.size(), ProgressBar::wanted(list.files.size(), options.quiet, STDERR_FILENO));
      reports = checkJobs(
          [&](JobQueue &queue) {
            for (std::size_t i = 0; i < list.files.size(); ++i)
              queue.push({std::move(list.files[i]), std::nullopt, nullptr, std::move(kept[i])});
          },
          ctx, jobs, progress);
    } else {
      // The pipeline: workers check files while the walk is still finding them.
      ctx.collectNames = true;
      reports = checkJobs(
          [&](JobQueue &queue) {
            CheckWalk walk(resolver, linters, queue, roots.size() > 1);
            walkPaths(roots, walk, /*keepOpen=*/true);
            pathErrors = std::move(walk.errors());
            progress.start(walk.files(), progressWanted && walk.files() > ProgressBar::kMinFiles);
          },
          ctx, jobs, progress);
      // The project view needs every file of the run, known only now, and the public parameters
      // and calls this pass listed. A run that holds a module named `async`/`await` or a public
      // parameter so named (rare: a legacy project) is checked again with it; it wrote nothing.
      std::vector<std::string> files;
      std::vector<std::pair<std::string, PublicNames>> names;
      files.reserve(reports.size());
      for (FileReport &report : reports) {
        files.push_back(report.path);
        if (report.names && !report.names->empty()) names.emplace_back(report.path, std::move(*report.names));
      }
      project = ProjectView::build(files, resolver, names, {}, projectText);
      project.audit(files, roots, resolver, projectText, jobs);
      ctx.collectNames = false;
      if (project.active()) {
        linters.setProject(&project);
        ProgressBar again(STDERR_FILENO);
        reports = checkJobs(
            [&](JobQueue &queue) {
              for (std::string &file : files) queue.push({std::move(file), std::nullopt});
            },
            ctx, jobs, again);
      }
    }
    progress.finish(); // erases the bar before anything else is printed
  }

  // ---- the project view: modules renamed with their imports ----
  const bool unsafeRun = options.overrides.unsafeFixes.value_or(
      !reports.empty() &&
      std::all_of(reports.begin(), reports.end(), [](const FileReport &r) { return r.unsafeFixes; }));
  std::vector<std::string> projectErrors;
  if (!project.renames().empty()) finishProject(project, reports, options, unsafeRun, projectErrors);
  // ----

  // Messages on stderr, in a stable order: bad paths as given, then files in path order.
  bool failures = !pathErrors.empty() || !projectErrors.empty();
  for (const PathError &error : pathErrors) {
    write(stderr, "error: " + error.path + ": " + error.reason + "\n");
  }
  for (const FileReport &report : reports) {
    failures = failures || report.failed;
    for (const std::string &message : report.messages) {
      if (!options.quiet || message.starts_with("error:")) {
        write(stderr, message + "\n");
      }
    }
  }
  for (const std::string &message : projectErrors) write(stderr, message + "\n");
  std::fflush(stderr);

  if (options.addNoqa) {
    std::size_t added = 0;
    for (const FileReport &report : reports) added += report.fixed;
    if (fromStdin && !reports.empty()) write(stdout, reports.front().fixedSource);
    else if (!options.quiet)
      write(stdout, "Added " + std::to_string(added) + (added == 1 ? " noqa directive.\n" : " noqa directives.\n"));
    std::fflush(stdout);
    return failures ? kExitFailure : kExitClean;
  }

  // With --fix or --diff on stdin, stdout carries only the source (or the diff).
  const bool stdoutIsSource = fromStdin && options.fixMode != FixMode::None;
  std::FILE *const diagnosticsStream = stdoutIsSource ? stderr : stdout;
  RenderOptions render;
  render.format = options.format;
  render.docsUrl = runDocsUrl(resolver);
  render.color = colorFor(stdoutIsSource ? STDERR_FILENO : STDOUT_FILENO);
  // The [*] markers and hints follow --unsafe-fixes, else the files' own `unsafe-fixes` setting.
  render.unsafeFixes = options.overrides.unsafeFixes.value_or(
      !reports.empty() &&
      std::all_of(reports.begin(), reports.end(), [](const FileReport &r) { return r.unsafeFixes; }));

  std::vector<FileDiagnostics> views;
  Summary summary;
  summary.mode = options.fixMode;
  summary.failures = failures;
  bool anyChanged = false;
  for (const FileReport &report : reports) {
    const Notebook *notebook = report.notebook ? &*report.notebook : nullptr;
    views.push_back({report.path, notebook ? std::string_view(notebook->virtualText()) : report.text,
                     report.diagnostics, notebook});
    countDiagnostics(summary, report.diagnostics, report.unsafeFixes);
    summary.fixed += report.fixed;
    anyChanged = anyChanged || report.changed;
  }

  const bool textFormat = options.format == OutputFormat::Full || options.format == OutputFormat::Concise;
  if (options.fixMode == FixMode::Diff && project.active()) {
    std::vector<std::pair<std::string, std::string>> diffs;
    diffs.reserve(reports.size());
    for (const FileReport &report : reports) diffs.emplace_back(report.path, report.diff);
    write(stdout, renderProjectDiffs(project, diffs, unsafeRun));
    std::fflush(stdout);
    if (!options.quiet) write(stderr, renderSummary(summary, colorFor(STDERR_FILENO)));
  } else if (options.fixMode == FixMode::Diff) {
    for (const FileReport &report : reports) {
      write(stdout, report.diff);
    }
    std::fflush(stdout);
    if (!options.quiet) {
      write(stderr, renderSummary(summary, colorFor(STDERR_FILENO)));
    }
  } else {
    if (stdoutIsSource) {
      write(stdout, reports.front().fixedSource);
      std::fflush(stdout);
    }
    if (options.statistics) {
      write(diagnosticsStream, renderStatistics(views, render));
    } else {
      write(diagnosticsStream, renderDiagnostics(views, render));
      if (textFormat && !options.quiet) {
        write(diagnosticsStream, renderSummary(summary, render.color));
      }
    }
  }
  std::fflush(stdout);

  if (failures) {
    return kExitFailure;
  }
  const bool findings = options.fixMode == FixMode::Diff ? anyChanged : summary.remaining > 0;
  const bool fixedAny = options.exitNonZeroOnFix && options.fixMode == FixMode::Apply && anyChanged;
  return (findings || fixedAny) && !options.exitZero ? kExitFindings : kExitClean;
}

} // namespace asyncfix::cli
