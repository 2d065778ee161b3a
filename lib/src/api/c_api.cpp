// lib/src/api/c_api.cpp — asyncfix.h on top of the C++ API. Every entry point catches everything:
// no exception crosses into C. Failures are recorded per thread (asyncfix_last_error).
#include "asyncfix.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "asyncfix/document.h"
#include "asyncfix/linter.h"
#include "asyncfix/report.h"
#include "asyncfix/rules.h"
#include "asyncfix/run.h"
#include "asyncfix/settings.h"

#include <nlohmann/json.hpp>

#ifndef ASYNCFIX_VERSION
#define ASYNCFIX_VERSION "unknown"
#endif

struct asyncfix_linter {
  asyncfix::Linter linter;
  bool unsafeFixes = false; ///< the options' "unsafe-fixes"
  /// The options, when they hold per-file-ignores: those depend on each call's path.
  std::optional<std::string> perFileOptions;
};

struct asyncfix_report {
  asyncfix::Report report;
  /// NUL-terminated copies of each diagnostic's code and name (the C++ ones are string_views).
  std::vector<std::string> codes, names;
};

struct asyncfix_document {
  asyncfix::Document document;
};

struct asyncfix_project {
  asyncfix::ConfigResolver resolver;
  std::mutex mutex; ///< guards `linters`
  /// One linter per distinct configuration, keyed by its file and the codes it ignores for a path
  /// (per-file-ignores are folded into those).
  std::map<std::string, std::unique_ptr<asyncfix::Linter>> linters;
};

