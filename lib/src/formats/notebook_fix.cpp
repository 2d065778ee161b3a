// notebook_fix.cpp — a notebook fixed through its cells (asyncfix/notebook_fix.h).
#include "asyncfix/notebook_fix.h"

#include <utility>

namespace asyncfix {

std::variant<Notebook, std::string> withFixedCells(const Notebook &notebook, std::string_view text) {
  const std::optional<std::string> json = notebook.withVirtualText(text);
  if (!json) return std::string("a fix touched notebook IPython syntax; not written");
  auto again = Notebook::parse(*json);
  if (auto *ok = std::get_if<Notebook>(&again)) return std::move(*ok);
  return "internal error: the fixed notebook does not parse (" + std::get<std::string>(again) + "); not written";
}

NotebookFix fixNotebook(const Linter &linter, const Notebook &notebook, const FixOptions &options) {
  NotebookFix out;
  const std::string &virtualText = notebook.virtualText();
  out.result = fix(linter, virtualText, options);
  FixResult &result = out.result;
  if (!result.changed || result.text == virtualText) return out;
  auto written = withFixedCells(notebook, result.text);
  if (auto *warning = std::get_if<std::string>(&written)) {
    // The fixed cells cannot be written back: the notebook as it is.
    FixResult unchanged;
    unchanged.text = virtualText;
    unchanged.remaining = linter.lint(std::string_view(virtualText));
    unchanged.rejected = std::move(result.rejected);
    unchanged.converged = result.converged;
    out.result = std::move(unchanged);
    out.warning = std::move(*warning);
    return out;
  }
  Notebook &fixed = std::get<Notebook>(written);
  // The remaining findings refer to result.text, which the fixed notebook's virtual text is (lint
  // it again should the two ever differ).
  if (fixed.virtualText() != result.text) result.remaining = linter.lint(std::string_view(fixed.virtualText()));
  out.fixed = std::move(fixed);
  return out;
}

} // namespace asyncfix
