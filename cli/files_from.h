// cli/files_from.h — `check --files-from`: the paths of a list, as `git diff --name-only` (or
// `git diff --name-only -z`) prints them.
//
// Turns a list's bytes into paths and reads the list; knows nothing about walks, configuration
// or which of the paths exist (check.cpp decides what to do with each one).
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace asyncfix::cli {

/// The paths of a list, in order. Newline-separated (`nulSeparated == false`): one path per line,
/// a `\r` before the `\n` dropped (a list written on Windows), blank lines skipped, and a line in
/// double quotes with C-style escapes (`"caf\303\251.py"`, as git prints a path with unusual
/// bytes unless core.quotePath is off) decoded to the bytes git quoted; every other line is taken
/// byte for byte, blanks included. NUL-separated: the bytes between NULs, empty entries skipped,
/// nothing decoded.
std::vector<std::string> parseFileList(std::string_view bytes, bool nulSeparated);

/// Reads and parses the list at `source` ("-" is standard input; a FIFO is read to its end). On
/// failure, the reason ("no such file or directory"), without the path.
std::variant<std::vector<std::string>, std::string> readFileList(const std::string &source, bool nulSeparated);

} // namespace asyncfix::cli
