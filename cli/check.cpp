// cli/check.cpp — `asyncfix check`: its options into a run of the engine (asyncfix/run.h), the
// run's results out as diagnostics, fixes or diffs, and the exit code.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <malloc.h>
#include <unistd.h>

#include "asyncfix/run.h"
#include "commands.h"
#include "files_from.h"
#include "progress.h"
#include "project.h"

namespace asyncfix::cli {
namespace {

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

/// A check reads thousands of files into strings that live for a moment each. glibc gives the
/// memory of a freed block above 128 KB back to the kernel at once (and maps and unmaps large
/// files), so the next file would fault fresh pages in again. Freed memory is kept for reuse,
/// unless the user tuned malloc.
void keepFreedMemory() {
#if !defined(_WIN32) // (glibc's malloc; Windows's heap has no such knobs)
  if (std::getenv("GLIBC_TUNABLES") != nullptr || std::getenv("MALLOC_TRIM_THRESHOLD_") != nullptr ||
      std::getenv("MALLOC_MMAP_THRESHOLD_") != nullptr)
    return;
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20); // glibc's largest
#endif
}

/// The run's progress as a bar on stderr, when it is a terminal and the run is long.
class BarProgress final : public RunProgress {
public:
  explicit BarProgress(bool quiet) : quiet_(quiet) {}
  void start(std::size_t files) override { bar_.start(files, ProgressBar::wanted(files, quiet_, STDERR_FILENO)); }
  void advance() override { bar_.advance(); }
  void finish() { bar_.finish(); }

private:
  bool quiet_;
  ProgressBar bar_{STDERR_FILENO};
};

RunOptions runOptions(const CheckOptions &options) {
  RunOptions run;
  run.roots = options.paths;
  run.fixMode = options.fixMode;
  run.addNoqa = options.addNoqa;
  if (options.shard) {
    const Shard shard = *options.shard;
    run.keep = [shard](const std::string &file) { return shardOf(file, shard.count) == shard.index; };
    run.partial = true;
  }
  run.listFirst = options.showFiles;
  run.unsafeFixes = options.overrides.unsafeFixes;
  run.jobs = options.jobs;
  return run;
}

/// Standard input, checked as `--stdin-filename` (or `-`).
RunResult checkStdin(const ConfigResolver &resolver, const CheckOptions &options) {
  const std::string name = options.stdinFilename.value_or("-");
  for (const std::string &path : options.paths) {
    if (path != "-" && !options.quiet) {
      write(stderr, "warning: ignoring " + path + " in favour of standard input\n");
    }
  }
  return Run(resolver, runOptions(options)).checkSource(name, readStdin());
}

/// `--show-files`: the files a check would read.
int showFiles(const Run &run) {
  const FileList list = run.files();
  for (const std::string &file : list.files) write(stdout, file + "\n");
  for (const PathError &error : list.errors) write(stderr, "error: " + error.path + ": " + error.reason + "\n");
  return list.errors.empty() ? kExitClean : kExitFailure;
}

/// Messages on stderr, in a stable order: bad paths as given, then files in path order, then the
/// module renames. True when something failed.
bool printMessages(const RunResult &result, const CheckOptions &options) {
  bool failures = !result.pathErrors.empty() || !result.projectErrors.empty();
  for (const PathError &error : result.pathErrors) {
    write(stderr, "error: " + error.path + ": " + error.reason + "\n");
  }
  for (const FileReport &report : result.reports) {
    failures = failures || report.failed;
    for (const std::string &message : report.messages) {
      if (!options.quiet || message.starts_with("error:")) {
        write(stderr, message + "\n");
      }
    }
  }
  for (const std::string &message : result.projectErrors) write(stderr, message + "\n");
  std::fflush(stderr);
  return failures;
}

/// `--add-noqa`: the source on stdin, else how many were added.
int reportNoqa(const RunResult &result, const CheckOptions &options, bool fromStdin, bool failures) {
  std::size_t added = 0;
  for (const FileReport &report : result.reports) added += report.fixed;
  if (fromStdin && !result.reports.empty()) write(stdout, result.reports.front().fixedSource);
  else if (!options.quiet)
    write(stdout, "Added " + std::to_string(added) + (added == 1 ? " noqa directive.\n" : " noqa directives.\n"));
  std::fflush(stdout);
  return failures ? kExitFailure : kExitClean;
}

/// Renders the run: diffs, diagnostics or statistics (links to rule pages under `docsUrl`), and the
/// summary. Returns the exit code.
int render(const RunResult &result, const CheckOptions &options, const std::string &docsUrl, bool fromStdin,
           bool failures) {
  const std::vector<FileReport> &reports = result.reports;
  // With --fix or --diff on stdin, stdout carries only the source (or the diff).
  const bool stdoutIsSource = fromStdin && options.fixMode != FixMode::None;
  std::FILE *const diagnosticsStream = stdoutIsSource ? stderr : stdout;
  RenderOptions render;
  render.format = options.format;
  render.docsUrl = docsUrl;
  render.color = colorFor(stdoutIsSource ? STDERR_FILENO : STDOUT_FILENO);
  // The [*] markers and hints follow --unsafe-fixes, else the files' own `unsafe-fixes` setting.
  render.unsafeFixes = result.unsafe;

  std::vector<FileDiagnostics> views;
  Summary summary;
  summary.mode = options.fixMode;
  summary.failures = failures;
  bool anyChanged = false;
  for (const FileReport &report : reports) {
    summary.fixed += report.fixed;
    anyChanged = anyChanged || report.changed;
    if (report.diagnostics.empty()) continue; // (every format skips a file with none: no view)
    const Notebook *notebook = report.notebook ? &*report.notebook : nullptr;
    views.push_back({report.path, notebook ? std::string_view(notebook->virtualText()) : report.text,
                     report.diagnostics, notebook});
    countDiagnostics(summary, report.diagnostics, report.unsafeFixes);
  }

  const bool textFormat = options.format == OutputFormat::Full || options.format == OutputFormat::Concise;
  if (options.fixMode == FixMode::Diff && result.project.active()) {
    std::vector<std::pair<std::string, std::string>> diffs;
    diffs.reserve(reports.size());
    for (const FileReport &report : reports) diffs.emplace_back(report.path, report.diff);
    write(stdout, renderProjectDiffs(result.project, diffs, result.unsafe));
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

} // namespace

int runCheck(const CheckOptions &options) {
  keepFreedMemory();
  const ConfigResolver resolver = makeResolver(options);
  if (options.showSettings) return showSettings(resolver, *options.showSettings);
  const bool fromStdin =
      options.stdinFilename.has_value() || (options.paths.size() == 1 && options.paths.front() == "-");

  RunResult result;
  if (fromStdin) {
    result = checkStdin(resolver, options);
  } else {
    RunOptions run = runOptions(options);
    if (options.filesFrom) {
      auto listed = readFileList(*options.filesFrom, options.filesFromNul);
      if (const auto *reason = std::get_if<std::string>(&listed)) {
        write(stderr, "error: --files-from " + *options.filesFrom + ": " + *reason + "\n");
        return kExitFailure;
      }
      addListedPaths(run.roots, std::get<std::vector<std::string>>(listed), options);
    } else if (run.roots.empty()) {
      run.roots.emplace_back(".");
    }
    Run checker(resolver, std::move(run));
    if (options.showFiles) return showFiles(checker);
    BarProgress progress(options.quiet);
    result = checker.check(progress);
    progress.finish(); // erases the bar before anything else is printed
  }

  const bool failures = printMessages(result, options);
  if (options.addNoqa) return reportNoqa(result, options, fromStdin, failures);
  return render(result, options, runDocsUrl(resolver), fromStdin, failures);
}

} // namespace asyncfix::cli
