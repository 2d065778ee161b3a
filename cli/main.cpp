// cli/main.cpp — the `asyncfix` command: parse the arguments, validate them, run a subcommand.
//
// Only argument parsing lives here; the subcommands are in check.cpp, rule.cpp and merge.cpp.
#include <algorithm>
#include <clocale>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#include <windows.h>

#include <shellapi.h> // (after windows.h)
#endif

#include "asyncfix/config.h"
#include "commands.h"
#include "launch.h"

#ifndef ASYNCFIX_VERSION
#define ASYNCFIX_VERSION "unknown"
#endif

namespace asyncfix::cli {
namespace {

/// The raw `check` arguments, before validation.
struct CheckArgs {
  std::vector<std::string> paths;
  std::string stdinFilename;
  bool fix = false;
  bool unsafeFixes = false;
  bool diff = false;
  bool exitZero = false;
  bool exitNonZeroOnFix = false;
  bool statistics = false;
  bool quiet = false;
  std::vector<std::string> select;
  std::vector<std::string> extendSelect;
  std::vector<std::string> ignore;
  std::string targetVersion;
  std::string renameStyle;
  std::string outputFormat = "full";
  unsigned jobs = 0;
  std::string config;
  bool isolated = false;
  std::string showSettings;
  bool showFiles = false;
  bool addNoqa = false;
  bool noRespectGitignore = false;
  std::string filesFrom;
  bool filesFromNul = false;
  std::string shard;
  std::string docsUrl;
};

struct RuleArgs {
  std::vector<std::string> codes;
  bool all = false;
  std::string outputFormat = "text";
  std::string docsUrl;
};

constexpr const char *kDocsUrlHelp = "Where the rule pages are hosted, for the links to them: the address of the "
                                     "manual's docs/ directory [default: the copy installed with asyncfix]";

int usageError(const std::string &message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return kExitFailure;
}

/// Validates the `check` arguments into `options`; returns an exit code on a usage error.
std::optional<int> buildCheckOptions(const CheckArgs &args, const CLI::App &check, CheckOptions &options) {
  options.paths = args.paths;
  if (check.count("--stdin-filename") > 0) {
    options.stdinFilename = args.stdinFilename;
  }
  if (args.unsafeFixes) {
    options.overrides.unsafeFixes = true;
  }
  if (check.count("--config") > 0) {
    options.configFile = args.config;
  }
  options.isolated = args.isolated;
  if (check.count("--show-settings") > 0) {
    options.showSettings = args.showSettings;
  }
  options.showFiles = args.showFiles;
  options.addNoqa = args.addNoqa;
  if (args.noRespectGitignore) {
    options.overrides.respectGitignore = false;
  }
  if (check.count("--docs-url") > 0) {
    if (!isAbsoluteUrl(args.docsUrl)) return usageError("--docs-url `" + args.docsUrl + "` is not an absolute URL");
    options.overrides.docsUrl = args.docsUrl;
  }
  if (options.addNoqa && args.fix) {
    return usageError("--add-noqa and --fix cannot be used together");
  }
  const bool sourceOnStdin =
      options.stdinFilename.has_value() || (options.paths.size() == 1 && options.paths.front() == "-");
  if (check.count("--files-from") > 0) {
    if (sourceOnStdin) {
      return usageError("--files-from cannot be used when the source is read from standard input "
                        "(--stdin-filename or -)");
    }
    options.filesFrom = args.filesFrom;
    options.filesFromNul = args.filesFromNul;
  }
  if (check.count("--shard") > 0) {
    std::string why;
    options.shard = parseShard(args.shard, why);
    if (!options.shard) return usageError("invalid --shard `" + args.shard + "`: " + why);
    if (sourceOnStdin) {
      return usageError("--shard cannot be used when the source is read from standard input "
                        "(--stdin-filename or -)");
    }
  }
  options.exitZero = args.exitZero;
  options.exitNonZeroOnFix = args.exitNonZeroOnFix;
  options.statistics = args.statistics;
  options.quiet = args.quiet;
  options.jobs = args.jobs;
  options.fixMode = args.diff ? FixMode::Diff : args.fix ? FixMode::Apply : FixMode::None;
  if (!parseOutputFormat(args.outputFormat, options.format)) {
    return usageError("unknown output format `" + args.outputFormat + "`");
  }

  ConfigOverrides &overrides = options.overrides;
  RuleSelection rules; // only to validate the selectors given
  if (check.count("--select") > 0) {
    rules.select = cleanSelectors(args.select);
    overrides.select = rules.select;
  }
  rules.extendSelect = overrides.extendSelect = cleanSelectors(args.extendSelect);
  if (check.count("--ignore") > 0) {
    rules.ignore = cleanSelectors(args.ignore);
    overrides.ignore = rules.ignore;
  }
  if (const auto unknown = rules.unknownEntries(); !unknown.empty()) {
    std::string list;
    for (const std::string &entry : unknown) {
      list += (list.empty() ? "`" : ", `") + entry + "`";
    }
    return usageError("unknown rule selector " + list + " (use a code such as AF101, a prefix such as AF1, or ALL)");
  }

  if (!args.targetVersion.empty()) {
    const auto version = PythonVersion::parse(args.targetVersion);
    if (!version) {
      return usageError("invalid --target-version `" + args.targetVersion + "` (expected py35 ... py314)");
    }
    overrides.target = *version;
  }

  if (!args.renameStyle.empty()) {
    const auto tmpl = Config::renameTemplateFor(args.renameStyle);
    if (!tmpl) {
      return usageError("invalid --rename-style `" + args.renameStyle +
                        "` (expected async_, is_async, or a template with {name} such as "
                        "{name}_ that gives a Python identifier)");
    }
    overrides.renameTemplate = *tmpl;
  }
  return std::nullopt;
}

void defineCheck(CLI::App &check, CheckArgs &args) {
  check.add_option("paths", args.paths, "Files or directories to check [default: .]; - is stdin")->type_name("PATH");
  check.add_flag("--fix", args.fix, "Apply fixes to the files (safe fixes unless --unsafe-fixes)");
  check.add_flag("--unsafe-fixes", args.unsafeFixes, "Also apply (or offer) unsafe fixes");
  check.add_flag("--diff", args.diff,
                 "Print a unified diff of the fixes instead of writing them; exit 1 if any file "
                 "would change");
  check
      .add_option("--stdin-filename", args.stdinFilename,
                  "Read the source from stdin and report it under this name; with --fix the "
                  "fixed source goes to stdout")
      ->type_name("NAME");
  check.add_option("--select", args.select,
                   "Rules to enable: codes, prefixes or ALL (comma-separated)")
      ->delimiter(',')
      ->allow_extra_args(false) // one value per flag: `--select AF1 src/` keeps src/ a path
      ->type_name("CODES");
  check.add_option("--extend-select", args.extendSelect, "Rules to enable on top of --select")
      ->delimiter(',')
      ->allow_extra_args(false) // one value per flag: `--select AF1 src/` keeps src/ a path
      ->type_name("CODES");
  check.add_option("--ignore", args.ignore, "Rules to disable: codes, prefixes or ALL")
      ->delimiter(',')
      ->allow_extra_args(false) // one value per flag: `--select AF1 src/` keeps src/ a path
      ->type_name("CODES");
  check
      .add_option("--target-version", args.targetVersion,
                  "Python version the code must run on: py35 ... py314 [default: py38]")
      ->type_name("VERSION");
  check
      .add_option("--rename-style", args.renameStyle,
                  "How renamed names are spelt: async_ (default), is_async, or a template "
                  "such as {name}_")
      ->type_name("STYLE");
  check
      .add_option("--output-format", args.outputFormat,
                  "full, concise, json, json-lines, sarif (SARIF 2.1.0), github (workflow "
                  "commands), gitlab (Code Quality) or junit (JUnit XML)")
      ->check(CLI::IsMember({"full", "concise", "json", "json-lines", "sarif", "github", "gitlab", "junit"}))
      ->type_name("FORMAT");
  check.add_flag("--exit-zero", args.exitZero, "Exit 0 even when diagnostics remain");
  check.add_flag("--exit-non-zero-on-fix", args.exitNonZeroOnFix,
                 "Exit 1 when --fix changed a file, even if no diagnostics remain");
  check.add_flag("--statistics", args.statistics, "Print the number of diagnostics per rule");
  check.add_option("-j,--jobs", args.jobs, "Worker threads [default: one per CPU]")->type_name("N");
  check.add_flag("-q,--quiet", args.quiet, "Print diagnostics and errors, nothing else");
  CLI::Option *config = check
                            .add_option("--config", args.config,
                                        "Use this configuration file (pyproject.toml, asyncfix.toml) for every file")
                            ->type_name("PATH");
  check.add_flag("--isolated", args.isolated, "Ignore every configuration file")->excludes(config);
  check
      .add_option("--show-settings", args.showSettings,
                  "Print the settings that apply to FILE and where each came from")
      ->type_name("FILE");
  check.add_flag("--show-files", args.showFiles, "List the files that would be checked");
  check.add_flag("--no-respect-gitignore", args.noRespectGitignore,
                 "Also check files that .gitignore (and .git/info/exclude) exclude");
  check.add_flag("--add-noqa", args.addNoqa, "Add a `# noqa: CODE` comment for every current finding");
  check.add_option("--docs-url", args.docsUrl, kDocsUrlHelp)->type_name("URL");
  CLI::Option *filesFrom = check
                               .add_option("--files-from", args.filesFrom,
                                           "Also check the paths listed in PATH (- is stdin), one per line, as `git "
                                           "diff --name-only` prints them: files that are not .py/.pyi/.ipynb are "
                                           "skipped, and so (with a note) are paths that do not exist")
                               ->type_name("PATH");
  check.add_flag("-z,--null", args.filesFromNul, "The --files-from list is NUL-separated (`git diff --name-only -z`)")
      ->needs(filesFrom);
  check
      .add_option("--shard", args.shard,
                  "Check only share I of N of the files (chosen by a hash of each path), so "
                  "that N CI jobs share the work; merge their reports with merge-reports")
      ->type_name("I/N");
}

struct MergeArgs {
  std::vector<std::string> reports;
  std::string outputFormat;
};

void defineMerge(CLI::App &merge, MergeArgs &args) {
  merge.add_option("reports", args.reports, "Reports written by `check --shard I/N`; - is stdin")
      ->required()
      ->type_name("REPORT");
  merge
      .add_option("--output-format", args.outputFormat,
                  "The reports' format, which the merged report keeps: json, json-lines or sarif")
      ->required()
      ->check(CLI::IsMember({"json", "json-lines", "sarif"}))
      ->type_name("FORMAT");
}

void defineRule(CLI::App &rule, RuleArgs &args) {
  rule.add_option("code", args.codes, "Rule code (AF101) or name (torch-async-kwarg)")->type_name("CODE");
  rule.add_flag("--all", args.all, "Explain every rule");
  rule.add_option("--output-format", args.outputFormat, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->type_name("FORMAT");
  rule.add_option("--docs-url", args.docsUrl, kDocsUrlHelp)->type_name("URL");
}

int run(int argc, char **argv) {
  CLI::App app{"asyncfix: find and fix Python code broken by the async/await keywords of "
               "Python 3.7",
               "asyncfix"};
  app.set_version_flag("-V,--version", "asyncfix " ASYNCFIX_VERSION);
  app.require_subcommand(1);

  CheckArgs checkArgs;
  CLI::App *check = app.add_subcommand("check", "Check Python files, and fix them with --fix");
  defineCheck(*check, checkArgs);
  RuleArgs ruleArgs;
  CLI::App *rule = app.add_subcommand("rule", "Explain a rule, or all of them with --all");
  defineRule(*rule, ruleArgs);
  MergeArgs mergeArgs;
  CLI::App *merge =
      app.add_subcommand("merge-reports", "Merge the json, json-lines or sarif reports of `check --shard` runs into "
                                          "the report of one run over all their files");
  defineMerge(*merge, mergeArgs);
  // `asyncfix lsp`: the language server, the same entry point as `asyncfix-lsp`.
  lsp::LaunchOptions lspOptions;
  CLI::App *lspCommand = app.add_subcommand("lsp", "Run the language server on stdin/stdout");
  lspCommand->add_option("--log-level", lspOptions.logLevel, "error, warn, info, debug or trace [default: info]");
  lspCommand->add_option("--log-file", lspOptions.logFile, "Write the log here instead of stderr");
  lspCommand->add_option("--docs-url", lspOptions.docsUrl, kDocsUrlHelp)->type_name("URL");
  bool lspStdio = false; // stdio is the only transport; accepted because LSP clients pass it
  lspCommand->add_flag("--stdio", lspStdio, "Use stdin/stdout (the default and only transport)");
  lspCommand->set_version_flag("-V,--version", "asyncfix-lsp " ASYNCFIX_VERSION); // as `asyncfix-lsp --version`

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    // Help and --version exit 0; every usage error exits 2, as documented.
    return app.exit(e) == 0 ? kExitClean : kExitFailure;
  }

  if (lspCommand->parsed()) {
    return lsp::runLanguageServer(lspOptions);
  }
  if (rule->parsed()) {
    RuleOptions options;
    options.codes = ruleArgs.codes;
    options.all = ruleArgs.all;
    options.json = ruleArgs.outputFormat == "json";
    if (!ruleArgs.docsUrl.empty() && !isAbsoluteUrl(ruleArgs.docsUrl))
      return usageError("--docs-url `" + ruleArgs.docsUrl + "` is not an absolute URL");
    options.docsUrl = ruleArgs.docsUrl;
    return runRule(options);
  }
  if (merge->parsed()) {
    MergeOptions options;
    options.reports = mergeArgs.reports;
    if (std::count(options.reports.begin(), options.reports.end(), "-") > 1) {
      return usageError("merge-reports reads standard input (-) once");
    }
    parseOutputFormat(mergeArgs.outputFormat, options.format); // one of the three, checked above
    return runMergeReports(options);
  }
  CheckOptions options;
  if (const auto error = buildCheckOptions(checkArgs, *check, options)) {
    return *error;
  }
  return runCheck(options);
}

} // namespace
} // namespace asyncfix::cli

