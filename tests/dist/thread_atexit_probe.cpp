// The probe of packaging/manylinux/glibc_2_17.c (tests/dist/test_thread_atexit.py): thread_local
// objects with destructors, in a thread that ends and in the main thread at exit, one of them first
// used while another is being destroyed. Built twice, with and without that file.
#include <cstdio>
#include <string>
#include <thread>

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

} // namespace

int main() {
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
