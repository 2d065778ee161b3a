// asyncfix/directory_listing.h — what a walk learnt by listing a directory, handed to the lookups
// that would otherwise ask the filesystem for their files one name at a time: ConfigResolver
// (`.asyncfix.toml`, `asyncfix.toml`, `pyproject.toml`) and GitIgnore (`.git`, `.gitignore`).
// In a tree with none of them, that was five failed lookups by full path per directory, most of a
// walk's system time. Header-only: no I/O, no allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace asyncfix {

/// The names a directory holds among those the configuration and ignore lookups look for in it.
/// Made by default it knows nothing, and every lookup asks the filesystem as before; made with
/// listed() and given every entry of one directory, it lets a lookup skip a name the directory
/// does not hold. Names are compared without regard to ASCII case, so that a case-insensitive
/// directory's `PyProject.toml` still sends the lookup to the filesystem.
class DirectoryListing {
public:
  /// A listing to fill with add(): the directory holds none of the names until added.
  static DirectoryListing listed() {
    DirectoryListing listing;
    listing.known_ = true;
    return listing;
  }

  /// Notes an entry of the directory (any entry may be passed; names no lookup asks about are
  /// ignored).
  void add(std::string_view name) { held_ |= bitOf(name); }

  /// Whether the directory may hold `name`: false only when the listing is known and lacks it.
  bool mayHold(std::string_view name) const {
    if (!known_) return true;
    const std::uint8_t bit = bitOf(name);
    return bit == 0 || (held_ & bit) != 0;
  }

private:
  // Inline, so compiled into both the library and its callers: append names only (a reordering
  // changes the bits a caller's copy sets, and with them ASYNCFIX_ABI_VERSION).
  static constexpr std::string_view kNames[] = {".asyncfix.toml", "asyncfix.toml", "pyproject.toml", ".git",
                                                ".gitignore"};

  static std::uint8_t bitOf(std::string_view name) {
    if (name.size() < 4 || name.size() > 14) return 0;
    for (std::size_t i = 0; i < sizeof kNames / sizeof kNames[0]; ++i) {
      const std::string_view known = kNames[i];
      if (known.size() != name.size()) continue;
      bool same = true;
      for (std::size_t k = 0; k < known.size() && same; ++k) {
        const char c = name[k];
        same = (c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c) == known[k];
      }
      if (same) return static_cast<std::uint8_t>(1U << i);
    }
    return 0;
  }

  std::uint8_t held_ = 0;
  bool known_ = false;
};

} // namespace asyncfix
