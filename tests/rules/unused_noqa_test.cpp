#include <catch2/catch.hpp>

#include <algorithm>

#include "asyncfix/linter.h"
#include "asyncfix/suppression.h"
#include "config/noqa.h"
#include "rules/rule_tester.h"

using namespace asyncfix;
using namespace asyncfix::testing;

TEST_CASE("noqa comments suppress findings", "[suppression]") {
  const Linter linter;
  auto codes = [&](const std::string &src) {
    std::vector<std::string> out;
    for (const Diagnostic &d : linter.lint(Document(src))) out.emplace_back(d.code);
    return out;
  };
  using V = std::vector<std::string>;
  CHECK(codes("y = x.to(device, True)  # noqa\n").empty()); // syntax errors: the next test case
  CHECK(codes("x.cuda(async=True)  # noqa: AF101\n").empty());
  CHECK(codes("x.cuda(async=True)  # NOQA:AF101,AF001\n") == V{"AF900"}); // AF001 unused
  CHECK(codes("x.cuda(async=True)  # noqa: AF001\n") == V{"AF101", "AF900"});
  CHECK(codes("x.cuda(async=True)  # asyncfix: noqa: AF101\n").empty());
  CHECK(codes("x.cuda(async=True)  # type: ignore  # noqa: AF101\n").empty());
  CHECK(codes("x.cuda(async=True)  # noqa: E501\n") == V{"AF101"}); // another tool's code
  // The last line of a multi-line statement covers the statement.
  CHECK(codes("y = x.cuda(\n    async=True,\n)  # noqa: AF101\n").empty());
  CHECK(codes("y = x.cuda(\n    async=True,  # noqa: AF101\n)\n").empty());
  CHECK(codes("y = x.cuda(\n    async=True,\n    d)  # noqa: AF101\nz = w.cuda(async=True)\n") == V{"AF101"});
  // The text of a string is not a comment.
  CHECK(codes("x.cuda(async=True, s='# noqa')\n") == V{"AF101"});
  // File level, in the header only.
  CHECK(codes("#!/usr/bin/env python\n# asyncfix: skip-file\nasync = 1\nx.cuda(async=True)\n").empty());
  CHECK(codes("# asyncfix: noqa: AF001\nasync = 1\nx.cuda(async=True)\n") == V{"AF101"});
  CHECK(codes("async = 1\n# asyncfix: skip-file\n") == V{"AF001"});
}

TEST_CASE("a blanket noqa does not hide a syntax error on the target version", "[suppression]") {
  using V = std::vector<std::string>;
  auto codes = [](const std::string &src, PythonVersion target = {3, 8}) {
    Config config;
    config.target = target;
    std::vector<std::string> out;
    for (const Diagnostic &d : Linter(config).lint(Document(src))) out.emplace_back(d.code);
    return out;
  };
  // flake8's unused-import `# noqa` on a line that does not compile on 3.7+ (kombu, 2016).
  const std::string kombu = "from kombu.async import timer as _timer  # noqa\n";
  CHECK(codes(kombu) == V{"AF201"});
  CHECK(codes("from kombu.async import timer as _timer  # noqa: F401\n") == V{"AF201"});
  CHECK(codes("from kombu.async import timer as _timer  # NOQA:F401,AF201\n").empty());
  CHECK(codes("from kombu.async import timer as _timer  # noqa  # noqa: AF201\n").empty());
  CHECK(codes("x.cuda(async=True)  # noqa\n") == V{"AF101"});
  CHECK(codes("x.cuda(async=True)  # asyncfix: noqa\n") == V{"AF101"});
  CHECK(codes("async = 1  # noqa\n") == V{"AF001"});
  CHECK(codes("def f():\n    await(x)  # noqa\n") == V{"AF002"});
  CHECK(codes("y = asyncio.async(f())  # noqa\n") == V{"AF202"});
  CHECK(codes("import pexpect\nchild = pexpect.spawn('sh')\nchild.expect('x', async=True)  # noqa\n") == V{"AF203"});
  // The whole statement, from its last line.
  CHECK(codes("y = x.cuda(\n    async=True,\n)  # noqa\n") == V{"AF101"});
  // Before 3.7 the same code compiles (a DeprecationWarning): a blanket noqa hides it, as before.
  CHECK(codes(kombu, {3, 6}).empty());
  CHECK(codes("x.cuda(async=True)  # noqa\n", {3, 6}).empty());
  // Findings that compile keep the blanket behaviour: runtime advice, not a syntax error.
  CHECK(codes("y = x.to(device, True)  # noqa\n").empty());
  CHECK(codes("import torch.nn as nn\nm = nn.Linear(2, 2)\nm.cuda(non_blocking=True)  # noqa\n").empty());
  CHECK(codes("import torch.nn as nn\nm = nn.Linear(2, 2)\nm.cuda(async=True)  # noqa\n") == V{"AF102"});
  // File level: a blanket `# asyncfix: noqa` in the header leaves syntax errors reported, one
  // naming the code hides them, `skip-file` skips the file.
  CHECK(codes("# asyncfix: noqa\nasync = 1\ny = x.to(device, True)\n") == V{"AF001"});
  CHECK(codes("# asyncfix: noqa: AF001\nasync = 1\n").empty());
  CHECK(codes("# asyncfix: noqa\nx = 1  # noqa: AF101\n").empty()); // nor AF900 under it
  CHECK(codes("# asyncfix: skip-file\nasync = 1\n").empty());
}

