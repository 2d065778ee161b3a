// AF311 numpy-removed-alias (lib/src/rules/numpy_removed_alias.cpp).
#include <catch2/catch.hpp>

#include "asyncfix/linter.h"
#include "rules/rule_tester.h"

using namespace asyncfix::testing;

TEST_CASE("AF311 numpy-removed-alias", "[rules][AF311]") {
  const std::vector<std::string> valid = {
      "import numpy as np\nx = np.float32(1) + np.int64(2) + np.float_(3)\ny = np.bool_(True)\nz = np.object_\n",
      "import numpy as np\nx = np.zeros(3, dtype=float)\nn = np.integer\nc = np.complex128\ns = np.str_\n",
      // Not NumPy.
      "np = Namespace()\nnp.float\n",
      "def f(np):\n    return np.int\n",
      "import mylib as np\nnp.float\n",
      "s = 'np.float'  # np.float\n",
      // `np` never bound: no import explains it.
      "x = np.float(1)\n",
  };
  const std::vector<Invalid> invalid = {
      {"import numpy as np\nx = np.zeros(3, dtype=np.float)\nn = np.int(x.sum())\n",
       {{"AF311", 2, 23, 31, FixKind::Safe, "removed in NumPy 1.24"}, {"AF311", 3, 5, 11, FixKind::Safe}},
       "import numpy as np\nx = np.zeros(3, dtype=float)\nn = int(x.sum())\n"},
      {"import numpy\nok = isinstance(v, (numpy.str, numpy.unicode, numpy.object, numpy.complex))\n",
       {{"AF311", 2, 21, 30}, {"AF311", 2, 32, 45}, {"AF311", 2, 47, 59}, {"AF311", 2, 61, 74}},
       "import numpy\nok = isinstance(v, (str, str, object, complex))\n"},
      // np.bool and np.long mean NumPy's types on NumPy 2: unsafe.
      {"import numpy as np\nm = x.astype(np.bool)\nk = np.long(3)\n",
       {{"AF311", 2, 14, 21, FixKind::Unsafe, "np.bool_"}, {"AF311", 3, 5, 12, FixKind::Unsafe, "C `long`"}},
       "import numpy as np\nm = x.astype(bool)\nk = int(3)\n",
       "import numpy as np\nm = x.astype(np.bool)\nk = np.long(3)\n"},
      // The file binds `float` itself: unsafe.
      {"import numpy as np\ndef f(float):\n    return np.float\n",
       {{"AF311", 3, 12, 20, FixKind::Unsafe, "binds `float`"}},
       "import numpy as np\ndef f(float):\n    return float\n",
       "import numpy as np\ndef f(float):\n    return np.float\n"},
      // Imported inside a function.
      {"def f(x):\n    import numpy as np\n    return x.astype(np.int)\n",
       {{"AF311", 3, 21, 27, FixKind::Safe}},
       "def f(x):\n    import numpy as np\n    return x.astype(int)\n"},
  };
  runRuleTests("AF311", valid, invalid);
}

TEST_CASE("AF311 numpy-removed-alias: rows of the configuration", "[rules][AF311]") {
  // `[tool.asyncfix.renames] api` rows whose `new` is a builtin: an alias of it that its
  // library removed (`np.float_` went in NumPy 2.0).
  asyncfix::Config config;
  asyncfix::RenameRow row;
  row.kind = asyncfix::RenameRow::Kind::Api;
  row.old = "numpy.float_";
  row.replacement = "float";
  config.renames.push_back(row);
  const std::vector<std::string> valid = {
      "import numpy as np\nx = np.float64(1)\n", // another name
      "import mylib as np\nx = np.float_\n",     // not NumPy
      "x = np.float_\n",                         // `np` never bound
  };
  const std::vector<Invalid> invalid = {
      {"import numpy as np\nx = np.zeros(3, dtype=np.float_)\n",
       {{"AF311", 2, 23, 32, FixKind::Safe, "a row of `[tool.asyncfix.renames] api`"}},
       "import numpy as np\nx = np.zeros(3, dtype=float)\n"},
      {"import numpy\ndef f(float):\n    return numpy.float_\n",
       {{"AF311", 3, 12, 24, FixKind::Unsafe, "binds `float`"}},
       "import numpy\ndef f(float):\n    return float\n",
       "import numpy\ndef f(float):\n    return numpy.float_\n"},
      // The built-in rows still hold beside it.
      {"import numpy as np\nx = np.float(1) + np.float_(2)\n",
       {{"AF311", 2, 5, 13, FixKind::Safe}, {"AF311", 2, 19, 28, FixKind::Safe}},
       "import numpy as np\nx = float(1) + float(2)\n"},
  };
  runRuleTests("AF311", valid, invalid, config);
  // AF310 does not take such a row for a rename.
  config.rules.select = {"AF310"};
  CHECK(asyncfix::Linter(config).lint(asyncfix::Document("import numpy as np\nx = np.float_\n")).empty());
}
