/* What the portable artefacts need of glibc newer than 2.17, for manylinux2014 (issue 31).

   Linked into the commands and the Python package's library when ASYNCFIX_GLIBC_2_17 is on
   (scripts/build-manylinux.sh): each definition here has hidden visibility, so the code of the
   same file (and the static libstdc++ linked into it) binds to it instead of to glibc's newer
   symbol version, and it is never exported. Each one needs only glibc 2.17:

   - getdents64 (2.30; lib/src/run/walk.cpp) and renameat2 (2.28; lib/src/run/module_renames.cpp)
     are the system calls themselves, as glibc's wrappers are (renameat2 without flags is
     renameat, as in glibc; with flags, a kernel older than 3.15 says ENOSYS, as under glibc).
   - pthread_cond_clockwait (2.30) is what libstdc++'s headers call for condition_variable waits on
     steady_clock. It waits on CLOCK_REALTIME for the same remaining time, which is what libstdc++
     does where the function is missing (a wall-clock jump during the wait shortens or lengthens
     it; the caller's loop re-checks its own clock). Condition variables with the default clock
     only, as std::condition_variable's are.

   Destructors of thread_local objects for a glibc older than 2.18:

   When a thread_local object with a destructor is first used, the compiler registers that
   destructor through libstdc++'s __cxa_thread_atexit, which hands it to glibc's
   __cxa_thread_atexit_impl. That function appeared in glibc 2.18, so linking libstdc++ statically
   (as the portable artefacts do) pulls in a GLIBC_2.18 symbol version and the files can no longer
   claim manylinux2014 (glibc 2.17). Linked into those files (CMake option ASYNCFIX_GLIBC_2_17),
   the definition below is the one the static libstdc++ binds to: one pthread key whose
   destructor runs the calling thread's list when the thread ends.

   - Destructors run in the reverse order of their registration, each once; a destructor may
     register more (a thread_local first used during another's destruction): those run too.
   - The main thread does not end through pthread_exit when the process exits, so its list runs
     from an atexit handler, registered when the main thread registers its first destructor.
   - glibc's version also keeps the registering shared object loaded until its destructors have
     run (the dso argument). This one does not: the library must not be unloaded while a thread
     that used it still runs. The Python package (ctypes) never unloads it, nor do the commands.

   The system's headers are included without _GNU_SOURCE, so that they declare none of these
   functions with glibc's default visibility. */

#undef _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define ASYNCFIX_HIDDEN __attribute__((visibility("hidden")))

ASYNCFIX_HIDDEN ssize_t getdents64(int fd, void *buffer, size_t length);
ASYNCFIX_HIDDEN int renameat2(int old_dir, const char *old_path, int new_dir, const char *new_path, unsigned int flags);
ASYNCFIX_HIDDEN int pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                                           const struct timespec *deadline);
ASYNCFIX_HIDDEN int __cxa_thread_atexit_impl(void (*dtor)(void *), void *object, void *dso);

ssize_t getdents64(int fd, void *buffer, size_t length) { return syscall(SYS_getdents64, fd, buffer, length); }

int renameat2(int old_dir, const char *old_path, int new_dir, const char *new_path, unsigned int flags) {
  if (flags == 0) {
    return renameat(old_dir, old_path, new_dir, new_path);
  }
  return (int)syscall(SYS_renameat2, old_dir, old_path, new_dir, new_path, flags);
}

int pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                           const struct timespec *deadline) {
  if (clock == CLOCK_REALTIME) {
    return pthread_cond_timedwait(cond, mutex, deadline);
  }
  if (clock != CLOCK_MONOTONIC || deadline->tv_nsec < 0 || deadline->tv_nsec >= 1000000000L) {
    return EINVAL;
  }
  struct timespec now, wall;
  clock_gettime(CLOCK_MONOTONIC, &now);
  clock_gettime(CLOCK_REALTIME, &wall);
  long long left = ((long long)deadline->tv_sec - now.tv_sec) * 1000000000LL + (deadline->tv_nsec - now.tv_nsec);
  if (left < 0) {
    left = 0;
  }
  long long nanoseconds = wall.tv_nsec + left % 1000000000LL;
  struct timespec until;
  until.tv_sec = wall.tv_sec + (time_t)(left / 1000000000LL) + (time_t)(nanoseconds / 1000000000LL);
  until.tv_nsec = (long)(nanoseconds % 1000000000LL);
  return pthread_cond_timedwait(cond, mutex, &until);
}

struct asyncfix_tls_dtor {
  void (*dtor)(void *);
  void *object;
  struct asyncfix_tls_dtor *next;
};

static pthread_key_t asyncfix_tls_key;
static pthread_once_t asyncfix_tls_once = PTHREAD_ONCE_INIT;
static int asyncfix_tls_key_ok;
static int asyncfix_tls_main_registered;
static _Thread_local struct asyncfix_tls_dtor *asyncfix_tls_list;

static void asyncfix_tls_run(void) {
  struct asyncfix_tls_dtor *entry;
  while ((entry = asyncfix_tls_list) != NULL) {
    asyncfix_tls_list = entry->next;
    entry->dtor(entry->object);
    free(entry);
  }
}

static void asyncfix_tls_key_dtor(void *value) {
  (void)value;
  asyncfix_tls_run();
}

static int asyncfix_tls_is_main_thread(void) { return syscall(SYS_gettid) == getpid(); }

static void asyncfix_tls_init(void) {
  asyncfix_tls_key_ok = pthread_key_create(&asyncfix_tls_key, asyncfix_tls_key_dtor) == 0;
}

int __cxa_thread_atexit_impl(void (*dtor)(void *), void *object, void *dso) {
  (void)dso;
  pthread_once(&asyncfix_tls_once, asyncfix_tls_init);
  if (!asyncfix_tls_key_ok) {
    return -1;
  }
  struct asyncfix_tls_dtor *entry = malloc(sizeof *entry);
  if (entry == NULL) {
    return -1;
  }
  entry->dtor = dtor;
  entry->object = object;
  entry->next = asyncfix_tls_list;
  asyncfix_tls_list = entry;
  /* A non-null value makes the key's destructor run when this thread ends. */
  if (pthread_setspecific(asyncfix_tls_key, entry) != 0) {
    asyncfix_tls_list = entry->next;
    free(entry);
    return -1;
  }
  if (!asyncfix_tls_main_registered && asyncfix_tls_is_main_thread()) {
    asyncfix_tls_main_registered = 1; /* only the main thread reads or writes it */
    atexit(asyncfix_tls_run);
  }
  return 0;
}
