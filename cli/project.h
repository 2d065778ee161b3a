// cli/project.h — what the CLI does with the project view (asyncfix/project_view.h) beyond
// configuring each file: --fix renames the modules on disk, --diff renders the renames as git does.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "asyncfix/project_view.h"

namespace asyncfix::cli {

/// --fix: renames the modules of `view` (deepest first) whose applicability `unsafe` allows, each
/// with rename(2) refusing to replace an existing target. Returns one line per problem
/// ("error: …"); `done[i]` tells whether view.renames()[i] happened.
std::vector<std::string> applyModuleRenames(const ProjectView &view, bool unsafe, std::vector<bool> &done);

/// --diff: the run's output. `diffs` are the files' unified diffs (path → diff, in path order);
/// each file gets a `diff --git` line, and those a rename moves git's `rename from` / `rename to` (a
/// moved file with no edit, the header alone), so that `git apply` makes the same tree as --fix.
std::string renderProjectDiffs(const ProjectView &view, const std::vector<std::pair<std::string, std::string>> &diffs,
                               bool unsafe);

} // namespace asyncfix::cli
