// python/asyncfix_module.cpp — the native part of the `asyncfix` Python package (pybind11).
//
// Thin on purpose: options arrive as the JSON the C API takes (asyncfix/__init__.py builds it
// from keyword arguments), results leave as the CLI's JSON, which Python turns into dicts. The GIL
// is released while the engine runs, so threads can lint in parallel (a Linter is thread-safe).
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "asyncfix/linter.h"
#include "asyncfix/report.h"
#include "asyncfix/rules.h"
#include "asyncfix/settings.h"

#ifndef ASYNCFIX_VERSION
#define ASYNCFIX_VERSION "unknown"
#endif

namespace py = pybind11;

namespace {

/// A configuration file that cannot be used: `_asyncfix.ConfigError` (a ValueError) in Python.
struct ConfigProblem : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A Linter with the options' unsafe-fixes setting. With per-file-ignores in the options, each
/// call gets a Linter made for its path (a few microseconds).
class PyLinter {
public:
  explicit PyLinter(const std::string &optionsJson) : linter_(settings(optionsJson, unsafe_, perFile_)) {
    if (perFile_) options_ = optionsJson;
  }

  /// The CLI's JSON array of `src`'s diagnostics.
  std::string checkJson(const std::string &src, const std::string &path) const {
    std::string json;
    std::optional<std::string> error;
    {
      py::gil_scoped_release release;
      std::optional<asyncfix::Linter> own;
      const asyncfix::Report report = linterFor(path, own).lint(src, path);
      if (report.ok()) json = report.toJson();
      else error = path + ": " + *report.error();
    }
    if (error) throw py::value_error(*error);
    return json;
  }

  /// The fixed text.
  std::string fix(const std::string &src, const std::string &path, bool unsafe) const {
    asyncfix::FixResult result;
    {
      py::gil_scoped_release release;
      std::optional<asyncfix::Linter> own;
      result = linterFor(path, own).fix(
          src, path, unsafe || unsafe_ ? asyncfix::Applicability::Unsafe : asyncfix::Applicability::Safe);
    }
    if (result.error) throw py::value_error(path + ": " + *result.error);
    return result.text;
  }

private:
  static asyncfix::Config settings(const std::string &optionsJson, bool &unsafe, bool &perFile) {
    auto parsed = asyncfix::parseJsonSettings(optionsJson);
    if (const auto *error = std::get_if<asyncfix::ConfigError>(&parsed)) throw py::value_error(error->toString());
    const auto &resolved = std::get<asyncfix::ResolvedConfig>(parsed);
    unsafe = resolved.unsafeFixes;
    perFile = !resolved.perFileIgnores.empty();
    return resolved.config;
  }

  /// Called without the GIL: touches no Python object. The options parsed once already.
  const asyncfix::Linter &linterFor(const std::string &path, std::optional<asyncfix::Linter> &own) const {
    if (!perFile_) return linter_;
    auto parsed = asyncfix::parseJsonSettings(options_, path);
    return own.emplace(std::get<asyncfix::ResolvedConfig>(parsed).config);
  }

  bool unsafe_ = false;
  bool perFile_ = false;
  std::string options_;
  asyncfix::Linter linter_;
};

/// Settings from the configuration files (pyproject.toml [tool.asyncfix], asyncfix.toml,
/// .asyncfix.toml) nearest to each path, as the CLI finds them, with overrides on top; one Linter
/// per distinct configuration. For the flake8 plugin. Thread-safe.
class ProjectLinters {
public:
  ProjectLinters(const std::optional<std::string> &target, const std::optional<std::string> &renameStyle)
      : resolver_(options(target, renameStyle)) {}

  std::string checkJson(const std::string &src, const std::string &path) {
    std::string json;
    std::optional<std::string> error, configError;
    {
      py::gil_scoped_release release;
      const auto resolved = resolver_.forFile(path);
      if (const auto *e = std::get_if<asyncfix::ConfigError>(&resolved)) {
        configError = e->toString();
      } else {
        const asyncfix::Report report = linterFor(std::get<asyncfix::ResolvedConfig>(resolved)).lint(src, path);
        if (report.ok()) json = report.toJson();
        else error = path + ": " + *report.error();
      }
    }
    if (configError) throw ConfigProblem(*configError);
    if (error) throw py::value_error(*error);
    return json;
  }

private:
  static asyncfix::ConfigResolver::Options options(const std::optional<std::string> &target,
                                                   const std::optional<std::string> &renameStyle) {
    asyncfix::ConfigResolver::Options o;
    if (target) {
      o.overrides.target = asyncfix::PythonVersion::parse(*target);
      if (!o.overrides.target)
        throw py::value_error("target version must be one of py35 … py314, not `" + *target + "`");
    }
    if (renameStyle) {
      o.overrides.renameTemplate = asyncfix::Config::renameTemplateFor(*renameStyle);
      if (!o.overrides.renameTemplate)
        throw py::value_error("rename style must be `async_`, `is_async` or a template such as `{name}_flag`, not `" +
                              *renameStyle + "`");
    }
    return o;
  }

  const asyncfix::Linter &linterFor(const asyncfix::ResolvedConfig &config) {
    std::string key = config.source.string();
    for (const std::string &code : config.config.rules.ignore) key += '\n' + code;
    const std::lock_guard lock(mutex_);
    auto &slot = linters_[key];
    if (!slot) slot = std::make_unique<asyncfix::Linter>(config.config);
    return *slot;
  }

  asyncfix::ConfigResolver resolver_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<asyncfix::Linter>> linters_;
};

} // namespace

PYBIND11_MODULE(_asyncfix, m) {
  m.doc() = "asyncfix's engine: find and fix Python code broken by Python 3.7's async/await keywords";
  m.attr("__version__") = ASYNCFIX_VERSION;

  py::class_<PyLinter>(m, "Linter")
      .def(py::init<const std::string &>(), py::arg("options_json") = "")
      .def("check_json", &PyLinter::checkJson, py::arg("src"), py::arg("path") = "-")
      .def("fix", &PyLinter::fix, py::arg("src"), py::arg("path") = "-", py::arg("unsafe") = false);

  py::register_exception<ConfigProblem>(m, "ConfigError", PyExc_ValueError);
  py::class_<ProjectLinters>(m, "ProjectLinters")
      .def(py::init<const std::optional<std::string> &, const std::optional<std::string> &>(),
           py::arg("target_version") = py::none(), py::arg("rename_style") = py::none())
      .def("check_json", &ProjectLinters::checkJson, py::arg("src"), py::arg("path"));

  m.def(
      "rules",
      [] {
        py::list out;
        for (const asyncfix::RuleInfo *rule : asyncfix::ruleCatalogue()) {
          py::dict d;
          d["code"] = std::string(rule->code);
          d["name"] = std::string(rule->name);
          d["summary"] = std::string(rule->summary);
          d["doc"] = std::string(rule->doc);
          d["url"] = asyncfix::ruleUrl(*rule);
          out.append(std::move(d));
        }
        return out;
      },
      "Every rule, sorted by code: dicts with code, name, summary, doc (Markdown) and url.");
}
