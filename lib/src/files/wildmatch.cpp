#include "files/wildmatch.h"

#include <cstddef>

namespace asyncfix {
namespace {

/// How one attempt ended. Besides yes and no, two answers let an enclosing `*` stop trying later
/// starting points: the text ran out (starting later leaves even less text), or a `*` could not
/// get past a `/` (only an enclosing `**` may still succeed, by starting after that `/`). A
/// malformed set (`[a-` unterminated, `[[:nosuch:]]`) makes the whole pattern match nothing.
enum class Outcome { Match, NoMatch, TextExhausted, BlockedBySlash, Malformed };

bool inRange(unsigned char c, char low, char high) { return c >= low && c <= high; }

/// Whether `c` is in the POSIX class `name` (ASCII only, as git does). `known` is false for a
/// name that is no class.
bool inClass(std::string_view name, unsigned char c, bool &known) {
  known = true;
  const bool upper = inRange(c, 'A', 'Z'), lower = inRange(c, 'a', 'z'), digit = inRange(c, '0', '9');
  const bool graph = c > 0x20 && c < 0x7f;
  if (name == "alnum") return upper || lower || digit;
  if (name == "alpha") return upper || lower;
  if (name == "blank") return c == ' ' || c == '\t';
  if (name == "cntrl") return c < 0x20 || c == 0x7f;
  if (name == "digit") return digit;
  if (name == "graph") return graph;
  if (name == "lower") return lower;
  if (name == "print") return graph || c == ' ';
  if (name == "punct") return graph && !upper && !lower && !digit;
  if (name == "space") return c == ' ' || inRange(c, '\t', '\r');
  if (name == "upper") return upper;
  if (name == "xdigit") return digit || inRange(c, 'a', 'f') || inRange(c, 'A', 'F');
  known = false;
  return false;
}

bool isSpecial(char c) { return c == '*' || c == '?' || c == '[' || c == '\\'; }

class Matcher {
public:
  Matcher(std::string_view pattern, std::string_view text) : p_(pattern), t_(text) {}

  /// Matches p_[pi..] against t_[ti..].
  Outcome from(std::size_t pi, std::size_t ti) const {
    while (pi < p_.size()) {
      const char pc = p_[pi];
      if (pc == '*') return star(pi, ti);
      if (ti == t_.size()) return Outcome::TextExhausted;
      const char tc = t_[ti];
      if (pc == '[') {
        const Outcome set = inSet(pi, static_cast<unsigned char>(tc));
        if (set != Outcome::Match) return set;
        if (tc == '/') return Outcome::NoMatch;
      } else if (pc == '?') {
        if (tc == '/') return Outcome::NoMatch;
        ++pi;
      } else if (pc == '\\') {
        if (pi + 1 == p_.size() || p_[pi + 1] != tc) return Outcome::NoMatch;
        pi += 2;
      } else {
        if (pc != tc) return Outcome::NoMatch;
        ++pi;
      }
      ++ti;
    }
    return ti == t_.size() ? Outcome::Match : Outcome::NoMatch;
  }

private:
  /// A run of `*` at p_[pi]: which text it may take, then the rest of the pattern.
  Outcome star(std::size_t pi, std::size_t ti) const {
    const std::size_t begin = pi;
    while (pi < p_.size() && p_[pi] == '*') ++pi;
    const bool atEnd = pi == p_.size();
    // `**` is special only as a whole path component: after the start or a `/`, before the end
    // or a `/` (an escaped one too).
    const bool crossesSlashes = pi - begin >= 2 && (begin == 0 || p_[begin - 1] == '/') &&
                                (atEnd || p_[pi] == '/' || (p_[pi] == '\\' && pi + 1 < p_.size() && p_[pi + 1] == '/'));
    if (crossesSlashes && !atEnd && p_[pi] == '/') {
      // `**/` may stand for no directory at all: `a/**/b` matches `a/b`, `**/x` matches `x`.
      if (from(pi + 1, ti) == Outcome::Match) return Outcome::Match;
    }
    if (atEnd) {
      if (crossesSlashes) return Outcome::Match;
      return t_.find('/', ti) == std::string_view::npos ? Outcome::Match : Outcome::BlockedBySlash;
    }
    if (!crossesSlashes && p_[pi] == '/') {
      // `*/`: the star takes the rest of this path component, nothing else is possible.
      const std::size_t slash = t_.find('/', ti);
      return slash == std::string_view::npos ? Outcome::NoMatch : from(pi, slash);
    }
    // A literal next character: only the positions holding it are worth trying.
    const bool literalNext = !isSpecial(p_[pi]);
    for (;; ++ti) {
      if (literalNext) {
        while (ti < t_.size() && t_[ti] != p_[pi]) {
          if (!crossesSlashes && t_[ti] == '/') return Outcome::BlockedBySlash;
          ++ti;
        }
      }
      if (ti == t_.size()) return Outcome::TextExhausted;
      const Outcome rest = from(pi, ti);
      if (rest != Outcome::NoMatch) {
        if (!crossesSlashes || rest != Outcome::BlockedBySlash) return rest;
      } else if (!crossesSlashes && t_[ti] == '/') {
        return Outcome::BlockedBySlash; // a single star cannot take the `/`
      }
    }
  }

