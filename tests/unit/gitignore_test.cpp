// GitIgnore answers like git: negation, anchoring, directory-only patterns, nested .gitignore
// files and .git/info/exclude. The repository is made with the `git` command.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "asyncfix/gitignore.h"

namespace fs = std::filesystem;

namespace {
/// Makes `dir` (and its parents) a git work tree.
void gitInit(const fs::path &dir) {
  fs::create_directories(dir);
  REQUIRE(std::system(("git init -q '" + dir.string() + "'").c_str()) == 0);
}

struct Repo {
  fs::path root = fs::temp_directory_path() / ("asyncfix-git-" + std::to_string(::getpid()));
  Repo() {
    fs::remove_all(root);
    gitInit(root);
  }
  ~Repo() { fs::remove_all(root); }
  void write(const std::string &rel, const std::string &text = "") const {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text;
  }
};

/// Asks one GitIgnore about each entry of each directory in `dirs`, in that order, as a walk does
/// (by directory, name and listing), and checks each answer against another asked by whole path;
/// returns how many entries were ignored.
std::size_t ignoredAsWalked(std::initializer_list<fs::path> dirs) {
  asyncfix::GitIgnore whole, walked;
  std::size_t ignoredCount = 0;
  for (const fs::path &dir : dirs) {
    asyncfix::DirectoryListing listing = asyncfix::DirectoryListing::listed();
    for (const auto &entry : fs::directory_iterator(dir)) listing.add(entry.path().filename().string());
    for (const auto &entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      INFO(dir << " " << name);
      const bool expected = whole.ignored(entry.path());
      CHECK(walked.ignored(dir, name, entry.is_directory() && !entry.is_symlink(), listing) == expected);
      ignoredCount += expected ? 1 : 0;
    }
  }
  return ignoredCount;
}
} // namespace

TEST_CASE("GitIgnore follows git's rules", "[gitignore]") {
  Repo repo;
  repo.write(".gitignore", "*.gen.py\n!keep.gen.py\n/top_only.py\nout/\nlogs\n");
  repo.write("sub/.gitignore", "local.py\n!/negated_dir_file.py\n");
  repo.write(".git/info/exclude", "secret.py\n");
  for (const char *f : {"a.py", "x.gen.py", "keep.gen.py", "top_only.py", "sub/top_only.py", "out/o.py", "sub/out/o.py",
                        "notdir/out", "logs/l.py", "sub/local.py", "local.py", "secret.py"})
    repo.write(f);

  asyncfix::GitIgnore git;
  const auto ignored = [&](const std::string &rel) { return git.ignored(repo.root / rel); };
  CHECK_FALSE(ignored("a.py"));
  CHECK(ignored("x.gen.py"));
  CHECK_FALSE(ignored("keep.gen.py"));     // negation
  CHECK(ignored("top_only.py"));           // anchored…
  CHECK_FALSE(ignored("sub/top_only.py")); // …to the .gitignore's directory
  CHECK(ignored("out"));                   // directory-only pattern: the directory
  CHECK(ignored("sub/out"));
  CHECK_FALSE(ignored("notdir/out")); // …but not a file of that name
  CHECK(ignored("logs"));
  CHECK(ignored("sub/local.py"));   // nested .gitignore
  CHECK_FALSE(ignored("local.py")); // applies below its directory only
  CHECK(ignored("secret.py"));      // .git/info/exclude
  CHECK(ignored(".git"));
  // Outside any repository nothing is ignored.
  CHECK_FALSE(git.ignored(fs::path("/") / "asyncfix-no-repo-here.py"));
}

TEST_CASE("GitIgnore asked per directory entry answers as for the whole path", "[gitignore]") {
  Repo repo;
  repo.write(".gitignore", "*.gen.py\n!keep.gen.py\n/top_only.py\nout/\nlogs\n");
  repo.write("sub/.gitignore", "local.py\n!/negated_dir_file.py\n");
  repo.write(".git/info/exclude", "secret.py\n");
  for (const char *f : {"a.py", "x.gen.py", "keep.gen.py", "top_only.py", "sub/top_only.py", "out/o.py", "sub/out/o.py",
                        "notdir/out", "logs/l.py", "sub/local.py", "local.py", "secret.py"})
    repo.write(f);
  asyncfix::GitIgnore whole, perEntry;
  std::size_t ignoredCount = 0, asked = 0;
  // Directories as a walk spells them: the root as given (with a trailing slash, relative), then
  // its entries' paths.
  const fs::path cwd = fs::current_path();
  fs::current_path(repo.root.parent_path());
  for (const fs::path &dir : {repo.root, fs::path(repo.root.filename().string() + "/"), repo.root / "sub",
                              repo.root / "sub/out", repo.root / "notdir", fs::path(repo.root.filename()) / "sub"}) {
    for (const auto &entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      INFO(dir << " " << name);
      const bool expected = whole.ignored(entry.path());
      CHECK(perEntry.ignored(dir, name, entry.is_directory() && !entry.is_symlink()) == expected);
      ignoredCount += expected ? 1 : 0;
      ++asked;
    }
  }
  fs::current_path(cwd);
  CHECK(ignoredCount >= 5);
  CHECK(asked > ignoredCount + 5);
}

