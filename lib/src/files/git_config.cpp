#include "files/git_config.h"

#if defined(_WIN32)
#include <fstream>
#include <iterator>
#else
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <cerrno>
#include <cstdlib>

namespace fs = std::filesystem;

namespace asyncfix {
namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isAlnum(char c) { return isAlpha(c) || (c >= '0' && c <= '9'); }
bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/// A cursor over the text; `\r\n` reads as `\n`, as git reads it.
class ConfigLexer {
public:
  explicit ConfigLexer(std::string_view text) : text_(text) {}
  bool atEnd() const { return i_ >= text_.size(); }
  char peek() const {
    if (text_[i_] == '\r' && i_ + 1 < text_.size() && text_[i_ + 1] == '\n') return '\n';
    return text_[i_];
  }
  char next() {
    const char c = peek();
    i_ += c == '\n' && text_[i_] == '\r' ? 2 : 1;
    return c;
  }
  void skipLine() {
    while (!atEnd() && next() != '\n') {}
  }
  void skipBlanks() {
    while (!atEnd() && isBlank(peek())) ++i_;
  }

private:
  std::string_view text_;
  std::size_t i_ = 0;
};

/// `[section]`, `[section "subsection"]` or `[section.subsection]`, the `[` already read.
bool parseSectionHeader(ConfigLexer &in, std::string &section, std::string &subsection) {
  section.clear();
  subsection.clear();
  while (!in.atEnd() && (isAlnum(in.peek()) || in.peek() == '-' || in.peek() == '.')) section += lower(in.next());
  if (in.atEnd()) return false;
  if (in.peek() == ']') {
    in.next();
    if (const std::size_t dot = section.find('.'); dot != std::string::npos) {
      subsection = section.substr(dot + 1); // the old form, compared without case
      section.resize(dot);
    }
    return !section.empty();
  }
  in.skipBlanks();
  if (in.atEnd() || in.next() != '"') return false;
  for (;;) {
    if (in.atEnd()) return false;
    char c = in.next();
    if (c == '\n') return false;
    if (c == '"') break;
    if (c == '\\') {
      if (in.atEnd()) return false;
      c = in.next();
      if (c == '\n') return false;
    }
    subsection += c;
  }
  return !in.atEnd() && in.next() == ']' && !section.empty();
}

/// The value after `=`, to the end of its (possibly continued) line.
std::optional<std::string> parseValue(ConfigLexer &in) {
  std::string out;
  bool quoted = false, comment = false;
  std::size_t blanks = 0; // unquoted blanks seen since the last character kept
  while (!in.atEnd()) {
    char c = in.next();
    if (c == '\n') {
      if (quoted) return std::nullopt;
      break;
    }
    if (comment) continue;
    if (!quoted && isBlank(c)) {
      if (!out.empty()) ++blanks; // leading blanks are dropped, trailing ones below
      continue;
    }
    if (!quoted && (c == '#' || c == ';')) {
      comment = true;
      continue;
    }
    out.append(blanks, ' ');
    blanks = 0;
    if (c == '"') {
      quoted = !quoted;
      continue;
    }
    if (c == '\\') {
      if (in.atEnd()) return std::nullopt;
      switch (c = in.next()) {
      case '\n': continue; // the value goes on on the next line
      case 'n': c = '\n'; break;
      case 't': c = '\t'; break;
      case 'b': c = '\b'; break;
      case '"':
      case '\\': break;
      default: return std::nullopt;
      }
    }
    out += c;
  }
  if (quoted) return std::nullopt;
  return out;
}

void readWithIncludes(const fs::path &file, std::string_view section, std::string_view key, int depth,
                      std::optional<std::string> &result) {
  const auto text = readRegularFile(file);
  if (!text) return;
  parseGitConfig(*text, [&](const GitConfigEntry &e) {
    if (e.section == "include" && e.subsection.empty() && e.key == "path" && e.value && depth < 10) {
      if (const auto expanded = expandGitPath(*e.value)) {
        fs::path included(*expanded);
        if (included.is_relative()) included = file.parent_path() / included;
        readWithIncludes(included, section, key, depth + 1, result);
      }
    } else if (e.section == section && e.subsection.empty() && e.key == key && e.value) {
      result = *e.value;
    }
  });
}

} // namespace

