// lsp/uri.h — file:// URIs ↔ filesystem paths (RFC 8089, percent-encoding as VS Code writes it).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace asyncfix::lsp {

/// The path of a `file:` URI (empty or `localhost` authority), percent-decoded; nullopt for other
/// schemes and malformed URIs.
std::optional<std::filesystem::path> uriToPath(std::string_view uri);

/// `file://` + the absolute path, every byte but unreserved characters and `/` percent-encoded.
std::string pathToUri(const std::filesystem::path &path);

} // namespace asyncfix::lsp
