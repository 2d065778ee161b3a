// gitignore_probe — asks asyncfix::GitIgnore about each path read from standard input (separated
// by NUL bytes) and prints one line per path: `1` when it is ignored, `0` when not. Relative
// paths are taken from the current directory. The driver of tests/cli/test_gitignore.py, which
// compares its answers with `git check-ignore`.
#include <iostream>
#include <iterator>
#include <string>

#include "asyncfix/gitignore.h"

int main() {
  const std::string input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  asyncfix::GitIgnore git;
  std::string out;
  for (std::size_t start = 0; start < input.size();) {
    std::size_t end = input.find('\0', start);
    if (end == std::string::npos) end = input.size();
    out += git.ignored(input.substr(start, end - start)) ? "1\n" : "0\n";
    start = end + 1;
  }
  std::cout << out;
  return std::cout.good() ? 0 : 1;
}
