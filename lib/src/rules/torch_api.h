// rules/torch_api.h — facts about the PyTorch API that several rules share.
#pragma once

#include <tree_sitter/api.h>

#include <string_view>

namespace asyncfix::rules {

/// True when `keywordArgument` is `async=…` in a call of a PyTorch method that took `async`
/// (Tensor/Variable/storage `.cuda`, `.type`, `.copy_`, their private `_cuda`/`_type` helpers)
/// or of `.to` (born with `non_blocking`, so `async=` there can only mean it). AF101 owns these;
/// AF001 leaves them alone.
bool isTorchAsyncKeyword(TSNode keywordArgument, std::string_view text);

/// The same, token by token, for an `async` (identifier or keyword token) inside an ERROR region
/// where the parser lost the call's structure: `y = x.cuda(0, async=True` with the `)` missing.
/// True when `async` is followed by `=` and is an argument of an open `.cuda(`/`.to(`/… call.
bool isTorchAsyncToken(TSNode asyncToken, std::string_view text);

} // namespace asyncfix::rules
