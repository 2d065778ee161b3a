#include "asyncfix/gitignore.h"

#include <git2.h>

#include <map>
#include <string>

namespace fs = std::filesystem;

namespace asyncfix {

struct RepositoryDeleter {
  void operator()(git_repository *r) const { git_repository_free(r); }
};
using RepositoryPtr = std::unique_ptr<git_repository, RepositoryDeleter>;

struct GitIgnore::Impl {
  /// libgit2 is initialised on the first question, not up front: its initialisation loads the
  /// system's TLS certificates (milliseconds), which a run over named files never needs.
  bool initialised = false;
  /// Work tree root → its repository; directory → the work tree root holding it ("" for none).
  std::map<std::string, RepositoryPtr> repositories;
  std::map<std::string, std::string> rootOf;

  /// The repository whose work tree holds directory `dir`, or nullptr.
  git_repository *repositoryFor(const fs::path &dir, std::string &root) {
    const std::string key = dir.string();
    if (const auto it = rootOf.find(key); it != rootOf.end()) {
      root = it->second;
      return root.empty() ? nullptr : repositories.at(root).get();
    }
    git_repository *raw = nullptr;
    root.clear();
    if (git_repository_open_ext(&raw, key.c_str(), 0, nullptr) == 0) {
      RepositoryPtr repo(raw);
      if (const char *workdir = git_repository_workdir(repo.get())) {
        root = fs::path(workdir).lexically_normal().string();
        if (root.size() > 1 && root.back() == '/') root.pop_back();
        repositories.try_emplace(root, std::move(repo));
      }
    }
    rootOf.emplace(key, root);
    return root.empty() ? nullptr : repositories.at(root).get();
  }
};

GitIgnore::GitIgnore() : impl_(std::make_unique<Impl>()) {}

GitIgnore::~GitIgnore() {
  const bool initialised = impl_->initialised;
  impl_.reset(); // free the repositories before the library
  if (initialised) git_libgit2_shutdown();
}

bool GitIgnore::ignored(const fs::path &path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec).lexically_normal();
  if (ec || !absolute.has_parent_path()) return false;
  if (!impl_->initialised) {
    git_libgit2_init();
    impl_->initialised = true;
  }
  std::string root;
  git_repository *repo = impl_->repositoryFor(absolute.parent_path(), root);
  if (!repo) return false;
  std::string relative = absolute.lexically_relative(root).generic_string();
  if (relative.empty() || relative == "." || relative.starts_with("..")) return false;
  if (relative == ".git" || relative.starts_with(".git/")) return true;
  if (fs::is_directory(absolute, ec)) relative += '/'; // directory-only patterns (`out/`)
  int flag = 0;
  return git_ignore_path_is_ignored(&flag, repo, relative.c_str()) == 0 && flag == 1;
}

} // namespace asyncfix
