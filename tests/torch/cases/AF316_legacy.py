# expect-before: ModuleNotFoundError: No module named 'torch\.legacy'
# fixes: none
# AF316: torch.legacy (Lua Torch's nn), removed in PyTorch 1.0.
import torch
import torch.legacy.nn as lnn

model = lnn.Linear(2, 2)
print(torch.zeros(1).item())
