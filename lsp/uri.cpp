#include "uri.h"

#include "asyncfix/platform.h"

namespace asyncfix::lsp {
namespace {

/// Windows (docs/windows.md): `file:///C:/x` is the path `C:/x`, `file://server/share/x` the UNC
/// path `//server/share/x`. A path's drive letter is upper case, as Windows spells it in the paths
/// it gives (the current directory, full paths), and a URI's lower case, as VS Code writes it
/// (`file:///c%3A/x`): `C:` and `c:` name one document and one folder.
constexpr bool kWindows =
#if defined(_WIN32)
    true;
#else
    false;
#endif

bool isDriveLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/// `/C:/x` (a drive's path as a URI spells it): the index of its drive letter.
bool startsWithDrive(std::string_view path, std::size_t at) {
  return path.size() >= at + 2 && isDriveLetter(path[at]) && path[at + 1] == ':' &&
         (path.size() == at + 2 || path[at + 2] == '/' || path[at + 2] == '\\');
}

char lowered(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
char raised(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

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
  const bool unc = kWindows && !authority.empty() && authority != "localhost";
  if (!authority.empty() && authority != "localhost" && !unc) return std::nullopt;
  if (!unc) rest = rest.substr(slash);
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
  if (kWindows) {
    if (unc) path.insert(0, "//");
    else if (startsWithDrive(path, 1)) path.erase(0, 1), path[0] = raised(path[0]);
    return pathFromUtf8(path);
  }
  return std::filesystem::path(path);
}

std::string pathToUri(const std::filesystem::path &path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "file://";
  std::string text = path.generic_string(); // UTF-8 on Windows too
  if (kWindows && startsWithDrive(text, 0)) {
    text[0] = lowered(text[0]);
    out += '/';
  } else if (kWindows && text.starts_with("//")) {
    text.erase(0, 2); // the server is the authority
  }
  for (const char c : text) {
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
