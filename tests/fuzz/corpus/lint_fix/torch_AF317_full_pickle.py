# expect-before: UnpicklingError: Weights only load failed
# fixes: none
# AF317: torch.load of a whole model (a full pickle). PyTorch 1.13 still defaults to
# weights_only=False, so the flagged call loads; the last line shows what PyTorch 2.6's default
# (weights_only=True) does with the same file.
import os
import tempfile

import torch
import torch.nn as nn

torch.manual_seed(0)
path = os.path.join(tempfile.mkdtemp(), "model.pth")
torch.save(nn.Linear(2, 1), path)
model = torch.load(path)
print(type(model).__name__, round(model.weight.sum().item(), 4))
torch.load(path, weights_only=True)
