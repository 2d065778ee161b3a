#include "config/torch_rename_table.h"

#include <algorithm>
#include <vector>

namespace asyncfix::rules {

namespace {

constexpr std::string_view kInit = "deprecated in PyTorch 0.4.0 (in-place initialisers end with `_`)";
constexpr std::string_view kInitSource = "https://github.com/pytorch/pytorch/releases/tag/v0.4.0";

} // namespace

std::span<const TorchRename> torchRenames() {
  // Each row: old path, new path, what happened and when, where that is documented. The rule's
  // documentation (rules/renamed_torch_api.cpp) lists them too.
  static const std::vector<TorchRename> rows{
      // --- torchvision (pytorch/vision#274 deprecated them, #5386 removed them) ---
      {"torchvision.transforms.Scale", "torchvision.transforms.Resize",
       "deprecated in torchvision 0.2.0, removed in 0.12", "https://github.com/pytorch/vision/pull/5386"},
      {"torchvision.transforms.transforms.Scale", "torchvision.transforms.transforms.Resize",
       "deprecated in torchvision 0.2.0, removed in 0.12", "https://github.com/pytorch/vision/pull/5386"},
      {"torchvision.transforms.RandomSizedCrop", "torchvision.transforms.RandomResizedCrop",
       "deprecated in torchvision 0.2.0, removed in 0.12", "https://github.com/pytorch/vision/pull/5386"},
      {"torchvision.transforms.transforms.RandomSizedCrop", "torchvision.transforms.transforms.RandomResizedCrop",
       "deprecated in torchvision 0.2.0, removed in 0.12", "https://github.com/pytorch/vision/pull/5386"},
      // --- torch.nn.init: the eleven initialisers without `_` ---
      {"torch.nn.init.uniform", "torch.nn.init.uniform_", kInit, kInitSource},
      {"torch.nn.init.normal", "torch.nn.init.normal_", kInit, kInitSource},
      {"torch.nn.init.constant", "torch.nn.init.constant_", kInit, kInitSource},
      {"torch.nn.init.eye", "torch.nn.init.eye_", kInit, kInitSource},
      {"torch.nn.init.dirac", "torch.nn.init.dirac_", kInit, kInitSource},
      {"torch.nn.init.xavier_uniform", "torch.nn.init.xavier_uniform_", kInit, kInitSource},
      {"torch.nn.init.xavier_normal", "torch.nn.init.xavier_normal_", kInit, kInitSource},
      {"torch.nn.init.kaiming_uniform", "torch.nn.init.kaiming_uniform_", kInit, kInitSource},
      {"torch.nn.init.kaiming_normal", "torch.nn.init.kaiming_normal_", kInit, kInitSource},
      {"torch.nn.init.orthogonal", "torch.nn.init.orthogonal_", kInit, kInitSource},
      {"torch.nn.init.sparse", "torch.nn.init.sparse_", kInit, kInitSource},
      // --- torch.nn.utils ---
      {"torch.nn.utils.clip_grad_norm", "torch.nn.utils.clip_grad_norm_", "deprecated in PyTorch 0.4.0", kInitSource},
      {"torch.nn.utils.clip_grad.clip_grad_norm", "torch.nn.utils.clip_grad.clip_grad_norm_",
       "deprecated in PyTorch 0.4.0", kInitSource},
      // --- torch.nn.functional: the elementwise functions moved to torch ---
      {"torch.nn.functional.sigmoid", "torch.sigmoid", "deprecated in PyTorch 0.4.1",
       "https://github.com/pytorch/pytorch/releases/tag/v0.4.1"},
      {"torch.nn.functional.tanh", "torch.tanh", "deprecated in PyTorch 0.4.1",
       "https://github.com/pytorch/pytorch/releases/tag/v0.4.1"},
  };
  return rows;
}

const TorchRename *torchRenameOf(std::string_view path) {
  const std::span<const TorchRename> rows = torchRenames();
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const TorchRename &r) { return r.old == path; });
  return it == rows.end() ? nullptr : &*it;
}

bool isTorchRenameName(std::string_view name) {
  const std::span<const TorchRename> rows = torchRenames();
  return std::any_of(rows.begin(), rows.end(), [&](const TorchRename &r) {
    return r.old.size() > name.size() && r.old.ends_with(name) && r.old[r.old.size() - name.size() - 1] == '.';
  });
}

} // namespace asyncfix::rules
