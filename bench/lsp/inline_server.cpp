// bench/lsp/inline_server.cpp — `asyncfix_lsp_inline`: the language server with its analysis on
// the message loop's thread (Server::inlineAnalysis), the loop that the servers without threads
// run (WebAssembly, Windows), built natively so that bench/lsp can measure it beside the threaded
// server and the WebAssembly one: `asyncfix_lsp_bench --typing --server build/ci/bench/lsp/asyncfix_lsp_inline`.
// Logs errors only, or at the level of `--log-level LEVEL` (debug: how long each settle ran).
#include <string_view>

#include "launch.h"

int main(int argc, char **argv) {
  asyncfix::lsp::LaunchOptions options;
  options.logLevel = "error";
  options.inlineAnalysis = true;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string_view(argv[i]) == "--log-level") options.logLevel = argv[++i];
  return asyncfix::lsp::runLanguageServer(options);
}
