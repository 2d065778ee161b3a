// bench/lsp/inline_server.cpp — `asyncfix_lsp_inline`: the language server with its analysis on
// the message loop's thread (Server::inlineAnalysis), the loop that the servers without threads
// run (WebAssembly, Windows), built natively so that bench/lsp can measure it beside the threaded
// server and the WebAssembly one: `asyncfix_lsp_bench --typing --server build/ci/bench/lsp/asyncfix_lsp_inline`.
// Takes no argument; logs errors only.
#include "launch.h"

int main() {
  asyncfix::lsp::LaunchOptions options;
  options.logLevel = "error";
  options.inlineAnalysis = true;
  return asyncfix::lsp::runLanguageServer(options);
}
