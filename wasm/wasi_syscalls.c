// wasm/wasi_syscalls.c — the system calls of the language server's standalone WASI module that
// are no WASI calls (cmake/WasmModules.cmake links this file into asyncfix-lsp.wasm only).
//
// Without these definitions emscripten would import them from JavaScript ("env"), and a WASI
// host (node:wasi, VS Code's @vscode/wasm-wasi) could not instantiate the module. The server
// reads its documents over LSP and no file (docs/wasm.md), so the module sees an empty file
// system: looking a path up finds nothing (ENOENT), changing one is not permitted (EPERM).
// poll() is not there (ENOSYS): the transport then waits for input by reading it. The working
// directory is "/", as in WASI.
#include <errno.h>
#include <stddef.h>

long __syscall_faccessat(long dirfd, long path, long amode, long flags) { return -ENOENT; }
long __syscall_stat64(long path, long buf) { return -ENOENT; }
long __syscall_lstat64(long path, long buf) { return -ENOENT; }
long __syscall_fstatat64(long dirfd, long path, long buf, long flags) { return -ENOENT; }
long __syscall_openat(long dirfd, long path, long flags, ...) { return -ENOENT; }
long __syscall_readlink(long path, long buf, long bufsize) { return -ENOENT; }
long __syscall_getdents64(long fd, long dirp, long count) { return -EBADF; }
long __syscall_fstat64(long fd, long buf) { return -ENOSYS; }

long __syscall_chmod(long path, long mode) { return -EPERM; }
long __syscall_fchmod(long fd, long mode) { return -EPERM; }
long __syscall_chown32(long path, long owner, long group) { return -EPERM; }
long __syscall_fchown32(long fd, long owner, long group) { return -EPERM; }
long __syscall_rename(long old_path, long new_path) { return -EPERM; }
long __syscall_unlink(long path) { return -EPERM; }

long __syscall_poll(long fds, long nfds, long timeout) { return -ENOSYS; }

long __syscall_getcwd(long buf, long size) {
  if (size < 2) return -ERANGE;
  ((char *)buf)[0] = '/';
  ((char *)buf)[1] = '\0';
  return 2;
}

// Told when the memory grows (emscripten's JavaScript keeps views of it): nothing to do here.
void emscripten_notify_memory_growth(size_t memory_index) {}
