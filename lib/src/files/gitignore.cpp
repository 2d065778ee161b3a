#include "asyncfix/gitignore.h"

#include <sys/stat.h>

#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "asyncfix/platform.h"
#include "files/git_config.h"
#include "files/given_path.h"
#include "files/ignore_rules.h"

namespace fs = std::filesystem;

namespace asyncfix {
namespace {

/// A variable read as git reads a boolean from the environment: true, yes, on or a non-zero number.
bool environmentFlag(const char *name) {
  const char *value = std::getenv(name);
  if (value == nullptr) return false;
  std::string v;
  for (const char *c = value; *c; ++c) v += static_cast<char>(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
  if (v == "true" || v == "yes" || v == "on") return true;
  char *end = nullptr;
  const long number = std::strtol(v.c_str(), &end, 10);
  return !v.empty() && end != nullptr && *end == '\0' && number != 0;
}

std::optional<fs::path> environmentPath(const char *name) {
  const char *value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return fs::path(value);
}

/// $XDG_CONFIG_HOME, else ~/.config.
std::optional<fs::path> xdgConfigHome() {
  if (auto xdg = environmentPath("XDG_CONFIG_HOME")) return xdg;
  if (auto home = environmentPath("HOME")) return *home / ".config";
  return std::nullopt;
}

bool isDirectory(const fs::path &path) {
  StatBuf st{};
  return statPath(path, st) == 0 && S_ISDIR(st.st_mode);
}

std::string_view trimmed(std::string_view s) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

/// A repository's own directory and the one it shares with its other work trees (the same for
/// an ordinary repository; `<main>/.git` for a linked work tree).
struct GitDirs {
  fs::path gitDir, commonDir;
};

/// What git requires of a repository directory: HEAD, and objects/ and refs/ (or a commondir).
bool isGitDir(const fs::path &dir) {
  StatBuf st{};
  if (statPath(dir / "HEAD", st) != 0) return false;
  if (statPath(dir / "commondir", st) == 0 && S_ISREG(st.st_mode)) return true;
  return isDirectory(dir / "objects") && isDirectory(dir / "refs");
}

/// The repository that `dir/.git` stands for: a directory, or a file `gitdir: <path>` as linked
/// work trees and submodules have. nullopt when there is none or it is no repository.
std::optional<GitDirs> gitDirsAt(const fs::path &dir) {
  const fs::path dotGit = dir / ".git";
  StatBuf st{};
  if (statPath(dotGit, st) != 0) return std::nullopt;
  fs::path gitDir = dotGit;
  if (S_ISREG(st.st_mode)) {
    const auto text = readRegularFile(dotGit);
    constexpr std::string_view kPrefix = "gitdir: ";
    if (!text || !std::string_view(*text).starts_with(kPrefix)) return std::nullopt;
    gitDir = fs::path(std::string(trimmed(std::string_view(*text).substr(kPrefix.size()))));
    if (gitDir.is_relative()) gitDir = dir / gitDir;
  } else if (!S_ISDIR(st.st_mode)) {
    return std::nullopt;
  }
  if (!isGitDir(gitDir)) return std::nullopt;
  GitDirs dirs{gitDir, gitDir};
  if (const auto common = readRegularFile(gitDir / "commondir")) {
    fs::path commonDir(std::string(trimmed(*common)));
    if (commonDir.is_relative()) commonDir = gitDir / commonDir;
    dirs.commonDir = commonDir.lexically_normal();
  }
  return dirs;
}

/// A work tree and the ignore files that apply everywhere in it.
struct Repository {
  IgnoreRules infoExclude; ///< $GIT_COMMON_DIR/info/exclude
  /// Below every `.gitignore`, in order of precedence: info/exclude, then core.excludesFile.
  std::vector<const IgnoreRules *> shared;
};

/// A directory as far as ignoring goes, built once and kept.
struct Directory {
  const Repository *repository = nullptr; ///< nullptr: in no work tree, nothing is ignored
  const Directory *parent = nullptr;      ///< the directory above, in the same work tree (none at its root)
  std::string relative;                   ///< its path from the work tree's root ("" at the root)
  IgnoreRules rules;                      ///< its `.gitignore`
  bool ignored = false;                   ///< ignored itself, so is everything below it
  dev_t device = 0;
};

/// What the ignore files that apply in `dir` say about its entry `name`; `relative` is the
/// entry's path from the work tree's root. Deeper `.gitignore` files come first, then the
/// repository-wide files; within a file the last matching pattern decides.
template <class IsDirectory>
IgnoreVerdict verdictIn(const Directory &dir, std::string_view relative, std::string_view name,
                        IsDirectory &&isDirectory) {
  for (const Directory *d = &dir; d != nullptr; d = d->parent) {
    if (d->rules.empty()) continue;
    const std::string_view below = d->relative.empty() ? relative : relative.substr(d->relative.size() + 1);
    const IgnoreVerdict v = d->rules.verdict(below, name, isDirectory);
    if (v != IgnoreVerdict::Unspecified) return v;
  }
  for (const IgnoreRules *rules : dir.repository->shared) {
    const IgnoreVerdict v = rules->verdict(relative, name, isDirectory);
    if (v != IgnoreVerdict::Unspecified) return v;
  }
  return IgnoreVerdict::Unspecified;
}

} // namespace

struct GitIgnore::Impl {
  /// Absolute path (normalised, no trailing `/`) → what is known about that directory.
  std::unordered_map<std::string, std::unique_ptr<Directory>> directories;
  std::vector<std::unique_ptr<Repository>> repositories;
  /// core.excludesFile by path: repositories that name the same file share its rules.
  std::map<fs::path, std::unique_ptr<IgnoreRules>> excludeFiles;
  /// The system and global configuration files (read for core.excludesFile), found once.
  std::optional<std::vector<fs::path>> userConfigFiles;
  std::optional<bool> acrossFilesystems;
  /// A walk asks about a directory's entries one after another: its directory, remembered.
  std::string lastPath;
  const Directory *last = nullptr;
  std::string relative; ///< the path being asked about, from its work tree's root (reused)
  /// ignored(directory, name, …): the directory last asked about, as given, and what it is.
  std::filesystem::path::string_type lastGiven; ///< (its spelling only: a path would split it)
  const Directory *lastGivenDirectory = nullptr;
  /// Every directory in no work tree whose parent is in none either and which holds no `.git`:
  /// all alike (nothing ignored), one object for all that entryOfChain() meets, none kept by path.
  const Directory outside{};
  /// The absolute path (as `directories` keys it) of each directory asked about, by its path as
  /// given: a walk's next directory is an entry of one asked about before, and its path is that
  /// one's and its name (no absolute path made and normalised for each directory).
  std::unordered_map<std::string, std::string> fullOfGiven;
  /// A directory asked about by ignored(directory, …): its path as given and as `directories`
  /// keys it.
  struct Asked {
    std::string given, full;
    const Directory *directory;
  };
  /// The directories asked about last, each an entry of the one before: a walk asks about a
  /// directory right after its parent or another of the parent's descendants, so its parent is
  /// found here by its spelling, with no lookup of its path (nor a map of every path given).
  std::vector<Asked> chain;

