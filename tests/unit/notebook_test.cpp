#include <catch2/catch.hpp>

#include <tuple>

#include "asyncfix/linter.h"
#include "asyncfix/notebook.h"
#include "test_util.h"

using namespace asyncfix;

namespace {

// nbformat's own layout (json.dumps(indent=1, sort_keys=True, ensure_ascii=False)).
const std::string kNotebook = R"({
 "cells": [
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "# Training — `x.cuda(async=True)` in prose is not code\n"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "metadata": {"tags": ["setup"]},
   "outputs": [{"name": "stdout", "output_type": "stream", "text": ["ok\n"]}],
   "source": [
    "%matplotlib inline\n",
    "!pip install torch\n",
    "import torch\n",
    "x = torch.zeros(3).cuda(async=True)  # é\n",
    "def f(async=False):\n",
    "    return async"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {},
   "outputs": [],
   "source": "y = f(async=True)\nhelp?\n"
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {},
   "outputs": [],
   "source": [
    "%%bash\n",
    "echo async = 1\n"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {},
   "outputs": [],
   "source": []
  }
 ],
 "metadata": {"kernelspec": {"name": "python3"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
)";

Notebook parsed(const std::string &json) {
  auto r = Notebook::parse(json);
  if (auto *e = std::get_if<std::string>(&r)) FAIL(*e);
  return std::get<Notebook>(std::move(r));
}

} // namespace

TEST_CASE("notebooks: code cells become one virtual document with IPython syntax masked", "[notebook]") {
  const Notebook nb = parsed(kNotebook);
  REQUIRE(nb.codeCells().size() == 4);
  CHECK(nb.codeCells()[0].number == 2);
  CHECK(nb.codeCells()[1].number == 3);
  const std::string &v = nb.virtualText();
  CHECK(v.find("#                 \n#                 \nimport torch\n") == 0); // same lengths
  CHECK(v.find("#    \n") != std::string::npos);                                // `help?`
  CHECK(v.find("echo async") == std::string::npos);                             // a %%bash cell is not Python
  CHECK(Document(v).syntaxErrorCount() == 0);

  const auto diagnostics = Linter().lint(Document(v));
  std::vector<std::pair<std::size_t, std::string>> where; // (cell number, the flagged line in it)
  for (const Diagnostic &d : diagnostics) {
    std::size_t inCell = 0;
    const NotebookCell *cell = nb.cellAt(d.start, &inCell);
    REQUIRE(cell);
    const std::size_t lineStart = cell->source.rfind('\n', inCell == 0 ? 0 : inCell - 1);
    where.emplace_back(cell->number, cell->source.substr(lineStart == std::string::npos ? 0 : lineStart + 1, 12));
  }
  CHECK(where == std::vector<std::pair<std::size_t, std::string>>{
                     {2, "x = torch.ze"}, {2, "def f(async="}, {2, "    return a"}, {3, "y = f(async="}});
}

TEST_CASE("notebooks: fixes go back into the changed cells only, byte for byte elsewhere", "[notebook]") {
  const Notebook nb = parsed(kNotebook);
  CHECK(nb.withVirtualText(nb.virtualText()) == kNotebook); // no change, no rewrite

  const FixResult fixed = fix(Linter(), nb.virtualText(), testing::unsafeFixes());
  REQUIRE(fixed.changed);
  const auto written = nb.withVirtualText(fixed.text);
  REQUIRE(written);
  std::string expected = kNotebook;
  for (const auto &[from, to] :
       std::vector<std::pair<std::string, std::string>>{{"cuda(async=True)  # é", "cuda(non_blocking=True)  # é"},
                                                        {"def f(async=False)", "def f(async_=False)"},
                                                        {"    return async\"", "    return async_\""},
                                                        {"y = f(async=True)", "y = f(async_=True)"}})
    expected.replace(expected.find(from), from.size(), to);
  CHECK(*written == expected);
  // The fixed notebook reads back with the same cells, and lints clean.
  const Notebook again = parsed(*written);
  CHECK(again.codeCells().size() == 4);
  CHECK(Linter().lint(Document(again.virtualText())).empty());
}

TEST_CASE("notebooks: a damaged boundary or IPython line is not written back", "[notebook]") {
  const Notebook nb = parsed(kNotebook);
  std::string broken = nb.virtualText();
  broken.erase(broken.find("# -- asyncfix"), 5);
  CHECK_FALSE(nb.withVirtualText(broken));
  std::string magic = nb.virtualText();
  magic.replace(magic.find("#                 \n#"), 2, "#x");
  CHECK_FALSE(nb.withVirtualText(magic));
}

TEST_CASE("notebooks: code that looks like IPython is still code; fixes may move masked lines", "[notebook]") {
  const std::string json = R"({"cells": [{"cell_type": "code", "source": [
    "y = x.cuda(async=True)  # needed?\n",
    "ok = a\n",
    "!= b\n",
    "len?\n",
    "try:\n",
    "    z = z.cuda(non_blocking=True)\n",
    "except TypeError:\n",
    "    z = z.cuda(async=True)\n",
    "%time w = 1\n"
  ]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})";
  const Notebook nb = parsed(json);
  const std::string &v = nb.virtualText();
  CHECK(v.find("y = x.cuda(async=True)  # needed?\n") == 0); // a comment ending in `?`
  CHECK(v.find("!= b\n") != std::string::npos);              // a continuation, not a shell
  CHECK(v.find("len?") == std::string::npos);                // help on a name: masked
  const FixResult fixed = fix(Linter(), v, testing::unsafeFixes());
  const auto written = nb.withVirtualText(fixed.text); // AF105 removes 3 lines above `%time`
  REQUIRE(written);
  CHECK(written->find("\"%time w = 1\\n\"") != std::string::npos);
  CHECK(written->find("z = z.cuda(non_blocking=True)\\n\",\n    \"%time") != std::string::npos);
  CHECK(written->find("y = x.cuda(non_blocking=True)  # needed?") != std::string::npos);
}

