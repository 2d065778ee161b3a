// asyncfix/diagnostic.h — what the linter reports: diagnostics and the fixes that ride on them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "asyncfix/export.h"

namespace asyncfix {

class LineIndex;

// Everything here is a plain value: copy and move freely, no hidden sharing, no locking needed
// (but do not mutate one object from two threads).

enum class Severity : std::uint8_t { Error, Warning, Info, Hint };

/// How far a fix can be trusted. Safe fixes keep the program's meaning; unsafe ones may change
/// behaviour seen from outside the file; display-only ones are advice and are never applied.
enum class Applicability : std::uint8_t { Safe, Unsafe, DisplayOnly };

ASYNCFIX_API std::string_view toString(Severity s);
ASYNCFIX_API std::string_view toString(Applicability a);

/// Replace bytes [start, end) of the text with `content`.
struct TextEdit {
  std::size_t start = 0;
  std::size_t end = 0;
  std::string content;
  friend bool operator==(const TextEdit &, const TextEdit &) = default;
};

/// Renaming a file or directory, paths as the front end spelt them: the part of a fix that
/// spans files (a module of the project named `async` is renamed with every import of it).
struct FileRename {
  std::string from;
  std::string to;
  friend bool operator==(const FileRename &, const FileRename &) = default;
};

/// A set of non-overlapping edits, sorted by start, applied together or not at all.
struct Fix {
  std::string title; ///< imperative: "Replace `async=` with `non_blocking=`"
  Applicability applicability = Applicability::Safe;
  std::vector<TextEdit> edits;
  /// Files or directories the fix also renames (empty for a fix of one file). The edits are this
  /// file's part; the front end that knows the other files applies the renames once theirs are
  /// written (the CLI's project view).
  std::vector<FileRename> renames{};
  friend bool operator==(const Fix &, const Fix &) = default;
};

/// A diagnostic's fix, shared between copies: a rename reported at each of its 3 000
/// occurrences holds one Fix of 3 000 edits, not 3 000 copies of it (which made linting such a
/// file quadratic). Reads like `std::optional<Fix>`; assigning a Fix stores a new one, and
/// mutate() gives a private copy to change (copy on write).
class SharedFix {
public:
  SharedFix() = default;
  SharedFix(std::nullopt_t) {} // NOLINT(google-explicit-constructor): like std::optional
  SharedFix(Fix fix) : fix_(std::make_shared<Fix>(std::move(fix))) {} // NOLINT(google-explicit-constructor)
  SharedFix(std::optional<Fix> fix) {                                 // NOLINT(google-explicit-constructor)
    if (fix) fix_ = std::make_shared<Fix>(std::move(*fix));
  }

  explicit operator bool() const { return fix_ != nullptr; }
  bool has_value() const { return fix_ != nullptr; }
  const Fix &operator*() const { return *fix_; }
  const Fix *operator->() const { return fix_.get(); }
  const Fix &value() const {
    if (!fix_) throw std::bad_optional_access();
    return *fix_;
  }
  void reset() { fix_.reset(); }
  /// The fix, unshared first if another diagnostic holds it too.
  Fix &mutate() {
    if (fix_ && fix_.use_count() > 1) fix_ = std::make_shared<Fix>(*fix_);
    return *fix_;
  }
  friend bool operator==(const SharedFix &a, const SharedFix &b) {
    if (a.fix_ == b.fix_) return true;
    return a.fix_ && b.fix_ && *a.fix_ == *b.fix_;
  }

private:
  std::shared_ptr<Fix> fix_;
};

/// A line number in a diagnostic's message that names another statement's line ("the DataLoader
/// on line 5"), kept as the byte it names: a host that moves the diagnostic with the text
/// (IncrementalLint, as a user types lines above that statement) renders the number again
/// (renderLineNumbers) instead of linting the statement that reported it again.
struct LineReference {
  std::size_t offset = 0;   ///< the byte whose line the number is
  std::uint32_t at = 0;     ///< where the number's digits start in the message
  std::uint32_t length = 0; ///< how many digits
  std::string_view what;    ///< what stands at `offset`, a static string: "The DataLoader"
  friend bool operator==(const LineReference &, const LineReference &) = default;
};

/// One finding. `code` and `name` point at the rule catalogue's static strings.
struct Diagnostic {
  std::string_view code; ///< "AF101"
  std::string_view name; ///< "torch-async-kwarg"
  Severity severity = Severity::Error;
  std::string message;
  std::size_t start = 0; ///< byte range of the offending token
  std::size_t end = 0;
  SharedFix fix;
  /// The line numbers the message holds, in the order they appear in it (most findings: none).
  std::vector<LineReference> lineReferences{};
  friend bool operator==(const Diagnostic &, const Diagnostic &) = default;
};

/// Appends the 1-based line of byte `offset` of `lines`' text to `d.message` and keeps it in
/// `d.lineReferences` (`what`: a static string saying what stands there).
ASYNCFIX_API void appendLineNumber(Diagnostic &d, const LineIndex &lines, std::size_t offset, std::string_view what);
/// Renders `d`'s line numbers again from their offsets, after the text and the offsets moved.
ASYNCFIX_API void renderLineNumbers(Diagnostic &d, const LineIndex &lines);

/// Apply sorted, non-overlapping edits to `text`.
ASYNCFIX_API std::string applyEdits(std::string_view text, const std::vector<TextEdit> &edits);

} // namespace asyncfix
