// cli/shard.cpp — parsing `--shard I/N` and placing a path in its share.
#include "shard.h"

#include <charconv>

#include "output_ci.h"

namespace asyncfix::cli {
namespace {

/// A decimal number that is all of `text` (no sign, no blanks), or nullopt.
std::optional<std::uint32_t> number(std::string_view text) {
  std::uint32_t value = 0;
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

} // namespace

std::optional<Shard> parseShard(std::string_view text, std::string &error) {
  const std::size_t slash = text.find('/');
  const auto index = number(text.substr(0, slash));
  const auto count = slash == std::string_view::npos ? std::nullopt : number(text.substr(slash + 1));
  if (!index || !count) {
    error = "expected I/N, two whole numbers such as 2/4 (the second of four shares)";
    return std::nullopt;
  }
  if (*count == 0) {
    error = "N must be at least 1";
    return std::nullopt;
  }
  if (*index < 1 || *index > *count) {
    error = "I must be between 1 and N (" + std::to_string(*count) + ")";
    return std::nullopt;
  }
  return Shard{*index, *count};
}

std::uint32_t shardOf(std::string_view path, std::uint32_t count) {
  std::uint64_t hash = 0xcbf29ce484222325ULL; // FNV-1a
  for (const char c : reportPath(path).path) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  }
  // FNV-1a's low bits depend on few input bits (bit 0 is the parity of the bytes' low bits):
  // MurmurHash3's finaliser spreads every bit over all of them before the modulo.
  hash ^= hash >> 33;
  hash *= 0xff51afd7ed558ccdULL;
  hash ^= hash >> 33;
  hash *= 0xc4ceb9fe1a85ec53ULL;
  hash ^= hash >> 33;
  return static_cast<std::uint32_t>(hash % count) + 1;
}

} // namespace asyncfix::cli
