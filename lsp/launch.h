// lsp/launch.h — starting the server over stdio: shared by `asyncfix-lsp` and `asyncfix lsp`.
#pragma once

#include <string>

namespace asyncfix::lsp {

struct LaunchOptions {
  std::string logLevel = "info"; ///< error, warn, info, debug, trace
  std::string logFile;           ///< empty: stderr
  std::string docsUrl;           ///< --docs-url: the address of the manual (empty: the installed copy)
  /// The analysis on the message loop's thread (Server::inlineAnalysis), as the servers without
  /// threads run it (WebAssembly, Windows). Not an option of `asyncfix-lsp`: bench/lsp's
  /// `asyncfix_lsp_inline` sets it, to measure that loop natively.
  bool inlineAnalysis = false;
};

/// Serves LSP over stdin/stdout until `exit`; returns the exit code (0 after shutdown, 1 without
/// it, 2 for bad options).
int runLanguageServer(const LaunchOptions &options);

/// `asyncfix-lsp [--log-level LEVEL] [--log-file PATH] [--docs-url URL] [--stdio] [--version]
/// [--help]`.
int lspMain(int argc, char **argv);

} // namespace asyncfix::lsp
