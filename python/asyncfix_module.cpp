// python/asyncfix_module.cpp — the native part of the `asyncfix` Python package (pybind11).
//
// Thin on purpose: options arrive as the JSON the C API takes (asyncfix/__init__.py builds it
// from keyword arguments), results leave as the CLI's JSON, which Python turns into dicts. The GIL
// is released while the engine runs, so threads can lint in parallel (a Linter is thread-safe).
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

/// A Linter with the options' unsafe-fixes setting.
class PyLinter {
public:
  explicit PyLinter(const std::string &optionsJson) : linter_(settings(optionsJson, unsafe_)) {}

  /// The CLI's JSON array of `src`'s diagnostics.
  std::string checkJson(const std::string &src, const std::string &path) const {
    std::string json;
    std::optional<std::string> error;
    {
      py::gil_scoped_release release;
      const asyncfix::Report report = linter_.lint(src, path);
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
      result = linter_.fix(src, path, unsafe || unsafe_ ? asyncfix::Applicability::Unsafe : asyncfix::Applicability::Safe);
    }
    if (result.error) throw py::value_error(path + ": " + *result.error);
    return result.text;
  }

private:
  static asyncfix::Config settings(const std::string &optionsJson, bool &unsafe) {
    auto parsed = asyncfix::parseJsonSettings(optionsJson);
    if (const auto *error = std::get_if<asyncfix::ConfigError>(&parsed)) throw py::value_error(error->toString());
    const auto &resolved = std::get<asyncfix::ResolvedConfig>(parsed);
    unsafe = resolved.unsafeFixes;
    return resolved.config;
  }

  bool unsafe_ = false;
  asyncfix::Linter linter_;
};

} // namespace

PYBIND11_MODULE(_asyncfix, m) {
  m.doc() = "asyncfix's engine: find and fix Python code broken by Python 3.7's async/await keywords";
  m.attr("__version__") = ASYNCFIX_VERSION;

  py::class_<PyLinter>(m, "Linter")
      .def(py::init<const std::string &>(), py::arg("options_json") = "")
      .def("check_json", &PyLinter::checkJson, py::arg("src"), py::arg("path") = "-")
      .def("fix", &PyLinter::fix, py::arg("src"), py::arg("path") = "-", py::arg("unsafe") = false);

  m.def("rules", [] {
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
  }, "Every rule, sorted by code: dicts with code, name, summary, doc (Markdown) and url.");
}
