// name_origins.h — what a Python expression denotes through the file's imports and assignments,
// as far as the file shows. Private.
//
// Paths are resolved through the file's imports (scope-aware, via the SemanticModel): `k.async`
// after `import kombu as k` is `kombu.async`. What an object is comes from what made it:
// `child = pexpect.spawn(cmd)` makes `child.expect` the callable `pexpect.spawn.expect`; likewise
// `with pexpect.spawn(cmd) as child`, `self.child = …` assigned in the class's methods, and chains
// `pexpect.spawn(cmd).expect`. A name bound several times resolves only when every binding
// agrees. The AF2xx rules match these paths against the rename table (rules/renames.cpp), as
// receivers.h tells the PyTorch rules what a receiver holds.
#pragma once

#include <tree_sitter/api.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/semantic.h"
#include "text/syntax.h"

namespace asyncfix {

/// What an expression denotes, as far as the file's imports and assignments show.
struct Origin {
  enum class Kind : std::uint8_t {
    Unknown,
    Path,     ///< a module, function or class reached through imports: "pexpect.spawn"
    Instance, ///< what calling `path` gave: an object made by "pexpect.spawn"
    Local,    ///< something the file defines (a function or class of its own)
  };
  Kind kind = Kind::Unknown;
  std::string path;
  /// The path starts at a name the file never binds, spelt as itself (`asyncio.async(…)` with no
  /// `import asyncio`): a star import or a missing import. A guess, so fixes are unsafe.
  bool literal = false;
  friend bool operator==(const Origin &, const Origin &) = default;
};

/// An attribute chain: `root.written[0].written[1]…`, the token among `written`.
struct AttributeChain {
  TSNode root{};
  std::vector<TSNode> written;
  std::size_t index = 0; ///< the token's position in `written`
};

/// The origins of one file's expressions. Memoizes what bindings hold, so that asking about many
/// expressions costs one resolution per binding. Keeps views of the text and the model.
class NameOrigins {
public:
  /// Relative imports resolve against `package` (Config::package, "" for a top-level module);
  /// without one they are unknown, or with `keepRelative` spelt as the import writes them
  /// (`.kfac.Kfac`: as many leading dots as its level), for a caller that resolves them later.
  NameOrigins(std::string_view text, const SemanticModel &model, std::optional<std::string_view> package = {},
              bool keepRelative = false)
      : text_(text), model_(model), k_(Kinds::get()), package_(package), keepRelative_(keepRelative) {}

  /// What `expression` denotes.
  Origin of(TSNode expression) { return originOf(expression, 0); }

  /// The chain whose outermost attribute is `top`.
  AttributeChain chainBelow(TSNode top) const;
  /// The chain around an attribute name, read from the text and the SemanticModel's records
  /// alone (no parent lookups): `name . name . token . name`, names separated by dots and
  /// blanks. Nullopt when the object is anything else (a call, a subscript, a comment between).
  std::optional<AttributeChain> chainByText(TSNode token) const;
  /// What `root.written[0]…written[count - 1]` holds.
  Origin ofChain(const AttributeChain &chain, std::size_t count);
  /// What attribute `name` of `o` denotes.
  static Origin member(const Origin &o, std::string_view name);

  /// Does the file import package `package` (anywhere, or by a module-level star import)?
  bool imports(std::string_view package);
  /// The modules of the file's module-level star imports of `package` (`from torch.nn import *`
  /// gives "torch.nn"), in source order: where a name the file never binds may come from.
  const std::vector<std::string_view> &starImports(std::string_view package);

  /// The class scope whose method has `identifier` as its first parameter (`self`, `cls`).
  std::optional<std::uint32_t> selfClass(TSNode identifier) const;

private:
  Origin originOf(TSNode e, int depth);
  Origin originOfName(TSNode identifier, int depth);
  Origin bindingOrigin(const NameUse &b, int depth);
  Origin originOfSelfAttribute(std::uint32_t cls, std::string_view name, int depth);

  std::string_view text_;
  const SemanticModel &model_;
  const Kinds &k_;
  std::optional<std::string_view> package_;
  bool keepRelative_ = false;
  // Memos, keyed by scope and a name (the names live in the document's text).
  std::map<std::pair<std::uint32_t, std::string_view>, Origin> names_, members_;
  std::map<std::string, bool, std::less<>> imports_;
  std::map<std::string, std::vector<std::string_view>, std::less<>> stars_;
};

} // namespace asyncfix