  /// The directory given as `given`, `listing` telling what it holds, when it is an entry of one
  /// in `chain` (which then ends with it); null otherwise.
  const Directory *entryOfChain(const std::filesystem::path &path, const DirectoryListing &listing) {
#if defined(_WIN32)
    (void)path, (void)listing;
    return nullptr;
#else
    const std::string &given = path.native();
    const std::optional<GivenEntry> entry = entryOfGiven(given);
    if (!entry) return nullptr;
    while (!chain.empty() && chain.back().given != entry->parent) chain.pop_back();
    if (chain.empty()) return nullptr;
    const Asked &parent = chain.back();
    std::string full = (parent.full == "/" ? std::string() : parent.full) + "/" + std::string(entry->name);
    // (build() would make the same: no repository, no rules, nothing ignored)
    const bool alike = parent.directory->repository == nullptr && !listing.mayHold(".git");
    const auto known = alike ? directories.end() : directories.find(full);
    const Directory *dir = alike                        ? &outside
                           : known != directories.end() ? known->second.get()
                                                        : &build(full, parent.directory, listing);
    chain.push_back({given, std::move(full), dir});
    return dir;
#endif
  }

  /// The absolute, normalised path of the directory given as `given`; nullopt when it cannot be
  /// made.
  std::optional<std::string> fullPath(const std::filesystem::path &given) {
#if !defined(_WIN32)
    const std::string &text = given.native();
    if (const std::optional<GivenEntry> entry = entryOfGiven(text))
      if (const auto it = fullOfGiven.find(std::string(entry->parent)); it != fullOfGiven.end())
        return fullOfGiven.emplace(text, (it->second == "/" ? "" : it->second) + "/" + std::string(entry->name))
            .first->second;
#endif
    std::error_code ec;
    const fs::path absolute = fs::absolute(given, ec);
    if (ec) return std::nullopt;
    std::string full = pathText(absolute.lexically_normal());
    while (full.size() > 1 && full.back() == '/') full.pop_back();
#if !defined(_WIN32)
    fullOfGiven.emplace(given.native(), full);
#endif
    return full;
  }

