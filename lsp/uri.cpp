#include "uri.h"

namespace asyncfix::lsp {
namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

} // namespace

std::optional<std::filesystem::path> uriToPath(std::string_view uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.size() < kScheme.size()) return std::nullopt;
  for (std::size_t i = 0; i < kScheme.size(); ++i)
    if ((uri[i] | (i < 4 ? 0x20 : 0)) != kScheme[i]) return std::nullopt; // scheme is case-insensitive
  std::string_view rest = uri.substr(kScheme.size());
  const std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string_view authority = rest.substr(0, slash);
  if (!authority.empty() && authority != "localhost") return std::nullopt;
  rest = rest.substr(slash);
  if (const std::size_t cut = rest.find_first_of("?#"); cut != std::string_view::npos) rest = rest.substr(0, cut);
  std::string path;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%') {
      if (i + 2 >= rest.size() + 0 && i + 2 > rest.size() - 1 + 1) return std::nullopt;
      if (i + 2 >= rest.size() + 1) return std::nullopt;
      const int hi = hexValue(rest[i + 1]), lo = i + 2 < rest.size() ? hexValue(rest[i + 2]) : -1;
      if (hi < 0 || lo < 0) return std::nullopt;
      path += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      path += rest[i];
    }
  }
  if (path.find('\0') != std::string::npos) return std::nullopt;
  return std::filesystem::path(path);
}

std::string pathToUri(const std::filesystem::path &path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "file://";
  for (const char c : path.generic_string()) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '-' || u == '.' ||
        u == '_' || u == '~' || u == '/') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

} // namespace asyncfix::lsp
