// lib/src/formats/report.cpp — Report, SourceMap and the JSON writer shared by the CLI, the C API and the
// Python bindings; Linter::lint(text, path) and Linter::fix(text, path, applicability).
#include "asyncfix/report.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "asyncfix/linter.h"
#include "asyncfix/report_format.h"
#include "asyncfix/rules.h"
#include "asyncfix/utf8.h"

namespace asyncfix {
namespace {

using Json = nlohmann::ordered_json;

/// 1-based row and 1-based code-point column of a place.
Json location(const SourcePlace &place) {
  const RowColumn p = rowColumn(place);
  return Json{{"row", p.row}, {"column", p.column}};
}

/// One diagnostic as JSON. A notebook's diagnostics (and each of their fix's edits, which may lie
/// in other cells: a rename reaches every cell that uses the name) carry a "cell" key, and their
/// rows and columns count within that cell; a plain file's objects have no "cell" key.
Json toJson(const FileDiagnostics &file, const SourceMap &map, const Diagnostic &d, std::string_view docsUrl) {
  const bool notebook = file.notebook != nullptr;
  Json fix = nullptr;
  if (d.fix) {
    Json edits = Json::array();
    for (const TextEdit &edit : d.fix->edits) {
      const SourcePlace from = map.at(edit.start);
      Json object{{"content", edit.content}};
      if (notebook) object["cell"] = from.cell;
      if (!d.fix->renames.empty()) object["filename"] = file.path; // a fix that spans files
      object["location"] = location(from);
      object["end_location"] = location(map.at(edit.end));
      edits.push_back(std::move(object));
    }
    fix =
        Json{{"applicability", toString(d.fix->applicability)}, {"message", d.fix->title}, {"edits", std::move(edits)}};
    // A fix that spans files (a module of the project renamed with its imports): each edit names
    // its file (this one), and "renames" names the files or directories the fix moves.
    if (!d.fix->renames.empty()) {
      Json renames = Json::array();
      for (const FileRename &r : d.fix->renames) renames.push_back(Json{{"from", r.from}, {"to", r.to}});
      fix["renames"] = std::move(renames);
    }
  }
  const RuleInfo *rule = findRule(d.code);
  const SourcePlace start = map.at(d.start);
  Json object{{"code", d.code},
              {"name", d.name},
              {"message", d.message},
              {"severity", toString(d.severity)},
              {"filename", file.path}};
  if (notebook) object["cell"] = start.cell;
  object["location"] = location(start);
  object["end_location"] = location(map.at(d.end));
  object["fix"] = std::move(fix);
  object["url"] = rule != nullptr ? Json(ruleUrl(*rule, docsUrl)) : Json(nullptr);
  return object;
}

} // namespace

// --- places in files and notebook cells --------------------------------------------------------

std::string SourcePlace::label() const {
  const RowColumn p = rowColumn(*this);
  std::string out = cell > 0 ? "cell " + std::to_string(cell) + ":" : std::string();
  return out + std::to_string(p.row) + ":" + std::to_string(p.column);
}

SourceMap::SourceMap(const FileDiagnostics &file) : text_(file.text), notebook_(file.notebook), lines_(file.text) {
  if (notebook_ != nullptr) {
    cellLines_.reserve(notebook_->codeCells().size());
    for (const NotebookCell &cell : notebook_->codeCells()) cellLines_.emplace_back(cell.source);
  }
}

SourcePlace SourceMap::at(std::size_t offset) const {
  if (notebook_ != nullptr) {
    std::size_t inCell = 0;
    if (const NotebookCell *cell = notebook_->cellAt(offset, &inCell)) {
      const auto index = static_cast<std::size_t>(cell - notebook_->codeCells().data());
      return {cell->number, cell->source, &cellLines_[index], inCell};
    }
  }
  return {0, text_, &lines_, offset};
}

std::size_t keepReportableInCells(const Notebook &notebook, std::vector<Diagnostic> &diagnostics) {
  const auto inOneCell = [&](std::size_t start, std::size_t end) {
    const NotebookCell *cell = notebook.cellAt(start);
    return cell != nullptr && cell == notebook.cellAt(end);
  };
  const auto before = diagnostics.size();
  std::erase_if(diagnostics, [&](const Diagnostic &d) { return notebook.cellAt(d.start) == nullptr; });
  for (Diagnostic &d : diagnostics) {
    const NotebookCell *cell = notebook.cellAt(d.start);
    if (notebook.cellAt(d.end) != cell) d.end = std::max(d.start, cell->virtualEnd);
    if (d.fix && !std::all_of(d.fix->edits.begin(), d.fix->edits.end(),
                              [&](const TextEdit &e) { return inOneCell(e.start, e.end); }))
      d.fix.reset();
  }
  return before - diagnostics.size();
}

std::string renderJson(std::span<const FileDiagnostics> files, bool lines, std::string_view docsUrl) {
  Json array = Json::array();
  std::string out;
  for (const FileDiagnostics &file : files) {
    if (file.diagnostics.empty()) continue;
    const SourceMap map(file);
    for (const Diagnostic &d : file.diagnostics) {
      if (lines) out += jsonText(toJson(file, map, d, docsUrl), -1) + "\n";
      else array.push_back(toJson(file, map, d, docsUrl));
    }
  }
  return lines ? out : jsonText(array, 2) + "\n";
}

bool isNotebookPath(std::string_view path) { return path.ends_with(".ipynb"); }

// --- Report ------------------------------------------------------------------------------------

struct Report::Data {
  std::string path;
  std::string text; ///< the source, or the notebook's virtual text is notebook->virtualText()
  std::optional<Notebook> notebook;
  std::vector<Diagnostic> diagnostics;
  std::optional<std::string> error;
  // Views of `text` / `notebook`: a Data is built in place and never moves.
  std::optional<SourceMap> map;
  std::optional<LineIndex> lines;