TEST_CASE("AF900 unused-noqa", "[rules][AF900]") {
  const std::vector<std::string> valid = {
      "x.cuda(async=True)  # noqa: AF101\n",
      "x = 1  # noqa\n",
      "x = 1  # noqa: E501, F401\n",
      "import os  # noqa:F401\n",
      // The named code is what hides the syntax error: it is used.
      "x.cuda(async=True)  # noqa  # noqa: AF101\n",
      "from kombu.async import timer  # noqa: F401, AF201\n",
  };
  const std::vector<Invalid> invalid = {
      {"x = 1  # noqa: AF101\n", {{"AF900", 1, 16, 21, FixKind::Safe, "Unused"}}, "x = 1\n"},
      {"x = 1  # noqa: AF10\n", {{"AF900", 1, 16, 20, FixKind::Safe, "Unknown"}}, "x = 1\n"},
      {"x = 1  # noqa: E501, AF101\n", {{"AF900", 1, 22, 27}}, "x = 1  # noqa: E501\n"},
      {"x = 1  # noqa: AF101, E501\n", {{"AF900", 1, 16, 21}}, "x = 1  # noqa: E501\n"},
      {"x = 1  # noqa: AF101 because reasons\n", {{"AF900", 1, 16, 21}}, "x = 1  # because reasons\n"},
      // Another directive after it keeps its own `#` (mypy still sees `# type: ignore`).
      {"x = 1  # noqa: AF101  # type: ignore\n", {{"AF900", 1, 16, 21}}, "x = 1  # type: ignore\n"},
      {"x = 1  # type: ignore  # noqa: AF101\n", {{"AF900", 1, 32, 37}}, "x = 1  # type: ignore\n"},
      {"x = 1  # asyncfix: noqa: AF002\n", {{"AF900", 1, 26, 31}}, "x = 1\n"},
      {"x = 1  # noqa: AF101, AF001\n", {{"AF900", 1, 16, 21}, {"AF900", 1, 23, 28}}, "x = 1\n"},
      // A second directive after a blanket one goes alone; the blanket one is another tool's.
      {"x = 1  # noqa  # noqa: AF101\n", {{"AF900", 1, 24, 29}}, "x = 1  # noqa\n"},
  };
  // The codes named in the comments must be enabled for "unused" to mean anything.
  Config all;
  all.rules.extendSelect = {"ALL"};
  runRuleTests("AF900", valid, invalid, all);
}

TEST_CASE("a code not selected is never reported as unused", "[rules][AF900]") {
  Config config;
  config.rules.ignore = {"AF101"};
  const Linter linter(config);
  CHECK(linter.lint(Document("x = 1  # noqa: AF101\n")).empty());
}

