// ignore_rules.h — the patterns of one ignore file (a `.gitignore`, `.git/info/exclude` or the
// user's `core.excludesFile`), compiled once, and the question "what does this file say about
// that path?". Private. Knows the syntax of the files (`man gitignore`); knows nothing about
// where they live, which of them apply, or the filesystem: that is gitignore.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace asyncfix {

/// One line of an ignore file.
struct IgnorePattern {
  enum class Kind {
    Glob,    ///< wildmatch
    Literal, ///< no wildcard: equality
    Suffix,  ///< `*` then literal text, matched against a name: ends-with
  };
  std::string glob;    ///< without `!`, the leading `/` of an anchored pattern and the trailing `/`
  std::string literal; ///< Literal: glob itself; Suffix: the text after the `*`
  /// Glob with a `/`: the length of its leading text without wildcards. git compares that part
  /// as text and wildmatches the rest on its own, so a `**` right after it counts as a whole
  /// path component (`a**/**` matches `a` and `ab`); matching the same way gives git's answers.
  std::size_t literalPrefix = 0;
  Kind kind = Kind::Glob;
  bool negated = false;       ///< `!pattern`: re-includes what an earlier pattern excluded
  bool directoryOnly = false; ///< `pattern/`: matches directories only
  bool nameOnly = false;      ///< no `/` (a trailing one aside): matches the last component, at any depth
};

/// What an ignore file (or several) says about a path.
enum class IgnoreVerdict { Unspecified, Ignored, Included };

/// The patterns of one ignore file, in file order.
class IgnoreRules {
public:
  IgnoreRules() = default;
  /// Parses the text of an ignore file: one pattern a line (LF or CRLF), a leading UTF-8 BOM
  /// skipped, blank lines and `#` comments skipped, trailing spaces dropped unless escaped (`\ `),
  /// `\#` and `\!` for a literal leading `#` or `!`.
  explicit IgnoreRules(std::string_view text);

  bool empty() const { return patterns_.empty(); }
  const std::vector<IgnorePattern> &patterns() const { return patterns_; }

  /// The last pattern that matches decides. `path` is relative to the ignore file's base (the
  /// directory holding a `.gitignore`; the work tree's root for the others), `/`-separated;
  /// `name` is its last component. `isDirectory` is called only when a directory-only pattern
  /// would otherwise match (so a caller can stat lazily).
  template <class IsDirectory>
  IgnoreVerdict verdict(std::string_view path, std::string_view name, IsDirectory &&isDirectory) const {
    for (auto it = patterns_.rbegin(); it != patterns_.rend(); ++it) {
      if (!matches(*it, path, name)) continue;
      if (it->directoryOnly && !isDirectory()) continue;
      return it->negated ? IgnoreVerdict::Included : IgnoreVerdict::Ignored;
    }
    return IgnoreVerdict::Unspecified;
  }

  /// Whether the pattern's text matches (directory-only is the caller's business).
  static bool matches(const IgnorePattern &pattern, std::string_view path, std::string_view name);

private:
  std::vector<IgnorePattern> patterns_;
};

} // namespace asyncfix
