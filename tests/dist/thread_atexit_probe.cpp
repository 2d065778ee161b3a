// The probe of packaging/manylinux/glibc_2_17.c (tests/dist/test_thread_atexit.py): thread_local
// objects with destructors, in a thread that ends and in the main thread at exit, one of them first
// used while another is being destroyed; getdents64 and renameat2 on a directory of its own; waits
// on a condition variable (steady_clock: pthread_cond_clockwait). Built twice, with and without
// that file.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

struct Noisy {
  std::string name;
  int uses = 0;
  ~Noisy();
};

Noisy &late() {
  thread_local Noisy object{"late"};
  return object;
}

Noisy::~Noisy() {
  std::printf("destroyed %s after %d use(s)\n", name.c_str(), uses);
  if (name == "second") {
    ++late().uses; // first used here: registered while the thread's list runs
  }
}

thread_local Noisy first{"first"};
thread_local Noisy second{"second"};

void files() {
  char dir[] = "/tmp/asyncfix-probe-XXXXXX";
  if (::mkdtemp(dir) == nullptr) std::exit(3);
  const std::string a = std::string(dir) + "/a", b = std::string(dir) + "/b", c = std::string(dir) + "/c";
  for (const std::string *path : {&a, &b}) ::close(::open(path->c_str(), O_CREAT | O_WRONLY, 0644));
  const int over = ::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_NOREPLACE);
  std::printf("renameat2 onto a file: %d, %s\n", over, over != 0 && errno == EEXIST ? "EEXIST" : "?");
  std::printf("renameat2 to a new name: %d\n", ::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, c.c_str(), RENAME_NOREPLACE));
  std::printf("renameat2 without flags: %d\n", ::renameat2(AT_FDCWD, c.c_str(), AT_FDCWD, a.c_str(), 0));
  const int fd = ::open(dir, O_RDONLY | O_DIRECTORY);
  std::vector<std::string> names;
  alignas(8) char buffer[4096];
  for (ssize_t n; (n = ::getdents64(fd, buffer, sizeof buffer)) > 0;) {
    for (ssize_t at = 0; at < n;) {
      const auto *entry = reinterpret_cast<const dirent64 *>(buffer + at);
      if (entry->d_name[0] != '.') names.emplace_back(entry->d_name);
      at += entry->d_reclen;
    }
  }
  ::close(fd);
  std::sort(names.begin(), names.end());
  std::printf("getdents64:");
  for (const std::string &name : names) std::printf(" %s", name.c_str());
  std::printf("\n");
  for (const std::string *path : {&a, &b}) ::unlink(path->c_str());
  ::rmdir(dir);
}

void waits() {
  std::mutex mutex;
  std::condition_variable cv;
  bool ready = false;
  std::unique_lock<std::mutex> lock(mutex);
  const auto start = std::chrono::steady_clock::now();
  const bool woke = cv.wait_for(lock, std::chrono::milliseconds(30), [&] { return ready; });
  std::printf("wait_for without a notification: %s, %s\n", woke ? "woke" : "timed out",
              std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(30) ? "after its time" : "early");
  std::thread notifier([&] {
    const std::lock_guard<std::mutex> guard(mutex);
    ready = true;
    cv.notify_one();
  });
  std::printf("wait_for with a notification: %s\n",
              cv.wait_for(lock, std::chrono::seconds(60), [&] { return ready; }) ? "woke" : "timed out");
  lock.unlock();
  notifier.join();
}

} // namespace

int main() {
  files();
  waits();
  std::thread worker([] {
    ++first.uses;
    ++second.uses;
  });
  worker.join();
  std::printf("joined\n");
  ++first.uses;
  ++second.uses;
  ++second.uses;
  std::printf("exiting\n");
  return 0;
}
