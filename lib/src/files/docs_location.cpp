// files/docs_location.cpp — where the manual's rule pages are: the default base of ruleUrl().
//
// The manual (the repository's docs/) is installed with asyncfix under share/doc/asyncfix, beside
// the commands' bin/ (cmake --install, the .deb, the wheel's data files), and the build tree links
// <build>/share/doc/asyncfix to the repository's docs/, beside <build>/cli and <build>/lsp. So the
// running program's directory says where the pages are, wherever the tree was installed or moved
// to. The one file-system question asked is whether that directory holds rules/.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#if defined(_WIN32)
#include <windows.h>
#elif defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

#include "asyncfix/rules.h"

namespace asyncfix {
namespace {

namespace fs = std::filesystem;

/// The running program's file, or an empty path where the platform does not say.
fs::path runningProgram() {
  std::error_code ec;
#if defined(_WIN32)
  std::wstring buffer(32768, L'\0');
  const DWORD n = GetModuleFileNameW(nullptr, buffer.data(), static_cast<DWORD>(buffer.size()));
  if (n == 0 || n >= buffer.size()) return {};
  buffer.resize(n);
  return fs::path(buffer);
#elif defined(__APPLE__)
  std::uint32_t size = 0;
  _NSGetExecutablePath(nullptr, &size);
  std::string buffer(size, '\0');
  if (_NSGetExecutablePath(buffer.data(), &size) != 0) return {};
  buffer.resize(buffer.find('\0'));
  return fs::weakly_canonical(fs::path(buffer), ec);
#elif defined(__linux__) || defined(__EMSCRIPTEN__) // WebAssembly: the Node.js loader answers (wasm/node-pre.js)
  fs::path program = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : program;
#else
  return {};
#endif
}

/// The manual installed beside `program` (<prefix>/bin/asyncfix → <prefix>/share/doc/asyncfix),
/// or an empty path.
fs::path manualBeside(const fs::path &program) {
  if (program.empty()) return {};
  const fs::path manual = (program.parent_path() / ".." / "share" / "doc" / "asyncfix").lexically_normal();
  std::error_code ec;
  if (!fs::is_directory(manual / "rules", ec)) return {};
  const fs::path real = fs::canonical(manual, ec); // a build tree's link: the repository's docs/
  return ec ? manual : real;
}

/// `path` (absolute) as a `file://` URL: `/`-separated, bytes outside RFC 3986's unreserved set
/// (and `/`, `:`) percent-encoded; `C:\\x` → `file:///C:/x`.
std::string fileUrl(const fs::path &path) {
  const std::u8string text = path.generic_u8string();
  std::string generic(text.begin(), text.end());
  if (generic.empty() || generic.front() != '/') generic.insert(generic.begin(), '/'); // C:/x → /C:/x
  std::string out = "file://";
  constexpr std::string_view kHex = "0123456789ABCDEF";
  for (const char c : generic) {
    const auto byte = static_cast<unsigned char>(c);
    const bool plain = (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') || (byte >= '0' && byte <= '9') ||
                       std::string_view("-._~/:").find(c) != std::string_view::npos;
    if (plain) {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
  }
  return out;
}

std::string computeDefaultDocsUrl() {
#ifdef ASYNCFIX_DOCS_URL
  if (!std::string_view(ASYNCFIX_DOCS_URL).empty()) return ASYNCFIX_DOCS_URL;
#endif
  if (const fs::path manual = manualBeside(runningProgram()); !manual.empty()) return fileUrl(manual);
#ifdef ASYNCFIX_INSTALLED_DOCDIR
  return fileUrl(fs::path(ASYNCFIX_INSTALLED_DOCDIR));
#else
  return fileUrl(fs::path("/usr/local/share/doc/asyncfix"));
#endif
}

} // namespace

std::string defaultDocsUrl() {
  static const std::string url = computeDefaultDocsUrl(); // the program does not move while it runs
  return url;
}

} // namespace asyncfix