  std::string_view view() const { return notebook ? std::string_view(notebook->virtualText()) : text; }
  void index() {
    map.emplace(FileDiagnostics{path, view(), diagnostics, notebook ? &*notebook : nullptr});
    lines.emplace(view());
  }
};

Report::Report() {
  auto data = std::make_shared<Data>();
  data->index();
  data_ = std::move(data);
}
Report::Report(std::shared_ptr<const Data> data) : data_(std::move(data)) {}

const std::string &Report::path() const { return data_->path; }
std::string_view Report::text() const { return data_->view(); }
const std::vector<Diagnostic> &Report::diagnostics() const { return data_->diagnostics; }
const Notebook *Report::notebook() const { return data_->notebook ? &*data_->notebook : nullptr; }
const std::optional<std::string> &Report::error() const { return data_->error; }

const LineIndex &Report::lines() const { return *data_->lines; }

SourcePlace Report::place(std::size_t offset) const { return data_->map->at(offset); }

FileDiagnostics Report::view() const { return {data_->path, data_->view(), data_->diagnostics, notebook()}; }

std::string Report::toJson(bool lines) const {
  const FileDiagnostics file = view();
  return renderJson(std::span(&file, 1), lines);
}

// --- Linter entry points that take a path --------------------------------------------------------

Report Linter::lint(std::string_view text, std::string_view path) const {
  auto data = std::make_shared<Report::Data>();
  data->path = std::string(path);
  if (auto problem = checkSourceText(text)) {
    data->error = std::move(problem);
  } else if (isNotebookPath(path)) {
    auto parsed = Notebook::parse(std::string(text));
    if (auto *error = std::get_if<std::string>(&parsed)) {
      data->error = std::move(*error);
    } else {
      data->notebook = std::get<Notebook>(std::move(parsed));
      data->diagnostics = lint(std::string_view(data->notebook->virtualText()));
      keepReportableInCells(*data->notebook, data->diagnostics);
    }
  } else {
    data->text = std::string(text);
    data->diagnostics = lint(std::string_view(data->text));
  }
  data->index();
  return Report(std::move(data));
}

Report Linter::lint(const Document &doc, std::string_view path) const {
  auto data = std::make_shared<Report::Data>();
  data->path = std::string(path);
  data->text = doc.text();
  data->diagnostics = lint(doc);
  data->index();
  return Report(std::move(data));
}

FixResult Linter::fix(std::string_view text, std::string_view path, Applicability applicability) const {
  FixOptions options;
  options.unsafe = applicability != Applicability::Safe;
  const auto failed = [&](std::string why) {
    FixResult result;
    result.text = std::string(text);
    result.converged = true;
    result.error = std::move(why);
    return result;
  };
  if (auto problem = checkSourceText(text)) return failed(std::move(*problem));
  if (!isNotebookPath(path)) return asyncfix::fix(*this, text, options);

  auto parsed = Notebook::parse(std::string(text));
  if (auto *error = std::get_if<std::string>(&parsed)) return failed(std::move(*error));
  const Notebook &notebook = std::get<Notebook>(parsed);
  FixResult result = asyncfix::fix(*this, notebook.virtualText(), options);
  if (!result.changed) {
    result.text = std::string(text);
    return result;
  }
  std::optional<std::string> json = notebook.withVirtualText(result.text);
  if (json && std::holds_alternative<Notebook>(Notebook::parse(*json))) {
    result.text = std::move(*json);
    return result;
  }
  // The fixed cells cannot be written back: report the notebook as it is.
  FixResult unchanged;
  unchanged.text = std::string(text);
  unchanged.remaining = lint(std::string_view(notebook.virtualText()));
  unchanged.rejected = std::move(result.rejected);
  unchanged.warnings.emplace_back(json ? "internal error: the fixed notebook does not parse; not written"
                                       : "a fix touched notebook IPython syntax; not written");
  return unchanged;
}

} // namespace asyncfix
