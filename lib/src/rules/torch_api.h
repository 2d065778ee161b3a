// rules/torch_api.h — facts about the PyTorch API that several rules share.
#pragma once

#include <tree_sitter/api.h>

#include <optional>
#include <string_view>

namespace asyncfix::rules {

/// True when `keywordArgument` is `async=…` in a call of a PyTorch method that took `async`
/// (Tensor/Variable/storage `.cuda`, `.type`, `.copy_`, their private `_cuda`/`_type` helpers)
/// or of `.to` (born with `non_blocking`, so `async=` there can only mean it). AF101 owns these;
/// AF001 leaves them alone.
bool isTorchAsyncKeyword(TSNode keywordArgument, std::string_view text);

class Context;

/// The same, token by token, for an `async` (identifier or keyword token) inside an ERROR region
/// where the parser lost the call's structure: `y = x.cuda(0, async=True` with the `)` missing.
/// True when `async` is followed by `=` and is an argument of an open `.cuda(`/`.to(`/… call.
/// The leaves it reads back to the call are declared to `ctx` (Context::dependsOn).
bool isTorchAsyncToken(TSNode asyncToken, Context &ctx);

/// The method a keyword argument is passed to (`cuda` for `x.cuda(async=True)`), "" when the
/// callee is not an attribute.
std::string_view calledMethod(TSNode keywordArgument, std::string_view text);

/// AF102's: `async=`/`non_blocking=` on `.cuda()` of an nn.Module (which never took either), or
/// on `.cpu()` of anything.
bool isUnsupportedNonBlocking(TSNode keywordArgument, Context &ctx);

/// A `try: …non_blocking=… except TypeError: …async=…` compatibility shim (either order), and
/// which of its two branches keeps the `non_blocking` spelling.
struct AsyncShim {
  TSNode tryStatement{};
  TSNode keep{};     ///< the block to keep (uses non_blocking=)
  TSNode fallback{}; ///< the block to drop (uses async=)
  TSNode asyncName{}; ///< the first `async` keyword name in the fallback
};
std::optional<AsyncShim> asyncShim(TSNode tryStatement, std::string_view text);

/// True when `node` lies in the `async=` branch of an AF105 shim (AF105 owns it, not AF101/AF001).
bool insideAsyncShim(TSNode node, const Context &ctx);

} // namespace asyncfix::rules
