// asyncfix/report_format.h — what the writers of reports share: JSON as text, and a place as the
// 1-based row and column that every format prints. Internal: not installed; used by the library's
// JSON writer (report.cpp) and the CLI's formats.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "asyncfix/report.h"

namespace asyncfix {

/// A place as the formats print it: 1-based row, 1-based column.
struct RowColumn {
  std::uint32_t row;
  std::uint32_t column;
};

/// The row and column of `place`, the column counted in `encoding` units: code points in every
/// format but SARIF, whose columns count UTF-16 code units. In a notebook, within the cell.
inline RowColumn rowColumn(const SourcePlace &place, PositionEncoding encoding = PositionEncoding::Utf32) {
  const Position p = place.position(encoding);
  return {p.line + 1, p.column + 1};
}

/// `json` as text, indented by `indent` spaces (-1: one line). File names are bytes, not
/// necessarily UTF-8: invalid UTF-8 is replaced, never thrown over.
inline std::string jsonText(const nlohmann::ordered_json &json, int indent) {
  return json.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

} // namespace asyncfix