TEST_CASE("notebooks: malformed input gets a clear error", "[notebook]") {
  const auto error = [](const std::string &json) {
    auto r = Notebook::parse(json);
    REQUIRE(std::holds_alternative<std::string>(r));
    return std::get<std::string>(r);
  };
  CHECK(error("{").find("invalid notebook JSON") == 0);
  CHECK(error("[1, 2]").find("invalid notebook JSON") == 0);
  CHECK(error("{\"metadata\": {}}") == "not a Jupyter notebook (no `cells` list)");
  CHECK(error("{\"cells\": [{\"cell_type\": \"code\"}]}") == "cell 1 has no `source`");
  CHECK(error("{\"cells\": [{\"cell_type\": \"code\", \"source\": [1]}]}") == "cell 1: `source` must hold strings");
}

TEST_CASE("notebooks: replacing a cell's source equals parsing the changed notebook", "[notebook]") {
  // 300 replacements (fixed seed) in the notebook above (source arrays in nbformat's layout, an
  // empty one, a string) and in one with inline arrays: after each, the notebook equals a fresh
  // parse of its JSON, and the span it returns turns the old virtual text into the new one.
  const std::string inlineArrays = R"({"cells": [{"cell_type": "code", "source": ["a = 1\n", "b = 2"]},)"
                                   R"( {"cell_type": "markdown", "source": ["# async\n"]},)"
                                   R"( {"cell_type": "code", "source": ["x.cuda(async=True)\n"]}], "nbformat": 4})";
  const std::vector<std::string> pieces = {"",
                                           "x = y.cuda(async=True)\n",
                                           "%matplotlib inline\n",
                                           "%%bash\n",
                                           "!pip install torch\n",
                                           "help?\n",
                                           "é",
                                           "\n",
                                           "    ",
                                           "def f(async",
                                           "\"quoted\\\"\"",
                                           "\r\n",
                                           "😀",
                                           "è",
                                           "ĩ",
                                           "\r",
                                           "\xEF\xBB\xBF"};
  for (const std::string &json : {kNotebook, inlineArrays}) {
    Notebook nb = parsed(json);
    std::uint32_t seed = 20261202u;
    const auto pick = [&](std::size_t n) {
      seed = seed * 1664525u + 1013904223u;
      return static_cast<std::size_t>(seed >> 8) % n;
    };
    for (int step = 0; step < 150; ++step) {
      const std::size_t index = pick(nb.codeCells().size());
      std::string source;
      for (std::size_t k = pick(6); k > 0; --k) source += pieces[pick(pieces.size())];
      const std::string before = nb.virtualText();
      INFO("step " << step << ", cell " << index << ": " << source);
      const auto change = nb.replaceCellSource(index, source);
      REQUIRE(change);
      // The span holds whole characters of both texts.
      const auto boundary = [](const std::string &text, std::size_t at) {
        return at >= text.size() || (static_cast<unsigned char>(text[at]) & 0xC0) != 0x80;
      };
      CHECK(boundary(before, change->start));
      CHECK(boundary(before, change->end));
      CHECK(boundary(nb.virtualText(), change->start + change->length));
      std::string moved = before;
      moved.replace(change->start, change->end - change->start, nb.virtualText(), change->start, change->length);
      CHECK(moved == nb.virtualText());
      CHECK(nb.codeCells()[index].source == source);
      const Notebook fresh = parsed(nb.json());
      REQUIRE(fresh.virtualText() == nb.virtualText());
      REQUIRE(fresh.codeCells().size() == nb.codeCells().size());
      for (std::size_t i = 0; i < fresh.codeCells().size(); ++i) {
        const NotebookCell &a = nb.codeCells()[i], &b = fresh.codeCells()[i];
        CHECK(std::tie(a.number, a.source, a.virtualStart, a.virtualEnd, a.jsonStart, a.jsonEnd, a.sourceIsArray) ==
              std::tie(b.number, b.source, b.virtualStart, b.virtualEnd, b.jsonStart, b.jsonEnd, b.sourceIsArray));
      }
      // Fixes still go back into the cells (the masked lines were recorded again). The layout of
      // an array that shrank to one line may differ from a fresh parse's guess: compare contents.
      const FixResult fixed = fix(Linter(), nb.virtualText(), testing::unsafeFixes());
      const auto written = nb.withVirtualText(fixed.text), expected = fresh.withVirtualText(fixed.text);
      REQUIRE(written.has_value() == expected.has_value());
      if (written) CHECK(parsed(*written).virtualText() == parsed(*expected).virtualText());
    }
  }
}

TEST_CASE("notebooks: a replacement that is not valid UTF-8, or of no cell, changes nothing", "[notebook]") {
  Notebook nb = parsed(kNotebook);
  const std::string json = nb.json(), text = nb.virtualText();
  CHECK_FALSE(nb.replaceCellSource(0, "x = '\xff'\n"));
  CHECK_FALSE(nb.replaceCellSource(nb.codeCells().size(), "x = 1\n"));
  CHECK(nb.json() == json);
  CHECK(nb.virtualText() == text);
  const auto same = nb.replaceCellSource(1, nb.codeCells()[1].source);
  REQUIRE(same);
  CHECK(same->empty());
  CHECK(nb.json() == json);
}
