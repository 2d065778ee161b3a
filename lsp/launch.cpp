#include "launch.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

#include <unistd.h>
#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

// A sanitizer brings its own allocator: no glibc arena to choose then (GCC and clang say so
// differently).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ASYNCFIX_OWN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define ASYNCFIX_OWN_ALLOCATOR 1
#endif
#endif
#ifndef ASYNCFIX_OWN_ALLOCATOR
#define ASYNCFIX_OWN_ALLOCATOR 0
#endif

#include "logger.h"
#include "server.h"
#include "transport.h"

#ifndef ASYNCFIX_VERSION
#define ASYNCFIX_VERSION "unknown"
#endif

namespace asyncfix::lsp {
namespace {

constexpr const char *kUsage =
    "usage: asyncfix-lsp [--log-level error|warn|info|debug|trace] [--log-file PATH] [--docs-url URL]\n"
    "\n"
    "The asyncfix language server: speaks LSP 3.17 (JSON-RPC with Content-Length framing) on\n"
    "stdin/stdout; logs go to stderr or to --log-file. --stdio is accepted and ignored.\n"
    "--docs-url: where the rule pages linked from diagnostics and hovers are hosted (the\n"
    "address of the manual's docs/ directory; default: the copy installed with asyncfix).\n";

} // namespace

int runLanguageServer(const LaunchOptions &options) {
  const auto level = parseLogLevel(options.logLevel);
  if (!level) {
    std::fprintf(stderr, "asyncfix-lsp: invalid --log-level `%s`\n%s", options.logLevel.c_str(), kUsage);
    return 2;
  }
  Logger log(stderr, *level);
  if (!options.logFile.empty() && !log.openFile(options.logFile)) {
    std::fprintf(stderr, "asyncfix-lsp: cannot open the log file `%s`\n", options.logFile.c_str());
    return 2;
  }
#if defined(SIGPIPE)             // (Windows has none: a write to a closed pipe fails as it is)
  std::signal(SIGPIPE, SIG_IGN); // a client that went away is an EPIPE, handled as the end
#endif
#if defined(__GLIBC__) && !ASYNCFIX_OWN_ALLOCATOR
  // One malloc arena for both threads (unless the user chose with MALLOC_ARENA_MAX): the worker
  // does nearly all the allocating, and in a thread arena of its own its parses run slower for
  // the same instructions (bench/lsp's typing trace measures didOpen).
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) mallopt(M_ARENA_MAX, 1);
#endif
#if defined(_WIN32)
  // The messages' bytes as they are: the framing counts them, and \r\n must stay two.
  ::_setmode(STDIN_FILENO, _O_BINARY);
  ::_setmode(STDOUT_FILENO, _O_BINARY);
#endif
  log.info("asyncfix-lsp " ASYNCFIX_VERSION " listening on stdio");
  try {
    StreamTransport transport(STDIN_FILENO, STDOUT_FILENO, log);
    Server server(transport, log);
    if (!options.docsUrl.empty()) server.setDocsUrl(options.docsUrl);
    server.inlineAnalysis = options.inlineAnalysis;
    const int code = server.run();
    log.info("exiting with code " + std::to_string(code));
    return code;
  } catch (const std::exception &e) {
    log.error(std::string("fatal: ") + e.what());
    return 1;
  }
}

int lspMain(int argc, char **argv) {
  LaunchOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto value = [&](std::string_view name, std::string &out) {
      if (arg.starts_with(std::string(name) + "=")) {
        out = std::string(arg.substr(name.size() + 1));
        return true;
      }
      if (arg == name && i + 1 < argc) {
        out = argv[++i];
        return true;
      }
      return false;
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "--version" || arg == "-V") {
      std::puts("asyncfix-lsp " ASYNCFIX_VERSION);
      return 0;
    }
    if (arg == "--stdio" || arg.starts_with("--clientProcessId")) continue; // what LSP clients pass
    if (value("--log-level", options.logLevel) || value("--log-file", options.logFile) ||
        value("--docs-url", options.docsUrl))
      continue;
    std::fprintf(stderr, "asyncfix-lsp: unknown argument `%s`\n%s", argv[i], kUsage);
    return 2;
  }
  return runLanguageServer(options);
}

} // namespace asyncfix::lsp
