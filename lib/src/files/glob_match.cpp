// glob_match.cpp — fnmatch(3) for Windows, which has none (asyncfix/platform.h's globMatch; POSIX
// builds call the C library's). Only what the configuration's globs use: `*`, `?`, bracket
// expressions (`[abc]`, `[a-z]`, `[!x]`/`[^x]`), `\` quoting, FNM_PATHNAME and FNM_PERIOD.
#include "asyncfix/platform.h"

#include <cstring>

namespace asyncfix {
namespace {

/// Whether `c` is in the bracket expression starting at `p` (just after `[`); `end` is set past
/// its `]`. A `[` without its `]` is nullptr in `end` (the `[` then matches itself).
bool inBracket(const char *p, char c, bool pathname, const char *&end) {
  const bool negated = *p == '!' || *p == '^';
  if (negated) ++p;
  bool found = false;
  bool first = true;
  for (; *p != '\0' && (first || *p != ']'); first = false) {
    char low = *p++;
    if (low == '\\' && *p != '\0') low = *p++;
    char high = low;
    if (*p == '-' && p[1] != ']' && p[1] != '\0') {
      high = p[1];
      p += 2;
      if (high == '\\' && *p != '\0') high = *p++;
    }
    if (static_cast<unsigned char>(c) >= static_cast<unsigned char>(low) &&
        static_cast<unsigned char>(c) <= static_cast<unsigned char>(high))
      found = true;
  }
  if (*p != ']') {
    end = nullptr;
    return false;
  }
  end = p + 1;
  if (pathname && c == '/') return false;
  return found != negated;
}

/// `*p` at the start of the text or after a `/` (with FNM_PATHNAME): where FNM_PERIOD applies.
bool leadingPeriod(const char *text, const char *s, int flags) {
  if ((flags & kGlobPeriod) == 0 || *s != '.') return false;
  return s == text || ((flags & kGlobPathname) != 0 && s[-1] == '/');
}

bool match(const char *p, const char *s, const char *text, int flags) {
  const bool pathname = (flags & kGlobPathname) != 0;
  for (; *p != '\0'; ++p) {
    switch (*p) {
    case '?':
      if (*s == '\0' || (pathname && *s == '/') || leadingPeriod(text, s, flags)) return false;
      ++s;
      break;
    case '*': {
      while (p[1] == '*') ++p;
      if (leadingPeriod(text, s, flags)) return false;
      for (const char *t = s;; ++t) { // the star takes t - s characters
        if (match(p + 1, t, text, flags)) return true;
        if (*t == '\0' || (pathname && *t == '/')) return false;
      }
    }
    case '[': {
      const char *end = nullptr;
      if (*s == '\0' || leadingPeriod(text, s, flags)) return false;
      const bool in = inBracket(p + 1, *s, pathname, end);
      if (end == nullptr) { // no `]`: a literal `[`
        if (*s != '[') return false;
        ++s;
        break;
      }
      if (!in) return false;
      ++s;
      p = end - 1;
      break;
    }
    case '\\':
      if (p[1] != '\0') ++p;
      [[fallthrough]];
    default:
      if (*s != *p) return false;
      ++s;
    }
  }
  return *s == '\0';
}

} // namespace

bool globMatch(const char *pattern, const char *text, int flags) { return match(pattern, text, text, flags); }

} // namespace asyncfix
