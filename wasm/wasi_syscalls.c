// wasm/wasi_syscalls.c — the system calls of the language server's standalone WASI module that
// are no WASI calls (cmake/WasmModules.cmake links this file into asyncfix-lsp.wasm only).
//
// Without these definitions emscripten would import them from JavaScript ("env"), and a WASI
// host (node:wasi, VS Code's @vscode/wasm-wasi) could not instantiate the module. The server
// reads its documents over LSP and no file (docs/wasm.md), so the module sees an empty file
// system: looking a path up finds nothing (ENOENT), changing one is not permitted (EPERM).
// poll() is WASI's poll_oneoff: the server sees whether a message is waiting, as a native one
// does, and settles its documents only when none is (lsp/server.cpp). The working directory is
// "/", as in WASI.
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <wasi/api.h>

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

// At most this many descriptors at once (the transport watches one or two).
#define POLL_MAX 8

long __syscall_poll(long fds, long nfds, long timeout) {
  struct pollfd *p = (struct pollfd *)fds;
  if (nfds < 0 || nfds > POLL_MAX) return -EINVAL;
  __wasi_subscription_t in[POLL_MAX + 1];
  __wasi_event_t out[POLL_MAX + 1];
  __wasi_size_t n = 0;
  for (long i = 0; i < nfds; i++) {
    p[i].revents = 0;
    if (p[i].fd < 0 || !(p[i].events & (POLLIN | POLLOUT))) continue; // ignored, as POSIX says
    __wasi_subscription_t *s = &in[n++];
    s->userdata = (uint64_t)i;
    s->type = (p[i].events & POLLIN) ? __WASI_EVENTTYPE_FD_READ : __WASI_EVENTTYPE_FD_WRITE;
    s->u.fd_readwrite.file_descriptor = (__wasi_fd_t)p[i].fd;
  }
  if (timeout >= 0) { // a relative time limit on the monotonic clock
    __wasi_subscription_t *s = &in[n++];
    s->userdata = UINT64_MAX;
    s->type = __WASI_EVENTTYPE_CLOCK;
    s->u.clock.id = __WASI_CLOCKID_MONOTONIC;
    s->u.clock.timeout = (__wasi_timestamp_t)timeout * 1000000u;
    s->u.clock.precision = 0;
    s->u.clock.flags = 0;
  }
  if (n == 0) return 0;
  __wasi_size_t got = 0;
  const __wasi_errno_t error = __wasi_poll_oneoff(in, out, n, &got);
  if (error != 0) return -(long)error;
  long ready = 0;
  for (__wasi_size_t e = 0; e < got; e++) {
    if (out[e].userdata == UINT64_MAX) continue; // the time limit
    struct pollfd *q = &p[out[e].userdata];
    if (out[e].error != 0) q->revents |= POLLERR;
    else if (out[e].type == __WASI_EVENTTYPE_FD_READ) q->revents |= POLLIN;
    else q->revents |= POLLOUT;
    if (out[e].type != __WASI_EVENTTYPE_CLOCK &&
        (out[e].u.fd_readwrite.flags & __WASI_EVENTRWFLAGS_FD_READWRITE_HANGUP))
      q->revents |= POLLHUP;
    ready++;
  }
  return ready;
}

long __syscall_getcwd(long buf, long size) {
  if (size < 2) return -ERANGE;
  ((char *)buf)[0] = '/';
  ((char *)buf)[1] = '\0';
  return 2;
}

// Told when the memory grows (emscripten's JavaScript keeps views of it): nothing to do here.
void emscripten_notify_memory_growth(size_t memory_index) {}
