# expect-before: TypeError: type torch\.cuda\.LongTensor not available\. Torch not compiled with CUDA enabled
# fixes: none
# AF318: the CUDA class imported under another name. The rule reports the import (its calls
# carry a name it cannot see in them); each call is the legacy CUDA constructor.
import torch
from torch.cuda import LongTensor as LT

print(torch.ones(2).sum().item())
labels = LT([0, 2, 1])
print(labels.tolist())