TEST_CASE("addNoqa suppresses every current finding, and is idempotent", "[suppression]") {
  const Linter linter;
  const std::string src = "def f(async=False):\n    return x.cuda(async=async)\ny = f(\n    async=True,\n)\n";
  std::size_t added = 0;
  const std::string out = addNoqa(linter, src, &added);
  CHECK(out == "def f(async=False):  # noqa: AF001\n    return x.cuda(async=async)  # noqa: AF001, AF101\n"
               "y = f(\n    async=True,  # noqa: AF001\n)\n");
  CHECK(added == 4);
  // AF900 is judged after suppression: --add-noqa never writes it.
  std::size_t none = 1;
  CHECK(addNoqa(linter, "e = x.cuda(async=True)  # noqa: AF001\n", &none) ==
        "e = x.cuda(async=True)  # noqa: AF001, AF101\n");
  CHECK(none == 1);
  CHECK(linter.lint(Document(out)).empty());
  std::size_t again = 1;
  CHECK(addNoqa(linter, out, &again) == out);
  CHECK(again == 0);
}

TEST_CASE("addNoqa names the code where a blanket noqa no longer hides a syntax error", "[suppression]") {
  const Linter linter;
  const auto check = [&](const std::string &src, const std::string &expected, std::size_t count) {
    INFO(src);
    std::size_t added = 0;
    const std::string out = addNoqa(linter, src, &added);
    CHECK(out == expected);
    CHECK(added == count);
    CHECK(linter.lint(Document(out)).empty()); // what it wrote suppresses
    std::size_t again = 1;
    CHECK(addNoqa(linter, out, &again) == out); // idempotent
    CHECK(again == 0);
  };
  // The blanket `# noqa` stays for flake8 (a named one would make flake8 report F401 again).
  check("from kombu.async import timer as _timer  # noqa\n",
        "from kombu.async import timer as _timer  # noqa  # noqa: AF201\n", 1);
  check("from kombu.async import timer as _timer  # noqa: F401\n",
        "from kombu.async import timer as _timer  # noqa: F401, AF201\n", 1);
  check("e = x.cuda(async=async)  # noqa because reasons\n",
        "e = x.cuda(async=async)  # noqa because reasons  # noqa: AF001, AF101\n", 2);
  // Nothing to add where the blanket noqa still hides everything.
  check("y = x.to(device, True)  # noqa\n", "y = x.to(device, True)  # noqa\n", 0);
  Config py36;
  py36.target = {3, 6};
  std::size_t none = 1;
  CHECK(addNoqa(Linter(py36), "x.cuda(async=True)  # noqa\n", &none) == "x.cuda(async=True)  # noqa\n");
  CHECK(none == 0);
}

TEST_CASE("noqaEdit adds or extends a noqa comment", "[suppression]") {
  auto edited = [](const std::string &src, std::string_view code) {
    const Document doc(src);
    const std::size_t at = src.find("async");
    return applyEdits(src, {noqaEdit(doc, at, code)});
  };
  CHECK(edited("x.cuda(async=True)\n", "AF101") == "x.cuda(async=True)  # noqa: AF101\n");
  CHECK(edited("x.cuda(async=True)  # noqa: AF001\n", "AF101") == "x.cuda(async=True)  # noqa: AF001, AF101\n");
  // A finding that a blanket noqa covers and did not hide is a syntax error on the target: the
  // code gets a directive of its own.
  CHECK(edited("x.cuda(async=True)  # noqa\n", "AF101") == "x.cuda(async=True)  # noqa  # noqa: AF101\n");
  CHECK(edited("x.cuda(async=True)  # noqa  # noqa: AF001\n", "AF101") ==
        "x.cuda(async=True)  # noqa  # noqa: AF001, AF101\n");
  CHECK(edited("x.cuda(async=True)  # noqa  # noqa: AF101\n", "AF101") ==
        "x.cuda(async=True)  # noqa  # noqa: AF101\n");

  CHECK(edited("x.cuda(async=True)  # noqa: AF101\n", "AF101") == "x.cuda(async=True)  # noqa: AF101\n");
  CHECK(edited("x.cuda(async=True)  # a comment\n", "AF101") == "x.cuda(async=True)  # a comment  # noqa: AF101\n");
  CHECK(edited("x.cuda(async=True)\r\ny = 1\r\n", "AF101") == "x.cuda(async=True)  # noqa: AF101\r\ny = 1\r\n");
  CHECK(edited("x.cuda(async=True)", "AF101") == "x.cuda(async=True)  # noqa: AF101");
  // A line that cannot take a comment: the statement's last line gets it.
  CHECK(edited("f(x.cuda(async=True), '''a\nb''')\n", "AF101") == "f(x.cuda(async=True), '''a\nb''')  # noqa: AF101\n");
  CHECK(edited("y = x.cuda(async=True) + \\\n    1\n", "AF101") ==
        "y = x.cuda(async=True) + \\\n    1  # noqa: AF101\n");
  // Every edit suppresses what it was made for.
  for (const char *src :
       {"x.cuda(async=True)\n", "f(x.cuda(async=True), '''a\nb''')\n", "y = x.cuda(async=True) + \\\n    1\n"}) {
    const std::string out = edited(src, "AF101");
    CHECK(Linter().lint(Document(out)).empty());
  }
}

