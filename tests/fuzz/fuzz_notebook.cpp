// Fuzzer (d): the notebook reader on arbitrary bytes (mostly JSON, from the seed corpus).
// Invariants: no crash; a notebook that parses maps every virtual offset to at most one cell
// and to an offset inside that cell's source; giving back the unchanged virtual text gives back the
// unchanged JSON; a lint + fix of the virtual text writes back into JSON that parses again as
// a notebook whose virtual text is the fixed text.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <variant>

#include "asyncfix/linter.h"
#include "asyncfix/notebook.h"

namespace {

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "invariant broken: %s\n", what);
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  using namespace asyncfix;
  std::string json(reinterpret_cast<const char *>(data), size);
  auto parsed = Notebook::parse(json);
  if (std::holds_alternative<std::string>(parsed)) return 0;
  const Notebook &nb = std::get<Notebook>(parsed);
  const std::string &text = nb.virtualText();
  for (std::size_t offset = 0; offset <= text.size(); ++offset) {
    std::size_t inCell = 0;
    if (const NotebookCell *cell = nb.cellAt(offset, &inCell)) {
      if (offset < cell->virtualStart || offset > cell->virtualEnd) fail("cellAt gave a cell not holding the offset");
      if (inCell > cell->source.size()) fail("offset in cell past the cell's source");
    }
  }
  const std::optional<std::string> same = nb.withVirtualText(text);
  if (!same || *same != nb.json()) fail("unchanged virtual text changed the JSON");

  static const Linter linter;
  FixOptions unsafe;
  unsafe.unsafe = true;
  const FixResult fixed = fix(linter, text, unsafe);
  if (!fixed.changed) return 0;
  const std::optional<std::string> written = nb.withVirtualText(fixed.text);
  if (!written) return 0; // a fix touched a cell boundary: the CLI reports and skips the file
  auto reread = Notebook::parse(*written);
  if (std::holds_alternative<std::string>(reread)) fail("fixed notebook no longer parses");
  if (std::get<Notebook>(reread).virtualText() != fixed.text) fail("fixed notebook reads back differently");
  return 0;
}