TEST_CASE("GitIgnore asked in a walk's order answers as for the whole path", "[gitignore]") {
  // A walk asks about a directory right after its parent or after another of the parent's
  // descendants (GitIgnore finds the parent on the chain of directories asked about last), and a
  // second root may enter a tree again.
  Repo repo;
  repo.write(".gitignore", "*.gen.py\nskipped/\n");
  repo.write("b/c/.gitignore", "local.py\n");
  for (const char *f : {"a.py", "x.gen.py", "b/b.py", "b/c/local.py", "b/c/x.gen.py", "b/c/keep.py", "d/local.py",
                        "d/skipped/s.py", "e/e.gen.py", "e/local.py"})
    repo.write(f);
  const fs::path inner = repo.root / "d" / "inner";
  gitInit(inner);
  std::ofstream(inner / ".gitignore") << "local.py\n";
  std::ofstream(inner / "local.py");
  std::ofstream(inner / "y.gen.py");
  const fs::path &r = repo.root;
  CHECK(ignoredAsWalked({r, r / "b", r / "b/c", r / "d", r / "d/skipped", inner, r / "e", r / "b", r / "b/c"}) >= 8);
}

TEST_CASE("GitIgnore walked outside a work tree finds the repositories below", "[gitignore]") {
  // Directories in no work tree are all alike (nothing ignored) until one holds a `.git`.
  const fs::path root = fs::temp_directory_path() / ("asyncfix-outside-" + std::to_string(::getpid()));
  fs::remove_all(root);
  for (const char *f :
       {"a/x.py", "a/b/y.py", "a/b/repo/ignored.py", "a/b/repo/kept.py", "a/b/repo/sub/ignored.py", "c/ignored.py"}) {
    fs::create_directories((root / f).parent_path());
    std::ofstream(root / f);
  }
  gitInit(root / "a/b/repo");
  std::ofstream(root / "a/b/repo/.gitignore") << "ignored.py\n";
  std::ofstream(root / "c/.gitignore") << "ignored.py\n"; // in no work tree: not read
  const std::size_t ignored =
      ignoredAsWalked({root, root / "a", root / "a/b", root / "a/b/repo", root / "a/b/repo/sub", root / "c"});
  fs::remove_all(root);
  CHECK(ignored == 3); // the repository's .git, and its two ignored.py
}

TEST_CASE("GitIgnore told a directory's listing answers as without it, and trusts it", "[gitignore]") {
  Repo repo;
  repo.write(".gitignore", "*.gen.py\n");
  repo.write("sub/.gitignore", "local.py\n");
  repo.write("nested/x.py");
  gitInit(repo.root / "nested");
  repo.write("nested/.gitignore", "x.py\n");
  asyncfix::GitIgnore whole, listed, lying;
  for (const fs::path &dir : {repo.root, repo.root / "sub", repo.root / "nested"}) {
    asyncfix::DirectoryListing listing = asyncfix::DirectoryListing::listed();
    for (const auto &entry : fs::directory_iterator(dir)) listing.add(entry.path().filename().string());
    for (const char *name : {"a.gen.py", "local.py", "x.py", "b.py"}) {
      INFO(dir << " " << name);
      CHECK(listed.ignored(dir, name, false, listing) == whole.ignored(dir / name));
    }
  }
  CHECK(listed.ignored(repo.root / "sub", "local.py", false, asyncfix::DirectoryListing::listed()) == true);
  // A listing that lacks `.gitignore` and `.git` is believed: neither file is read.
  CHECK(lying.ignored(repo.root / "sub", "local.py", false, asyncfix::DirectoryListing::listed()) == false);
  CHECK(lying.ignored(repo.root / "nested", "x.py", false, asyncfix::DirectoryListing::listed()) == false);
}

TEST_CASE("DirectoryListing knows nothing until listed, and names case-blind", "[gitignore]") {
  const asyncfix::DirectoryListing unknown;
  CHECK(unknown.mayHold(".git"));
  CHECK(unknown.mayHold("pyproject.toml"));
  asyncfix::DirectoryListing listing = asyncfix::DirectoryListing::listed();
  CHECK_FALSE(listing.mayHold(".git"));
  CHECK(listing.mayHold("setup.py")); // not a name it tracks: always "may"
  for (const char *name : {"a.py", "pyproject.tom", "xpyproject.toml", ".gitignores"}) listing.add(name);
  CHECK_FALSE(listing.mayHold("pyproject.toml"));
  CHECK_FALSE(listing.mayHold(".gitignore"));
  listing.add("PyProject.TOML");
  listing.add(".git");
  CHECK(listing.mayHold("pyproject.toml"));
  CHECK(listing.mayHold(".git"));
  CHECK_FALSE(listing.mayHold(".gitignore"));
  CHECK_FALSE(listing.mayHold("asyncfix.toml"));
  CHECK_FALSE(listing.mayHold(".asyncfix.toml"));
}

TEST_CASE("GitIgnore finds nested repositories below directories it already knows", "[gitignore]") {
  // Directories are asked about top-down, as a walk does: a directory inherits its parent's
  // answer unless it holds a `.git` of its own.
  Repo outer;
  outer.write(".gitignore", "*.gen.py\n");
  outer.write("plain/deeper/x.gen.py");
  const fs::path inner = outer.root / "vendor" / "inner";
  gitInit(inner);
  std::ofstream(inner / ".gitignore") << "only_inner.py\n";
  std::ofstream(inner / "only_inner.py");
  std::ofstream(inner / "y.gen.py");

  asyncfix::GitIgnore git;
  CHECK_FALSE(git.ignored(outer.root / "plain"));
  CHECK(git.ignored(outer.root / "plain" / "deeper" / "x.gen.py")); // the parent's repository
  CHECK_FALSE(git.ignored(outer.root / "vendor"));
  CHECK(git.ignored(inner / "only_inner.py"));  // the inner repository's rules…
  CHECK_FALSE(git.ignored(inner / "y.gen.py")); // …not the outer's
}
