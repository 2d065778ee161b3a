#include "asyncfix/diagnostic.h"

#include "asyncfix/line_index.h"

namespace asyncfix {

std::string_view toString(Severity s) {
  switch (s) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Info: return "info";
  case Severity::Hint: return "hint";
  }
  return "error";
}

std::string_view toString(Applicability a) {
  switch (a) {
  case Applicability::Safe: return "safe";
  case Applicability::Unsafe: return "unsafe";
  case Applicability::DisplayOnly: return "display-only";
  }
  return "display-only";
}

std::string applyEdits(std::string_view text, const std::vector<TextEdit> &edits) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  for (const TextEdit &e : edits) {
    out.append(text.substr(pos, e.start - pos));
    out.append(e.content);
    pos = e.end;
  }
  out.append(text.substr(pos));
  return out;
}

void appendLineNumber(Diagnostic &d, const LineIndex &lines, std::size_t offset, std::string_view what) {
  const std::string number = std::to_string(lines.lineOf(offset) + 1);
  d.lineReferences.push_back({.offset = offset,
                              .at = static_cast<std::uint32_t>(d.message.size()),
                              .length = static_cast<std::uint32_t>(number.size()),
                              .what = what});
  d.message += number;
}

void renderLineNumbers(Diagnostic &d, const LineIndex &lines) {
  std::int64_t shift = 0; // how much the numbers rendered so far grew or shrank the message
  for (LineReference &ref : d.lineReferences) {
    ref.at = static_cast<std::uint32_t>(ref.at + shift);
    const std::string number = std::to_string(lines.lineOf(ref.offset) + 1);
    if (number.size() == ref.length && d.message.compare(ref.at, ref.length, number) == 0) continue;
    d.message.replace(ref.at, ref.length, number);
    shift += static_cast<std::int64_t>(number.size()) - static_cast<std::int64_t>(ref.length);
    ref.length = static_cast<std::uint32_t>(number.size());
  }
}

} // namespace asyncfix
