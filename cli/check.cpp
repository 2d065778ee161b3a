// cli/check.cpp — `asyncfix check`: files in, diagnostics / fixes / diffs out, in parallel.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>

#include <unistd.h>

#include <map>
#include <memory>
#include <mutex>

#include "asyncfix/encoding.h"
#include "asyncfix/gitignore.h"
#include "asyncfix/linter.h"
#include "asyncfix/notebook.h"
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

  Entry forFile(const std::string &path) {
    auto resolved = resolver_.forFile(path);
    if (const auto *e = std::get_if<ConfigError>(&resolved)) return {nullptr, false, e->toString()};
    ResolvedConfig &config = std::get<ResolvedConfig>(resolved);
    std::string key = config.source.string();
    for (const std::string &code : config.config.rules.ignore) key += '\n' + code;
    if (project_ != nullptr) key += project_->configure(path, config.config);
    const std::lock_guard lock(mutex_);
    auto &slot = linters_[key];
    if (!slot) slot = std::make_unique<Linter>(config.config);
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
FileReport checkText(std::string path, std::string bytes, const FileStamp *stamp, const Context &ctx) {
  FileReport report;
  report.path = std::move(path);
  const CheckOptions &options = ctx.options;
  const Linters::Entry entry = ctx.linters.forFile(report.path);
  if (entry.error) {
    fail(report, "configuration error: " + *entry.error);
    report.fixedSource = std::move(bytes);
    return report;
  }
  const Linter &linter = *entry.linter;
  report.unsafeFixes = entry.unsafeFixes;
  SourceText source = decodeSource(bytes);
  if (source.error) {
    fail(report, *source.error);
    report.fixedSource = std::move(bytes); // stdin --fix echoes what it cannot process
    return report;
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
    addModuleStrings(report, bytes, ctx);
    if (!report.diagnostics.empty()) {
      report.text = std::move(bytes);
    }
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

FileReport checkFile(const std::string &path, const Context &ctx) {
  try {
    ReadResult read = readSourceFile(path);
    if (read.error) {
      FileReport report;
      report.path = path;
      fail(report, *read.error);
      return report;
    }
    return checkText(path, std::move(read.bytes), &read.stamp, ctx);
  } catch (const std::exception &e) {
    FileReport report;
    report.path = path;
    fail(report, std::string("internal error: ") + e.what());
    return report;
  }
}

/// Checks `files` on `jobs` threads; report i belongs to files[i] whatever the scheduling.
std::vector<FileReport> checkFiles(const std::vector<std::string> &files, const Context &ctx, unsigned jobs,
                                   ProgressBar &progress) {
  std::vector<FileReport> reports(files.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next.fetch_add(1); i < files.size(); i = next.fetch_add(1)) {
      reports[i] = checkFile(files[i], ctx);
      progress.advance();
    }
  };
  const std::size_t threads = std::clamp<std::size_t>(jobs, 1, std::max<std::size_t>(files.size(), 1));
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (std::size_t t = 1; t < threads; ++t) {
    pool.emplace_back(work);
  }
  work();
  for (std::thread &thread : pool) {
    thread.join();
  }
  return reports;
}

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
  if (options.fixMode == FixMode::Apply) errors = project.apply(unsafe, done);
  for (std::size_t i = 0; i < project.renames().size(); ++i) {
    const ModuleRename &r = project.renames()[i];
    const auto report = std::find_if(reports.begin(), reports.end(), [&](const FileReport &f) {
      return std::filesystem::path(f.path).lexically_normal().generic_string() == r.reportedIn;
    });
    if (report == reports.end()) continue;
    if (r.refusal && options.fixMode != FixMode::Apply) warn(*report, *r.refusal + "; the module is not renamed");
    const bool applies = !r.refusal && (unsafe || !r.uncertain);
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

} // namespace

int runCheck(const CheckOptions &options) {
  const ConfigResolver resolver = makeResolver(options);
  if (options.showSettings) return showSettings(resolver, *options.showSettings);
  Linters linters(resolver);
  const Context ctx{linters, options};
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
    GitIgnore git; // the walk is single-threaded
    // Entries come a directory at a time, and every entry of one directory has the same
    // configuration: resolve it once per directory, not once per file.
    std::filesystem::path lastDirectory;
    std::optional<std::variant<ResolvedConfig, ConfigError>> lastResolved;
    const auto excluded = [&](const std::filesystem::path &path) {
      if (!lastResolved || path.parent_path() != lastDirectory) {
        lastDirectory = path.parent_path();
        lastResolved = resolver.forFile(path);
      }
      const auto *config = std::get_if<ResolvedConfig>(&*lastResolved);
      if (config == nullptr) return false; // the error is reported when the file is checked
      return config->excluded(path) || (config->respectGitignore && git.ignored(path));
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
    project = ProjectView::build(list.files, resolver);
    if (project.active()) linters.setProject(&project);
    ProgressBar progress(list.files.size(), ProgressBar::wanted(list.files.size(), options.quiet, STDERR_FILENO),
                         STDERR_FILENO);
    reports = checkFiles(list.files, ctx, options.jobs == 0 ? defaultJobs() : options.jobs, progress);
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
    write(stdout, project.renderDiffs(diffs, unsafeRun));
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
