// cli/project.cpp — the module renames in --diff (see project.h).
#include "project.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <string_view>
#include <system_error>

namespace asyncfix::cli {
namespace {

namespace fs = std::filesystem;

/// `diff` (a unified diff of `from`, or empty) under git's header for a file moved to `to`.
std::string gitRename(const std::string &from, const std::string &to, std::string_view diff) {
  std::string out = "diff --git a/" + from + " b/" + to + "\n";
  if (diff.empty()) out += "similarity index 100%\n";
  out += "rename from " + from + "\nrename to " + to + "\n";
  if (diff.empty()) return out;
  // Drop the diff's own `--- a/…` / `+++ b/…` lines: the new name goes in the second.
  for (int line = 0; line < 2 && !diff.empty(); ++line) {
    const std::size_t newline = diff.find('\n');
    diff.remove_prefix(newline == std::string_view::npos ? diff.size() : newline + 1);
  }
  out += "--- a/" + from + "\n+++ b/" + to + "\n";
  out += diff;
  return out;
}

} // namespace

std::string renderProjectDiffs(const ProjectView &view, const std::vector<std::pair<std::string, std::string>> &diffs,
                               bool unsafe) {
  const std::vector<ModuleRename> &renames = view.renames();
  std::map<std::string, std::string> out; // old path → what to print for it
  for (const auto &[path, diff] : diffs) {
    const std::string from = normalizedPath(path), to = view.movedPath(path, unsafe);
    if (diff.empty() && to == from) continue;
    // Every file gets git's header: after a rename's header, git would read a bare `--- a/…`
    // line as part of it.
    out[from] = to == from ? "diff --git a/" + from + " b/" + from + "\n" + diff : gitRename(from, to, diff);
  }
  // Files that move without an edit: the renamed modules, and everything in a renamed package.
  for (const ModuleRename &r : renames) {
    if (r.refusal || (r.applicability() != Applicability::Safe && !unsafe)) continue;
    std::vector<std::string> moving;
    if (!r.directory) {
      moving.push_back(r.path.from);
    } else {
      std::error_code ec;
      for (fs::recursive_directory_iterator it(r.path.from, ec), end; !ec && it != end; it.increment(ec))
        if (!it->is_directory(ec)) moving.push_back(normalizedPath(it->path()));
    }
    for (const std::string &file : moving)
      if (!out.contains(file)) out[file] = gitRename(file, view.movedPath(file, unsafe), {});
  }
  std::string text;
  for (const auto &[path, diff] : out) text += diff;
  return text;
}

} // namespace asyncfix::cli
