#include "transport.h"

#include <cerrno>
#include <charconv>
#include <cstring>

#if defined(_WIN32)
#include <algorithm>
#include <chrono>

#include <io.h>
#include <windows.h>
#else
#include <poll.h>
#include <unistd.h>
#endif

namespace asyncfix::lsp {
namespace {

constexpr std::size_t kMaxBody = std::size_t{1} << 30;       // 1 GiB
constexpr std::size_t kMaxHeaderLine = std::size_t{1} << 16; // longer "header lines" are junk

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 80)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

} // namespace

void FrameReader::feed(std::string_view bytes) {
  if (pos_ > 0 && pos_ == buffer_.size()) {
    buffer_.clear();
    pos_ = 0;
  }
  buffer_.append(bytes);
}

std::optional<std::string> FrameReader::next() {
  for (;;) {
    if (bodyLength_) {
      if (buffer_.size() - pos_ < *bodyLength_) return std::nullopt;
      std::string body = buffer_.substr(pos_, *bodyLength_);
      pos_ += *bodyLength_;
      bodyLength_.reset();
      if (pos_ > (std::size_t{1} << 20)) { // compact now and then
        buffer_.erase(0, pos_);
        pos_ = 0;
      }
      return body;
    }
    // Read one header block: lines up to an empty line.
    std::size_t cursor = pos_;
    std::optional<std::size_t> length;
    bool sawHeader = false;
    std::string problem;
    for (;;) {
      const std::size_t eol = buffer_.find('\n', cursor);
      if (eol == std::string::npos) {
        if (buffer_.size() - cursor > kMaxHeaderLine) {
          log_.warn("skipping " + std::to_string(buffer_.size() - pos_) + " bytes of junk without a line break");
          pos_ = buffer_.size();
        }
        return std::nullopt; // the block is not complete yet
      }
      const std::string_view line = trim(std::string_view(buffer_).substr(cursor, eol - cursor));
      cursor = eol + 1;
      if (line.empty()) {
        if (!sawHeader) { // a stray blank line between messages
          pos_ = cursor;
          continue;
        }
        break;
      }
      sawHeader = true;
      const std::size_t colon = line.find(':');
      if (colon == std::string_view::npos) {
        problem = "header line without a colon: `" + printable(line) + "`";
        continue;
      }
      const std::string_view name = trim(line.substr(0, colon));
      const std::string_view value = trim(line.substr(colon + 1));
      if (equalsIgnoreCase(name, "Content-Length")) {
        std::size_t n = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
        if (ec != std::errc() || end != value.data() + value.size() || n > kMaxBody) {
          problem = "invalid Content-Length `" + printable(value) + "`";
          length.reset();
        } else {
          length = n;
        }
      }
    }
    pos_ = cursor;
    if (!length) {
      log_.warn("malformed message header skipped (" + (problem.empty() ? std::string("no Content-Length") : problem) +
                ")");
      continue;
    }
    if (!problem.empty()) log_.debug("ignored in a message header: " + problem);
    bodyLength_ = length;
  }
}

std::optional<std::string> StreamTransport::read() {
  for (;;) {
    if (ready_) {
      std::optional<std::string> out = std::move(ready_);
      ready_.reset();
      return out;
    }
    if (auto body = frames_.next()) return body;
    if (eof_ || !fill()) {
      if (frames_.buffered() > 0) log_.warn("end of input inside a message");
      return std::nullopt;
    }
  }
}

#if defined(_WIN32)

// Windows: poll() does not take a pipe. What it would say of the input, PeekNamedPipe says: how
// many bytes wait in the pipe (a client's message is whole there once its write returned, as on
// POSIX). A disk file never blocks; a console cannot say, so the loop idles first and then reads.
// The server sets both descriptors to binary (launch.cpp): the framing counts bytes, and \r\n
// must stay two. There is no wake-up descriptor (the analyzer works inline on Windows).
namespace {

/// Whether the descriptor `fd` has input that a read returns at once: bytes, or the end of a pipe
/// whose writer has gone.
bool inputWaiting(int fd) {
  const HANDLE h = reinterpret_cast<HANDLE>(::_get_osfhandle(fd));
  if (h == INVALID_HANDLE_VALUE) return true; // a read fails at once, which ends the input
  switch (::GetFileType(h)) {
  case FILE_TYPE_PIPE: {
    DWORD available = 0;
    if (::PeekNamedPipe(h, nullptr, 0, nullptr, &available, nullptr)) return available > 0;
    return ::GetLastError() == ERROR_BROKEN_PIPE; // the end of the input
  }
  case FILE_TYPE_DISK: return true;
  default: return false; // a console: unknown until read
  }
}

int readSome(int fd, char *data, std::size_t size) { return ::_read(fd, data, static_cast<unsigned>(size)); }

int writeSome(int fd, const char *data, std::size_t size) {
  return ::_write(fd, data, static_cast<unsigned>(std::min<std::size_t>(size, 1u << 20)));
}

void waitWritable(int /*fd*/) { ::Sleep(1); }

} // namespace

