# expect-before: ModuleNotFoundError: No module named 'torch\.utils\.serialization'
# fixes: none
# AF316: torch.utils.serialization (load_lua), removed in PyTorch 1.0.
import torch
from torch.utils.serialization import load_lua

print(load_lua("model.t7"))
