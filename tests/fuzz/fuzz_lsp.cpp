// Fuzzer (b): the language server's transport and dispatcher on arbitrary byte streams. The
// bytes go through the Content-Length framing (FrameReader, fed in chunks whose size the first
// byte picks, so headers and bodies are split at every place), and every body it yields is
// handled by a fresh Server over the in-memory transport, with the deferred work (publishing
// diagnostics, code actions, resolves) run after each message — or, when the first byte's high
// bit is set, after all the messages a chunk completes, so that a `$/cancelRequest` or a change
// can arrive while a request still waits (a client typing fast). Invariants: no crash, no
// sanitizer report, no hang; every message the server writes is valid JSON-RPC 2.0.
//
// The seeds (corpus/lsp/) include every transcript of tests/lsp/transcripts — notebooks, code
// action resolve, cancellation — converted by transcript_seed.py.
//
// Inputs that name workspace folders (rootUri, rootPath, workspaceFolders) are skipped: the
// server would walk those directories of the fuzzing machine (`/` is a fine rootUri), which
// tests the file system, not the server.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "logger.h"
#include "server.h"
#include "transport.h"

namespace {

void checkOutput(asyncfix::lsp::MemoryTransport &transport) {
  for (const std::string &body : transport.takeOutput()) {
    const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("jsonrpc", "") != "2.0") {
      std::fprintf(stderr, "the server wrote an invalid message: %s\n", body.c_str());
      std::abort();
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  using namespace asyncfix::lsp;
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char *>(data) + 1, size - 1);
  for (const std::string_view folder : {"rootUri", "rootPath", "orkspaceFolders"})
    if (bytes.find(folder) != std::string_view::npos) return -1; // not added to the corpus
  const std::size_t chunk = (data[0] & 0x7F) % 97 + 1;
  const bool batched = (data[0] & 0x80) != 0;

  Logger log(nullptr, LogLevel::Error);
  FrameReader frames(log);
  MemoryTransport transport;
  Server server(transport, log);
  for (std::size_t i = 0; i < bytes.size() && !server.exited(); i += chunk) {
    frames.feed(bytes.substr(i, chunk));
    bool pushed = false;
    while (std::optional<std::string> body = frames.next()) {
      transport.push(std::move(*body));
      pushed = true;
      if (batched) continue;
      server.drain();
      checkOutput(transport);
      if (server.exited()) break;
    }
    if (batched && pushed) {
      server.drain();
      checkOutput(transport);
    }
  }
  return 0;
}