namespace {

struct LastError {
  int code = ASYNCFIX_OK;
  std::string message;
};
#if defined(_WIN32)
// Windows: no thread_local with a destructor (text/syntax.cpp's threadParser() says why); each
// thread's last error is left to the end of the process.
thread_local LastError &lastError = *new LastError;
#else
thread_local LastError lastError;
#endif

/// A failure with a message, thrown inside the library and turned into the thread's last error
/// at the C boundary.
struct Failure {
  asyncfix_status code;
  std::string message;
};

void clearError() {
  lastError.code = ASYNCFIX_OK;
  lastError.message.clear();
}

void setError(int code, std::string message) noexcept {
  try {
    lastError.code = code;
    lastError.message = std::move(message);
  } catch (...) { // no memory even for the message
    lastError.message.clear();
  }
}

/// Runs `body` with the error record cleared first; any exception becomes the thread's last error
/// and `failed` is returned.
template <class Body, class Result> Result guard(Result failed, Body &&body) noexcept {
  try {
    clearError();
    return body();
  } catch (const Failure &f) {
    setError(f.code, f.message);
  } catch (const std::bad_alloc &) {
    setError(ASYNCFIX_ERROR_MEMORY, "out of memory");
  } catch (const std::exception &e) {
    setError(ASYNCFIX_ERROR_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    setError(ASYNCFIX_ERROR_INTERNAL, "internal error");
  }
  return failed;
}

/// `guard` for functions that return an asyncfix_status: the failure's own code.
template <class Body> int status(Body &&body) noexcept {
  const int result = guard(-1, std::forward<Body>(body));
  return result == -1 ? lastError.code : result;
}

std::string_view textOf(const char *src, std::size_t len) {
  if (src == nullptr && len > 0) throw Failure{ASYNCFIX_ERROR_ARGUMENT, "src is NULL but len is not 0"};
  return src == nullptr ? std::string_view() : std::string_view(src, len);
}

std::string_view pathOf(const char *path) { return path == nullptr ? std::string_view("-") : std::string_view(path); }

template <class T> const T &need(const T *handle, const char *what) {
  if (handle == nullptr) throw Failure{ASYNCFIX_ERROR_ARGUMENT, std::string(what) + " is NULL"};
  return *handle;
}

/// The settings `options_json` asks for, matched against `path`'s per-file-ignores.
asyncfix::ResolvedConfig settingsFor(const char *options, std::string_view path) {
  auto parsed = asyncfix::parseJsonSettings(options == nullptr ? std::string_view() : std::string_view(options),
                                            std::filesystem::path(std::string(path)));
  if (auto *error = std::get_if<asyncfix::ConfigError>(&parsed))
    throw Failure{ASYNCFIX_ERROR_OPTIONS, error->toString()};
  return std::get<asyncfix::ResolvedConfig>(std::move(parsed));
}

/// The linter's rules for `path`: with per-file-ignores in the options, a linter made for that
/// path in `own` (a few microseconds); else the handle's own.
const asyncfix::Linter &linterFor(const asyncfix_linter &linter, std::string_view path,
                                  std::optional<asyncfix::Linter> &own) {
  if (!linter.perFileOptions) return linter.linter;
  return own.emplace(settingsFor(linter.perFileOptions->c_str(), path).config);
}

/// A malloc'ed, NUL-terminated copy, for asyncfix_string_free().
char *copyOut(std::string_view text, std::size_t *length = nullptr) {
  auto *out = static_cast<char *>(std::malloc(text.size() + 1));
  if (out == nullptr) throw std::bad_alloc();
  if (!text.empty()) std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
  if (length != nullptr) *length = text.size();
  return out;
}

asyncfix_report *wrap(asyncfix::Report report) {
  if (!report.ok()) throw Failure{ASYNCFIX_ERROR_INPUT, report.path() + ": " + *report.error()};
  auto *out = new asyncfix_report{std::move(report), {}, {}};
  for (const asyncfix::Diagnostic &d : out->report.diagnostics()) {
    out->codes.emplace_back(d.code);
    out->names.emplace_back(d.name);
  }
  return out;
}

const asyncfix::Diagnostic &diagnosticAt(const asyncfix_report *report, std::size_t index) {
  const auto &all = need(report, "report").report.diagnostics();
  if (index >= all.size())
    throw Failure{ASYNCFIX_ERROR_ARGUMENT, "diagnostic index " + std::to_string(index) + " is out of range (" +
                                               std::to_string(all.size()) + " diagnostics)"};
  return all[index];
}

char *fixWith(const asyncfix::Linter &linter, bool unsafe, const char *src, std::size_t len, const char *path,
              std::size_t *outLen) {
  const std::string_view name = pathOf(path);
  asyncfix::FixResult result =
      linter.fix(textOf(src, len), name, unsafe ? asyncfix::Applicability::Unsafe : asyncfix::Applicability::Safe);
  if (result.error) throw Failure{ASYNCFIX_ERROR_INPUT, std::string(name) + ": " + *result.error};
  return copyOut(result.text, outLen);
}

/// The overrides of asyncfix_project_new().
asyncfix::ConfigResolver::Options projectOptions(const char *target, const char *renameStyle) {
  asyncfix::ConfigResolver::Options o;
  if (target != nullptr) {
    o.overrides.target = asyncfix::PythonVersion::parse(target);
    if (!o.overrides.target)
      throw Failure{ASYNCFIX_ERROR_OPTIONS,
                    std::string("target version must be one of py35 … py314, not `") + target + "`"};
  }
  if (renameStyle != nullptr) {
    o.overrides.renameTemplate = asyncfix::Config::renameTemplateFor(renameStyle);
    if (!o.overrides.renameTemplate)
      throw Failure{
          ASYNCFIX_ERROR_OPTIONS,
          std::string("rename style must be `async_`, `is_async` or a template such as `{name}_flag`, not `") +
              renameStyle + "`"};
  }
  return o;
}

/// The project's linter for one resolved configuration, made on first use.
const asyncfix::Linter &projectLinter(asyncfix_project &project, const asyncfix::ResolvedConfig &config) {
  std::string key = config.source.string();
  for (const std::string &code : config.config.rules.ignore) key += '\n' + code;
  const std::lock_guard lock(project.mutex);
  auto &slot = project.linters[key];
  if (!slot) slot = std::make_unique<asyncfix::Linter>(config.config);
  return *slot;
}

/// The rule catalogue with NUL-terminated strings, built once.
struct RuleStrings {
  std::string code, name, summary, doc, url;
};
const std::vector<RuleStrings> &ruleStrings() {
  static const std::vector<RuleStrings> rules = [] {
    std::vector<RuleStrings> out;
    for (const asyncfix::RuleInfo *rule : asyncfix::ruleCatalogue())
      out.push_back({std::string(rule->code), std::string(rule->name), std::string(rule->summary),
                     std::string(rule->doc), asyncfix::ruleUrl(*rule)});
    return out;
  }();
  return rules;
}

const RuleStrings *ruleAt(std::size_t index) {
  const auto &rules = ruleStrings();
  if (index >= rules.size())
    throw Failure{ASYNCFIX_ERROR_ARGUMENT, "rule index " + std::to_string(index) + " is out of range"};
  return &rules[index];
}

/// asyncfix_run()'s options: the command's flags, as overrides of the configuration files.
struct RunSettings {
  asyncfix::ConfigResolver::Options resolver;
  unsigned jobs = 0;
};

[[noreturn]] void badRunOption(const std::string &why) { throw Failure{ASYNCFIX_ERROR_OPTIONS, "options: " + why}; }

std::string stringOption(const nlohmann::json &value, const std::string &key) {
  if (!value.is_string()) badRunOption("`" + key + "` must be a string");
  return value.get<std::string>();
}

bool boolOption(const nlohmann::json &value, const std::string &key) {
  if (!value.is_boolean()) badRunOption("`" + key + "` must be true or false");
  return value.get<bool>();
}

std::vector<std::string> selectorsOption(const nlohmann::json &value, const std::string &key) {
  if (!value.is_array()) badRunOption("`" + key + "` must be a list of rule selectors such as [\"AF1\"]");
  std::vector<std::string> out;
  for (const nlohmann::json &item : value) out.push_back(stringOption(item, key + "[]"));
  out = asyncfix::cleanSelectors(out); // as the command takes `--select " AF1,"`
  asyncfix::RuleSelection check;       // only to validate the selectors, as the command does
  check.select = out;
  for (const std::string &entry : check.unknownEntries())
    badRunOption("unknown rule selector `" + entry + "` in `" + key +
                 "` (use a code such as AF101, a prefix such as "
                 "AF1, or ALL)");
  return out;
}

/// One key of asyncfix_run()'s options into `s`.
void runOption(RunSettings &s, const std::string &key, const nlohmann::json &value) {
  asyncfix::ConfigOverrides &o = s.resolver.overrides;
  if (key == "select") o.select = selectorsOption(value, key);
  else if (key == "extend-select") o.extendSelect = selectorsOption(value, key);
  else if (key == "ignore") o.ignore = selectorsOption(value, key);
  else if (key == "target-version") {
    o.target = asyncfix::PythonVersion::parse(stringOption(value, key));
    if (!o.target) badRunOption("`target-version` must be one of py35 … py314, not `" + value.get<std::string>() + "`");
  } else if (key == "rename-style") {
    o.renameTemplate = asyncfix::Config::renameTemplateFor(stringOption(value, key));
    if (!o.renameTemplate)
      badRunOption("`rename-style` must be `async_`, `is_async` or a template such as `{name}_flag`, not `" +
                   value.get<std::string>() + "`");
  } else if (key == "unsafe-fixes") o.unsafeFixes = boolOption(value, key);
  else if (key == "respect-gitignore") o.respectGitignore = boolOption(value, key);
  else if (key == "docs-url") {
    o.docsUrl = stringOption(value, key);
    if (!asyncfix::isAbsoluteUrl(*o.docsUrl)) badRunOption("`docs-url` `" + *o.docsUrl + "` is not an absolute URL");
  } else if (key == "config") s.resolver.configFile = stringOption(value, key);
  else if (key == "isolated") s.resolver.isolated = boolOption(value, key);
  else if (key == "jobs") {
    if (!value.is_number_unsigned() || value.get<std::uint64_t>() > 1024) badRunOption("`jobs` must be 0 … 1024");
    s.jobs = value.get<unsigned>();
  } else badRunOption("unknown key `" + key + "`");
}

RunSettings runSettings(const char *options) {
  RunSettings s;
  const std::string_view text = options == nullptr ? std::string_view() : std::string_view(options);
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return s;
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error &e) {
    std::string what = e.what(); // "[json.exception.parse_error.101] parse error at line 1, …"
    if (const auto at = what.find("] "); at != std::string::npos) what.erase(0, at + 2);
    badRunOption("invalid JSON: " + what);
  }
  if (!parsed.is_object()) badRunOption("must be a JSON object such as {\"select\": [\"AF1\"]}");
  for (const auto &[key, value] : parsed.items()) runOption(s, key, value);
  if (s.resolver.configFile && s.resolver.isolated) badRunOption("`config` and `isolated` cannot be used together");
  return s;
}

/// The run's reports as `check --output-format json` prints them, links under the docs-url that
/// applies in the current directory (as the command takes it).
std::string runJson(const asyncfix::RunResult &result, const asyncfix::ConfigResolver &resolver) {
  std::vector<asyncfix::FileDiagnostics> views;
  views.reserve(result.reports.size());
  for (const asyncfix::FileReport &report : result.reports) {
    const asyncfix::Notebook *notebook = report.notebook ? &*report.notebook : nullptr;
    views.push_back({report.path, notebook ? std::string_view(notebook->virtualText()) : std::string_view(report.text),
                     report.diagnostics, notebook});
  }
  const auto here = resolver.forFile("-");
  const auto *config = std::get_if<asyncfix::ResolvedConfig>(&here);
  return asyncfix::renderJson(views, false, config != nullptr ? config->docsUrl : std::string());
}

/// The lines the command writes on stderr for the run, in its order: paths, files, module renames.
std::string runMessages(const asyncfix::RunResult &result) {
  std::string out;
  for (const asyncfix::PathError &error : result.pathErrors) out += "error: " + error.path + ": " + error.reason + "\n";
  for (const asyncfix::FileReport &report : result.reports)
    for (const std::string &message : report.messages) out += message + "\n";
  for (const std::string &message : result.projectErrors) out += message + "\n";
  return out;
}

} // namespace

