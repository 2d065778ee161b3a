// cli/commands.h — the subcommands, independent of how their arguments were parsed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "asyncfix/config.h"
#include "asyncfix/settings.h"
#include "output.h"
#include "shard.h"

namespace asyncfix::cli {

/// Process exit codes, as in Ruff.
enum ExitCode : int {
  kExitClean = 0,    ///< no diagnostics remain (or --diff: nothing would change)
  kExitFindings = 1, ///< diagnostics remain (or --diff: some file would change)
  kExitFailure = 2,  ///< usage, configuration or I/O error
};

struct CheckOptions {
  std::vector<std::string> paths; ///< files and directories ("." when empty and no --files-from)
  /// --files-from: a list of more paths ("-" is stdin); see addListedPaths in check.cpp
  std::optional<std::string> filesFrom;
  bool filesFromNul = false;                ///< -z: the list is NUL-separated
  std::optional<Shard> shard;               ///< --shard I/N: check only this share of the files
  std::optional<std::string> stdinFilename; ///< read the source from stdin, report it as this
  ConfigOverrides overrides;                ///< flags that win over configuration files
  std::optional<std::string> configFile;    ///< --config
  bool isolated = false;                    ///< --isolated: no configuration files
  std::optional<std::string> showSettings;  ///< --show-settings FILE
  bool showFiles = false;                   ///< --show-files
  bool addNoqa = false;                     ///< --add-noqa
  FixMode fixMode = FixMode::None;
  bool exitZero = false;
  bool exitNonZeroOnFix = false; ///< exit 1 when --fix changed a file, even if nothing remains
  bool statistics = false;
  bool quiet = false;
  OutputFormat format = OutputFormat::Full;
  unsigned jobs = 0; ///< worker threads; 0 = one per hardware thread
};

/// `asyncfix check`: lint (and fix) files or stdin, print the results; returns the exit code.
int runCheck(const CheckOptions &options);

struct RuleOptions {
  std::vector<std::string> codes; ///< codes or names
  bool all = false;
  bool json = false;
  std::string docsUrl; ///< --docs-url: the manual's address for the `url` of each rule
};

/// `asyncfix rule`: print rule documentation; returns the exit code.
int runRule(const RuleOptions &options);

struct MergeOptions {
  std::vector<std::string> reports;         ///< what `check --shard` runs printed; "-" is stdin
  OutputFormat format = OutputFormat::Json; ///< Json, JsonLines or Sarif: the reports' format
};

/// `asyncfix merge-reports`: print the report one run over all the shards' files would have
/// printed (merge.cpp); 0 when it did, 2 when a report cannot be read or merged.
int runMergeReports(const MergeOptions &options);

} // namespace asyncfix::cli