TEST_CASE("noqa comments with CRLF and CR-only line ends", "[suppression][line-ends]") {
  const Linter linter;
  for (const std::string eol : {"\r\n", "\r"}) {
    INFO((eol == "\r" ? "CR-only" : "CRLF"));
    // Suppression covers the comment's line, and a multi-line statement from its last line.
    CHECK(linter.lint(Document("x = 1" + eol + "y.cuda(async=True)  # noqa: AF101" + eol)).empty());
    CHECK(linter.lint(Document("y = x.cuda(" + eol + "    async=True," + eol + ")  # noqa: AF101" + eol)).empty());
    // AF900's fix takes the directive out and leaves the line break alone.
    FixOptions options;
    CHECK(fix(linter, "x = 1  # noqa: AF101" + eol + "y = 2" + eol, options).text == "x = 1" + eol + "y = 2" + eol);
    // --add-noqa puts the comment on the finding's line.
    CHECK(addNoqa(linter, "x = 1" + eol + "y = x.cuda(async=True)" + eol) ==
          "x = 1" + eol + "y = x.cuda(async=True)  # noqa: AF101" + eol);
  }
}

TEST_CASE("headerSuppressions reads a header as the linter reads it", "[suppression]") {
  const Linter linter;
  const std::vector<std::string> headers = {
      "",
      "# asyncfix: skip-file\n",
      "#!/usr/bin/env python\n\n# asyncfix: skip-file\n",
      "\xEF\xBB\xBF# asyncfix: skip-file\n",
      "# -*- coding: utf-8 -*-\r\n# asyncfix: noqa: AF001, AF201\r\n",
      "# a\r# asyncfix: noqa: AF001\r",
      "  # indented\n\f# asyncfix:skip-file\n",
      "# asyncfix: noqa\n",
      "# asyncfix: noqa: AF101\n",
      "'''doc'''\n# asyncfix: skip-file\n",
      "x = 1\n# asyncfix: noqa: AF001\n",
      "s = '''\n# asyncfix: skip-file\n'''\n",
      "\\\n# asyncfix: skip-file\n",
      "# ASYNCFIX: SKIP-FILE\n",
  };
  for (const std::string &header : headers) {
    INFO(header);
    const Suppressions s = headerSuppressions(header + "async = 1\n");
    CHECK(s.directives.empty());
    // AF001 on `async = 1` is a syntax error on the target: only skip-file or a named AF001 in
    // the header hides it from the linter.
    const bool hides = s.skipFile || std::find(s.fileCodes.begin(), s.fileCodes.end(), "AF001") != s.fileCodes.end();
    bool reported = false;
    for (const Diagnostic &d : linter.lint(Document(header + "async = 1\n"))) reported = reported || d.code == "AF001";
    CHECK(hides == !reported);
  }
  CHECK(headerSuppressions("# asyncfix: skip-file\n").skipFile);
  CHECK(headerSuppressions("# asyncfix: noqa\nimport os\n").fileAll);
  CHECK(headerSuppressions("# asyncfix: noqa: AF201\nimport os\n").fileCodes == std::vector<std::string>{"AF201"});
  CHECK_FALSE(headerSuppressions("import os  # asyncfix: noqa\n").fileAll);
  CHECK_FALSE(headerSuppressions("x = 1\n# asyncfix: skip-file\n").skipFile);
}
