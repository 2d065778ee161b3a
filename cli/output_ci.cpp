// cli/output_ci.cpp — GitHub workflow commands, GitLab Code Quality JSON, JUnit XML, and what
// the CI formats share: report paths and fingerprints.
#include "output_ci.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <system_error>
#include <tuple>

#include <nlohmann/json.hpp>

#include "asyncfix/line_index.h"
#include "asyncfix/report_format.h"
#include "asyncfix/utf8.h"

namespace asyncfix::cli {
namespace {

using Json = nlohmann::ordered_json;

/// What a message says first about where a notebook finding is ("cell 3:2:5: "); nothing for a
/// plain file, whose rows and columns the formats carry in their own fields.
std::string cellPrefix(const SourcePlace &place) { return place.cell > 0 ? place.label() + ": " : std::string(); }

std::string_view trimBlanks(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\f\v");
  if (first == std::string_view::npos) {
    return {};
  }
  return text.substr(first, text.find_last_not_of(" \t\f\v") - first + 1);
}

/// 64-bit FNV-1a: small, and the same on every platform and in every release.
class Fnv1a {
public:
  void add(std::string_view bytes) {
    for (const char c : bytes) {
      hash_ = (hash_ ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    }
    // A separator that cannot occur in a field's UTF-8, so ("ab","c") and ("a","bc") differ.
    hash_ = (hash_ ^ 0xFFU) * 0x100000001b3ULL;
  }
  std::string hex() const {
    char buffer[17];
    std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash_));
    return buffer;
  }

private:
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

// --- github ------------------------------------------------------------------------------------

/// The message of a workflow command (after `::`), as in @actions/core's escapeData.
std::string githubData(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
    case '%': out += "%25"; break;
    case '\r': out += "%0D"; break;
    case '\n': out += "%0A"; break;
    default: out += c;
    }
  }
  return out;
}

/// A property value of a workflow command, as in @actions/core's escapeProperty.
std::string githubProperty(std::string_view text) {
  std::string out;
  for (const char c : githubData(text)) {
    if (c == ':') {
      out += "%3A";
    } else if (c == ',') {
      out += "%2C";
    } else {
      out += c;
    }
  }
  return out;
}

std::string_view githubCommand(Severity severity) {
  switch (severity) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Info:
  case Severity::Hint: return "notice";
  }
  return "error";
}

// --- gitlab ------------------------------------------------------------------------------------

std::string_view gitlabSeverity(Severity severity) {
  switch (severity) {
  case Severity::Error: return "critical"; // the file does not compile on the target version
  case Severity::Warning: return "major";  // it will not once the target moves to 3.7
  case Severity::Info: return "minor";
  case Severity::Hint: return "info";
  }
  return "major";
}

// --- junit -------------------------------------------------------------------------------------

/// Appends `text` as XML 1.0 character data (or, with `attribute`, a double-quoted attribute
/// value): markup characters become references, and what XML 1.0 cannot hold at all — C0 control
/// characters other than tab and newlines, U+FFFE/U+FFFF, malformed UTF-8 — becomes a visible
/// stand-in (U+2400 + the control's value, or U+FFFD).
void appendXml(std::string &out, std::string_view text, bool attribute) {
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x80) {
      switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += attribute ? "&quot;" : "\""; break;
      case '\n': out += attribute ? "&#10;" : "\n"; break;
      case '\r':
        out += "&#13;"; // a raw CR would be normalized away by the parser
        break;
      case '\t': out += attribute ? "&#9;" : "\t"; break;
      default:
        if (byte < 0x20) {
          const unsigned symbol = 0x2400U + byte;
          out += static_cast<char>(0xE0 | (symbol >> 12));
          out += static_cast<char>(0x80 | ((symbol >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (symbol & 0x3F));
        } else {
          out += c;
        }
      }
      ++i;
      continue;
    }
    const std::size_t length = utf8SequenceLength(text, i);
    const char32_t codePoint = length == 0 ? U'\uFFFD' : utf8Decode(text, i);
    if (length == 0 || codePoint == 0xFFFE || codePoint == 0xFFFF) {
      out += "\xEF\xBF\xBD"; // U+FFFD
    } else {
      out.append(text.substr(i, length));
    }
    i += length == 0 ? 1 : length;
  }
}

std::string xml(std::string_view text, bool attribute = true) {
  std::string out;
  appendXml(out, text, attribute);
  return out;
}

} // namespace

std::string workingDirectory() {
  std::error_code error;
  const std::filesystem::path cwd = std::filesystem::current_path(error);
  if (error) {
    return {};
  }
  std::string out = cwd.generic_string();
  while (out.size() > 1 && out.back() == '/') {
    out.pop_back();
  }
  return out;
}

ReportPath reportPath(std::string_view path) {
  const std::filesystem::path given{std::string(path)};
  const std::string normal = given.lexically_normal().generic_string();
  if (!given.is_absolute() && !normal.empty() && normal != ".." && !normal.starts_with("../")) {
    return {normal, true};
  }
  const std::string cwd = workingDirectory();
  if (cwd.empty()) {
    return {normal.empty() ? std::string(path) : normal, !given.is_absolute()};
  }
  const std::filesystem::path absolute = (std::filesystem::path(cwd) / given).lexically_normal();
  const std::string relative = absolute.lexically_relative(cwd).generic_string();
  if (!relative.empty() && relative != "." && relative != ".." && !relative.starts_with("../")) {
    return {relative, true};
  }
  return {absolute.generic_string(), false};
}

