# expect-before: nothing
# fixes: safe
# AF318: the typed classes called with literal data: every conversion the fix relies on (floats
# truncated into integer types, negative ints wrapped into uint8, float overflow to inf, bools
# and ints mixed, nesting, tuples, empty lists) gives the same tensor as torch.tensor(…, dtype=…).
import torch

values = [
    torch.LongTensor([1.7, -2.9, 3]),
    torch.ByteTensor([-1, 3, 255]),
    torch.FloatTensor([[1, 2], [3, 4.5]]),
    torch.BoolTensor((2, 0, -1)),
    torch.IntTensor([True, 5, False]),
    torch.FloatTensor([1e400, -1e400]),
    torch.HalfTensor([1e10, 0.1]),
    torch.DoubleTensor([[]]),
    torch.CharTensor((-128, 127)),
    torch.ShortTensor([[1.5], [-1.5]]),
    torch.BFloat16Tensor([0.1, 3]),
]
for t in values:
    print(t.dtype, tuple(t.shape), t.tolist())
