// project/reexports.h — where a path that names something through the project's modules leads:
// `pkg.helper`, with `pkg/__init__.py` doing `from .impl import helper`, is `pkg.impl.helper`.
// Private to lib/src/project/.
//
// Follows imports (`from .impl import helper`, `from pkg.impl import helper as h`, `from . import
// impl`), chains of them, and star imports whose names it can list (`__all__` of string
// literals, else the public names); says why where it cannot be sure. Knows the run's modules by
// name and reads their files through a ProjectText, each once; knows nothing about renames.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "asyncfix/project_view.h"

namespace asyncfix {

class Reexports {
public:
  /// A module of the run: its file (as the run spells paths, normalized; "" when two files are
  /// that module) and the package its relative imports start from.
  struct Module {
    std::string file;
    std::string package;
  };
  Reexports(std::map<std::string, Module, std::less<>> modules, ProjectText text)
      : modules_(std::move(modules)), text_(std::move(text)) {}

  /// Whether some module of the run is `top` or lies in it.
  bool holds(std::string_view top) const;

  /// Where `path` leads.
  struct Target {
    std::string path;       ///< what it names in the end ("pkg.impl.helper"); `path` itself when no
                            ///< module of the run hands it on
    std::string unresolved; ///< why it cannot be followed with certainty ("" when it can)
  };
  Target resolve(const std::string &path);

private:
  enum class Provides { No, Yes, Unknown };
  Target follow(const std::string &path, int depth);
  /// Does `from module import *` bind `name`? `why` says why not known.
  Provides provides(const std::string &module, std::string_view name, std::string &why, int depth);
  /// The names of `module`'s file (null with `why` when it cannot be had).
  const ModuleNames *load(const Module &module, std::string &why);
  /// The longest prefix of `path` that is a module of the run (end() when none).
  std::map<std::string, Module, std::less<>>::const_iterator moduleOf(std::string_view path) const;

  std::map<std::string, Module, std::less<>> modules_;
  ProjectText text_;
  std::map<std::string, std::unique_ptr<ModuleNames>, std::less<>> loaded_; ///< file → (null: unreadable)
  std::map<std::string, std::string, std::less<>> unreadable_;              ///< file → why
  std::map<std::string, Target, std::less<>> memo_;
};

} // namespace asyncfix
