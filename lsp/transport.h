// lsp/transport.h — moving JSON-RPC message bodies: Content-Length framing over file descriptors,
// or an in-process queue for tests. Knows nothing about JSON or LSP.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "logger.h"

namespace asyncfix::lsp {

/// A bidirectional channel of message bodies. Single-threaded.
class Transport {
public:
  virtual ~Transport() = default;
  /// The next message body; blocks until one arrives. nullopt at the end of the input.
  virtual std::optional<std::string> read() = 0;
  /// True when read() would return without blocking (a message, or the end of the input).
  virtual bool hasPending() = 0;
  /// hasPending(), waiting up to `timeoutMs` (-1: without a limit) for it to become true, or
  /// until `wakeFd` (when not -1) is readable.
  virtual bool waitPending(int timeoutMs, int wakeFd = -1) {
    (void)timeoutMs;
    (void)wakeFd;
    return hasPending();
  }
  /// Sends one message body.
  virtual void write(std::string_view body) = 0;
};

/// Splits a byte stream into message bodies framed by LSP base-protocol headers
/// (`Content-Length: N` + optional other headers, a blank line, then N bytes). A header block
/// without a usable Content-Length is skipped with a log line, and reading goes on after it.
class FrameReader {
public:
  explicit FrameReader(Logger &log) : log_(log) {}
  void feed(std::string_view bytes);
  /// The next complete body, if one is buffered.
  std::optional<std::string> next();
  /// Bytes buffered that do not form a complete message yet.
  std::size_t buffered() const { return buffer_.size() - pos_; }

private:
  Logger &log_;
  std::string buffer_;
  std::size_t pos_ = 0;                   ///< start of the unconsumed bytes
  std::optional<std::size_t> bodyLength_; ///< set once a valid header block has been read
};

/// Content-Length framing over two file descriptors (stdin/stdout for the real server).
class StreamTransport final : public Transport {
public:
  StreamTransport(int in, int out, Logger &log) : in_(in), out_(out), log_(log), frames_(log) {}
  std::optional<std::string> read() override;
  bool hasPending() override;
  bool waitPending(int timeoutMs, int wakeFd = -1) override;
  void write(std::string_view body) override;

private:
  /// One read(2) into the frame reader; false at the end of the input or on an error.
  bool fill();
  int in_;
  int out_;
  Logger &log_;
  FrameReader frames_;
  std::optional<std::string> ready_;
  bool eof_ = false;
  bool broken_ = false;
};

/// An in-process transport: the test pushes bodies, the server reads them, the test takes the
/// server's output. read() returns nullopt when the queue is empty (so never blocks).
class MemoryTransport final : public Transport {
public:
  void push(std::string body) { input_.push_back(std::move(body)); }
  std::vector<std::string> takeOutput();
  std::optional<std::string> read() override;
  bool hasPending() override { return !input_.empty(); }
  void write(std::string_view body) override { output_.emplace_back(body); }

private:
  std::deque<std::string> input_;
  std::vector<std::string> output_;
};

} // namespace asyncfix::lsp
