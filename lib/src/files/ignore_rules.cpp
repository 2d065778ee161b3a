#include "files/ignore_rules.h"

#include "files/wildmatch.h"

namespace asyncfix {
namespace {

/// Drops the spaces at the end of a line, except one escaped with a backslash (`foo\ `).
std::string_view trimTrailingSpaces(std::string_view line) {
  std::size_t keep = 0; // the length up to the last character that stays
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\') {
      ++i; // the escaped character stays, whatever it is
      keep = i < line.size() ? i + 1 : line.size();
    } else if (line[i] != ' ') {
      keep = i + 1;
    }
  }
  return line.substr(0, keep);
}

IgnorePattern compile(std::string_view text) {
  IgnorePattern p;
  if (text.front() == '!') {
    p.negated = true;
    text.remove_prefix(1);
  }
  if (!text.empty() && text.back() == '/') {
    p.directoryOnly = true;
    text.remove_suffix(1);
  }
  // A `/` at the start or in the middle anchors the pattern to the file's base; without one it
  // matches a name at any depth below the base.
  p.nameOnly = text.find('/') == std::string_view::npos;
  if (!p.nameOnly && text.front() == '/') text.remove_prefix(1);
  p.glob = std::string(text);
  if (isLiteralPattern(text)) {
    p.kind = IgnorePattern::Kind::Literal;
    p.literal = p.glob;
  } else if (p.nameOnly && text.size() > 1 && text.front() == '*' && isLiteralPattern(text.substr(1))) {
    p.kind = IgnorePattern::Kind::Suffix;
    p.literal = std::string(text.substr(1));
  } else if (!p.nameOnly) {
    while (p.literalPrefix < text.size() && isLiteralPattern(text.substr(p.literalPrefix, 1))) ++p.literalPrefix;
  }
  return p;
}

} // namespace

IgnoreRules::IgnoreRules(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (line.empty() || line.front() == '#') continue;
    if (line.back() == '\r') line.remove_suffix(1);
    line = trimTrailingSpaces(line);
    if (line.empty() || line == "!") continue; // an empty pattern matches nothing
    patterns_.push_back(compile(line));
  }
}

bool IgnoreRules::matches(const IgnorePattern &pattern, std::string_view path, std::string_view name) {
  const std::string_view subject = pattern.nameOnly ? name : path;
  switch (pattern.kind) {
  case IgnorePattern::Kind::Literal: return subject == pattern.literal;
  case IgnorePattern::Kind::Suffix: return subject.ends_with(pattern.literal);
  case IgnorePattern::Kind::Glob: break;
  }
  const std::size_t prefix = pattern.literalPrefix;
  if (prefix == 0) return wildmatch(pattern.glob, subject);
  return subject.starts_with(std::string_view(pattern.glob).substr(0, prefix)) &&
         wildmatch(std::string_view(pattern.glob).substr(prefix), subject.substr(prefix));
}

} // namespace asyncfix
