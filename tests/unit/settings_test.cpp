#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "asyncfix/linter.h"
#include "asyncfix/settings.h"

namespace fs = std::filesystem;
using namespace asyncfix;

namespace {

ResolvedConfig parsedOk(const std::string &name, const std::string &text) {
  auto r = parseConfigFile(name, text);
  REQUIRE(r);
  if (auto *e = std::get_if<ConfigError>(&*r)) FAIL(e->toString());
  return std::get<ResolvedConfig>(*r);
}

ConfigError parsedError(const std::string &name, const std::string &text) {
  auto r = parseConfigFile(name, text);
  REQUIRE(r);
  REQUIRE(std::holds_alternative<ConfigError>(*r));
  return std::get<ConfigError>(*r);
}

/// A temporary directory tree, removed at the end of the test.
struct TempTree {
  fs::path root = fs::temp_directory_path() / ("asyncfix-settings-" + std::to_string(::getpid()) + "-" +
                                               std::to_string(reinterpret_cast<std::uintptr_t>(this)));
  TempTree() { fs::create_directories(root); }
  ~TempTree() { fs::remove_all(root); }
  fs::path write(const std::string &rel, const std::string &text) const {
    const fs::path p = root / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
};

ResolvedConfig forFile(const ConfigResolver &r, const fs::path &p, const DirectoryListing &listing = {}) {
  auto v = r.forFile(p, listing);
  if (auto *e = std::get_if<ConfigError>(&v)) FAIL(e->toString());
  return std::get<ResolvedConfig>(v);
}

} // namespace

TEST_CASE("config files: every key", "[settings]") {
  const ResolvedConfig c = parsedOk("asyncfix.toml", R"(
select = ["AF0", "AF101"]
extend-select = ["AF900"]
ignore = ["AF002"]
target-version = "py36"
rename-style = "is_async"
unsafe-fixes = true
respect-gitignore = false
exclude = ["legacy"]
extend-exclude = ["gen/*.py"]
[per-file-ignores]
"tests/*.py" = ["AF001"]
[severity]
AF101 = "warning"
)");
  CHECK(c.config.rules.select == std::vector<std::string>{"AF0", "AF101"});
  CHECK(c.config.rules.extendSelect == std::vector<std::string>{"AF900"});
  CHECK(c.config.rules.ignore == std::vector<std::string>{"AF002"});
  CHECK(c.config.target == PythonVersion{3, 6});
  CHECK(c.config.renameTemplate == "is_{name}");
  CHECK(c.unsafeFixes);
  CHECK_FALSE(c.respectGitignore);
  CHECK(c.exclude == std::vector<std::string>{"legacy", "gen/*.py"});
  REQUIRE(c.perFileIgnores.size() == 1);
  CHECK(c.config.severity.at("AF101") == Severity::Warning);
  CHECK(c.origins.at("select") == "asyncfix.toml");
  CHECK(c.origins.at("rename-style") == "asyncfix.toml");
}

TEST_CASE("config files: pyproject.toml uses [tool.asyncfix] and requires-python", "[settings]") {
  CHECK_FALSE(parseConfigFile("pyproject.toml", "[tool.black]\nline-length = 99\n"));
  const ResolvedConfig c =
      parsedOk("pyproject.toml", "[project]\nrequires-python = \">=3.6.2\"\n[tool.asyncfix]\nignore = [\"AF1\"]\n");
  CHECK(c.config.target == PythonVersion{3, 6});
  CHECK(c.origins.at("target-version").find("requires-python") != std::string::npos);
  CHECK(parsedOk("pyproject.toml", "[project]\nrequires-python = \"~=3.10\"\n[tool.asyncfix]\n").config.target ==
        PythonVersion{3, 10});
  CHECK(parsedOk("pyproject.toml", "[project]\nrequires-python = \"<3.12,>=3.6\"\n[tool.asyncfix]\n").config.target ==
        PythonVersion{3, 6}); // the lower bound, not the first number
  // An explicit target-version wins over requires-python.
  CHECK(parsedOk("pyproject.toml",
                 "[project]\nrequires-python = \">=3.6\"\n[tool.asyncfix]\ntarget-version = \"py311\"\n")
            .config.target == PythonVersion{3, 11});
}

TEST_CASE("config files: errors name the file, line, column and key", "[settings]") {
  ConfigError e = parsedError("pyproject.toml", "[tool.asyncfix]\nselect = [\"AF101\"]\nselct = [\"AF1\"]\n");
  CHECK(e.file == "pyproject.toml");
  CHECK(e.line == 3);
  CHECK(e.column == 1);
  CHECK(e.message.find("unknown key `selct`") != std::string::npos);
  CHECK(e.toString().starts_with("pyproject.toml:3:1: "));

  e = parsedError("asyncfix.toml", "select = \"AF101\"\n");
  CHECK(e.line == 1);
  CHECK(e.message.find("array") != std::string::npos);
  e = parsedError("asyncfix.toml", "ignore = [\"AF101\", \"AF777\"]\n");
  CHECK(e.message.find("AF777") != std::string::npos);
  CHECK(e.column == 20);
  e = parsedError("asyncfix.toml", "target-version = \"py27\"\n");
  CHECK(e.message.find("target-version") != std::string::npos);
  e = parsedError("asyncfix.toml", "unsafe-fixes = \"yes\"\n");
  CHECK(e.message.find("true or false") != std::string::npos);
  e = parsedError("asyncfix.toml", "rename-style = \"{name}-x\"\n");
  CHECK(e.message.find("rename-style") != std::string::npos);
  e = parsedError("asyncfix.toml", "[severity]\nAF101 = \"loud\"\n");
  CHECK(e.line == 2);
  e = parsedError("asyncfix.toml", "[per-file-ignores]\n\"a.py\" = [\"AF5\"]\n");
  CHECK(e.message.find("AF5") != std::string::npos);
  e = parsedError("asyncfix.toml", "select = [\"AF101\"\n"); // a TOML syntax error
  CHECK(e.line >= 1);
  CHECK_FALSE(e.message.empty());
}

TEST_CASE("ConfigResolver: the nearest file wins, overrides win over files", "[settings]") {
  TempTree t;
  t.write("pyproject.toml", "[tool.asyncfix]\nignore = [\"AF002\"]\ntarget-version = \"py36\"\n");
  t.write("sub/asyncfix.toml", "ignore = [\"AF101\"]\n");
  t.write("sub/deeper/x.py", "");
  t.write("other/pyproject.toml", "[tool.black]\n"); // not a configuration: keep looking up
  const fs::path top = t.write("top.py", "");

  ConfigResolver r({});
  CHECK(forFile(r, top).config.rules.ignore == std::vector<std::string>{"AF002"});
  CHECK(forFile(r, t.root / "other/y.py").source == t.root / "pyproject.toml");
  const ResolvedConfig deep = forFile(r, t.root / "sub/deeper/x.py");
  CHECK(deep.source == t.root / "sub/asyncfix.toml");
  CHECK(deep.config.rules.ignore == std::vector<std::string>{"AF101"});
  CHECK(deep.config.target == PythonVersion{3, 8}); // files do not merge: the nearest one applies

  // .asyncfix.toml beats asyncfix.toml beats pyproject.toml in one directory.
  t.write("sub/.asyncfix.toml", "ignore = [\"AF001\"]\n");
  ConfigResolver fresh({});
  CHECK(forFile(fresh, t.root / "sub/deeper/x.py").config.rules.ignore == std::vector<std::string>{"AF001"});

  // A walk's listing of the directory: the files it holds are found, a file it lacks is not
  // looked for (the listing is trusted), and the directories above are looked at as before.
  DirectoryListing holdsSub = DirectoryListing::listed();
  holdsSub.add("asyncfix.toml");
  ConfigResolver listed({});
  CHECK(forFile(listed, t.root / "sub/y.py", holdsSub).source == t.root / "sub/asyncfix.toml");
  ConfigResolver trusting({});
  CHECK(forFile(trusting, t.root / "sub/y.py", DirectoryListing::listed()).source == t.root / "pyproject.toml");

  ConfigResolver::Options o;
  o.overrides.ignore = std::vector<std::string>{"AF101"};
  o.overrides.target = PythonVersion{3, 12};
  ConfigResolver withOverrides(o);
  const ResolvedConfig c = forFile(withOverrides, top);
  CHECK(c.config.rules.ignore == std::vector<std::string>{"AF002", "AF101"}); // flags add to the file's
  CHECK(c.config.target == PythonVersion{3, 12});
  CHECK(c.origins.at("target-version") == "override");

  ConfigResolver::Options isolated;
  isolated.isolated = true;
  CHECK(forFile(ConfigResolver(isolated), top).source.empty());

  ConfigResolver::Options explicitFile;
  explicitFile.configFile = t.root / "sub/asyncfix.toml";
  CHECK(forFile(ConfigResolver(explicitFile), top).config.rules.ignore == std::vector<std::string>{"AF101"});
}

TEST_CASE("ConfigResolver: a directory's entries share what forFile gives each of them", "[settings]") {
  TempTree t;
  t.write("pyproject.toml", "[tool.asyncfix]\nignore = [\"AF002\"]\nexclude = [\"gen\"]\n");
  t.write("a/x.py", "");
  t.write("a/b/y.py", "");
  t.write("pfi/asyncfix.toml", "per-file-ignores = { \"z.py\" = [\"AF101\"] }\n");
  t.write("pfi/z.py", "");
  t.write("broken/asyncfix.toml", "selct = []\n");
  ConfigResolver::Options o;
  o.overrides.ignore = std::vector<std::string>{"AF101"};
  const ConfigResolver r(o);
  for (const char *dir : {"a", "a/b", "a/b/..", "a/./b/", "pfi", "."}) {
    INFO(dir);
    const fs::path directory = t.root / dir;
    const auto shared = r.forEntriesOf(directory, DirectoryListing{});
    REQUIRE(std::holds_alternative<ResolvedConfig>(*shared));
    const ResolvedConfig &entries = std::get<ResolvedConfig>(*shared);
    const ResolvedConfig each = forFile(r, directory / "y.py");
    CHECK(entries.source == each.source);
    CHECK(entries.exclude == each.exclude);
    CHECK(entries.respectGitignore == each.respectGitignore);
    CHECK(entries.perFileIgnores == each.perFileIgnores);
    if (each.perFileIgnores.empty()) CHECK(entries.config.rules.ignore == each.config.rules.ignore);
  }
  // One object for every directory under one configuration file; per-file-ignores are left to
  // forFile (the directory's own `ignore` only).
  CHECK(r.forEntriesOf(t.root / "a", {}) == r.forEntriesOf(t.root / "a/b", {}));
  CHECK(r.forEntriesOf(t.root / "a", {}) != r.forEntriesOf(t.root / "pfi", {}));
  CHECK(std::get<ResolvedConfig>(*r.forEntriesOf(t.root / "pfi", {})).config.rules.ignore ==
        std::vector<std::string>{"AF101"});
  CHECK(forFile(r, t.root / "pfi/z.py").config.rules.ignore == std::vector<std::string>{"AF101", "AF101"});
  CHECK(std::holds_alternative<ConfigError>(*r.forEntriesOf(t.root / "broken", {})));
}

TEST_CASE("ConfigResolver: directories listed in a walk's order take their nearest settings", "[settings]") {
  // A walk asks about a directory right after its parent or after another of the parent's
  // descendants (forEntriesOf finds the parent on the chain of directories asked about last); a
  // second root may enter a tree again.
  TempTree t;
  t.write("pyproject.toml", "[tool.asyncfix]\nignore = [\"AF002\"]\n");
  t.write("b/asyncfix.toml", "ignore = [\"AF101\"]\n");
  for (const char *f : {"b/c/x.py", "b/c/d/x.py", "e/x.py", "e/f/x.py", "g/x.py"}) t.write(f, "");
  const ConfigResolver r({});
  const fs::path &root = t.root;
  for (const fs::path &dir : {root, root / "b", root / "b/c", root / "b/c/d", root / "e", root / "e/f", root / "b/c",
                              root / "g", root / "b/c/d"}) {
    INFO(dir);
    DirectoryListing listing = DirectoryListing::listed();
    for (const auto &entry : fs::directory_iterator(dir)) listing.add(entry.path().filename().string());
    const auto shared = r.forEntriesOf(dir, listing);
    REQUIRE(std::holds_alternative<ResolvedConfig>(*shared));
    const ResolvedConfig each = forFile(ConfigResolver({}), dir / "x.py");
    CHECK(std::get<ResolvedConfig>(*shared).source == each.source);
    CHECK(std::get<ResolvedConfig>(*shared).config.rules.ignore == each.config.rules.ignore);
  }
}

TEST_CASE("ConfigResolver: a listed directory with no configuration file takes its parent's", "[settings]") {
  TempTree t;
  t.write("pyproject.toml", "[tool.asyncfix]\nignore = [\"AF002\"]\n");
  t.write("c/asyncfix.toml", "ignore = [\"AF101\"]\n");
  t.write("c/d/y.py", "");
  t.write("c/e/asyncfix.toml", "ignore = [\"AF103\"]\n");
  const ConfigResolver r({});
  DirectoryListing withConfig = DirectoryListing::listed(), without = DirectoryListing::listed();
  withConfig.add("asyncfix.toml");
  without.add("y.py");
  const auto parent = r.forEntriesOf(t.root / "c", withConfig);
  // Told that c/d holds no configuration file: c's settings, the same object.
  CHECK(r.forEntriesOf(t.root / "c/d", without) == parent);
  CHECK(std::get<ResolvedConfig>(*parent).config.rules.ignore == forFile(r, t.root / "c/d/y.py").config.rules.ignore);
  // A listing that holds one is looked up.
  const auto own = r.forEntriesOf(t.root / "c/e", withConfig);
  CHECK(own != parent);
  CHECK(std::get<ResolvedConfig>(*own).config.rules.ignore == std::vector<std::string>{"AF103"});

  // A directory right under the root: its path cut at the last slash is the empty path, the
  // current directory's, which must not stand in for `/`.
  const fs::path cwd = fs::current_path();
  fs::current_path(t.root);
  const auto here = r.forEntriesOf("", {});
  const fs::path top = t.root.root_path() / *std::next(t.root.begin());
  const auto underRoot = r.forEntriesOf(top, DirectoryListing::listed());
  const ResolvedConfig expected = forFile(r, top / "y.py");
  fs::current_path(cwd);
  REQUIRE(std::holds_alternative<ResolvedConfig>(*here));
  CHECK(std::get<ResolvedConfig>(*here).config.rules.ignore == std::vector<std::string>{"AF002"});
  REQUIRE(std::holds_alternative<ResolvedConfig>(*underRoot));
  CHECK(std::get<ResolvedConfig>(*underRoot).source == expected.source);
  CHECK(std::get<ResolvedConfig>(*underRoot).config.rules.ignore == expected.config.rules.ignore);
}

TEST_CASE("ConfigResolver: a broken file is an error for the files under it", "[settings]") {
  TempTree t;
  t.write("asyncfix.toml", "selct = []\n");
  ConfigResolver r({});
  const auto v = r.forFile(t.root / "a.py");
  REQUIRE(std::holds_alternative<ConfigError>(v));
  CHECK(std::get<ConfigError>(v).toString() == (t.root / "asyncfix.toml").string() + ":1:1: unknown key `selct`");
}

TEST_CASE("per-file-ignores and exclude match paths relative to the config file", "[settings]") {
  TempTree t;
  t.write("asyncfix.toml",
          "extend-exclude = [\"generated\", \"docs/*.py\"]\n[per-file-ignores]\n\"tests/*.py\" = [\"AF001\"]\n"
          "\"**/legacy_*.py\" = [\"AF1\"]\n");
  ConfigResolver r({});
  CHECK(forFile(r, t.root / "tests/test_a.py").config.rules.ignore == std::vector<std::string>{"AF001"});
  CHECK(forFile(r, t.root / "src/pkg/legacy_io.py").config.rules.ignore == std::vector<std::string>{"AF1"});
  CHECK(forFile(r, t.root / "src/a.py").config.rules.ignore.empty());
  const ResolvedConfig c = forFile(r, t.root / "a.py");
  CHECK(c.excluded(t.root / "generated"));
  CHECK(c.excluded(t.root / "src/generated"));
  CHECK_FALSE(c.excluded(t.root / "src/generated_code.py"));
  CHECK(c.excluded(t.root / "docs/conf.py"));
  CHECK_FALSE(c.excluded(t.root / "docs/sub/conf.py"));
  CHECK(c.excluded(t.root / "pkg/__pycache__")); // the defaults stay with extend-exclude
  CHECK(c.excluded(t.root / ".venv"));
  CHECK_FALSE(c.excluded(t.root / "src/main.py"));
}

TEST_CASE("ExcludeMatcher answers as ResolvedConfig::excluded for every entry of a directory", "[settings]") {
  TempTree t;
  t.write("proj/asyncfix.toml",
          "extend-exclude = [\"generated\", \"docs/*.py\", \"gen_*\", \"./out/\", \"a/**/b\", \"*.pyi\"]\n");
  t.write("proj/a.py", "");
  ConfigResolver r({});
  const ResolvedConfig withFile = forFile(r, t.root / "proj/a.py");
  REQUIRE_FALSE(withFile.source.empty());
  const ResolvedConfig defaults;       // no configuration file: paths as walked
  ResolvedConfig elsewhere = withFile; // a --config file below the walked directories
  elsewhere.source = t.root / "proj/docs/deeper/asyncfix.toml";
  const std::vector<std::string> names{"generated", "generated.py", "conf.py", "gen_x.py", "out",
                                       "b",         "__pycache__",  ".venv",   "venv",     "x.pyi",
                                       "docs",      "deeper",       "main.py"};
  const std::vector<fs::path> dirs{t.root / "proj",        t.root / "proj/",        t.root / "proj/docs",
                                   t.root / "proj/a/x/y",  t.root / "proj/a",       t.root / "other",
                                   t.root / "proj/./docs", t.root / "proj/../proj", fs::path("proj"),
                                   fs::path("proj/docs/"), fs::path("."),           t.root};
  std::size_t excludedCount = 0;
  for (const ResolvedConfig *config : std::vector<const ResolvedConfig *>{&withFile, &defaults, &elsewhere}) {
    for (const fs::path &dir : dirs) {
      const ExcludeMatcher matcher(*config, dir);
      for (const std::string &name : names) {
        INFO(config->source << " " << dir << " " << name);
        const bool expected = config->excluded(dir / name);
        CHECK(matcher.excluded(name) == expected);
        excludedCount += expected ? 1 : 0;
      }
    }
  }
  CHECK(excludedCount > 40); // the table exercises both answers
}

TEST_CASE("globs: ** spans zero or more directories; paths are normalised", "[settings]") {
  TempTree t;
  t.write("proj/asyncfix.toml",
          "ignore = [\"AF002\"]\n[per-file-ignores]\n\"tests/**/*.py\" = [\"AF001\"]\n\"**/foo.py\" = [\"AF1\"]\n");
  t.write("other/x.py", "");
  ConfigResolver r({});
  const auto ignored = [&](const std::string &rel) { return forFile(r, t.root / rel).config.rules.ignore; };
  using V = std::vector<std::string>;
  CHECK(ignored("proj/tests/test_a.py") == V{"AF002", "AF001"});
  CHECK(ignored("proj/tests/unit/deep/test_b.py") == V{"AF002", "AF001"});
  CHECK(ignored("proj/foo.py") == V{"AF002", "AF1"});
  CHECK(ignored("proj/a/b/foo.py") == V{"AF002", "AF1"});
  CHECK(ignored("proj/testsx/a.py") == V{"AF002"});
  // `proj/../other/x.py` is other's file: no configuration applies.
  CHECK(forFile(r, t.root / "proj/../other/x.py").source.empty());
  // Flags add to the file's `ignore`.
  ConfigResolver::Options o;
  o.overrides.ignore = V{"AF101"};
  CHECK(forFile(ConfigResolver(o), t.root / "proj/a.py").config.rules.ignore == V{"AF002", "AF101"});
}

TEST_CASE("severity overrides reach the diagnostics", "[settings]") {
  Config config;
  config.severity["AF101"] = Severity::Info;
  const auto d = Linter(config).lint(Document("x.cuda(async=True)\n"));
  REQUIRE(d.size() == 1);
  CHECK(d[0].severity == Severity::Info);
}

TEST_CASE("config files: a non-ASCII character where whitespace may stand is a clear error", "[settings]") {
  // toml++ 3.3 marks the default of a switch in its whitespace tables unreachable, and U+00A1
  // reaches it (lib/CMakeLists.txt: sanitizer builds do not trap there). It is no whitespace.
  ConfigError e = parsedError("pyproject.toml", "[tool.asyncfix]\nselect = [\"AF1\"]\xC2\xA1\n");
  CHECK(e.toString().starts_with("pyproject.toml:2:17: "));
  ConfigError before = parsedError("pyproject.toml", "[tool.asyncfix]\nselect =\xC2\xA1[\"AF1\"]\n");
  CHECK(before.toString().starts_with("pyproject.toml:2:9: "));
}

TEST_CASE("config files: src roots and module-rename-style", "[settings][project]") {
  TempTree tree;
  const fs::path config = tree.write("proj/pyproject.toml", "[tool.asyncfix]\nsrc = [\"lib\", \"tools/\"]\n"
                                                            "module-rename-style = \"_{name}\"\n");
  const ConfigResolver resolver({});
  const ResolvedConfig c = forFile(resolver, tree.root / "proj/lib/pkg/a.py");
  const fs::path base = fs::absolute(config.parent_path()).lexically_normal();
  CHECK(c.src == std::vector<std::string>{"lib", "tools/"});
  CHECK(c.srcRoots() == std::vector<fs::path>{base / "lib", base / "tools"});
  CHECK(c.moduleRenameStyle == "_{name}");
  CHECK(c.renamedModule("async") == "_async");
  CHECK(c.renamedModule("await") == "_await");
  CHECK(c.origins.at("src") == config.string());
  CHECK(c.origins.at("module-rename-style") == config.string());

  // Defaults: "." and "src" beside the configuration file; asynchronous / awaitable.
  const ResolvedConfig d =
      parsedOk(tree.write("other/asyncfix.toml", "select = [\"ALL\"]\n").string(), "select = [\"ALL\"]\n");
  const fs::path other = fs::absolute(tree.root / "other").lexically_normal();
  CHECK(d.src == std::vector<std::string>{".", "src"});
  CHECK(d.srcRoots() == std::vector<fs::path>{other, other / "src"});
  CHECK(d.renamedModule("async") == "asynchronous");
  CHECK(d.renamedModule("await") == "awaitable");

  ConfigError e = parsedError("asyncfix.toml", "module-rename-style = \"{name}-x\"\n");
  CHECK(e.message.find("`module-rename-style` must be `asynchronous` or a template") != std::string::npos);
  e = parsedError("asyncfix.toml", "module-rename-style = \"aio\"\n"); // no {name}: every module the same
  CHECK(e.line == 1);
  e = parsedError("asyncfix.toml", "src = \"src\"\n");
  CHECK(e.message.find("`src` must be an array of strings") != std::string::npos);
}

TEST_CASE("config files: docs-url, and the override that wins over it", "[settings]") {
  TempTree tree;
  const fs::path config = tree.write("proj/asyncfix.toml", "docs-url = \"https://docs.test/asyncfix\"\n");
  const ResolvedConfig c = forFile(ConfigResolver({}), tree.root / "proj/a.py");
  CHECK(c.docsUrl == "https://docs.test/asyncfix");
  CHECK(c.origins.at("docs-url") == config.string());
  ConfigResolver::Options options;
  options.overrides.docsUrl = "file:///srv/docs";
  const ResolvedConfig o = forFile(ConfigResolver(options), tree.root / "proj/a.py");
  CHECK(o.docsUrl == "file:///srv/docs");
  CHECK(o.origins.at("docs-url") == "override");
  CHECK(parsedOk("asyncfix.toml", "select = [\"ALL\"]\n").docsUrl.empty()); // the default: defaultDocsUrl()

  for (const char *bad : {"docs-url = \"docs.test/asyncfix\"\n", "docs-url = \"://x\"\n", "docs-url = \"https://\"\n",
                          "docs-url = 3\n"}) {
    INFO(bad);
    const ConfigError e = parsedError("asyncfix.toml", bad);
    CHECK(e.line == 1);
    CHECK(e.message.find("`docs-url` must be an absolute URL") != std::string::npos);
  }
}
