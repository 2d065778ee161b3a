// cli/progress.cpp — the progress bar: one drawing thread, an atomic counter, plain "\r" redraws
// (no escape sequences, so even TERM=dumb is fine).
#include "progress.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <string>

#if defined(_WIN32)
#include <io.h>
#include <windows.h>
#else
#include <sys/ioctl.h>
#include <unistd.h>
#endif

namespace asyncfix::cli {
namespace {

constexpr auto kInterval = std::chrono::milliseconds(100); // at most ~10 redraws a second
constexpr std::size_t kBarWidth = 30;
// The bar draws on a thread of its own: none where there are no threads (WebAssembly, docs/wasm.md).
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
constexpr bool kThreads = false;
#else
constexpr bool kThreads = true;
#endif

/// The terminal's width in columns, 80 when it does not say; and whether `fd` is one.
#if defined(_WIN32)
std::size_t terminalColumns(int /*fd*/) {
  CONSOLE_SCREEN_BUFFER_INFO info{};
  if (::GetConsoleScreenBufferInfo(::GetStdHandle(STD_ERROR_HANDLE), &info) && info.dwSize.X > 0) {
    return static_cast<std::size_t>(info.srWindow.Right - info.srWindow.Left + 1);
  }
  return 80;
}
bool isTerminal(int fd) { return ::_isatty(fd) != 0; }
long writeSome(int fd, const char *data, std::size_t size) {
  return ::_write(fd, data, static_cast<unsigned>(std::min<std::size_t>(size, 1u << 20)));
}
#else
std::size_t terminalColumns(int fd) {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return size.ws_col;
  }
  return 80;
}
bool isTerminal(int fd) { return ::isatty(fd) == 1; }
ssize_t writeSome(int fd, const char *data, std::size_t size) { return ::write(fd, data, size); }
#endif

} // namespace

bool ProgressBar::wanted(std::size_t files, bool quiet, int fd) {
  return kThreads && files > kMinFiles && !quiet && isTerminal(fd);
}

ProgressBar::ProgressBar(std::size_t total, bool enabled, int fd) : fd_(fd) { start(total, enabled); }

ProgressBar::ProgressBar(int fd) : fd_(fd) {}

void ProgressBar::start(std::size_t total, bool enabled) {
  if (!enabled || thread_.joinable()) {
    return;
  }
  {
    const std::lock_guard lock(mutex_);
    if (stop_) {
      return;
    }
  }
  total_ = total;
  draw(std::min(done_.load(std::memory_order_relaxed), total_));
  thread_ = std::thread([this] { loop(); });
}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::finish() {
  {
    const std::lock_guard lock(mutex_);
    if (stop_) {
      return;
    }
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
  }
  const std::lock_guard lock(mutex_);
  if (drawnWidth_ > 0) {
    const std::string blank = "\r" + std::string(drawnWidth_, ' ') + "\r";
    write(blank.data(), blank.size());
    drawnWidth_ = 0;
  }
}

void ProgressBar::loop() {
  std::size_t shown = 0;
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, kInterval, [this] { return stop_; })) {
    const std::size_t done = std::min(done_.load(std::memory_order_relaxed), total_);
    if (done != shown) {
      shown = done;
      lock.unlock();
      draw(done);
      lock.lock();
    }
  }
}

void ProgressBar::draw(std::size_t done) {
  const std::string count = std::to_string(done) + "/" + std::to_string(total_) + " files";
  const std::size_t columns = terminalColumns(fd_);
  // "Checking [" + bar + "] " + count, kept inside the terminal's width so "\r" redraws in place.
  const std::size_t fixed = 12 + count.size();
  std::string line;
  if (columns > fixed + 10) {
    const std::size_t width = std::min(kBarWidth, columns - fixed - 1);
    const std::size_t filled = total_ == 0 ? width : width * done / total_;
    line = "Checking [" + std::string(filled, '#') + std::string(width - filled, '.') + "] ";
    line += count;
  } else {
    line = count.substr(0, columns > 1 ? columns - 1 : 0);
  }
  const std::lock_guard lock(mutex_);
  std::string frame = "\r" + line;
  if (line.size() < drawnWidth_) {
    frame.append(drawnWidth_ - line.size(), ' ');
  }
  drawnWidth_ = std::max(drawnWidth_, line.size());
  write(frame.data(), frame.size());
}

void ProgressBar::write(const char *data, std::size_t size) const {
  while (size > 0) {
    const auto n = writeSome(fd_, data, size);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return; // a bar is not worth failing over
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

} // namespace asyncfix::cli
