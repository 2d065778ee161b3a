// cli/project.h — how the CLI shows the project view (asyncfix/project_view.h) beyond each
// file's findings: --diff renders the module renames as git does (the run makes them on disk).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "asyncfix/project_view.h"

namespace asyncfix::cli {

/// --diff: the run's output. `diffs` are the files' unified diffs (path → diff, in path order);
/// each file gets a `diff --git` line, and those a rename moves git's `rename from` / `rename to` (a
/// moved file with no edit, the header alone), so that `git apply` makes the same tree as --fix.
std::string renderProjectDiffs(const ProjectView &view, const std::vector<std::pair<std::string, std::string>> &diffs,
                               bool unsafe);

} // namespace asyncfix::cli
