/* asyncfix.h — the C API of asyncfix: find and fix Python code broken by Python 3.7's `async`
 * and `await` keywords, from C or any language with a C FFI (ctypes, cffi, …).
 *
 * Plain C99. Link with `pkg-config --cflags --libs asyncfix` or CMake's asyncfix::asyncfix.
 *
 * Conventions
 * -----------
 * - Text in is UTF-8, given as a pointer and a length in bytes (it need not be NUL-terminated).
 *   `path` is a NUL-terminated name used in output, to pick notebook handling (a name ending in
 *   `.ipynb` makes the text a Jupyter notebook's JSON) and to match `per-file-ignores`; nothing is
 *   read from disk and no configuration file is looked up. NULL means "-". (Two parts read the
 *   disk: asyncfix_project_check() its configuration files, asyncfix_run() whole projects.)
 * - `options_json` is NULL (the defaults) or a NUL-terminated JSON object with the configuration
 *   file's keys: {"select": ["AF1"], "ignore": ["AF104"], "extend-select": [...],
 *   "target-version": "py38", "rename-style": "is_async", "unsafe-fixes": true,
 *   "severity": {"AF101": "warning"}, "per-file-ignores": {...}, "renames": {...}}.
 * - Strings returned as `char *` are owned by the caller and released with asyncfix_string_free().
 *   Strings returned as `const char *` are owned by the library: static ones live as long as the
 *   program, those of a handle as long as the handle.
 * - Handles (asyncfix_linter, asyncfix_report, asyncfix_document, asyncfix_project) are created by a `_new` or
 *   `_check` function and released with their `_free` function (which accepts NULL).
 * - Errors: a function that fails returns NULL (or a nonzero asyncfix_status) and records the
 *   reason for the calling thread, read with asyncfix_last_error() / asyncfix_last_error_code().
 *   Every function that can fail clears that record when it succeeds. No C++ exception ever
 *   leaves the library.
 * - Thread safety: an asyncfix_linter is immutable once made and may be used by many threads at
 *   once; a report may be read by many threads at once; a document belongs to one thread at a
 *   time. The last-error record is per thread.
 */
#ifndef ASYNCFIX_H
#define ASYNCFIX_H

#include <stddef.h>
#include <stdint.h>

#include "asyncfix/export.h"

/* The version of this interface. It changes when a function is removed or changes its meaning,
 * or when a type of the C++ API (the headers in asyncfix/) changes its layout (added functions
 * keep it); compare it with asyncfix_abi_version() to detect a mismatched library. It is also
 * the shared library's SONAME suffix: libasyncfix.so.<ASYNCFIX_ABI_VERSION>. 4: Config, Fix and
 * RenameRow grew fields for the project-wide renames. 5: ResolvedConfig and ConfigOverrides grew
 * docsUrl. 6: Diagnostic grew lineReferences. */
#define ASYNCFIX_ABI_VERSION 6

