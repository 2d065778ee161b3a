// prefilter.h — a conservative, token-aware scan that decides whether a text needs parsing at all.
//
// Most Python files cannot hold a finding, and reading a file costs ~100× less than parsing it,
// so every front end asks the prefilter first. Fast path: one SIMD pass over the text finds the
// places where the few words a finding needs may start (`async`, `await`, `non_blocking`, `.to(`,
// `noqa`); a hit is then judged by its neighbours (`async def`, `await x` are the keywords they
// look like; `.to(` needs a bare bool after its first argument) and — only for a hit that still
// looks like a finding — by a forward lexer pass that reads strings, f-strings and comments as
// tree-sitter-python's scanner does and goes no further than the last hit it is asked about, so
// the word "async" in a docstring, a comment or an f-string's text does not make a file worth
// parsing. Where that pass cannot follow the scanner (a string left unterminated, whose quote
// the parser's error recovery may pair with any later one), no judgement is trusted: every word
// counts. The few hits whose judgement needs more context get it from that pass: the call a
// `non_blocking=` belongs to, and for `await (x)` whether the innermost function is an
// `async def` (a forward pass over the blocks' indentation, made only for such a hit).
//
// The answer may be "maybe" too often, never "no" wrongly: a text the prefilter rejects gives no
// diagnostic with any rule (checked over whole corpora by `asyncfix_bench_parse verify`, and on
// any bytes by the fuzz target `fuzz_prefilter`).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace asyncfix {

/// The words a rule needs (a bit set; rules/rule.h names them per rule).
enum PrefilterTrigger : unsigned {
  kPrefilterKeywordName = 1U << 0, ///< `async`/`await` in code, not followed by what makes it the keyword
  kPrefilterNonBlocking = 1U << 1, ///< `non_blocking` in code
  kPrefilterToCall = 1U << 2,      ///< `.to(` in code with a bare `True`/`False` among its arguments
  kPrefilterNoqa = 1U << 3,        ///< a `noqa` comment naming an AF code
  kPrefilterTorchApi = 1U << 4,    ///< a word of the PyTorch-migration rules in code (text/torch_words.h)
};

/// The triggers among `wanted` that occur in `text` (0: no rule asking only for these can fire).
/// With `offsets`, every occurrence's byte offset is appended (sorted, for the whole text);
/// without, the scan stops as soon as every wanted trigger was seen. Without `offsets` the text
/// is taken as a whole file: a `non_blocking` counts only as a keyword argument of a call a rule
/// reads it in, where the file names what that rule needs (`.cpu(…)`; `.cuda(…)` with `nn` or
/// `torchvision` for a module; `non_blocking=True` in `.cuda(…)`/`.to(…)` with a `DataLoader`, or
/// in `.to(…)` with `cpu` among its arguments); with them, `text` may be one statement of a file
/// and every `non_blocking` in code is marked. `reached`: the packages of text/torch_words.h the
/// text reaches without spelling them (the file's own package, through relative imports).
unsigned scanTriggers(std::string_view text, unsigned wanted, std::vector<std::uint32_t> *offsets = nullptr,
                      unsigned reached = 0);

/// scanTriggers() by the reference path: every position tried one at a time against the plain
/// definitions of the words (no SIMD search, no filter tables or bit sets, no vectorised
/// substring search), the same judgements. For tests and the fuzz target, which compare the two
/// (they must give the same answer and the same offsets on any text); slow.
unsigned scanTriggersReference(std::string_view text, unsigned wanted, std::vector<std::uint32_t> *offsets = nullptr,
                               unsigned reached = 0);

/// Whether scanTriggers(text, wanted, nullptr, reached) is not 0: the question a front end asks
/// of a whole file, answered at the first hit (scanTriggers goes on until it has seen every
/// wanted trigger, which a file that needs parsing rarely holds: it read such files whole).
/// With `plain`, also whether it found no trigger in a text whose every byte is printable ASCII,
/// a tab, a line break or a form feed (which needs no UTF-8 check and holds no NUL), which its
/// scan then read whole; false otherwise.
bool mayTrigger(std::string_view text, unsigned wanted, unsigned reached = 0, bool *plain = nullptr);
/// mayTrigger() by the reference path (scanTriggersReference), for tests and the fuzz target.
bool mayTriggerReference(std::string_view text, unsigned wanted, unsigned reached = 0);

/// The hit that made scanTriggers(text, wanted) say "maybe": the first one in the text that no
/// judgement rejected (its trigger bit and byte offset); trigger 0 when the text is rejected.
/// For diagnostics (`asyncfix_bench_parse explain`): which word keeps a file, and where.
struct PrefilterHit {
  unsigned trigger = 0;
  std::uint32_t offset = 0;
};
PrefilterHit firstTrigger(std::string_view text, unsigned wanted, unsigned reached = 0);

/// Whether the word `async` or `await` at `offset` is certainly the keyword by its neighbours on
/// its line — `async def`/`async with` starting a line, `async for` after an expression or at a
/// line's start, `await` before a name, a string, `{` or `~` — whatever a parser made of it. The
/// prefilter rejects such words, and AF001/AF002 honour the same judgement, so the two agree also
/// where tree-sitter's error recovery reads the keyword as a name (an `async def` under a bracket
/// left open). It reads `text` from the start of `offset`'s line to the end of the next word.
bool keywordByNeighbours(std::string_view text, std::size_t offset);

/// Whether the word of `length` bytes at `offset` may be a token of its own: no ASCII identifier
/// byte right after it, nor right before it (unless the run of them before it starts with a
/// digit: `0await` is a number and a name). Tree-sitter's error recovery may skip a byte and start
/// a token inside a longer name (`!dasync` gives `async`), which Python reads whole: the
/// prefilter counts `async`/`await` only where this holds, and AF001/AF002 report only there.
bool keywordStandsAlone(std::string_view text, std::size_t offset, std::size_t length);

inline bool mayUseKeywordAsName(std::string_view text) { return scanTriggers(text, kPrefilterKeywordName) != 0; }
inline bool mentionsNonBlocking(std::string_view text) { return scanTriggers(text, kPrefilterNonBlocking) != 0; }
inline bool mentionsToCall(std::string_view text) { return scanTriggers(text, kPrefilterToCall) != 0; }
inline bool mentionsAsyncfixNoqa(std::string_view text) { return scanTriggers(text, kPrefilterNoqa) != 0; }

} // namespace asyncfix
