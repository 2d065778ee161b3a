// asyncfix/notebook_fix.h (internal, not installed) — fixing a Jupyter notebook through its code
// cells: the one notebook fix path. Linter::fix on an `.ipynb` path and a run's --fix, --diff and
// --add-noqa (asyncfix/run.h) all go through it.
//
// It knows the notebook's JSON only through asyncfix::Notebook; it reads and writes no file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "asyncfix/linter.h"
#include "asyncfix/notebook.h"

namespace asyncfix {

/// `notebook` after its virtual text became `text`, written back into the cells and parsed
/// again; or, when that cannot be, the warning that says so ("a fix touched notebook IPython
/// syntax; not written").
std::variant<Notebook, std::string> withFixedCells(const Notebook &notebook, std::string_view text);

/// A notebook fixed through its cells.
struct NotebookFix {
  /// The fixed notebook: set when the fixes changed its cells and were written back.
  std::optional<Notebook> fixed;
  /// The fixer's result on the notebook's virtual text. `remaining` refer to `fixed`'s virtual
  /// text when it is set, else to the input notebook's; `rejected` to the input's. When the change
  /// could not be written back, it is the input's findings (unchanged, nothing fixed).
  FixResult result;
  std::optional<std::string> warning; ///< why a change was not written back
};

/// Fixes `notebook`'s code cells as one virtual Python text under `options`.
NotebookFix fixNotebook(const Linter &linter, const Notebook &notebook, const FixOptions &options);

} // namespace asyncfix
