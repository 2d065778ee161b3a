/* asyncfix.h from strict C99 (-std=c99 -Wall -Wextra -Werror -pedantic), linked against the
 * shared library: the one-call functions, a handle's accessors, an error, and a run over the file
 * named by the first argument (a file with a `.cuda(async=True)`, read only), as a C program
 * would use them. Exit status 0 when everything holds; each failure is printed. */
#include <stdio.h>
#include <string.h>

#include "asyncfix.h"

static int failures = 0;

#define EXPECT(condition)                                                                                              \
  do {                                                                                                                 \
    if (!(condition)) {                                                                                                \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #condition);                                         \
      ++failures;                                                                                                      \
    }                                                                                                                  \
  } while (0)

int main(int argc, char **argv) {
  static const char src[] = "x.cuda(async=True)\n";
  char *json;
  char *fixed;
  asyncfix_linter *linter;
  asyncfix_report *report;
  asyncfix_position start;
  asyncfix_position end;
  const char *paths[2];
  char *messages = NULL;

  EXPECT(strlen(asyncfix_version()) > 0);
  EXPECT(asyncfix_abi_version() == ASYNCFIX_ABI_VERSION);

  json = asyncfix_check_json(src, sizeof src - 1, "legacy.py", "{\"select\":[\"AF1\"],\"target-version\":\"py38\"}");
  EXPECT(json != NULL);
  if (json != NULL) {
    EXPECT(strstr(json, "\"code\": \"AF101\"") != NULL);
    EXPECT(strstr(json, "\"filename\": \"legacy.py\"") != NULL);
  }
  asyncfix_string_free(json);

  fixed = asyncfix_fix(src, sizeof src - 1, "legacy.py", NULL, 0);
  EXPECT(fixed != NULL && strcmp(fixed, "x.cuda(non_blocking=True)\n") == 0);
  asyncfix_string_free(fixed);

  EXPECT(asyncfix_check_json(src, sizeof src - 1, "legacy.py", "{\"select\":[\"AF999\"]}") == NULL);
  EXPECT(asyncfix_last_error() != NULL && strstr(asyncfix_last_error(), "AF999") != NULL);
  EXPECT(asyncfix_last_error_code() == ASYNCFIX_ERROR_OPTIONS);

  linter = asyncfix_linter_new(NULL);
  EXPECT(linter != NULL);
  report = asyncfix_linter_check(linter, src, sizeof src - 1, "legacy.py");
  EXPECT(report != NULL && asyncfix_report_count(report) == 1);
  EXPECT(asyncfix_diagnostic_range(report, 0, ASYNCFIX_ENCODING_UTF32, &start, &end) == ASYNCFIX_OK);
  EXPECT(start.line == 0 && start.column == 7 && end.column == 12);
  EXPECT(asyncfix_diagnostic_fix_applicability(report, 0) == ASYNCFIX_FIX_SAFE);
  asyncfix_report_free(report);
  asyncfix_linter_free(linter);

  EXPECT(argc == 2);
  if (argc == 2) {
    paths[0] = argv[1];
    paths[1] = "missing-file.py";
    json = asyncfix_run(paths, 2, "{\"select\":[\"AF101\"],\"isolated\":true}", ASYNCFIX_RUN_CHECK, &messages);
    EXPECT(json != NULL && messages != NULL);
    if (json != NULL) EXPECT(strstr(json, "\"code\": \"AF101\"") != NULL && strstr(json, argv[1]) != NULL);
    if (messages != NULL) EXPECT(strncmp(messages, "error: missing-file.py: ", 24) == 0);
    asyncfix_string_free(json);
    asyncfix_string_free(messages);
    EXPECT(asyncfix_run(paths, 1, "{\"jobs\":-1}", ASYNCFIX_RUN_CHECK, &messages) == NULL && messages == NULL);
    EXPECT(asyncfix_last_error_code() == ASYNCFIX_ERROR_OPTIONS);
  }

  if (failures == 0) printf("asyncfix %s: C99 API ok\n", asyncfix_version());
  return failures == 0 ? 0 : 1;
}
