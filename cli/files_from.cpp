// cli/files_from.cpp — parsing `--files-from` lists.
#include "files_from.h"

#include <optional>

#include "asyncfix/source_io.h"

namespace asyncfix::cli {
namespace {

/// The path a line in git's quoting stands for (`"a\tb\303\251.py"` → a, tab, b, é, .py), or
/// nullopt when the line is not well-formed git quoting (it is then taken as it is).
std::optional<std::string> unquoteGitPath(std::string_view quoted) {
  if (quoted.size() < 2 || quoted.front() != '"' || quoted.back() != '"') return std::nullopt;
  const std::string_view body = quoted.substr(1, quoted.size() - 2);
  std::string out;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c == '"') return std::nullopt; // an unescaped quote inside: not git's quoting
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i == body.size()) return std::nullopt;
    switch (const char e = body[i]) {
    case 'a': out += '\a'; break;
    case 'b': out += '\b'; break;
    case 'f': out += '\f'; break;
    case 'n': out += '\n'; break;
    case 'r': out += '\r'; break;
    case 't': out += '\t'; break;
    case 'v': out += '\v'; break;
    case '"':
    case '\\': out += e; break;
    default: {
      // Three octal digits, the first 0-3: one byte.
      if (i + 2 >= body.size() || e < '0' || e > '3') return std::nullopt;
      unsigned value = 0;
      for (std::size_t k = i; k < i + 3; ++k) {
        if (body[k] < '0' || body[k] > '7') return std::nullopt;
        value = value * 8 + static_cast<unsigned>(body[k] - '0');
      }
      if (value == 0) return std::nullopt; // no path holds a NUL
      out += static_cast<char>(value);
      i += 2;
    }
    }
  }
  return out;
}

} // namespace

std::vector<std::string> parseFileList(std::string_view bytes, bool nulSeparated) {
  const char separator = nulSeparated ? '\0' : '\n';
  std::vector<std::string> paths;
  while (!bytes.empty()) {
    const std::size_t end = bytes.find(separator);
    std::string_view entry = bytes.substr(0, end);
    bytes.remove_prefix(end == std::string_view::npos ? bytes.size() : end + 1);
    if (!nulSeparated && entry.ends_with('\r')) entry.remove_suffix(1);
    if (entry.empty()) continue;
    if (!nulSeparated) {
      if (auto unquoted = unquoteGitPath(entry)) {
        if (!unquoted->empty()) paths.push_back(std::move(*unquoted));
        continue;
      }
    }
    paths.emplace_back(entry);
  }
  return paths;
}

std::variant<std::vector<std::string>, std::string> readFileList(const std::string &source, bool nulSeparated) {
  ReadResult read = source == "-" ? readStdin() : readInputFile(source);
  if (read.error) return *read.error;
  return parseFileList(read.bytes, nulSeparated);
}

} // namespace asyncfix::cli
