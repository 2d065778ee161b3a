# expect-before: ModuleNotFoundError: No module named 'torch\.utils\.ffi'
# fixes: none
# AF316: torch.utils.ffi, removed in PyTorch 1.0 (C++ extensions replace it).
import torch
from torch.utils.ffi import create_extension

ffi = create_extension('_ext', headers=[], sources=[])
print(torch.zeros(1).item())