  /// What the ignore files say about `name` in `dir`, `full` being its absolute path.
  template <class IsDirectory> bool ignoredIn(const Directory &dir, std::string_view name, IsDirectory &&isDirectory) {
    if (dir.repository == nullptr) return false;
    if (dir.ignored || name == ".git") return true; // nothing in an ignored directory comes back
    relative.assign(dir.relative);
    if (!relative.empty()) relative += '/';
    relative += name;
    return verdictIn(dir, relative, name, isDirectory) == IgnoreVerdict::Ignored;
  }

  /// The directory at `path`; `listing` tells what `path` holds (its ancestors are looked at name
  /// by name).
  const Directory &directory(std::string_view path, const DirectoryListing &listing = {}) {
    if (last != nullptr && path == lastPath) return *last;
    lastPath.assign(path);
    last = &lookUp(lastPath, listing);
    return *last;
  }

  /// The directory at `path`, built with its ancestors that are not known yet (top-down, no
  /// recursion).
  const Directory &lookUp(const std::string &path, const DirectoryListing &listing) {
    if (const auto it = directories.find(path); it != directories.end()) return *it->second;
    std::vector<std::string> missing{path};
    const Directory *known = nullptr;
    while (missing.back() != "/") {
      const std::size_t slash = missing.back().rfind('/');
      if (slash == std::string::npos) break; // a drive's root on Windows (`C:`)
      std::string parent = slash == 0 ? std::string("/") : missing.back().substr(0, slash);
      if (const auto it = directories.find(parent); it != directories.end()) {
        known = it->second.get();
        break;
      }
      missing.push_back(std::move(parent));
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) // `path` itself comes last
      known = &build(*it, known, std::next(it) == missing.rend() ? listing : DirectoryListing{});
    return *known;
  }

  const Directory &build(const std::string &path, const Directory *above, const DirectoryListing &listing) {
    auto dir = std::make_unique<Directory>();
    // Its device matters only in a work tree (where discovery stops at a filesystem boundary):
    // outside any, no stat of each directory by its full path.
    const auto stat = [&] {
      StatBuf st{};
      const bool statted = statPath(path, st) == 0;
      dir->device = statted ? st.st_dev : 0;
      return statted;
    };
    const std::string_view name = std::string_view(path).substr(path.rfind('/') + 1);
    if (const auto dirs = listing.mayHold(".git") ? gitDirsAt(path) : std::nullopt) {
      // A work tree's root (a nested one too): its own rules from here down.
      stat();
      dir->repository = &openRepository(path, *dirs);
    } else if (above != nullptr && above->repository != nullptr &&
               (!stat() || dir->device == above->device || crossesFilesystems())) {
      dir->repository = above->repository;
      dir->parent = above;
      dir->relative = above->relative.empty() ? std::string(name) : above->relative + "/" + std::string(name);
      dir->ignored = above->ignored || name == ".git" ||
                     verdictIn(*above, dir->relative, name, [] { return true; }) == IgnoreVerdict::Ignored;
    }
    // git never reads a `.gitignore` through a symbolic link, nor in a directory it ignores.
    if (dir->repository != nullptr && !dir->ignored && listing.mayHold(".gitignore")) {
      if (const auto text = readRegularFile(fs::path(path) / ".gitignore", /*followSymlinks=*/false))
        dir->rules = IgnoreRules(*text);
    }
    const Directory &built = *dir;
    directories.emplace(path, std::move(dir));
    return built;
  }

  /// Like git: discovery stops at a filesystem boundary unless GIT_DISCOVERY_ACROSS_FILESYSTEM.
  bool crossesFilesystems() {
    if (!acrossFilesystems) acrossFilesystems = environmentFlag("GIT_DISCOVERY_ACROSS_FILESYSTEM");
    return *acrossFilesystems;
  }