// The platform's side: reading a file whole, and a home directory.
#if defined(_WIN32)

std::optional<std::string> readRegularFile(const fs::path &path, bool /*followSymlinks*/) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return out;
}

std::optional<std::string> homeDirectory(std::string_view user) {
  if (!user.empty()) return std::nullopt;            // another user's home: not looked up on Windows
  for (const char *name : {"HOME", "USERPROFILE"}) { // HOME as Git for Windows has it, else the profile
    const char *env = std::getenv(name);
    if (env != nullptr && *env != '\0') return std::string(env);
  }
  return std::nullopt;
}

#else

std::optional<std::string> readRegularFile(const fs::path &path, bool followSymlinks) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (followSymlinks ? 0 : O_NOFOLLOW));
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<std::string> out;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    out.emplace();
    out->reserve(static_cast<std::size_t>(st.st_size));
    char buffer[16384];
    for (;;) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n > 0) {
        out->append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0) {
        break;
      } else if (errno != EINTR) {
        out.reset();
        break;
      }
    }
  }
  ::close(fd);
  return out;
}

std::optional<std::string> homeDirectory(std::string_view user) {
  if (user.empty()) {
    const char *env = std::getenv("HOME");
    if (env == nullptr || *env == '\0') return std::nullopt;
    return std::string(env);
  }
  const std::string name(user);
  struct passwd pw {
  }, *found = nullptr;
  std::string buffer(16384, '\0');
  if (::getpwnam_r(name.c_str(), &pw, buffer.data(), buffer.size(), &found) != 0 || found == nullptr)
    return std::nullopt;
  return std::string(pw.pw_dir);
}

#endif

void parseGitConfig(std::string_view text, const std::function<void(const GitConfigEntry &)> &entry) {
  ConfigLexer in(text);
  GitConfigEntry e;
  bool inSection = false;
  for (;;) {
    while (!in.atEnd() && (isBlank(in.peek()) || in.peek() == '\n')) in.next();
    if (in.atEnd()) return;
    const char c = in.peek();
    if (c == '#' || c == ';') {
      in.skipLine();
    } else if (c == '[') {
      in.next();
      if (!parseSectionHeader(in, e.section, e.subsection)) return;
      inSection = true;
    } else {
      if (!isAlpha(c) || !inSection) return;
      e.key.clear();
      while (!in.atEnd() && (isAlnum(in.peek()) || in.peek() == '-')) e.key += lower(in.next());
      in.skipBlanks();
      if (in.atEnd() || in.peek() == '\n' || in.peek() == '#' || in.peek() == ';') {
        in.skipLine();
        e.value.reset();
      } else if (in.peek() == '=') {
        in.next();
        e.value = parseValue(in);
        if (!e.value) return;
      } else {
        return;
      }
      entry(e);
    }
  }
}

std::optional<std::string> expandGitPath(std::string_view value) {
  if (!value.starts_with('~')) return std::string(value);
  const std::size_t slash = value.find('/');
  const std::string_view user = value.substr(1, slash == std::string_view::npos ? std::string_view::npos : slash - 1);
  const std::string_view rest = slash == std::string_view::npos ? std::string_view() : value.substr(slash);
  const std::optional<std::string> home = homeDirectory(user);
  if (!home) return std::nullopt;
  return *home + std::string(rest);
}

std::optional<std::string> readGitConfigValue(const std::vector<fs::path> &files, std::string_view section,
                                              std::string_view key) {
  std::optional<std::string> result;
  for (const fs::path &file : files) readWithIncludes(file, section, key, 0, result);
  return result;
}

} // namespace asyncfix
