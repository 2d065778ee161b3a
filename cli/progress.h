// cli/progress.h — a progress bar on stderr while many files are checked on a terminal.
//
// Worker threads only bump an atomic counter (advance()); one drawing thread owned by the bar
// redraws the line at most every 100 ms, and only when the count changed. Nothing else may write
// to stderr between construction and finish(), which erases the line: messages are printed after.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

namespace asyncfix::cli {

class ProgressBar {
public:
  /// More files than this, stderr a terminal and no --quiet: show a bar.
  static constexpr std::size_t kMinFiles = 200;

  /// Whether a run over `files` files shows a bar on the file descriptor `fd`.
  static bool wanted(std::size_t files, bool quiet, int fd);

  /// Starts drawing on `fd` (the first frame at once) when `enabled`; otherwise does nothing.
  ProgressBar(std::size_t total, bool enabled, int fd);
  /// Counts files done (advance()) but draws nothing until start(): for a run that checks files
  /// while it is still finding them.
  explicit ProgressBar(int fd);

  /// The number of files is known: draws from now on when `enabled` (at most once).
  void start(std::size_t total, bool enabled);
  ~ProgressBar();
  ProgressBar(const ProgressBar &) = delete;
  ProgressBar &operator=(const ProgressBar &) = delete;

  /// One more file done. Thread-safe, lock-free, and cheap when the bar is disabled.
  void advance() { done_.fetch_add(1, std::memory_order_relaxed); }

  /// Stops the drawing thread and erases the bar's line. Idempotent; the destructor calls it.
  void finish();

private:
  void loop();
  void draw(std::size_t done);
  void write(const char *data, std::size_t size) const;

  std::size_t total_ = 0; ///< set before the drawing thread starts
  const int fd_;
  std::atomic<std::size_t> done_{0};
  std::mutex mutex_; ///< guards stop_ and the terminal line
  std::condition_variable wake_;
  bool stop_ = false;
  std::size_t drawnWidth_ = 0; ///< columns of the line on screen, to erase it
  std::thread thread_;
};

} // namespace asyncfix::cli
