// text/cpu.h — what the CPU the library runs on can do, asked once per process.
//
// The vectorised text scans (the prefilter's searches, its word filter, the package test, the
// UTF-8 check) are compiled for AVX2 with the target attribute, beside a portable path, and take
// the widest one the CPU has; the prefilter's candidate search, word filter, lexer search, word
// search and family test also for AVX-512 (with VBMI's byte permutes). Only on x86-64 with GCC
// or Clang (ASYNCFIX_CPU_AVX2).
//
// The environment variable ASYNCFIX_SIMD caps what is taken: `avx2` (no AVX-512), `sse2` (no AVX2
// either: the SSE2 paths, which every x86-64 CPU has); any other value caps nothing. Read once, at
// the first question. The tests run the scans under each cap (tests/CMakeLists.txt), so that every
// path runs on a CPU that has them all; a user may set it to rule the wide paths out when chasing
// a problem.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__)
#define ASYNCFIX_CPU_AVX2 1

#include <cstdlib>
#include <cstring>

namespace asyncfix {

namespace cpu_detail {
/// The widest path ASYNCFIX_SIMD allows: 2 for anything else (no cap), 1 for `avx2`, 0 for `sse2`.
inline int cap() {
  static const int level = [] {
    const char *v = std::getenv("ASYNCFIX_SIMD");
    if (v == nullptr) return 2;
    if (std::strcmp(v, "sse2") == 0) return 0;
    return std::strcmp(v, "avx2") == 0 ? 1 : 2;
  }();
  return level;
}
} // namespace cpu_detail

/// Whether the CPU has AVX2 (and ASYNCFIX_SIMD allows it).
inline bool cpuHasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2") != 0 && cpu_detail::cap() >= 1;
  return has;
}

/// Whether the CPU has AVX-512 with byte operations and VBMI's byte permutes (and ASYNCFIX_SIMD
/// allows it). The compiler's check asks the operating system too (the registers saved on a
/// context switch). Never on Windows: the Windows build is GCC's cross build, whose stack is
/// aligned to 16 bytes only (GCC bug 54412, for the over-aligned spills of wide registers), and
/// its tests run under wine: the AVX-512 paths stay to the platforms where they are tested.
inline bool cpuHasAvx512Vbmi() {
#if defined(_WIN32)
  return false;
#else
  static const bool has = __builtin_cpu_supports("avx512bw") != 0 && __builtin_cpu_supports("avx512vbmi") != 0 &&
                          cpuHasAvx2() && cpu_detail::cap() >= 2;
  return has;
#endif
}

} // namespace asyncfix
#endif
