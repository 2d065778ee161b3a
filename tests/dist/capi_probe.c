/* The wheel's library through its C API, for tests/dist/test_aarch64.py: built for x86_64 here and
 * for aarch64 in the bullseye root, each run on its own wheel's library; their outputs must be
 * equal byte for byte.
 *
 *   capi_probe LIBRARY FILE...
 *
 * Prints the library's version, then for each file (named by its base name) the JSON of
 * asyncfix_check_json and the text of asyncfix_fix with unsafe fixes (or "(failed)"). Loads the
 * library with dlopen, as the Python package does with ctypes. Exit 1 when it cannot. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef const char *(*version_fn)(void);
typedef char *(*check_fn)(const char *, size_t, const char *, const char *);
typedef char *(*fix_fn)(const char *, size_t, const char *, const char *, int);
typedef void (*free_fn)(char *);

static void *symbol(void *library, const char *name) {
  void *found = dlsym(library, name);
  if (!found) {
    fprintf(stderr, "capi_probe: no %s in the library\n", name);
    exit(1);
  }
  return found;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(1);
  }
  size_t cap = 1 << 16, n = 0, got;
  char *text = malloc(cap);
  while (text && (got = fread(text + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) text = realloc(text, cap *= 2);
  }
  fclose(f);
  if (!text) exit(1);
  *len = n;
  return text;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: capi_probe LIBRARY FILE...\n");
    return 2;
  }
  void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    fprintf(stderr, "capi_probe: %s\n", dlerror());
    return 1;
  }
  version_fn version = (version_fn)symbol(library, "asyncfix_version");
  check_fn check = (check_fn)symbol(library, "asyncfix_check_json");
  fix_fn fix = (fix_fn)symbol(library, "asyncfix_fix");
  free_fn release = (free_fn)symbol(library, "asyncfix_string_free");
  printf("version %s\n", version());
  for (int i = 2; i < argc; ++i) {
    size_t len;
    char *src = slurp(argv[i], &len);
    const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
    char *json = check(src, len, name, NULL);
    char *fixed = fix(src, len, name, NULL, 1);
    /* (a failure is output too: both libraries must refuse the same inputs) */
    printf("=== %s\n%s=== %s fixed\n%s\n", name, json ? json : "(failed)\n", name, fixed ? fixed : "(failed)");
    release(json);
    release(fixed);
    free(src);
  }
  return 0;
}
