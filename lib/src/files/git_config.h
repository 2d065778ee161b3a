// git_config.h — reading a value from git's configuration files (`man git-config`,
// "CONFIGURATION FILE"), as much of the syntax as a reader needs. Private. Knows the file
// format and `[include]`; knows nothing about which files a repository reads (gitignore.cpp
// says that) and never writes.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace asyncfix {

/// The contents of a regular file, or nullopt (missing, unreadable, a directory, a FIFO…). With
/// `followSymlinks` false a symbolic link is not followed (nullopt), as git reads the
/// `.gitignore` files of a work tree.
std::optional<std::string> readRegularFile(const std::filesystem::path &path, bool followSymlinks = true);

/// One `key = value` line: section and key lower-cased, subsection as written (lower-cased for
/// the old `[section.sub]` form), `value` empty for a key without `=` (a boolean true).
struct GitConfigEntry {
  std::string section, subsection, key;
  std::optional<std::string> value;
};

/// Calls `entry` for each variable in `text`, in order. Understood: `#`/`;` comments, sections
/// `[core]`, `[remote "origin"]`, `[core.sub]`, values with quotes, `\"` `\\` `\n` `\t` `\b`
/// escapes, line continuations and inner blanks. At a line that is not valid syntax, reading
/// stops (git refuses such a file; what came before it is kept).
void parseGitConfig(std::string_view text, const std::function<void(const GitConfigEntry &)> &entry);

/// A pathname value as git expands it: `~/x` (or `~`) against $HOME, `~user/x` against that
/// user's home; nullopt when the home is unknown.
std::optional<std::string> expandGitPath(std::string_view value);
/// The home directory of `user`, or the current user's when empty: $HOME (on Windows also
/// %USERPROFILE%; another user's home is not looked up there); nullopt when unknown.
std::optional<std::string> homeDirectory(std::string_view user);

/// The last value of `section.key` (no subsection) in `files` read in order, following
/// `[include] path = …` (relative to the including file, at most 10 deep); includeIf sections
/// are not evaluated. Files that do not exist are skipped. A key without `=` is no value.
std::optional<std::string> readGitConfigValue(const std::vector<std::filesystem::path> &files, std::string_view section,
                                              std::string_view key);

} // namespace asyncfix
