/* capi_test.c — asyncfix.dll through its C API, under wine (tests/windows, label `windows`):
 * loaded as a program that links its import library loads it, then a check, a fix, a CRLF text
 * fixed byte for byte, threads' last errors, and a bad configuration's error. Prints
 * "capi: ok" and exits 0, or says what failed and exits 1. */
#include <stdio.h>
#include <string.h>
#include <windows.h>

#include "asyncfix.h"

static int failures = 0;

#define CHECK(cond, what)                                                                                              \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      printf("capi: FAILED: %s (line %d)\n", what, __LINE__);                                                          \
      ++failures;                                                                                                      \
    }                                                                                                                  \
  } while (0)

static DWORD WINAPI worker(LPVOID arg) {
  /* Each thread's own linter and last error; the thread then ends (its state must not crash it). */
  const char *src = "x.cuda(async=True)\n";
  asyncfix_linter *linter = asyncfix_linter_new(NULL);
  asyncfix_report *report = linter ? asyncfix_linter_check(linter, src, strlen(src), "t.py") : NULL;
  *(size_t *)arg = report ? asyncfix_report_count(report) : 0;
  asyncfix_report_free(report);
  asyncfix_linter_free(linter);
  return 0;
}

int main(void) {
  CHECK(asyncfix_abi_version() == ASYNCFIX_ABI_VERSION, "the DLL's ABI is the header's");
  CHECK(strcmp(asyncfix_version(), "0.1.0") >= 0, "a version");

  const char *src = "import torch\n\ndef f(x):\n    return x.cuda(async=True)\n";
  asyncfix_linter *linter = asyncfix_linter_new(NULL);
  CHECK(linter != NULL, "asyncfix_linter_new");
  asyncfix_report *report = asyncfix_linter_check(linter, src, strlen(src), "m.py");
  CHECK(report != NULL && asyncfix_report_count(report) == 1, "one finding");
  if (report && asyncfix_report_count(report) == 1)
    CHECK(strcmp(asyncfix_diagnostic_code(report, 0), "AF101") == 0, "it is AF101");
  asyncfix_report_free(report);

  const char crlf[] = "import torch\r\n\r\ny = x.cuda(async=True)\r\n";
  const char want[] = "import torch\r\n\r\ny = x.cuda(non_blocking=True)\r\n";
  size_t len = 0;
  char *fixed = asyncfix_linter_fix(linter, crlf, sizeof crlf - 1, "c.py", 0, &len);
  CHECK(fixed != NULL && len == sizeof want - 1 && memcmp(fixed, want, len) == 0, "a CRLF text fixed byte for byte");
  asyncfix_string_free(fixed);
  asyncfix_linter_free(linter);

  CHECK(asyncfix_linter_new("{\"select\": 5}") == NULL, "bad options refused");
  CHECK(asyncfix_last_error() != NULL && asyncfix_last_error_code() != 0, "with a last error");

  size_t counts[4] = {0, 0, 0, 0};
  HANDLE threads[4];
  for (int i = 0; i < 4; ++i) threads[i] = CreateThread(NULL, 0, worker, &counts[i], 0, NULL);
  WaitForMultipleObjects(4, threads, TRUE, INFINITE);
  for (int i = 0; i < 4; ++i) {
    CHECK(counts[i] == 1, "each thread's finding");
    CloseHandle(threads[i]);
  }
  if (failures == 0) printf("capi: ok\n");
  return failures == 0 ? 0 : 1;
}
