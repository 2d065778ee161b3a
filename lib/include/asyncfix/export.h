/* asyncfix/export.h — which declarations the shared library exports.
 *
 * The library is compiled with -fvisibility=hidden: only declarations marked ASYNCFIX_API (the
 * C API in asyncfix.h and the C++ API under asyncfix/) are visible to programs that link
 * libasyncfix.so. Everything else, the tree-sitter runtime and grammar included, stays private.
 * Plain C, so that asyncfix.h can include it from C99. */
#ifndef ASYNCFIX_EXPORT_H
#define ASYNCFIX_EXPORT_H

#if defined(_WIN32)
/* The same objects make the static library and the DLL: exported while the library is built. */
#if defined(ASYNCFIX_BUILDING)
#define ASYNCFIX_API __declspec(dllexport)
#elif defined(ASYNCFIX_SHARED)
#define ASYNCFIX_API __declspec(dllimport)
#else
#define ASYNCFIX_API
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define ASYNCFIX_API __attribute__((visibility("default")))
#else
#define ASYNCFIX_API
#endif

/* For the private parts of an exported class (a nested Impl): members of a class marked
 * ASYNCFIX_API are exported with it, and an internal refactor would otherwise change the ABI list. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)
#define ASYNCFIX_LOCAL __attribute__((visibility("hidden")))
#else
#define ASYNCFIX_LOCAL
#endif

#endif /* ASYNCFIX_EXPORT_H */
