#include "asyncfix/diagnostic.h"

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

} // namespace asyncfix