  /// A bracket set at p_[pi] (`[`) against the character c: Match (and pi moved past the `]`)
  /// when c is in it, NoMatch when not, Malformed when the set does not parse.
  Outcome inSet(std::size_t &pi, unsigned char c) const {
    std::size_t i = pi + 1;
    bool negated = false;
    if (i < p_.size() && (p_[i] == '!' || p_[i] == '^')) {
      negated = true;
      ++i;
    }
    bool in = false;
    int previous = -1; // the last single character: where a range `x-y` would start
    for (bool first = true;; first = false) {
      if (i >= p_.size()) return Outcome::Malformed;
      unsigned char pc = static_cast<unsigned char>(p_[i]);
      if (pc == ']' && !first) break;
      if (pc == '\\') {
        if (++i >= p_.size()) return Outcome::Malformed;
        pc = static_cast<unsigned char>(p_[i]);
      } else if (pc == '-' && previous >= 0 && i + 1 < p_.size() && p_[i + 1] != ']') {
        ++i;
        unsigned char high = static_cast<unsigned char>(p_[i]);
        if (high == '\\') {
          if (++i >= p_.size()) return Outcome::Malformed;
          high = static_cast<unsigned char>(p_[i]);
        }
        in = in || (c >= previous && c <= high);
        previous = -1;
        ++i;
        continue;
      } else if (pc == '[' && i + 1 < p_.size() && p_[i + 1] == ':') {
        // A class `[:name:]` runs to the first `]`; without a `:` before it the `[` is ordinary.
        const std::size_t close = p_.find(']', i + 2);
        if (close == std::string_view::npos) return Outcome::Malformed;
        if (close >= i + 3 && p_[close - 1] == ':') {
          bool known = false;
          in = inClass(p_.substr(i + 2, close - 1 - (i + 2)), c, known) || in;
          if (!known) return Outcome::Malformed;
          previous = -1;
          i = close + 1;
          continue;
        }
      }
      in = in || c == pc;
      previous = pc;
      ++i;
    }
    pi = i + 1;
    return in != negated ? Outcome::Match : Outcome::NoMatch;
  }

  std::string_view p_, t_;
};

} // namespace

bool wildmatch(std::string_view pattern, std::string_view text) {
  return Matcher(pattern, text).from(0, 0) == Outcome::Match;
}

bool isLiteralPattern(std::string_view pattern) {
  for (const char c : pattern)
    if (isSpecial(c)) return false;
  return true;
}

} // namespace asyncfix
