// cli/merge.cpp — `asyncfix merge-reports`: the `json`, `json-lines` or `sarif` reports of the
// shards of one run (`check --shard I/N`) merged into the report a single run over all the files
// prints, byte for byte.
//
// A run prints its files in path order (collectFiles sorts them) and each file's findings in the
// linter's order; a shard prints a subset of the files, in the same order. So the merge is a
// stable sort of every shard's findings by their file's path: each file is in one shard only, and
// its findings stay as that shard printed them. JSON objects carry the path in "filename". A SARIF
// result carries it percent-encoded in its artifact URI, relative to %SRCROOT% when it lies under
// the working directory (else a file:// URI); decoded, that is the path the run sorted whenever
// the paths checked were spelt relative to the working directory, inside it — as `.`, a walk of
// any subdirectory or a `git diff --name-only` list are (see the README). Everything else of a
// SARIF log (the tool with its rules, columnKind, the base URI) is the same in every shard and is
// taken from the first report. The merged report is dumped as the writers dump theirs (two-space
// indent, UTF-8 as it is, invalid bytes replaced). Reads JSON only: it never runs a check.
#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "asyncfix/report_format.h"
#include "asyncfix/source_io.h"
#include "commands.h"

namespace asyncfix::cli {
namespace {

using Json = nlohmann::ordered_json;

/// A report that cannot be merged; the message names the report.
struct MergeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ShardReport {
  std::string name; ///< as given ("-" shows as "standard input")
  std::string bytes;
};

/// One finding (a JSON object, a SARIF result) and the path of its file.
struct Finding {
  std::string path;
  std::size_t report = 0; ///< index of the report it came from
  Json value;
};

Json parse(std::string_view text, const std::string &name) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error &e) {
    throw MergeError(name + ": not valid JSON (" + e.what() + ")");
  }
}

/// `%XX` sequences decoded to their bytes; anything else kept as it is.
std::string percentDecoded(std::string_view text) {
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      out += static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

/// The path of the file a `json`/`json-lines` object is about.
std::string jsonPath(const Json &object, const std::string &name) {
  if (!object.is_object() || !object.contains("filename") || !object["filename"].is_string()) {
    throw MergeError(name + ": not an asyncfix JSON report (a finding without a \"filename\")");
  }
  return object["filename"].get<std::string>();
}

/// The path of the file a SARIF result is about: its artifact URI, decoded.
std::string sarifPath(const Json &result, const std::string &name) {
  try {
    const Json &location = result.at("locations").at(0).at("physicalLocation");
    std::string_view uri = location.at("artifactLocation").at("uri").get_ref<const std::string &>();
    if (uri.starts_with("file://")) uri.remove_prefix(7);
    return percentDecoded(uri);
  } catch (const Json::exception &) {
    throw MergeError(name + ": not an asyncfix SARIF log (a result without an artifact URI)");
  }
}

/// The one run of an asyncfix SARIF log.
Json &sarifRun(Json &log, const std::string &name) {
  const bool oneRun = log.is_object() && log.contains("runs") && log["runs"].is_array() && log["runs"].size() == 1 &&
                      log["runs"][0].is_object();
  if (!oneRun || !log["runs"][0].contains("results") || !log["runs"][0]["results"].is_array()) {
    throw MergeError(name + ": not a SARIF log with one run, as `check --output-format sarif` writes");
  }
  return log["runs"][0];
}

/// The member names in which two JSON objects differ, other than `skip`.
std::vector<std::string> differences(const Json &a, const Json &b, std::initializer_list<std::string_view> skip) {
  std::vector<std::string> out;
  const auto skipped = [&](const std::string &key) { return std::find(skip.begin(), skip.end(), key) != skip.end(); };
  for (const auto &[key, value] : a.items()) {
    if (!skipped(key) && (!b.contains(key) || b[key] != value)) out.push_back(key);
  }
  for (const auto &[key, value] : b.items()) {
    if (!skipped(key) && !a.contains(key)) out.push_back(key);
  }
  return out;
}

/// Every finding in merged order: by path, and in each file as its report gave them. A file
/// found in two reports means they are not shards of one run (or one was given twice).
std::vector<Finding> merged(std::vector<Finding> findings, const std::vector<ShardReport> &reports) {
  std::map<std::string_view, std::size_t> owner;
  for (const Finding &f : findings) {
    const auto [it, added] = owner.emplace(f.path, f.report);
    if (!added && it->second != f.report) {
      throw MergeError(f.path + " is in both " + reports[it->second].name + " and " + reports[f.report].name +
                       ": merge the reports of the shards of one run, each once");
    }
  }
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Finding &a, const Finding &b) { return a.path < b.path; });
  return findings;
}

