// engine/still_rejected.h — whether a text the prefilter rejected as a whole is still rejected
// after an edit, judged from the edited statements and their neighbours only.
//
// The prefilter's answer for a whole file (Linter::mayHaveFindings) is a hit: a trigger word in
// code that no judgement rules out. Most judgements read only the word's own line or call: an
// `async`/`await` by its neighbours on its line, a `.to(` by its argument list and the `.` before
// it (back over blanks, line breaks and comments), a `noqa` by the rest of its comment. The others
// read the whole file, and an edit anywhere can change them — these are the words this module
// knows as reading beyond their statement (kCrossStatementWords and the AF3xx words):
//
//   - `non_blocking`: counts where the file names a `DataLoader`, `nn` or `torchvision`, or the
//     call is `.cpu(…)` or has `cpu` in its arguments (prefilter.cpp, nonBlockingMatters);
//   - `await`: `await (x)` is the keyword inside an `async def`, which a pass over the blocks'
//     indentation from the start of the file finds (and gives up at a syntax error anywhere);
//   - the AF3xx words (text/torch_words.h) and the user's AF310 rows (Linter::Impl::apiWords):
//     count where the file spells their package (`torch`, `torchvision`, `numpy`, `scipy`, a star
//     import), and are judged by the file's imports and bindings (importsName, onlyImportsBind,
//     bareNameMayBeImported, the class body of a `Function`'s subclass);
//   - and for every word: whether the text is judged at all (a byte of another character in
//     code anywhere, or a string the lexer loses its way at, makes every word count) and whether
//     the word is in code (the lexer's pass from the start of the file).
//
// So a file that holds none of those words anywhere (in code, strings or comments) stays rejected
// after an edit when the edit brings none in, and the statements around the edit, scanned alone,
// hold no hit and leave the lexer in code: in a tree without syntax errors, before and after the
// edit, every top-level statement starts where the lexer reads code, with no bracket open.
// tests/unit/still_rejected_test.cpp checks the list: inserting any of the prefilter's words
// into rejected files, wherever the prefilter's whole answer changes, this module must not claim
// "still rejected".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace asyncfix {

/// Whether `text` holds, anywhere, a word whose whole-file judgement by the prefilter reads beyond
/// its own statement (the list above; `apiWords`: Linter::Impl::apiWords). Words at either end of
/// `text` are judged without the bytes beyond it (they count more often, never less): asked of a
/// window of crossStatementWordReach() bytes around an edit, it finds every such word the edit
/// made, joined or freed.
bool holdsCrossStatementWord(std::string_view text, const std::vector<std::string> &apiWords);

/// How far (bytes) such a word can reach from an edit: a window of that many bytes on each side
/// of an edited range holds every such word the edit made or joined.
std::size_t crossStatementWordReach(const std::vector<std::string> &apiWords);

/// Whether the prefilter's judgements of the statements in `text` (a run of whole top-level
/// statements of a file without syntax errors, starting where the file's lexer reads code) find
/// no hit of `triggers` there and leave the lexer in code, not lost, at its end.
bool statementsStayRejected(std::string_view text, unsigned triggers);

} // namespace asyncfix
