// files/given_path.h — a directory's path as a walk spells it, split into a parent given before
// and a name.
//
// A walk names each directory it enters as its parent's path (as given) and the entry's name, so
// the work done for the parent (its absolute path, its settings) can be reused by its entries
// without making and normalising an absolute path for each. Knows strings only: no filesystem.
#pragma once

#include <optional>
#include <string_view>

namespace asyncfix {

struct GivenEntry {
  std::string_view parent; ///< the path up to the last `/`, as given
  std::string_view name;   ///< the last component
};

/// `given` as `parent/name`, when it is a plain entry of a parent that can be looked up by its
/// spelling: nullopt without a `/`, with an empty name (a trailing `/`), a name `.` or `..`, or a
/// parent that is the root (`/srv`: its path cut at the slash is empty, the current directory's
/// spelling, not `/`).
inline std::optional<GivenEntry> entryOfGiven(std::string_view given) {
  const std::size_t slash = given.rfind('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == given.size()) return std::nullopt;
  const std::string_view name = given.substr(slash + 1);
  if (name == "." || name == "..") return std::nullopt;
  return GivenEntry{given.substr(0, slash), name};
}

} // namespace asyncfix
