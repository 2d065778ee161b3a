// torch_rename_table.h — names that PyTorch and torchvision renamed or removed with a 1:1
// successor, as data (the rows of AF310 renamed-torch-api, rules/renamed_torch_api.cpp). Private.
//
// Each old name is matched by the dotted path it denotes through the file's imports
// (name_origins.h), so `transforms.Scale` after `from torchvision import transforms` is
// `torchvision.transforms.Scale`; every row's words are in text/torch_words.cpp.
#pragma once

#include <span>
#include <string_view>

namespace asyncfix::rules {

struct TorchRename {
  std::string_view old;         ///< the full old path: "torchvision.transforms.Scale"
  std::string_view replacement; ///< the full new path: "torchvision.transforms.Resize"
  std::string_view status;      ///< what happened, for messages: "removed in torchvision 0.12"
  std::string_view source;      ///< where that is documented
};

/// The compiled-in rows, in a stable order.
std::span<const TorchRename> torchRenames();

/// The row whose old path is `path` (nullptr when none).
const TorchRename *torchRenameOf(std::string_view path);

/// Whether some row's old path ends with the component `name` (a cheap first test).
bool isTorchRenameName(std::string_view name);

} // namespace asyncfix::rules
