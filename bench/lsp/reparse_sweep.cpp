// bench/lsp/reparse_sweep.cpp — what tree-sitter's incremental re-parse costs per keystroke, by
// where in a file the typing happens.
//
//   asyncfix_reparse_sweep [--functions N]
//
// Makes a flat module of N small top-level functions (default 2 000, about 18 000 lines), types
// `    y = batch.cuda(async=True)` one character at a time into a function at 1 %, 25 %, 50 %, 75 %
// and 99 % of the file, and reports the mean time of Document's incremental re-parse (with the
// changed ranges it takes) per keystroke. No lint, no server: the floor under the language
// server's keystroke latency, which grows with the number of top-level statements after the edit.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "asyncfix/document.h"
#include "asyncfix/document_internals.h"

int main(int argc, char **argv) {
  int functions = 2000;
  for (int i = 1; i + 1 < argc; i += 2)
    if (std::string(argv[i]) == "--functions") functions = std::atoi(argv[i + 1]);
  std::string text;
  for (int f = 0; f < functions; ++f) {
    text += "def step_" + std::to_string(f) + "(model, batch, device):\n";
    text += "    x = batch['x'].to(device, non_blocking=True)\n    y = model(x)\n    loss = y.sum()\n";
    text += "    loss.backward()\n    for i in range(3):\n        z = x[i].cuda(non_blocking=True)\n";
    text += "    return loss\n\n";
  }
  const std::string typed = "    y = batch.cuda(async=True)\n";
  std::printf("flat module: %d top-level functions, %zu bytes\n", functions, text.size());
  for (const double where : {0.01, 0.25, 0.5, 0.75, 0.99}) {
    asyncfix::Document doc(text);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> changed;
    asyncfix::DocumentInternals::takeChanges(doc, changed); // the first, full parse
    const std::size_t function =
        text.find("\ndef ", static_cast<std::size_t>(static_cast<double>(text.size()) * where));
    const std::size_t at = text.find("    return", function);
    if (function == std::string::npos || at == std::string::npos) {
      std::fprintf(stderr, "no function at %.0f%% of the file: use more --functions\n", where * 100);
      return 2;
    }
    double ms = 0;
    for (std::size_t k = 0; k < typed.size(); ++k) {
      doc.edit(at + k, at + k, typed.substr(k, 1));
      const auto start = std::chrono::steady_clock::now();
      asyncfix::DocumentInternals::takeChanges(doc, changed);
      ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    std::printf("typed at %2.0f%% of the file: re-parse %.2f ms per keystroke\n", where * 100,
                ms / static_cast<double>(typed.size()));
  }
  return 0;
}