bool StreamTransport::hasPending() {
  if (ready_ || eof_) return true;
  if ((ready_ = frames_.next())) return true;
  while (inputWaiting(in_)) {
    if (!fill()) return true; // end of input: read() returns at once
    if ((ready_ = frames_.next())) return true;
  }
  return false;
}

bool StreamTransport::waitPending(int timeoutMs, int /*wakeFd*/) {
  if (hasPending()) return true;
  if (timeoutMs < 0) {
    fill(); // waiting for input without a limit is reading it; the end makes hasPending() true
    return hasPending();
  }
  // With a limit: looked at again each millisecond (no handle to wait on for a pipe's bytes).
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
  while (std::chrono::steady_clock::now() < until) {
    ::Sleep(1);
    if (hasPending()) return true;
  }
  return false;
}

#else

namespace {

ssize_t readSome(int fd, char *data, std::size_t size) { return ::read(fd, data, size); }
ssize_t writeSome(int fd, const char *data, std::size_t size) { return ::write(fd, data, size); }

/// Until `fd` takes more bytes, or a little while (WASI's poll may not watch an output).
void waitWritable(int fd) {
  pollfd p{fd, POLLOUT, 0};
  (void)::poll(&p, 1, 10);
}

} // namespace

bool StreamTransport::hasPending() {
  if (ready_ || eof_) return true;
  if ((ready_ = frames_.next())) return true;
  for (;;) {
    pollfd p{in_, POLLIN, 0};
    const int n = ::poll(&p, 1, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (!fill()) return true; // end of input: read() returns at once
    if ((ready_ = frames_.next())) return true;
  }
}

bool StreamTransport::waitPending(int timeoutMs, int wakeFd) {
  if (hasPending()) return true;
  pollfd p[2] = {{in_, POLLIN, 0}, {wakeFd, POLLIN, 0}};
  int n;
  do n = ::poll(p, wakeFd >= 0 ? 2 : 1, timeoutMs);
  while (n < 0 && errno == EINTR);
  // A host without poll() (the WebAssembly server under WASI, docs/wasm.md): with no wake-up to
  // watch and no time limit, waiting for input is reading it.
  if (n < 0 && wakeFd < 0 && timeoutMs < 0) {
    fill(); // the end of the input makes hasPending() true as well
    return hasPending();
  }
  return n > 0 && p[0].revents != 0 && hasPending();
}

#endif

bool StreamTransport::fill() {
  char buffer[1 << 16];
  for (;;) {
    const auto n = readSome(in_, buffer, sizeof buffer);
    if (n > 0) {
      frames_.feed(std::string_view(buffer, static_cast<std::size_t>(n)));
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) log_.error(std::string("reading the input failed: ") + std::strerror(errno));
    eof_ = true;
    return false;
  }
}

void StreamTransport::write(std::string_view body) {
  if (broken_) return;
  std::string frame = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  frame.append(body);
  std::string_view rest = frame;
  while (!rest.empty()) {
    const auto n = writeSome(out_, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    // An output in non-blocking mode whose reader has not caught up yet: Node.js makes the
    // standard output of the process running the WebAssembly server non-blocking, and a
    // publish of many findings is larger than a pipe holds.
    if (n < 0 && errno == EAGAIN) { // (EWOULDBLOCK is EAGAIN on Linux and WASI)
      waitWritable(out_);
      continue;
    }
    if (n <= 0) {
      log_.error(std::string("writing the output failed: ") + std::strerror(errno));
      broken_ = true;
      return;
    }
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::vector<std::string> MemoryTransport::takeOutput() {
  std::vector<std::string> out;
  out.swap(output_);
  return out;
}

std::optional<std::string> MemoryTransport::read() {
  if (input_.empty()) return std::nullopt;
  std::string body = std::move(input_.front());
  input_.pop_front();
  return body;
}

} // namespace asyncfix::lsp
