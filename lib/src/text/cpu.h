// text/cpu.h — what the CPU the library runs on can do, asked once per process.
//
// The vectorised text scans (the prefilter's searches, its word filter, the package test, the
// UTF-8 check) are compiled for AVX2 with the target attribute, beside a portable path, and take
// the AVX2 one where the CPU has it. Only on x86-64 with GCC or Clang (ASYNCFIX_CPU_AVX2).
#pragma once

#if defined(__x86_64__) && defined(__GNUC__)
#define ASYNCFIX_CPU_AVX2 1

namespace asyncfix {

/// Whether the CPU has AVX2.
inline bool cpuHasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2") != 0;
  return has;
}

} // namespace asyncfix
#endif