extern "C" {

// --- versions and errors -----------------------------------------------------------------------

const char *asyncfix_version(void) { return ASYNCFIX_VERSION; }
int asyncfix_abi_version(void) { return ASYNCFIX_ABI_VERSION; }
const char *asyncfix_last_error(void) { return lastError.code == ASYNCFIX_OK ? nullptr : lastError.message.c_str(); }
int asyncfix_last_error_code(void) { return lastError.code; }

// --- one-call functions --------------------------------------------------------------------------

char *asyncfix_check_json(const char *src, size_t len, const char *path, const char *options_json) {
  return guard(static_cast<char *>(nullptr), [&] {
    const std::string_view name = pathOf(path);
    const std::string_view text = textOf(src, len);
    const asyncfix::ResolvedConfig settings = settingsFor(options_json, name);
    const asyncfix::Linter linter(settings.config);
    const asyncfix::Report report = linter.lint(text, name);
    if (!report.ok()) throw Failure{ASYNCFIX_ERROR_INPUT, std::string(name) + ": " + *report.error()};
    const asyncfix::FileDiagnostics view = report.view();
    return copyOut(asyncfix::renderJson(std::span(&view, 1), false, settings.docsUrl)); // `url`: under docs-url
  });
}

char *asyncfix_fix(const char *src, size_t len, const char *path, const char *options_json, int unsafe) {
  return guard(static_cast<char *>(nullptr), [&] {
    const asyncfix::ResolvedConfig settings = settingsFor(options_json, pathOf(path));
    const asyncfix::Linter linter(settings.config);
    return fixWith(linter, unsafe != 0 || settings.unsafeFixes, src, len, path, nullptr);
  });
}

void asyncfix_string_free(char *s) { std::free(s); }

// --- linters -------------------------------------------------------------------------------------

asyncfix_linter *asyncfix_linter_new(const char *options_json) {
  return guard(static_cast<asyncfix_linter *>(nullptr), [&] {
    const asyncfix::ResolvedConfig settings = settingsFor(options_json, {});
    std::optional<std::string> perFile;
    if (!settings.perFileIgnores.empty()) perFile = options_json;
    return new asyncfix_linter{asyncfix::Linter(settings.config), settings.unsafeFixes, std::move(perFile)};
  });
}

void asyncfix_linter_free(asyncfix_linter *linter) { delete linter; }

asyncfix_report *asyncfix_linter_check(const asyncfix_linter *linter, const char *src, size_t len, const char *path) {
  return guard(static_cast<asyncfix_report *>(nullptr), [&] {
    std::optional<asyncfix::Linter> own;
    return wrap(linterFor(need(linter, "linter"), pathOf(path), own).lint(textOf(src, len), pathOf(path)));
  });
}

char *asyncfix_linter_fix(const asyncfix_linter *linter, const char *src, size_t len, const char *path, int unsafe,
                          size_t *out_len) {
  return guard(static_cast<char *>(nullptr), [&] {
    const asyncfix_linter &l = need(linter, "linter");
    std::optional<asyncfix::Linter> own;
    return fixWith(linterFor(l, pathOf(path), own), unsafe != 0 || l.unsafeFixes, src, len, path, out_len);
  });
}

// --- reports -------------------------------------------------------------------------------------

void asyncfix_report_free(asyncfix_report *report) { delete report; }

size_t asyncfix_report_count(const asyncfix_report *report) {
  return report == nullptr ? 0 : report->report.diagnostics().size();
}

char *asyncfix_report_json(const asyncfix_report *report) {
  return guard(static_cast<char *>(nullptr), [&] { return copyOut(need(report, "report").report.toJson()); });
}

const char *asyncfix_diagnostic_code(const asyncfix_report *report, size_t index) {
  return guard(static_cast<const char *>(nullptr), [&] {
    diagnosticAt(report, index);
    return report->codes[index].c_str();
  });
}

const char *asyncfix_diagnostic_name(const asyncfix_report *report, size_t index) {
  return guard(static_cast<const char *>(nullptr), [&] {
    diagnosticAt(report, index);
    return report->names[index].c_str();
  });
}

const char *asyncfix_diagnostic_message(const asyncfix_report *report, size_t index) {
  return guard(static_cast<const char *>(nullptr), [&] { return diagnosticAt(report, index).message.c_str(); });
}

int asyncfix_diagnostic_severity(const asyncfix_report *report, size_t index) {
  return guard(-1, [&] { return static_cast<int>(diagnosticAt(report, index).severity); });
}

int asyncfix_diagnostic_bytes(const asyncfix_report *report, size_t index, size_t *start, size_t *end) {
  return status([&] {
    const asyncfix::Diagnostic &d = diagnosticAt(report, index);
    if (start != nullptr) *start = d.start;
    if (end != nullptr) *end = d.end;
    return static_cast<int>(ASYNCFIX_OK);
  });
}

int asyncfix_diagnostic_range(const asyncfix_report *report, size_t index, int encoding, asyncfix_position *start,
                              asyncfix_position *end) {
  return status([&] {
    const asyncfix::Diagnostic &d = diagnosticAt(report, index);
    if (encoding < ASYNCFIX_ENCODING_UTF8 || encoding > ASYNCFIX_ENCODING_UTF32)
      throw Failure{ASYNCFIX_ERROR_ARGUMENT, "unknown encoding " + std::to_string(encoding)};
    const auto unit = static_cast<asyncfix::PositionEncoding>(encoding);
    const auto fill = [&](std::size_t offset, asyncfix_position *out) {
      if (out == nullptr) return;
      const asyncfix::SourcePlace place = report->report.place(offset);
      const asyncfix::Position p = place.position(unit);
      *out = asyncfix_position{static_cast<uint32_t>(place.cell), p.line, p.column};
    };
    fill(d.start, start);
    fill(d.end, end);
    return static_cast<int>(ASYNCFIX_OK);
  });
}

int asyncfix_diagnostic_fix_applicability(const asyncfix_report *report, size_t index) {
  return guard(static_cast<int>(ASYNCFIX_FIX_NONE), [&] {
    const asyncfix::Diagnostic &d = diagnosticAt(report, index);
    return d.fix ? static_cast<int>(d.fix->applicability) : static_cast<int>(ASYNCFIX_FIX_NONE);
  });
}

const char *asyncfix_diagnostic_fix_title(const asyncfix_report *report, size_t index) {
  return guard(static_cast<const char *>(nullptr), [&]() -> const char * {
    const asyncfix::Diagnostic &d = diagnosticAt(report, index);
    return d.fix ? d.fix->title.c_str() : nullptr;
  });
}

size_t asyncfix_diagnostic_edit_count(const asyncfix_report *report, size_t index) {
  return guard(std::size_t{0}, [&] {
    const asyncfix::Diagnostic &d = diagnosticAt(report, index);
    return d.fix ? d.fix->edits.size() : std::size_t{0};
  });
}

int asyncfix_diagnostic_edit(const asyncfix_report *report, size_t index, size_t edit, size_t *start, size_t *end,
                             const char **content, size_t *content_len) {
  return status([&] {
    const asyncfix::Diagnostic &d = diagnosticAt(report, index);
    if (!d.fix || edit >= d.fix->edits.size())
      throw Failure{ASYNCFIX_ERROR_ARGUMENT, "edit index " + std::to_string(edit) + " is out of range"};
    const asyncfix::TextEdit &e = d.fix->edits[edit];
    if (start != nullptr) *start = e.start;
    if (end != nullptr) *end = e.end;
    if (content != nullptr) *content = e.content.c_str();
    if (content_len != nullptr) *content_len = e.content.size();
    return static_cast<int>(ASYNCFIX_OK);
  });
}

// --- documents -----------------------------------------------------------------------------------

asyncfix_document *asyncfix_document_new(const char *src, size_t len) {
  return guard(static_cast<asyncfix_document *>(nullptr),
               [&] { return new asyncfix_document{asyncfix::Document(std::string(textOf(src, len)))}; });
}

void asyncfix_document_free(asyncfix_document *document) { delete document; }

int asyncfix_document_edit(asyncfix_document *document, size_t start, size_t end, const char *text, size_t len) {
  return status([&] {
    if (document == nullptr) throw Failure{ASYNCFIX_ERROR_ARGUMENT, "document is NULL"};
    document->document.edit(start, end, textOf(text, len));
    return static_cast<int>(ASYNCFIX_OK);
  });
}

const char *asyncfix_document_text(const asyncfix_document *document, size_t *len) {
  return guard(static_cast<const char *>(nullptr), [&] {
    const std::string &text = need(document, "document").document.text();
    if (len != nullptr) *len = text.size();
    return text.c_str();
  });
}

asyncfix_report *asyncfix_linter_check_document(const asyncfix_linter *linter, const asyncfix_document *document,
                                                const char *path) {
  return guard(static_cast<asyncfix_report *>(nullptr), [&] {
    std::optional<asyncfix::Linter> own;
    return wrap(
        linterFor(need(linter, "linter"), pathOf(path), own).lint(need(document, "document").document, pathOf(path)));
  });
}

// --- projects ----------------------------------------------------------------------------------

asyncfix_project *asyncfix_project_new(const char *target_version, const char *rename_style) {
  return guard(static_cast<asyncfix_project *>(nullptr), [&] {
    return new asyncfix_project{asyncfix::ConfigResolver(projectOptions(target_version, rename_style)), {}, {}};
  });
}

void asyncfix_project_free(asyncfix_project *project) { delete project; }

asyncfix_report *asyncfix_project_check(asyncfix_project *project, const char *src, size_t len, const char *path) {
  return guard(static_cast<asyncfix_report *>(nullptr), [&] {
    if (project == nullptr) throw Failure{ASYNCFIX_ERROR_ARGUMENT, "project is NULL"};
    const std::string_view name = pathOf(path);
    const std::string_view text = textOf(src, len);
    auto resolved = project->resolver.forFile(std::filesystem::path(std::string(name)));
    if (const auto *error = std::get_if<asyncfix::ConfigError>(&resolved))
      throw Failure{ASYNCFIX_ERROR_CONFIG, error->toString()};
    return wrap(projectLinter(*project, std::get<asyncfix::ResolvedConfig>(resolved)).lint(text, name));
  });
}

// --- runs ----------------------------------------------------------------------------------------

char *asyncfix_run(const char *const *paths, size_t n, const char *options_json, int mode, char **messages) {
  if (messages != nullptr) *messages = nullptr;
  return guard(static_cast<char *>(nullptr), [&] {
    if (paths == nullptr && n > 0) throw Failure{ASYNCFIX_ERROR_ARGUMENT, "paths is NULL but n is not 0"};
    if (mode != ASYNCFIX_RUN_CHECK && mode != ASYNCFIX_RUN_FIX)
      throw Failure{ASYNCFIX_ERROR_ARGUMENT, "unknown run mode " + std::to_string(mode)};
    asyncfix::RunOptions run;
    for (std::size_t i = 0; i < n; ++i) {
      if (paths[i] == nullptr) throw Failure{ASYNCFIX_ERROR_ARGUMENT, "paths[" + std::to_string(i) + "] is NULL"};
      run.roots.emplace_back(paths[i]);
    }
    if (run.roots.empty()) run.roots.emplace_back(".");
    RunSettings settings = runSettings(options_json);
    run.fixMode = mode == ASYNCFIX_RUN_FIX ? asyncfix::FixMode::Apply : asyncfix::FixMode::None;
    run.unsafeFixes = settings.resolver.overrides.unsafeFixes;
    run.jobs = settings.jobs;
    const asyncfix::ConfigResolver resolver(std::move(settings.resolver));
    asyncfix::RunProgress quiet;
    const asyncfix::RunResult result = asyncfix::Run(resolver, std::move(run)).check(quiet);
    char *json = copyOut(runJson(result, resolver));
    if (messages != nullptr) {
      try {
        *messages = copyOut(runMessages(result));
      } catch (...) {
        asyncfix_string_free(json);
        throw;
      }
    }
    return json;
  });
}

// --- the rule catalogue --------------------------------------------------------------------------

size_t asyncfix_rule_count(void) {
  return guard(std::size_t{0}, [] { return ruleStrings().size(); });
}
const char *asyncfix_rule_code(size_t index) {
  return guard(static_cast<const char *>(nullptr), [&] { return ruleAt(index)->code.c_str(); });
}
const char *asyncfix_rule_name(size_t index) {
  return guard(static_cast<const char *>(nullptr), [&] { return ruleAt(index)->name.c_str(); });
}
const char *asyncfix_rule_summary(size_t index) {
  return guard(static_cast<const char *>(nullptr), [&] { return ruleAt(index)->summary.c_str(); });
}
const char *asyncfix_rule_doc(size_t index) {
  return guard(static_cast<const char *>(nullptr), [&] { return ruleAt(index)->doc.c_str(); });
}
const char *asyncfix_rule_url(size_t index) {
  return guard(static_cast<const char *>(nullptr), [&] { return ruleAt(index)->url.c_str(); });
}

} // extern "C"
