// cli/shard.h — `check --shard I/N`: a stable partition of the files to check, so that N CI jobs
// each check one share.
//
// A file's share depends on its own path only — never on which other files exist, the machine,
// the run or the number of threads — so the N shares of one file list are disjoint and cover it.
// Knows nothing about walks or output; check.cpp filters its file list with shardOf().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace asyncfix::cli {

/// Share `index` (1-based) of `count`.
struct Shard {
  std::uint32_t index = 1;
  std::uint32_t count = 1;
};

/// "2/4" → {2, 4}: two decimal numbers, 1 ≤ I ≤ N. Anything else is nullopt, with the reason in
/// `error` ("I must be between 1 and N").
std::optional<Shard> parseShard(std::string_view text, std::string &error);

/// The share (1-based, of `count`) that holds `path`: FNV-1a (64-bit) over the bytes of the path
/// as CI reports spell it (relative to the working directory when it lies under it, lexically
/// normalised, `/`-separated; see reportPath), mixed by MurmurHash3's 64-bit finaliser, modulo
/// `count`, plus one. So `src/a.py`, `./src/a.py` and `$PWD/src/a.py` land in the same share, on
/// every machine.
std::uint32_t shardOf(std::string_view path, std::uint32_t count);

} // namespace asyncfix::cli
