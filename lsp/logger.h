// lsp/logger.h — the server's log: stderr or a file, never stdout (stdout is the LSP channel).
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace asyncfix::lsp {

enum class LogLevel : std::uint8_t { Error, Warning, Info, Debug, Trace };

/// "error" | "warn" | "warning" | "info" | "debug" | "trace" → level; nullopt otherwise.
std::optional<LogLevel> parseLogLevel(std::string_view text);

/// Writes "[level] message" lines to a FILE* (stderr by default). Not thread-safe: the server is
/// single-threaded. A Logger never throws.
class Logger {
public:
  explicit Logger(std::FILE *sink = stderr, LogLevel level = LogLevel::Info);
  ~Logger();
  Logger(const Logger &) = delete;
  Logger &operator=(const Logger &) = delete;

  /// Appends to `path` instead of the current sink; false (and the sink unchanged) on failure.
  bool openFile(const std::string &path);
  /// Also hands errors and warnings to `forward` (the server shows them to the client with
  /// window/logMessage). Re-entrant calls are not forwarded again.
  void setForward(std::function<void(LogLevel, std::string_view)> forward) { forward_ = std::move(forward); }
  LogLevel level() const { return level_; }
  bool enabled(LogLevel level) const { return level <= level_; }

  void log(LogLevel level, std::string_view message);
  void error(std::string_view message) { log(LogLevel::Error, message); }
  void warn(std::string_view message) { log(LogLevel::Warning, message); }
  void info(std::string_view message) { log(LogLevel::Info, message); }
  void debug(std::string_view message) { log(LogLevel::Debug, message); }

private:
  std::FILE *sink_;
  bool ownsSink_ = false;
  std::function<void(LogLevel, std::string_view)> forward_;
  bool forwarding_ = false;
  LogLevel level_;
};

} // namespace asyncfix::lsp