#ifdef __cplusplus
extern "C" {
#endif

/* ---- versions and errors ------------------------------------------------------------------ */

/* Why the last failing call on this thread failed. */
typedef enum asyncfix_status {
  ASYNCFIX_OK = 0,
  ASYNCFIX_ERROR_ARGUMENT = 1, /* a NULL handle, an index out of range, NULL text with a length */
  ASYNCFIX_ERROR_OPTIONS = 2,  /* options_json is not valid JSON or has a wrong key or value */
  ASYNCFIX_ERROR_INPUT = 3,    /* the text is not UTF-8, holds a NUL byte, or is a broken notebook */
  ASYNCFIX_ERROR_MEMORY = 4,   /* out of memory */
  ASYNCFIX_ERROR_INTERNAL = 5, /* a bug in asyncfix: please report it */
  ASYNCFIX_ERROR_CONFIG = 6    /* a configuration file that applies is invalid (asyncfix_project_check) */
} asyncfix_status;

/* The library's version, "0.1.0". Static. */
ASYNCFIX_API const char *asyncfix_version(void);
/* The ASYNCFIX_ABI_VERSION the library was built with. */
ASYNCFIX_API int asyncfix_abi_version(void);
/* The message of the last failure on this thread ("options: unknown rule code `AF999` in
 * `select`"), or NULL when the last call that can fail succeeded. Valid until the next call into
 * the library on this thread. */
ASYNCFIX_API const char *asyncfix_last_error(void);
/* The asyncfix_status of the last failure on this thread (ASYNCFIX_OK after a success). */
ASYNCFIX_API int asyncfix_last_error_code(void);

/* ---- one-call functions --------------------------------------------------------------------- */

/* The diagnostics of `src` as the JSON array that `asyncfix check --output-format json` prints
 * (one object per diagnostic: code, name, message, severity, filename, location, end_location,
 * fix, url; a notebook's objects carry "cell"). "[]\n" when there is nothing to report. NULL on
 * failure (invalid options or input). Free the result with asyncfix_string_free(). */
ASYNCFIX_API char *asyncfix_check_json(const char *src, size_t len, const char *path, const char *options_json);

/* The whole text of `src` with its fixes applied: safe fixes, and unsafe ones too when `unsafe`
 * is nonzero or the options say "unsafe-fixes": true. Every fix is verified by re-parsing, and
 * fixing the result again changes nothing. The input unchanged when there is nothing to fix. NULL
 * on failure. Free the result with asyncfix_string_free(). */
ASYNCFIX_API char *asyncfix_fix(const char *src, size_t len, const char *path, const char *options_json, int unsafe);

/* Releases a string returned by this library. NULL is allowed. */
ASYNCFIX_API void asyncfix_string_free(char *s);

/* ---- linters ---------------------------------------------------------------------------------- */

/* A configured set of rules; make one per configuration and keep it. */
typedef struct asyncfix_linter asyncfix_linter;
/* The diagnostics of one text. */
typedef struct asyncfix_report asyncfix_report;
/* A text kept parsed between edits, for editors. */
typedef struct asyncfix_document asyncfix_document;

/* A linter for these options (NULL: the defaults); "per-file-ignores" are matched against the
 * path of each check. NULL on failure. */
ASYNCFIX_API asyncfix_linter *asyncfix_linter_new(const char *options_json);
ASYNCFIX_API void asyncfix_linter_free(asyncfix_linter *linter);

/* Lints `src` as the file `path`. NULL on failure. */
ASYNCFIX_API asyncfix_report *asyncfix_linter_check(const asyncfix_linter *linter, const char *src, size_t len,
                                                    const char *path);
/* Like asyncfix_fix() with this linter's rules; `*out_len` (when not NULL) receives the length of
 * the result, which is also NUL-terminated. */
ASYNCFIX_API char *asyncfix_linter_fix(const asyncfix_linter *linter, const char *src, size_t len, const char *path,
                                       int unsafe, size_t *out_len);

/* ---- reports ---------------------------------------------------------------------------------- */

typedef enum asyncfix_severity {
  ASYNCFIX_SEVERITY_ERROR = 0,
  ASYNCFIX_SEVERITY_WARNING = 1,
  ASYNCFIX_SEVERITY_INFO = 2,
  ASYNCFIX_SEVERITY_HINT = 3
} asyncfix_severity;

typedef enum asyncfix_applicability {
  ASYNCFIX_FIX_NONE = -1, /* the diagnostic has no fix */
  ASYNCFIX_FIX_SAFE = 0,
  ASYNCFIX_FIX_UNSAFE = 1,
  ASYNCFIX_FIX_DISPLAY_ONLY = 2
} asyncfix_applicability;

/* The unit a column counts: bytes, UTF-16 code units (LSP's default) or code points. */
typedef enum asyncfix_encoding {
  ASYNCFIX_ENCODING_UTF8 = 0,
  ASYNCFIX_ENCODING_UTF16 = 1,
  ASYNCFIX_ENCODING_UTF32 = 2
} asyncfix_encoding;

/* A place in the text: 0-based line and column (in the encoding asked for). In a notebook, `cell`
 * is the 1-based number of the cell among all the notebook's cells and line/column count within
 * that cell's source; 0 in a plain file. */
typedef struct asyncfix_position {
  uint32_t cell;
  uint32_t line;
  uint32_t column;
} asyncfix_position;

ASYNCFIX_API void asyncfix_report_free(asyncfix_report *report);
/* Number of diagnostics (0 for NULL). */
ASYNCFIX_API size_t asyncfix_report_count(const asyncfix_report *report);
/* The report as asyncfix_check_json() prints it. NULL on failure. */
ASYNCFIX_API char *asyncfix_report_json(const asyncfix_report *report);

/* Diagnostic `index` (0 ≤ index < asyncfix_report_count()). Strings belong to the report; NULL
 * (ASYNCFIX_ERROR_ARGUMENT) for an index out of range. */
ASYNCFIX_API const char *asyncfix_diagnostic_code(const asyncfix_report *report, size_t index); /* "AF101" */
ASYNCFIX_API const char *asyncfix_diagnostic_name(const asyncfix_report *report,
                                                  size_t index); /* "torch-async-kwarg" */
ASYNCFIX_API const char *asyncfix_diagnostic_message(const asyncfix_report *report, size_t index);
/* An asyncfix_severity, or -1 for an index out of range. */
ASYNCFIX_API int asyncfix_diagnostic_severity(const asyncfix_report *report, size_t index);
/* The byte range [*start, *end) of the diagnostic in the text checked (a notebook's: in its
 * code cells joined, see asyncfix_diagnostic_range for cell positions). ASYNCFIX_OK or
 * ASYNCFIX_ERROR_ARGUMENT. */
ASYNCFIX_API int asyncfix_diagnostic_bytes(const asyncfix_report *report, size_t index, size_t *start, size_t *end);
/* Start and end positions of the diagnostic with columns in `encoding`. Either out pointer may be
 * NULL. ASYNCFIX_OK or ASYNCFIX_ERROR_ARGUMENT. */
ASYNCFIX_API int asyncfix_diagnostic_range(const asyncfix_report *report, size_t index, int encoding,
                                           asyncfix_position *start, asyncfix_position *end);
/* The fix's asyncfix_applicability (ASYNCFIX_FIX_NONE when there is none, or for a bad index). */
ASYNCFIX_API int asyncfix_diagnostic_fix_applicability(const asyncfix_report *report, size_t index);
/* The fix's title ("Replace `async=` with `non_blocking=`"), NULL when there is no fix. */
ASYNCFIX_API const char *asyncfix_diagnostic_fix_title(const asyncfix_report *report, size_t index);
/* Number of edits of the fix (0 when there is none). */
ASYNCFIX_API size_t asyncfix_diagnostic_edit_count(const asyncfix_report *report, size_t index);
/* Edit `edit` of the fix: replace bytes [*start, *end) by `*content` (`*content_len` bytes,
 * NUL-terminated, owned by the report). Any out pointer may be NULL. ASYNCFIX_OK or
 * ASYNCFIX_ERROR_ARGUMENT. */
ASYNCFIX_API int asyncfix_diagnostic_edit(const asyncfix_report *report, size_t index, size_t edit, size_t *start,
                                          size_t *end, const char **content, size_t *content_len);

/* ---- documents (editors) ---------------------------------------------------------------------- */

/* A copy of `src`, parsed. Edits re-parse incrementally. NULL on failure. */
ASYNCFIX_API asyncfix_document *asyncfix_document_new(const char *src, size_t len);
ASYNCFIX_API void asyncfix_document_free(asyncfix_document *document);
/* Replaces bytes [start, end) with `text` (`len` bytes); offsets are clamped to the text.
 * ASYNCFIX_OK or an asyncfix_status. */
ASYNCFIX_API int asyncfix_document_edit(asyncfix_document *document, size_t start, size_t end, const char *text,
                                        size_t len);
/* The current text (owned by the document, valid until the next edit); `*len` receives its length. */
ASYNCFIX_API const char *asyncfix_document_text(const asyncfix_document *document, size_t *len);
/* Lints the document's current tree (no re-parse) as the file `path`. NULL on failure. */
ASYNCFIX_API asyncfix_report *asyncfix_linter_check_document(const asyncfix_linter *linter,
                                                             const asyncfix_document *document, const char *path);

/* ---- projects (configuration files) ---------------------------------------------------------- */

/* Linters for the files of projects on disk, as the `asyncfix` command checks them: each check
 * takes the settings of the configuration file nearest to its path ([tool.asyncfix] in
 * pyproject.toml, asyncfix.toml or .asyncfix.toml, in the path's directory or above), with the
 * overrides given to asyncfix_project_new() on top. Unlike the rest of this API it reads files:
 * configuration files (cached per directory), never the checked text, which is given. One linter
 * is kept per distinct configuration. May be used by many threads at once. */
typedef struct asyncfix_project asyncfix_project;

/* `target_version` ("py38") and `rename_style` ("async_", "is_async" or a template such as
 * "{name}_flag") win over every configuration file; NULL leaves either to the files. NULL on
 * failure (ASYNCFIX_ERROR_OPTIONS: an unknown version or style). Release with
 * asyncfix_project_free(). */
ASYNCFIX_API asyncfix_project *asyncfix_project_new(const char *target_version, const char *rename_style);
ASYNCFIX_API void asyncfix_project_free(asyncfix_project *project);
/* Lints `src` as the file `path` (absolute, or relative to the current directory; NULL or "-":
 * standard input, configured from the current directory) with the settings that apply to it.
 * NULL on failure: ASYNCFIX_ERROR_CONFIG when the configuration file for `path` is invalid (the
 * message names its file, line and column), ASYNCFIX_ERROR_INPUT for text that cannot be linted.
 * The report is the caller's: release it with asyncfix_report_free(). */
ASYNCFIX_API asyncfix_report *asyncfix_project_check(asyncfix_project *project, const char *src, size_t len,
                                                     const char *path);

/* ---- runs (files and directories on disk) ----------------------------------------------------- */

/* What asyncfix_run() does to the files besides reporting what remains in them. */
typedef enum asyncfix_run_mode {
  ASYNCFIX_RUN_CHECK = 0, /* read only: `asyncfix check PATHS` */
  ASYNCFIX_RUN_FIX = 1    /* `asyncfix check --fix PATHS`: files written, modules renamed on disk */
} asyncfix_run_mode;

/* Runs asyncfix over the files and directories `paths` (`n` NUL-terminated paths, absolute or
 * relative to the current directory; n == 0 means ".") exactly as the command
 * `asyncfix check --output-format json [--fix] PATHS` does, and returns what it prints: the JSON
 * array of asyncfix_check_json(), for every file in path order ("[]\n" when nothing remains). It
 * is the command's run, not a copy of it: directories are walked with `exclude` and .gitignore,
 * each file takes the configuration file nearest to it, and the files are seen together (a
 * parameter renamed across files, a module named `async` renamed with its importers). With
 * ASYNCFIX_RUN_FIX the files are fixed on disk as `check --fix` fixes them (unsafe fixes too when
 * the options or the files' configuration say "unsafe-fixes": true) and the JSON lists what
 * remains. A path is never standard input ("-" is a file of that name).
 *
 * `options_json` is NULL (the command's defaults) or a NUL-terminated JSON object of the
 * command's options, which win over the configuration files: "select", "extend-select",
 * "ignore" (lists of rule selectors: codes, prefixes, "ALL"), "target-version" ("py38"),
 * "rename-style", "unsafe-fixes" (true: --unsafe-fixes; false: no unsafe fixes whatever the files
 * say), "respect-gitignore" (false: --no-respect-gitignore), "docs-url", "config" (one
 * configuration file for every file: --config), "isolated" (true: --isolated) and "jobs" (worker
 * threads; 0, the default: one per processor).
 *
 * `*messages`, when `messages` is not NULL, receives the lines the command writes on standard
 * error, each ending in a newline ("" when there are none): "error: …" for a path that cannot be
 * used, a file that cannot be read, decoded or written, an invalid configuration file or a module
 * that could not be renamed (the command exits 2 when there is one), "warning: …" for a fix that
 * was not applied. Free it with asyncfix_string_free() (it is NULL when the call fails).
 *
 * NULL on failure: ASYNCFIX_ERROR_ARGUMENT (paths NULL with n > 0, a NULL path, an unknown mode),
 * ASYNCFIX_ERROR_OPTIONS (invalid options_json). Problems with the files are not failures: they
 * are in `*messages`. Free the result with asyncfix_string_free(). */
ASYNCFIX_API char *asyncfix_run(const char *const *paths, size_t n, const char *options_json, int mode,
                                char **messages);

/* ---- the rule catalogue ----------------------------------------------------------------------- */

/* Number of rules. Rule `index` (sorted by code) has these static strings, NULL past the end. */
ASYNCFIX_API size_t asyncfix_rule_count(void);
ASYNCFIX_API const char *asyncfix_rule_code(size_t index);    /* "AF101" */
ASYNCFIX_API const char *asyncfix_rule_name(size_t index);    /* "torch-async-kwarg" */
ASYNCFIX_API const char *asyncfix_rule_summary(size_t index); /* one line */
ASYNCFIX_API const char *asyncfix_rule_doc(size_t index);     /* Markdown, as `asyncfix rule CODE` */
ASYNCFIX_API const char *asyncfix_rule_url(size_t index);

#ifdef __cplusplus
}
#endif

#endif /* ASYNCFIX_H */
