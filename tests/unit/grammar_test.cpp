// The grammar pin: tree-sitter-python 0.23.6 must parse `async`/`await` as plain identifiers in
// every position legacy code uses them. 0.25 reserves them and turns these into ERROR nodes; this
// test is what stops a silent upgrade.
#include <catch2/catch.hpp>

#include "asyncfix/document.h"
#include "asyncfix/document_internals.h"
#include "text/syntax.h"

using asyncfix::Document;
using asyncfix::DocumentInternals;

TEST_CASE("grammar parses async and await as names in every position", "[grammar]") {
  const char *snippets[] = {
      "x.cuda(async=True)\n",
      "def f(async=1, *, await=2):\n    pass\n",
      "def f(async, await):\n    return async, await\n",
      "def f(*async, **await):\n    pass\n",
      "lambda async: async\n",
      "self.async = 1\n",
      "y = obj.async.await\n",
      "def async():\n    pass\n",
      "class async:\n    pass\n",
      "class C:\n    def await(self):\n        pass\n",
      "import async\n",
      "import x as async\n",
      "from a import async\n",
      "from a import async as b, await\n",
      "from kombu.async import Hub\n",
      "global async\n",
      "def f():\n    nonlocal await\n",
      "async = 1\n",
      "await = 1\n",
      "async, await = 1, 2\n",
      "for async in y:\n    pass\n",
      "with a as async:\n    pass\n",
      "try:\n    pass\nexcept E as async:\n    pass\n",
      "[async for async in x]\n",
      "f(await=3)\n",
      "print(async if await else None)\n",
      "(async := 1)\n",
      "x = f'{async}'\n",
  };
  for (const char *src : snippets) {
    INFO(src);
    const Document doc(src);
    REQUIRE(doc.parsed());
    CHECK(doc.syntaxErrorCount() == 0);
    // The `async`/`await` words are identifier nodes, not keyword tokens.
    const TSNode root = ts_tree_root_node(DocumentInternals::tree(doc));
    CHECK_FALSE(ts_node_has_error(root));
  }
}

TEST_CASE("grammar still parses the real keywords", "[grammar]") {
  const Document doc("async def f():\n    async with a as b:\n        async for x in b:\n"
                     "            await x\n    return [i async for i in y]\n");
  CHECK(doc.syntaxErrorCount() == 0);
}

TEST_CASE("grammar and runtime versions are the pinned ones", "[grammar]") {
  const TSLanguage *lang = tree_sitter_python();
  CHECK(ts_language_abi_version(lang) == 14); // tree-sitter-python 0.23.6
  CHECK(TREE_SITTER_LANGUAGE_VERSION == 15);  // the 0.25 runtime
}

TEST_CASE("kFieldNames is the grammar's fields, each with its id", "[grammar]") {
  const TSLanguage *lang = tree_sitter_python();
  REQUIRE(ts_language_field_count(lang) == asyncfix::kFieldNames.size());
  for (std::size_t i = 0; i < asyncfix::kFieldNames.size(); ++i) {
    const std::string_view name = asyncfix::kFieldNames[i];
    const TSFieldId id = asyncfix::fieldIds()[i];
    CAPTURE(name);
    CHECK(id != 0);
    CHECK(ts_language_field_name_for_id(lang, id) == name);
  }
  const Document doc("x = f(a)\n");
  const TSNode assignment =
      ts_node_named_child(ts_node_named_child(ts_tree_root_node(DocumentInternals::tree(doc)), 0), 0);
  CHECK(asyncfix::textOf(asyncfix::field(assignment, "right"), doc.text()) == "f(a)");
  CHECK(asyncfix::textOf(asyncfix::fieldOf(assignment, "left"), doc.text()) == "x");
  CHECK(ts_node_is_null(asyncfix::fieldOf(TSNode{}, "left")));
}
