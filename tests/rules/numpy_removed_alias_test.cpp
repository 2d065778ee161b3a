// AF311 numpy-removed-alias (lib/src/rules/numpy_removed_alias.cpp).
#include <catch2/catch.hpp>

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
