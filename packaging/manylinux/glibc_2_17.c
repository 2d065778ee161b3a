/* Destructors of thread_local objects for a glibc older than 2.18 (issue 31: manylinux2014).

   When a thread_local object with a destructor is first used, the compiler registers that
   destructor through libstdc++'s __cxa_thread_atexit, which hands it to glibc's
   __cxa_thread_atexit_impl. That function appeared in glibc 2.18, so linking libstdc++ statically
   (as the portable artefacts do) pulls in a GLIBC_2.18 symbol version and the files can no longer
   claim manylinux2014 (glibc 2.17). Linked into those files (CMake option ASYNCFIX_GLIBC_2_17),
   this definition is the one the static libstdc++ binds to, and it needs only what glibc 2.2.5
   has: one pthread key whose destructor runs the calling thread's list when the thread ends.

   - Destructors run in the reverse order of their registration, each once; a destructor may
     register more (a thread_local first used during another's destruction): those run too.
   - The main thread does not end through pthread_exit when the process exits, so its list runs
     from an atexit handler, registered when the main thread registers its first destructor.
   - glibc's version also keeps the registering shared object loaded until its destructors have
     run (the dso argument). This one does not: the library must not be unloaded while a thread
     that used it still runs. The Python package (ctypes) never unloads it, nor do the commands.

   Hidden visibility: the symbol binds inside the file it is linked into and is never exported. */

#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

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

__attribute__((visibility("hidden"))) int __cxa_thread_atexit_impl(void (*dtor)(void *), void *object, void *dso) {
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