  const Repository &openRepository(const std::string &root, const GitDirs &dirs) {
    auto repository = std::make_unique<Repository>();
    if (const auto text = readRegularFile(dirs.commonDir / "info" / "exclude"))
      repository->infoExclude = IgnoreRules(*text);
    repository->shared.push_back(&repository->infoExclude);
    if (const IgnoreRules *user = excludesFile(root, dirs)) repository->shared.push_back(user);
    repositories.push_back(std::move(repository));
    return *repositories.back();
  }

  /// core.excludesFile as the repository's configuration sets it (system, global, then the
  /// repository's own file; the last value wins), by default $XDG_CONFIG_HOME/git/ignore.
  const IgnoreRules *excludesFile(const std::string &root, const GitDirs &dirs) {
    std::vector<fs::path> files = configFiles();
    files.push_back(dirs.commonDir / "config");
    std::optional<fs::path> path;
    if (const auto value = readGitConfigValue(files, "core", "excludesfile")) {
      if (const auto expanded = expandGitPath(*value); expanded && !expanded->empty()) {
        path = fs::path(*expanded);
        if (path->is_relative()) path = fs::path(root) / *path; // git reads it from the top
      }
    } else if (const auto config = xdgConfigHome()) {
      path = *config / "git" / "ignore";
    }
    if (!path) return nullptr;
    auto &rules = excludeFiles[*path];
    if (!rules) rules = std::make_unique<IgnoreRules>(readRegularFile(*path).value_or(std::string()));
    return rules.get();
  }

  /// /etc/gitconfig (unless GIT_CONFIG_NOSYSTEM; GIT_CONFIG_SYSTEM names another), then
  /// $XDG_CONFIG_HOME/git/config and ~/.gitconfig (GIT_CONFIG_GLOBAL names another).
  const std::vector<fs::path> &configFiles() {
    if (userConfigFiles) return *userConfigFiles;
    auto &files = userConfigFiles.emplace();
    if (!environmentFlag("GIT_CONFIG_NOSYSTEM"))
      files.push_back(environmentPath("GIT_CONFIG_SYSTEM").value_or("/etc/gitconfig"));
    if (const char *global = std::getenv("GIT_CONFIG_GLOBAL")) {
      files.emplace_back(global);
    } else {
      if (const auto config = xdgConfigHome()) files.push_back(*config / "git" / "config");
      if (const auto home = environmentPath("HOME")) files.push_back(*home / ".gitconfig");
    }
    return files;
  }
};

GitIgnore::GitIgnore() : impl_(std::make_unique<Impl>()) {}

GitIgnore::~GitIgnore() = default;

bool GitIgnore::ignored(const fs::path &path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  if (ec) return false;
  std::string full = pathText(absolute.lexically_normal());
  while (full.size() > 1 && full.back() == '/') full.pop_back();
  const std::size_t slash = full.rfind('/');
  if (full.size() <= 1 || slash == std::string::npos) return false; // "/" itself
  const std::string_view name = std::string_view(full).substr(slash + 1);
  const Directory &dir = impl_->directory(slash == 0 ? std::string_view("/") : std::string_view(full).substr(0, slash));
  std::optional<bool> directory;
  const auto isDirectory = [&] {
    if (!directory) {
      StatBuf st{};
      directory = lstatPath(full, st) == 0 && S_ISDIR(st.st_mode); // a link is no directory to git
    }
    return *directory;
  };
  return impl_->ignoredIn(dir, name, isDirectory);
}

bool GitIgnore::ignored(const fs::path &directory, std::string_view name, bool isDirectory) {
  return ignored(directory, name, isDirectory, DirectoryListing{});
}

bool GitIgnore::ignored(const fs::path &directory, std::string_view name, bool isDirectory,
                        const DirectoryListing &listing) {
  // Strings, not paths: comparing paths splits both into components, for every entry.
  if (impl_->lastGivenDirectory == nullptr || directory.native() != impl_->lastGiven) {
    impl_->lastGivenDirectory = nullptr;
    if (const Directory *entry = impl_->entryOfChain(directory, listing)) {
      impl_->lastGivenDirectory = entry;
    } else {
      const std::optional<std::string> full = impl_->fullPath(directory);
      if (!full) return false;
      const Directory &dir = impl_->directory(*full, listing);
#if !defined(_WIN32)
      impl_->chain.assign(1, {directory.native(), *full, &dir});
#endif
      impl_->lastGivenDirectory = &dir;
    }
    impl_->lastGiven = directory.native();
  }
  return impl_->ignoredIn(*impl_->lastGivenDirectory, name, [isDirectory] { return isDirectory; });
}

} // namespace asyncfix