#if defined(_WIN32)
namespace {
/// Windows hands main() its arguments in the ANSI code page: they are taken again from the wide
/// command line, as UTF-8 (paths with any characters). The standard streams are made binary (a
/// CRLF file's `--diff` and `--stdin-filename --fix` output are its bytes, not CR CR LF), and a
/// console shows UTF-8.
std::vector<std::string> utf8Arguments(int argc, char **argv) {
  std::vector<std::string> out;
  int count = 0;
  if (LPWSTR *wide = ::CommandLineToArgvW(::GetCommandLineW(), &count)) {
    for (int i = 0; i < count; ++i) {
      const int n = ::WideCharToMultiByte(CP_UTF8, 0, wide[i], -1, nullptr, 0, nullptr, nullptr);
      std::string arg(static_cast<std::size_t>(std::max(n, 1)), '\0');
      ::WideCharToMultiByte(CP_UTF8, 0, wide[i], -1, arg.data(), n, nullptr, nullptr);
      arg.resize(arg.size() - 1); // the terminating NUL
      out.push_back(std::move(arg));
    }
    ::LocalFree(wide);
  }
  if (out.empty()) out.assign(argv, argv + argc);
  return out;
}
} // namespace

int main(int argc, char **argv) {
  for (FILE *stream : {stdin, stdout, stderr}) ::_setmode(::_fileno(stream), _O_BINARY);
  ::SetConsoleOutputCP(CP_UTF8);
  std::vector<std::string> args = utf8Arguments(argc, argv);
  std::vector<char *> pointers;
  for (std::string &arg : args) pointers.push_back(arg.data());
  pointers.push_back(nullptr);
  argc = static_cast<int>(args.size());
  argv = pointers.data();
#else
int main(int argc, char **argv) {
#endif
  // Character classes only (never number formats): lets wcwidth() measure CJK and emoji when the
  // `full` format lines up its caret. C.UTF-8 is built into glibc; if absent, widths fall back to 1.
  std::setlocale(LC_CTYPE, "C.UTF-8");
  try {
    return asyncfix::cli::run(argc, argv);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "error: internal error: %s\n", e.what());
    return asyncfix::cli::kExitFailure;
  }
}
