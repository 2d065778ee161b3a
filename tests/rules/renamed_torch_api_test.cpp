// AF310 renamed-torch-api (lib/src/rules/renamed_torch_api.cpp).
#include <catch2/catch.hpp>

#include "rules/rule_tester.h"

using namespace asyncfix::testing;

TEST_CASE("AF310 renamed-torch-api: today's names and other libraries' are left alone", "[rules][AF310]") {
  const std::vector<std::string> valid = {
      "from torchvision import transforms\nt = transforms.Resize(256)\nc = transforms.RandomResizedCrop(224)\n",
      "import torch.nn as nn\nnn.init.xavier_uniform_(w)\nnn.init.normal_(w, 0, 1)\nnn.init.constant_(b, 0)\n",
      "import torch\ntorch.nn.utils.clip_grad_norm_(params, 1.0)\ny = torch.sigmoid(x)\n",
      "from torch.nn.init import xavier_uniform_, normal_\n",
      // Names that are not PyTorch's.
      "from mylib import Scale\nScale(256)\n",
      "from mylib import transforms\ntransforms.Scale(256)\n",
      "import mylib as F\nF.sigmoid(x)\n",
      "def f(F, x):\n    return F.sigmoid(x)\n",
      "class Scale:\n    pass\nScale()\n",
      "import numpy as np\ninit = Init()\ninit.normal(w)\n",
      // Referred to, not called: a table of functions means the old ones.
      "import torch\nimport torch.nn.functional as F\nignored = [F.sigmoid, torch.nn.init.uniform]\n",
      // Text, not code.
      "s = 'transforms.Scale(256)'\n# nn.init.xavier_uniform(w)\n",
      // A name no import explains, in a file that imports nothing of PyTorch.
      "Scale(256)\nxavier_uniform(w)\n",
  };
  runRuleTests("AF310", valid, {});
}

TEST_CASE("AF310 renamed-torch-api: renames through imports", "[rules][AF310]") {
  const std::vector<Invalid> invalid = {
      {"from torchvision import transforms\nt = transforms.Scale(256)\n",
       {{"AF310", 2, 5, 21, FixKind::Safe, "removed in 0.12"}},
       "from torchvision import transforms\nt = transforms.Resize(256)\n"},
      {"import torchvision.transforms as T\nt = T.Compose([T.Scale(256), T.RandomSizedCrop(224)])\n",
       {{"AF310", 2, 16, 23, FixKind::Safe}, {"AF310", 2, 30, 47, FixKind::Safe}},
       "import torchvision.transforms as T\nt = T.Compose([T.Resize(256), T.RandomResizedCrop(224)])\n"},
      {"import torch.nn as nn\nnn.init.xavier_uniform(w)\nnn.init.kaiming_normal(w)\nnn.init.constant(b, 0)\n",
       {{"AF310", 2, 1, 23, FixKind::Safe, "xavier_uniform_"},
        {"AF310", 3, 1, 23, FixKind::Safe},
        {"AF310", 4, 1, 17, FixKind::Safe}},
       "import torch.nn as nn\nnn.init.xavier_uniform_(w)\nnn.init.kaiming_normal_(w)\nnn.init.constant_(b, 0)\n"},
      {"from torch.nn import init\ninit.normal(w, 0, 0.01)\ninit.orthogonal(u)\n",
       {{"AF310", 2, 1, 12, FixKind::Safe}, {"AF310", 3, 1, 16, FixKind::Safe}},
       "from torch.nn import init\ninit.normal_(w, 0, 0.01)\ninit.orthogonal_(u)\n"},
      {"import torch\ntorch.nn.utils.clip_grad_norm(model.parameters(), 5)\n",
       {{"AF310", 2, 1, 30, FixKind::Safe, "clip_grad_norm_"}},
       "import torch\ntorch.nn.utils.clip_grad_norm_(model.parameters(), 5)\n"},
      {"import torch\nimport torch.nn.functional as F\ny = F.sigmoid(x) + F.tanh(x)\n",
       {{"AF310", 3, 5, 14, FixKind::Safe, "torch.sigmoid"}, {"AF310", 3, 20, 26, FixKind::Safe, "torch.tanh"}},
       "import torch\nimport torch.nn.functional as F\ny = torch.sigmoid(x) + torch.tanh(x)\n"},
      // No `import torch` to write `torch.sigmoid` with: reported, not fixed.
      {"from torch.nn import functional as F\ny = F.sigmoid(x)\n", {{"AF310", 2, 5, 14, FixKind::None}}, std::nullopt},
      // `torch` rebound in a function: `torch.tanh` would not be the module there.
      {"import torch\nimport torch.nn.functional as F\ndef f(torch):\n    return F.tanh(torch)\n",
       {{"AF310", 4, 12, 18, FixKind::None}},
       std::nullopt},
      // Imported by name: the import takes the new name under the old one.
      {"from torchvision.transforms import Scale, ToTensor\nt = Scale(256)\n",
       {{"AF310", 1, 36, 41, FixKind::Safe}},
       "from torchvision.transforms import Resize as Scale, ToTensor\nt = Scale(256)\n"},
      {"from torch.nn.init import normal as n, xavier_uniform\nn(w)\n",
       {{"AF310", 1, 27, 33, FixKind::Safe}, {"AF310", 1, 40, 54, FixKind::Safe}},
       "from torch.nn.init import normal_ as n, xavier_uniform_ as xavier_uniform\nn(w)\n"},
      {"from torch.nn.utils import clip_grad_norm\nclip_grad_norm(p, 1)\n",
       {{"AF310", 1, 28, 42, FixKind::Safe}},
       "from torch.nn.utils import clip_grad_norm_ as clip_grad_norm\nclip_grad_norm(p, 1)\n"},
      // A star import: spelt like torchvision's, so reported without a fix.
      {"from torchvision.transforms import *\nt = Scale(256)\n",
       {{"AF310", 2, 5, 10, FixKind::None, "through `from torchvision.transforms import *`"}},
       std::nullopt},
      // Inside a function that imports torch itself.
      {"def build():\n    import torchvision.transforms as T\n    return T.Scale(32)\n",
       {{"AF310", 3, 12, 19, FixKind::Safe}},
       "def build():\n    import torchvision.transforms as T\n    return T.Resize(32)\n"},
  };
  runRuleTests("AF310", {}, invalid);
}

TEST_CASE("AF310 renamed-torch-api: rows from the configuration", "[rules][AF310]") {
  asyncfix::Config config;
  asyncfix::RenameRow row;
  row.kind = asyncfix::RenameRow::Kind::Api;
  row.old = "mylib.models.build_net";
  row.replacement = "mylib.models.make_net";
  config.renames.push_back(row);
  const std::vector<std::string> valid = {
      "from otherlib import models\nmodels.build_net()\n",
      "import mylib\nmylib.models.make_net()\n",
  };
  const std::vector<Invalid> invalid = {
      {"import mylib.models as M\nnet = M.build_net(3)\n",
       {{"AF310", 2, 7, 18, FixKind::Safe, "tool.asyncfix.renames"}},
       "import mylib.models as M\nnet = M.make_net(3)\n"},
      {"from mylib.models import build_net\n",
       {{"AF310", 1, 26, 35, FixKind::Safe}},
       "from mylib.models import make_net as build_net\n"},
      // The built-in rows still hold.
      {"from torchvision import transforms\nt = transforms.Scale(8)\n",
       {{"AF310", 2, 5, 21}},
       "from torchvision import transforms\nt = transforms.Resize(8)\n"},
  };
  runRuleTests("AF310", valid, invalid, config);
}
