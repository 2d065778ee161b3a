#include "logger.h"

#include <string>

#include "asyncfix/utf8.h"

namespace asyncfix::lsp {
namespace {

/// The message with every byte that is not well-formed UTF-8 replaced by U+FFFD: a log line may
/// quote a client's bytes (an invalid JSON body), and a log file stays readable text.
std::string wellFormed(std::string_view message) {
  std::string out;
  while (const auto bad = firstInvalidUtf8(message)) {
    out.append(message.substr(0, *bad)).append("\xEF\xBF\xBD");
    message.remove_prefix(*bad + 1);
  }
  out.append(message);
  return out;
}

} // namespace

std::optional<LogLevel> parseLogLevel(std::string_view text) {
  if (text == "error") return LogLevel::Error;
  if (text == "warn" || text == "warning") return LogLevel::Warning;
  if (text == "info") return LogLevel::Info;
  if (text == "debug") return LogLevel::Debug;
  if (text == "trace") return LogLevel::Trace;
  return std::nullopt;
}

Logger::Logger(std::FILE *sink, LogLevel level) : sink_(sink), level_(level) {}

Logger::~Logger() {
  if (ownsSink_) std::fclose(sink_);
}

bool Logger::openFile(const std::string &path) {
  std::FILE *file = std::fopen(path.c_str(), "a");
  if (!file) return false;
  if (ownsSink_) std::fclose(sink_);
  sink_ = file;
  ownsSink_ = true;
  return true;
}

void Logger::log(LogLevel level, std::string_view message) {
  if (forward_ && level <= LogLevel::Warning && !forwarding_) {
    forwarding_ = true;
    forward_(level, message);
    forwarding_ = false;
  }
  if (!enabled(level) || !sink_) return;
  const std::string text = wellFormed(message);
  message = text;
  static constexpr std::string_view kNames[] = {"error", "warn", "info", "debug", "trace"};
  std::fprintf(sink_, "[asyncfix-lsp %.*s] %.*s\n", static_cast<int>(kNames[static_cast<int>(level)].size()),
               kNames[static_cast<int>(level)].data(), static_cast<int>(message.size()), message.data());
  std::fflush(sink_);
}

} // namespace asyncfix::lsp
