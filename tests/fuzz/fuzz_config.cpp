// Fuzzer (c): the configuration parser (pyproject.toml's [tool.asyncfix] and asyncfix.toml) on
// arbitrary text. The first byte picks the file name (which decides the layout). Invariants: no
// crash; an error names a line and column inside the text (or 0 when it has no place); a
// configuration that parses gives a usable Linter and exclude matcher.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

#include "asyncfix/linter.h"
#include "asyncfix/settings.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  using namespace asyncfix;
  if (size == 0) return 0;
  static const char *const kNames[] = {"/fuzz/project/pyproject.toml", "/fuzz/project/asyncfix.toml",
                                       "/fuzz/project/.asyncfix.toml"};
  const std::filesystem::path path = kNames[data[0] % 3];
  const std::string_view text(reinterpret_cast<const char *>(data) + 1, size - 1);
  const auto parsed = parseConfigFile(path, text);
  if (!parsed) return 0;
  if (const auto *error = std::get_if<ConfigError>(&*parsed)) {
    std::size_t lines = 1;
    for (const char c : text) lines += c == '\n';
    if (error->line > lines || error->message.empty() || error->toString().empty()) {
      std::fprintf(stderr, "bad error: %s (text has %zu lines)\n", error->toString().c_str(), lines);
      std::abort();
    }
    return 0;
  }
  const ResolvedConfig &config = std::get<ResolvedConfig>(*parsed);
  for (const char *p :
       {"/fuzz/project/a.py", "/fuzz/project/build/x.py", "/fuzz/project/sub/dir/async.py", "/elsewhere/b.py"})
    (void)config.excluded(p);
  const Linter linter(config.config);
  const std::string source = "import torch\nx.cuda(async=True)\nasync = 1\nawait = async  # noqa: AF002\n";
  (void)fix(linter, source);
  return 0;
}
