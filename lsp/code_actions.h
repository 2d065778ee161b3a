// lsp/code_actions.h — the code-action kinds the server offers, and which findings' fixes it
// may offer: shared by the handlers for files (server_code_actions.cpp) and notebooks
// (server_notebooks.cpp).
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "asyncfix/diagnostic.h"

namespace asyncfix::lsp {

inline constexpr const char *kQuickFix = "quickfix";
inline constexpr const char *kSourceFixAll = "source.fixAll.asyncfix";
inline constexpr const char *kNotebookFixAll = "notebook.source.fixAll.asyncfix";

/// Whether a code action of `kind` passes the client's `only` filter. Without a filter, quick
/// fixes only: source actions are computed when asked for (on save, or from a Source menu).
inline bool wanted(const std::optional<std::vector<std::string>> &only, std::string_view kind) {
  if (!only) return kind == kQuickFix;
  return std::any_of(only->begin(), only->end(), [&](const std::string &prefix) {
    return kind == prefix || (kind.starts_with(prefix) && kind.size() > prefix.size() && kind[prefix.size()] == '.');
  });
}

/// Whether the finding's fix may be offered: it has edits, and it is safe (or unsafe fixes are on).
inline bool fixAllowed(const asyncfix::Diagnostic &d, bool unsafe) {
  if (!d.fix || d.fix->edits.empty()) return false;
  return d.fix->applicability == Applicability::Safe || (unsafe && d.fix->applicability == Applicability::Unsafe);
}

} // namespace asyncfix::lsp