std::string mergeJson(const std::vector<ShardReport> &reports, bool lines) {
  std::vector<Finding> findings;
  for (std::size_t r = 0; r < reports.size(); ++r) {
    const std::string &name = reports[r].name;
    if (lines) {
      std::string_view rest = reports[r].bytes;
      while (!rest.empty()) {
        const std::size_t end = rest.find('\n');
        const std::string_view line = rest.substr(0, end);
        rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
        if (line.empty()) continue;
        Json object = parse(line, name);
        std::string path = jsonPath(object, name);
        findings.push_back({std::move(path), r, std::move(object)});
      }
      continue;
    }
    Json array = parse(reports[r].bytes, name);
    if (!array.is_array()) {
      throw MergeError(name + ": not an asyncfix JSON report (expected an array)");
    }
    for (Json &object : array) {
      std::string path = jsonPath(object, name);
      findings.push_back({std::move(path), r, std::move(object)});
    }
  }
  std::string out;
  Json array = Json::array();
  for (Finding &f : merged(std::move(findings), reports)) {
    if (lines) out += jsonText(f.value, -1) + "\n";
    else array.push_back(std::move(f.value));
  }
  return lines ? out : jsonText(array, 2) + "\n";
}

std::string mergeSarif(const std::vector<ShardReport> &reports) {
  Json first;
  std::vector<Finding> findings;
  for (std::size_t r = 0; r < reports.size(); ++r) {
    const std::string &name = reports[r].name;
    Json log = parse(reports[r].bytes, name);
    Json &run = sarifRun(log, name);
    for (Json &result : run["results"]) {
      std::string path = sarifPath(result, name);
      findings.push_back({std::move(path), r, std::move(result)});
    }
    run["results"] = Json::array();
    if (r == 0) {
      first = std::move(log);
      continue;
    }
    const Json &firstRun = first["runs"][0];
    auto differ = differences(first, log, {"runs"});
    for (std::string &key : differences(firstRun, run, {"results", "originalUriBaseIds"})) {
      differ.push_back(std::move(key));
    }
    if (!differ.empty()) {
      throw MergeError(name + " and " + reports[0].name + " differ in `" + differ.front() +
                       "`: they were not written by one asyncfix version");
    }
    if (firstRun.value("originalUriBaseIds", Json()) != run.value("originalUriBaseIds", Json())) {
      std::fprintf(stderr,
                   "warning: %s was written in another directory than %s; the merged log keeps "
                   "%s's %%SRCROOT%%\n",
                   name.c_str(), reports[0].name.c_str(), reports[0].name.c_str());
    }
  }
  Json &results = first["runs"][0]["results"];
  for (Finding &f : merged(std::move(findings), reports)) results.push_back(std::move(f.value));
  return jsonText(first, 2) + "\n";
}

} // namespace

int runMergeReports(const MergeOptions &options) {
  std::vector<ShardReport> reports;
  for (const std::string &name : options.reports) {
    ReadResult read = name == "-" ? readStdin() : readInputFile(name);
    if (read.error) {
      std::fprintf(stderr, "error: %s: %s\n", name.c_str(), read.error->c_str());
      return kExitFailure;
    }
    reports.push_back({name == "-" ? "standard input" : name, std::move(read.bytes)});
  }
  std::string out;
  try {
    switch (options.format) {
    case OutputFormat::Json:
    case OutputFormat::JsonLines: out = mergeJson(reports, options.format == OutputFormat::JsonLines); break;
    case OutputFormat::Sarif: out = mergeSarif(reports); break;
    default:
      std::fprintf(stderr, "error: merge-reports merges json, json-lines and sarif reports only\n");
      return kExitFailure;
    }
  } catch (const MergeError &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitFailure;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return kExitClean;
}

} // namespace asyncfix::cli
