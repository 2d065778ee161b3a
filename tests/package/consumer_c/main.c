/* A C program built with `pkg-config --cflags --libs asyncfix` against an installed asyncfix
 * (tests/package): prints the version, the JSON of its argument and the fixed text. */
#include <stdio.h>
#include <string.h>

#include <asyncfix.h>

int main(int argc, char **argv) {
  const char *src = argc > 1 ? argv[1] : "x.cuda(async=True)\n";
  char *json = asyncfix_check_json(src, strlen(src), "consumer.py", NULL);
  char *fixed = asyncfix_fix(src, strlen(src), "consumer.py", NULL, 0);
  if (json == NULL || fixed == NULL) {
    fprintf(stderr, "error: %s\n", asyncfix_last_error());
    return 2;
  }
  printf("%s\n%s%s", asyncfix_version(), json, fixed);
  asyncfix_string_free(json);
  asyncfix_string_free(fixed);
  return 0;
}
