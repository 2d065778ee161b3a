// rules/torch_rule_data.h — name lists that a PyTorch-migration rule (AF3xx) matches and the
// prefilter (text/prefilter.cpp) judges its words by, as data: one copy, read by both, so a name
// added to a rule cannot be missed by the prefilter's judgement of whether a file is worth parsing.
#pragma once

#include <array>
#include <string_view>

namespace asyncfix::rules {

/// AF305 uint8-mask: the tensor methods whose first argument is a mask (`x.masked_fill(mask, v)`);
/// `torch.where`'s condition is one too (the rule resolves that name through the imports).
inline constexpr std::array<std::string_view, 5> kMaskMethods{"masked_fill", "masked_fill_", "masked_select",
                                                              "masked_scatter", "masked_scatter_"};

/// AF316 removed-torch-api: the removed linear-algebra functions whose names are distinctive
/// enough to flag as a tensor method too (`A.potrf()`, `b.gesv(A)`), each `torch.<name>`'s row.
inline constexpr std::array<std::string_view, 5> kRemovedMethods{"gesv", "potrf", "trtrs", "gels", "symeig"};

} // namespace asyncfix::rules
