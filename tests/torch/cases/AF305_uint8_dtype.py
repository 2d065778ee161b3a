# expect-before: UserWarning: masked_fill_ received a mask with dtype torch\.uint8
# fixes: none
# AF305: a mask made with dtype=torch.uint8 (what AF318 writes for torch.ByteTensor([...])) is
# the same deprecated uint8 mask.
import torch

x = torch.arange(4.0)
mask = torch.tensor([1, 0, 1, 0], dtype=torch.uint8)
print(x.masked_fill(mask, -1.0).tolist())
