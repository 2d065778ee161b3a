// memcpy, memmove and memset as WebAssembly's bulk memory instructions (memory.copy,
// memory.fill), for every module: the CLI, the server and the API (cmake/WasmModules.cmake,
// docs/wasm.md).
//
// emscripten 3.1.6's own are loops over 4-byte words, and in a standalone module no JavaScript
// takes the large copies either: each keystroke's edit of a 20 000-line document moves half of
// its 650 kB twice (the workspace's copy and the Analyzer's, std::string::replace in the
// prebuilt libc++), and that loop was the server's costliest function per keystroke
// (bench/RESULTS.md, "Issue 33, session 7"). Compiled with -mbulk-memory, each builtin below is
// one instruction that the host runs as its native memmove; defined here, these take the place
// of libc's, for the prebuilt libraries too. Every host the modules support has the instructions
// (Node.js >= 12.5, Chrome 75, Firefox 79, Safari 15).
#include <stddef.h>

#if !defined(__wasm_bulk_memory__)
#error "wasm/bulk_memory.c must be compiled with -mbulk-memory"
#endif

void *memcpy(void *restrict dest, const void *restrict src, size_t n) {
  __builtin_memcpy(dest, src, n);
  return dest;
}

void *memmove(void *dest, const void *src, size_t n) {
  __builtin_memmove(dest, src, n);
  return dest;
}

void *memset(void *dest, int c, size_t n) {
  __builtin_memset(dest, c, n);
  return dest;
}