std::vector<std::string> fingerprints(const FileDiagnostics &file) {
  const SourceMap map(file);
  const std::string path = reportPath(file.path).path;
  std::map<std::tuple<std::string_view, std::string_view>, std::size_t> seen;
  std::vector<std::string> out;
  out.reserve(file.diagnostics.size());
  for (const Diagnostic &d : file.diagnostics) {
    // In a notebook the line is the cell's; the cell number is not hashed (cells move).
    const SourcePlace at = map.at(d.start);
    const std::uint32_t line = at.lines->lineOf(at.offset);
    const std::size_t from = at.lines->lineStart(line);
    const std::size_t to = std::max(at.lines->lineEnd(line), from);
    const std::string_view content = trimBlanks(at.text.substr(from, to - from));
    const std::size_t occurrence = seen[{d.code, content}]++;
    Fnv1a hash;
    hash.add(path);
    hash.add(d.code);
    hash.add(content);
    hash.add(std::to_string(occurrence));
    out.push_back(hash.hex());
  }
  return out;
}

std::string renderGithub(std::span<const FileDiagnostics> files) {
  std::string out;
  for (const FileDiagnostics &file : files) {
    if (file.diagnostics.empty()) {
      continue;
    }
    const SourceMap map(file);
    const std::string path = githubProperty(reportPath(file.path).path);
    for (const Diagnostic &d : file.diagnostics) {
      const SourcePlace at = map.at(d.start);
      const RowColumn start = rowColumn(at);
      const RowColumn end = rowColumn(map.at(d.end));
      out += "::";
      out += githubCommand(d.severity);
      out += " title=" + githubProperty("asyncfix (" + std::string(d.code) + ")");
      out += ",file=" + path;
      out += ",line=" + std::to_string(start.row) + ",col=" + std::to_string(start.column);
      out += ",endLine=" + std::to_string(end.row) + ",endColumn=" + std::to_string(end.column);
      out += "::" + githubData(cellPrefix(at) + d.message) + "\n";
    }
  }
  return out;
}

std::string renderGitlab(std::span<const FileDiagnostics> files) {
  Json array = Json::array();
  for (const FileDiagnostics &file : files) {
    if (file.diagnostics.empty()) {
      continue;
    }
    const SourceMap map(file);
    const std::string path = reportPath(file.path).path;
    const std::vector<std::string> prints = fingerprints(file);
    for (std::size_t i = 0; i < file.diagnostics.size(); ++i) {
      const Diagnostic &d = file.diagnostics[i];
      const SourcePlace at = map.at(d.start);
      array.push_back(Json{
          {"description", std::string(d.code) + ": " + cellPrefix(at) + d.message},
          {"check_name", d.code},
          {"fingerprint", prints[i]},
          {"severity", gitlabSeverity(d.severity)},
          {"location",
           Json{{"path", path}, {"lines", Json{{"begin", rowColumn(at).row}, {"end", rowColumn(map.at(d.end)).row}}}}},
      });
    }
  }
  return jsonText(array, 2) + "\n";
}

std::string renderJunit(std::span<const FileDiagnostics> files) {
  std::size_t total = 0;
  for (const FileDiagnostics &file : files) {
    total += file.diagnostics.size();
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"asyncfix\" tests=\"" + std::to_string(total == 0 ? 1 : total) + "\" failures=\"" +
         std::to_string(total) + "\" errors=\"0\">\n";
  if (total == 0) {
    out += "  <testsuite name=\"asyncfix\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"0\">\n"
           "    <testcase name=\"No errors found\" classname=\"asyncfix\"/>\n"
           "  </testsuite>\n";
  }
  for (const FileDiagnostics &file : files) {
    if (file.diagnostics.empty()) {
      continue;
    }
    const SourceMap map(file);
    const std::string path = reportPath(file.path).path;
    const std::string count = std::to_string(file.diagnostics.size());
    out += "  <testsuite name=\"" + xml(path) + "\" tests=\"" + count + "\" failures=\"" + count +
           "\" errors=\"0\" skipped=\"0\">\n";
    for (const Diagnostic &d : file.diagnostics) {
      const SourcePlace place = map.at(d.start);
      const std::string row = std::to_string(rowColumn(place).row);
      const std::string where = place.label(); // "2:5", or "cell 3:2:5" in a notebook
      out += "    <testcase name=\"" + xml(std::string(d.code) + " (" + std::string(d.name) + ") at " + where) +
             "\" classname=\"" + xml(path) + "\" file=\"" + xml(path) + "\" line=\"" + row + "\">\n";
      out += "      <failure message=\"" + xml(cellPrefix(place) + d.message) + "\" type=\"" + xml(d.code) + "\">";
      appendXml(out, path + ":" + where + ": " + std::string(d.code) + " " + d.message, false);
      if (d.fix) {
        out += "\nhelp: ";
        appendXml(out, d.fix->title, false);
      }
      out += "</failure>\n    </testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

} // namespace asyncfix::cli
