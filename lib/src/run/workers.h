#pragma once
// Worker threads that are a speed-up, never a requirement: the calling thread always works too,
// so a run goes on with the threads the system could give.

#include <system_error>
#include <thread>
#include <vector>

namespace asyncfix {

/// Starts `count` threads running `work` into `pool`, or as many as the system gives (thread
/// creation fails under a process limit or when memory for stacks runs out); the caller then runs
/// `work` itself and joins `pool`.
template <class Work> void startWorkers(std::vector<std::thread> &pool, unsigned count, const Work &work) {
  pool.reserve(pool.size() + count);
  try {
    for (unsigned t = 0; t < count; ++t) pool.emplace_back(work);
  } catch (const std::system_error &) { // no more threads: the ones there are do the work
  }
}

} // namespace asyncfix
