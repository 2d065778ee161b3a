// cli/output_sarif.cpp — `--output-format sarif`: one SARIF 2.1.0 log with one run.
//
// The rules come from the catalogue (id, name, descriptions, help in Markdown, helpUri), each
// result points at a region and carries its fix as a SARIF fix (deleted regions + inserted text).
// Columns count UTF-16 code units — SARIF's default columnKind, which the run also states — so a
// region's columns come from LineIndex with PositionEncoding::Utf16; lines and columns are 1-based
// and endColumn is the column just after the region. A UTF-8 BOM is not counted, as everywhere.
// Paths under the working directory are relative URIs against the base id %SRCROOT%.
//
// A notebook finding's region counts lines and columns within its code cell (SARIF has no notion
// of cells, and the .ipynb artifact is JSON): the result says so with the cell number in its
// `properties` ({"cell": 3}), and carries no `fixes`, whose regions a SARIF consumer would apply
// to the JSON file.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asyncfix/line_index.h"
#include "asyncfix/report_format.h"
#include "asyncfix/rules.h"
#include "output_ci.h"

#ifndef ASYNCFIX_VERSION
#define ASYNCFIX_VERSION "unknown"
#endif

namespace asyncfix::cli {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kSchema = "https://json.schemastore.org/sarif-2.1.0.json";
constexpr std::string_view kSourceRoot = "%SRCROOT%";

/// Percent-encodes every byte of a path but the unreserved characters of RFC 3986 and `/`, so
/// that any file name (blanks, `%`, `#`, `:` in the first segment, non-UTF-8 bytes) is a valid
/// URI reference.
std::string uriPath(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    const bool unreserved = (byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
                            (byte >= '0' && byte <= '9') || c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    if (unreserved) {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0x0F];
    }
  }
  return out;
}

std::string_view level(Severity severity) {
  switch (severity) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Info:
  case Severity::Hint: return "note";
  }
  return "error";
}

/// The region of bytes [start, end): 1-based lines, 1-based UTF-16 columns, end exclusive.
Json region(const SourceMap &map, std::size_t start, std::size_t end) {
  const RowColumn from = rowColumn(map.at(start), PositionEncoding::Utf16);
  const RowColumn to = rowColumn(map.at(end), PositionEncoding::Utf16);
  return Json{{"startLine", from.row}, {"startColumn", from.column}, {"endLine", to.row}, {"endColumn", to.column}};
}

Json artifactLocation(std::string_view path, const std::string &cwd) {
  const ReportPath where = reportPath(path);
  if (where.relative && !cwd.empty()) {
    return Json{{"uri", uriPath(where.path)}, {"uriBaseId", kSourceRoot}};
  }
  if (!where.relative) {
    return Json{{"uri", "file://" + uriPath(where.path)}};
  }
  return Json{{"uri", uriPath(where.path)}};
}

Json rules(std::string_view docsUrl) {
  Json out = Json::array();
  for (const RuleInfo *rule : ruleCatalogue()) {
    const std::string url = ruleUrl(*rule, docsUrl);
    out.push_back(Json{
        {"id", rule->code},
        {"name", rule->name},
        {"shortDescription", Json{{"text", rule->summary}}},
        {"fullDescription", Json{{"text", rule->doc}}},
        {"help", Json{{"text", std::string(rule->summary) + "\n\nSee " + url}, {"markdown", rule->doc}}},
        {"helpUri", url},
        {"defaultConfiguration", Json{{"level", "error"}}},
    });
  }
  return out;
}

std::optional<std::size_t> ruleIndex(std::string_view code) {
  const auto catalogue = ruleCatalogue();
  for (std::size_t i = 0; i < catalogue.size(); ++i) {
    if (catalogue[i]->code == code) {
      return i;
    }
  }
  return std::nullopt;
}

Json fix(const Fix &f, const SourceMap &map, const Json &location) {
  Json replacements = Json::array();
  for (const TextEdit &edit : f.edits) {
    replacements.push_back(
        Json{{"deletedRegion", region(map, edit.start, edit.end)}, {"insertedContent", Json{{"text", edit.content}}}});
  }
  Json properties{{"applicability", toString(f.applicability)}};
  // SARIF has no file renames: a fix that moves a module says so in its properties.
  if (!f.renames.empty()) {
    Json renames = Json::array();
    for (const FileRename &r : f.renames) renames.push_back(Json{{"from", r.from}, {"to", r.to}});
    properties["renames"] = std::move(renames);
  }
  return Json{
      {"description", Json{{"text", f.title}}},
      {"artifactChanges",
       Json::array({Json{{"artifactLocation", location}, {"replacements", std::move(replacements)}}})},
      {"properties", std::move(properties)},
  };
}

Json results(std::span<const FileDiagnostics> files, const std::string &cwd) {
  Json out = Json::array();
  for (const FileDiagnostics &file : files) {
    if (file.diagnostics.empty()) {
      continue;
    }
    const SourceMap map(file);
    const Json location = artifactLocation(file.path, cwd);
    const std::vector<std::string> prints = fingerprints(file);
    for (std::size_t i = 0; i < file.diagnostics.size(); ++i) {
      const Diagnostic &d = file.diagnostics[i];
      Json result{{"ruleId", d.code}};
      if (const auto index = ruleIndex(d.code)) {
        result["ruleIndex"] = *index;
      }
      result["level"] = level(d.severity);
      result["message"] = Json{{"text", d.message}};
      result["locations"] = Json::array(
          {Json{{"physicalLocation", Json{{"artifactLocation", location}, {"region", region(map, d.start, d.end)}}}}});
      result["partialFingerprints"] = Json{{"asyncfix/v1", prints[i]}};
      if (file.notebook != nullptr) {
        result["properties"] = Json{{"cell", map.at(d.start).cell}};
      } else if (d.fix && !d.fix->edits.empty()) {
        result["fixes"] = Json::array({fix(*d.fix, map, location)});
      }
      out.push_back(std::move(result));
    }
  }
  return out;
}

} // namespace

std::string renderSarif(std::span<const FileDiagnostics> files, std::string_view docsUrl) {
  const std::string cwd = workingDirectory();
  std::string manual(docsUrl.empty() ? defaultDocsUrl() : std::string(docsUrl));
  while (!manual.empty() && manual.back() == '/') manual.pop_back();
  Json run{
      {"tool", Json{{"driver", Json{{"name", "asyncfix"},
                                    {"version", ASYNCFIX_VERSION},
                                    {"semanticVersion", ASYNCFIX_VERSION},
                                    {"informationUri", manual + "/README.md"},
                                    {"rules", rules(docsUrl)}}}}},
  };
  if (!cwd.empty()) {
    run["originalUriBaseIds"] = Json{{kSourceRoot, Json{{"uri", "file://" + uriPath(cwd == "/" ? cwd : cwd + "/")}}}};
  }
  run["columnKind"] = "utf16CodeUnits";
  run["results"] = results(files, cwd);
  const Json log{{"$schema", kSchema}, {"version", "2.1.0"}, {"runs", Json::array({std::move(run)})}};
  return jsonText(log, 2) + "\n";
}

} // namespace asyncfix::cli
