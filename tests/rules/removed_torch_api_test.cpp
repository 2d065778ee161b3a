// AF316 removed-torch-api (lib/src/rules/removed_torch_api.cpp).
#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix::testing;

TEST_CASE("AF316 removed-torch-api", "[rules][AF316]") {
  const std::vector<std::string> valid = {
      "import torch\nX = torch.linalg.solve(A, B)\nL = torch.linalg.cholesky(A)\nw = torch.linalg.eig(A)\n",
      "import torch\nfrom torch.linalg import eigh, lstsq\nr = torch.linalg.matrix_rank(A)\n",
      "import imageio\nimage = imageio.v2.imread(path)\nfrom scipy import misc\nface = misc.face()\n",
      // Not PyTorch's, or not a file that uses torch.
      "import sympy\nM.eig()\nx = solver.solve(b)\n",
      "A.potrf()\nb.gesv(A)\n",
      // Referred to, not called; a module's own function of that name.
      "import torch\nadd_docstr(torch.symeig, 'doc')\n",
      "import torch\nfrom . import _linalg_utils as _utils\nE, Z = _utils.symeig(M, largest)\n",
      "from mylib import torch\ntorch.gesv(B, A)\n",
      "import cv2\nimg = cv2.imread(p)\n",
      "s = 'torch.gesv(B, A)'  # torch.symeig(A)\n",
  };
  const std::vector<Invalid> invalid = {
      {"import torch\nX, LU = torch.gesv(B, A)\nL = torch.potrf(A)\n",
       {{"AF316", 2, 9, 19, FixKind::None, "torch.linalg.solve(A, B)"},
        {"AF316", 3, 5, 16, FixKind::None, "torch.linalg.cholesky(A)"}},
       std::nullopt},
      {"import torch\ne, v = torch.symeig(A, eigenvectors=True)\nw = torch.eig(A)\nx = torch.solve(B, A)\n"
       "y = torch.lstsq(B, A)\nr = torch.matrix_rank(A)\n",
       {{"AF316", 2, 8, 20, FixKind::None, "UPLO='U'"},
        {"AF316", 3, 5, 14, FixKind::None, "complex"},
        {"AF316", 4, 5, 16},
        {"AF316", 5, 5, 16},
        {"AF316", 6, 5, 22, FixKind::None, "hermitian"}},
       std::nullopt},
      // Tensor methods with distinctive names, in a file that imports torch.
      {"import torch\nL = A.potrf(upper=False)\nx, _ = b.trtrs(A)\n",
       {{"AF316", 2, 7, 12}, {"AF316", 3, 10, 15, FixKind::None, "solve_triangular"}},
       std::nullopt},
      {"import torch\nfrom torch.utils.serialization import load_lua\nimport torch.legacy.nn as lnn\n"
       "from torch.utils.ffi import create_extension\nm = torch.utils.serialization.load_lua(p)\n",
       {{"AF316", 2, 6, 31, FixKind::None, "torchfile"},
        {"AF316", 3, 8, 23, FixKind::None, "torch.nn"},
        {"AF316", 4, 6, 21, FixKind::None, "cpp_extension"},
        {"AF316", 5, 5, 30}},
       std::nullopt},
      {"import scipy.misc\nfrom scipy.misc import imread, imresize as resize\nimg = scipy.misc.imread(p)\n"
       "scipy.misc.imsave(q, img)\n",
       {{"AF316", 2, 24, 30, FixKind::None, "imageio"},
        {"AF316", 2, 32, 40, FixKind::None, "(width, height)"},
        {"AF316", 3, 7, 24},
        {"AF316", 4, 1, 18, FixKind::None, "imwrite"}},
       std::nullopt},
      {"from torch import symeig, gels\n", {{"AF316", 1, 19, 25}, {"AF316", 1, 27, 31}}, std::nullopt},
  };
  runRuleTests("AF316", valid, invalid);
}

TEST_CASE("AF316 removed-torch-api: rows from the configuration", "[rules][AF316]") {
  asyncfix::Config config;
  asyncfix::RenameRow row;
  row.kind = asyncfix::RenameRow::Kind::Api;
  row.old = "mylib.ops.old_solve";
  row.message = "use `mylib.ops.solve(A, B)`: the arguments swap";
  config.renames.push_back(row);
  asyncfix::RenameRow builtin = row; // a user row wins over a built-in one
  builtin.old = "torch.gesv";
  builtin.message = "use `our.solve`";
  config.renames.push_back(builtin);
  const std::vector<std::string> valid = {
      "from otherlib import ops\nops.old_solve(b, A)\n",
      "import mylib\nmylib.ops.solve(A, b)\n",
      "import mylib\nold_solve = 1\n",
  };
  const std::vector<Invalid> invalid = {
      {"import mylib.ops as ops\nx = ops.old_solve(b, A)\nf = ops.old_solve\n",
       {{"AF316", 2, 5, 18, FixKind::None, "`mylib.ops.old_solve` was removed (a row of"},
        {"AF316", 3, 5, 18, FixKind::None, "the arguments swap"}},
       std::nullopt},
      {"from mylib.ops import old_solve as s\n", {{"AF316", 1, 23, 32, FixKind::None}}, std::nullopt},
      {"import torch\nx = torch.gesv(b, A)\ny = torch.potrf(A)\n",
       {{"AF316", 2, 5, 15, FixKind::None, "use `our.solve`"}, {"AF316", 3, 5, 16, FixKind::None, "cholesky"}},
       std::nullopt},
  };
  runRuleTests("AF316", valid, invalid, config);
  // An api row with `new` stays AF310's: AF316 does not report it.
  asyncfix::Config renamed;
  asyncfix::RenameRow r;
  r.kind = asyncfix::RenameRow::Kind::Api;
  r.old = "mylib.ops.old_solve";
  r.replacement = "mylib.ops.solve";
  renamed.renames.push_back(r);
  runRuleTests("AF316", {"import mylib.ops as ops\nx = ops.old_solve(b, A)\n"}, {}, renamed);
}
