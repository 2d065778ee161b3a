// The rest of the installed C++ API as a consumer uses it: each header in lib/include/asyncfix/
// that api_test.cpp does not reach (utf8.h, encoding.h, suppression.h, directory_listing.h,
// gitignore.h, notebook.h) is exercised here through asyncfix::asyncfix alone, so that what is
// installed and ABI-versioned is also what is tested as a contract.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "asyncfix/directory_listing.h"
#include "asyncfix/document.h"
#include "asyncfix/encoding.h"
#include "asyncfix/gitignore.h"
#include "asyncfix/linter.h"
#include "asyncfix/notebook.h"
#include "asyncfix/report.h"
#include "asyncfix/suppression.h"
#include "asyncfix/utf8.h"

using namespace asyncfix;
namespace fs = std::filesystem;

namespace {

/// A directory of its own under the system's temporary directory, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device random;
    path = fs::temp_directory_path() / ("asyncfix-headers-" + std::to_string(random()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  void write(const std::string &name, const std::string &text) const {
    fs::create_directories((path / name).parent_path());
    std::ofstream(path / name, std::ios::binary) << text;
  }
};

} // namespace

TEST_CASE("utf8.h: sequences, code points and the first invalid byte", "[api][headers]") {
  const std::string text = "a\xC3\xA9\xE2\x86\x92\xF0\x9F\x98\x80"; // a é → 😀
  CHECK(utf8SequenceLength(text, 0) == 1);
  CHECK(utf8SequenceLength(text, 1) == 2);
  CHECK(utf8SequenceLength(text, 3) == 3);
  CHECK(utf8SequenceLength(text, 6) == 4);
  CHECK(utf8SequenceLength(text, 2) == 0); // a continuation byte
  CHECK(utf8Decode(text, 1) == U'é');
  CHECK(utf8Decode(text, 6) == U'\U0001F600');
  CHECK(utf8Decode(text, 2) == U'\uFFFD');
  CHECK_FALSE(firstInvalidUtf8(text).has_value());
  CHECK(firstInvalidUtf8("ok\xFFno") == 2u);
  CHECK(firstInvalidUtf8("\xC0\x80") == 0u);     // overlong
  CHECK(firstInvalidUtf8("\xED\xA0\x80") == 0u); // a surrogate
}

TEST_CASE("encoding.h: a PEP 263 file decoded for linting and encoded back byte for byte", "[api][headers]") {
  const std::string latin1 = "# -*- coding: latin-1 -*-\nname = 'caf\xE9'\nx.cuda(async=True)\n";
  CHECK(declaredEncoding(latin1) == "latin-1");
  CHECK_FALSE(declaredEncoding("x = 1\n").has_value());
  CHECK_FALSE(declaredEncoding("# coding: utf-8\n").has_value());
  const SourceText decoded = decodeSource(latin1);
  REQUIRE_FALSE(decoded.error.has_value());
  CHECK(decoded.encoding == "latin-1");
  CHECK(decoded.text.find("caf\xC3\xA9") != std::string::npos);
  CHECK(encodeSource(decoded.text, decoded.encoding) == latin1);
  // The fixed text goes back into the file's encoding; a character it cannot hold is refused.
  const FixResult fixed = Linter().fix(decoded.text, "legacy.py");
  const auto bytes = encodeSource(fixed.text, decoded.encoding);
  REQUIRE(bytes.has_value());
  CHECK(*bytes == "# -*- coding: latin-1 -*-\nname = 'caf\xE9'\nx.cuda(non_blocking=True)\n");
  CHECK_FALSE(encodeSource("snow = '\xE2\x98\x83'\n", "latin-1").has_value());
  // UTF-8 is kept as it is; decodeSourceFrom takes the bytes over instead of copying them.
  std::string utf8 = "x = '\xC3\xA9'\n";
  const SourceText kept = decodeSourceFrom(utf8);
  CHECK(kept.text == "x = '\xC3\xA9'\n");
  CHECK(kept.encoding.empty());
  CHECK(utf8.empty());
  CHECK(decodeSource(std::string("x = 1\0\n", 7)).error.has_value()); // a NUL byte
  CHECK(decodeSource("# coding: no-such-codec\nx = '\xE9'\n").error.has_value());
  CHECK_FALSE(decodeSource("# coding: no-such-codec\nx = 1\n").error.has_value()); // ASCII reads the same
}

TEST_CASE("suppression.h: noqa edits and --add-noqa", "[api][headers]") {
  const Document doc("x.cuda(async=True)\ny = 1  # noqa: F401\n");
  const TextEdit first = noqaEdit(doc, 3, "AF101");
  CHECK(first.start == 18);
  CHECK(first.end == 18);
  CHECK(first.content == "  # noqa: AF101");
  const TextEdit second = noqaEdit(doc, 21, "AF001");
  std::string text(doc.text());
  text.replace(second.start, second.end - second.start, second.content);
  CHECK(text == "x.cuda(async=True)\ny = 1  # noqa: F401, AF001\n");
  // A line that already names the code: an empty edit at its end.
  const Document named("x.cuda(async=True)  # noqa: AF101\n");
  const TextEdit none = noqaEdit(named, 0, "AF101");
  CHECK(none.content.empty());
  CHECK(none.start == none.end);

  std::size_t added = 0;
  const std::string suppressed = addNoqa(Linter(), "x.cuda(async=True)\nasync = 1\n", &added);
  CHECK(added == 2);
  CHECK(suppressed == "x.cuda(async=True)  # noqa: AF101\nasync = 1  # noqa: AF001\n");
  CHECK(Linter().lint(suppressed, "s.py").diagnostics().empty());
}

TEST_CASE("directory_listing.h: a listed directory answers for the names it lacks", "[api][headers]") {
  const DirectoryListing unknown;
  CHECK(unknown.mayHold("pyproject.toml"));
  CHECK(unknown.mayHold(".gitignore"));
  DirectoryListing listing = DirectoryListing::listed();
  for (const char *name : {"setup.py", "PyProject.toml", "src"}) listing.add(name);
  CHECK(listing.mayHold("pyproject.toml")); // compared without regard to ASCII case
  CHECK_FALSE(listing.mayHold("asyncfix.toml"));
  CHECK_FALSE(listing.mayHold(".git"));
  CHECK(listing.mayHold("anything-else.py")); // names no lookup asks about: the filesystem decides
}

TEST_CASE("gitignore.h: what git would ignore in a work tree", "[api][headers]") {
  const TempDir tree;
  // A repository as git requires one: HEAD, objects/ and refs/.
  for (const char *dir : {"info", "objects", "refs"}) fs::create_directories(tree.path / "repo" / ".git" / dir);
  tree.write("repo/.git/HEAD", "ref: refs/heads/main\n");
  tree.write("repo/.gitignore", "*.log\nbuild/\n!keep.log\n");
  tree.write("repo/.git/info/exclude", "secret.py\n");
  tree.write("repo/sub/.gitignore", "generated_*.py\n");
  tree.write("repo/build/x.py", ""); // a directory: `build/` matches directories only
  tree.write("outside/a.log", "");
  GitIgnore git;
  const fs::path repo = tree.path / "repo";
  CHECK(git.ignored(repo / "debug.log"));
  CHECK_FALSE(git.ignored(repo / "keep.log"));
  CHECK(git.ignored(repo / "build"));
  CHECK(git.ignored(repo / "build" / "x.py")); // inside an ignored directory
  CHECK(git.ignored(repo / "secret.py"));
  CHECK(git.ignored(repo / "sub" / "generated_1.py"));
  CHECK_FALSE(git.ignored(repo / "generated_1.py")); // the deeper file's pattern stays below it
  CHECK_FALSE(git.ignored(repo / "train.py"));
  CHECK(git.ignored(repo / ".git"));
  CHECK_FALSE(git.ignored(tree.path / "outside" / "a.log")); // in no repository
  CHECK(git.ignored(repo, "build", true));
  CHECK_FALSE(git.ignored(repo, "build", false)); // a directory-only pattern, and a file
  DirectoryListing listing = DirectoryListing::listed();
  for (const char *name : {".git", ".gitignore", "debug.log"}) listing.add(name);
  GitIgnore listed;
  CHECK(listed.ignored(repo, "debug.log", false, listing));
}

TEST_CASE("notebook.h: parsed from JSON, or built from an editor's cells", "[api][headers]") {
  const std::string json = R"({"cells": [
  {"cell_type": "code", "source": ["%matplotlib inline\n", "x.cuda(async=True)\n"], "metadata": {}},
  {"cell_type": "markdown", "source": "# Notes", "metadata": {}},
  {"cell_type": "code", "source": "y = x\n", "metadata": {}}
 ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})";
  auto parsed = Notebook::parse(json);
  REQUIRE(std::holds_alternative<Notebook>(parsed));
  const Notebook &fromJson = std::get<Notebook>(parsed);
  REQUIRE(fromJson.codeCells().size() == 2);
  CHECK(fromJson.codeCells()[1].number == 3); // numbered among all the cells, as Jupyter shows them

  auto built =
      Notebook::fromCells({{true, "%matplotlib inline\nx.cuda(async=True)\n"}, {false, "# Notes"}, {true, "y = x\n"}});
  REQUIRE(std::holds_alternative<Notebook>(built));
  Notebook &fromCells = std::get<Notebook>(built);
  // The same virtual document as the file's, cell for cell.
  CHECK(fromCells.virtualText() == fromJson.virtualText());
  REQUIRE(fromCells.codeCells().size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(fromCells.codeCells()[i].number == fromJson.codeCells()[i].number);
    CHECK(fromCells.codeCells()[i].source == fromJson.codeCells()[i].source);
    CHECK(fromCells.codeCells()[i].virtualStart == fromJson.codeCells()[i].virtualStart);
    CHECK(fromCells.codeCells()[i].virtualEnd == fromJson.codeCells()[i].virtualEnd);
  }
  // Its JSON is a notebook file that parses to the same cells.
  auto reparsed = Notebook::parse(fromCells.json());
  REQUIRE(std::holds_alternative<Notebook>(reparsed));
  CHECK(std::get<Notebook>(reparsed).virtualText() == fromCells.virtualText());

  std::size_t inCell = 0;
  const std::size_t at = fromCells.virtualText().find("async");
  const NotebookCell *cell = fromCells.cellAt(at, &inCell);
  REQUIRE(cell != nullptr);
  CHECK(cell->number == 1);
  CHECK(cell->source.substr(inCell, 5) == "async");

  // A fix of the virtual text goes back into the cell; an edit of a cell moves the virtual text.
  std::string fixed = fromCells.virtualText();
  fixed.replace(at, 5, "non_blocking");
  const auto written = fromCells.withVirtualText(fixed);
  REQUIRE(written.has_value());
  auto again = Notebook::parse(*written);
  REQUIRE(std::holds_alternative<Notebook>(again));
  CHECK(std::get<Notebook>(again).codeCells()[0].source == "%matplotlib inline\nx.cuda(non_blocking=True)\n");
  const auto change = fromCells.replaceCellSource(1, "y = x.cpu()\n");
  REQUIRE(change.has_value());
  CHECK_FALSE(change->empty());
  CHECK(fromCells.codeCells()[1].source == "y = x.cpu()\n");
  CHECK(fromCells.virtualText().find("y = x.cpu()\n") == fromCells.codeCells()[1].virtualStart);

  const auto invalid = Notebook::fromCells({{true, "ok\n"}, {true, "bad \xFF\n"}});
  REQUIRE(std::holds_alternative<std::string>(invalid));
  CHECK(std::get<std::string>(invalid) == "cell 2: not valid UTF-8 at byte offset 4");
  const auto empty = Notebook::fromCells({});
  REQUIRE(std::holds_alternative<Notebook>(empty));
  CHECK(std::get<Notebook>(empty).virtualText().empty());
}
