import torch

values = [
    torch.tensor([1, -2, 3], dtype=torch.int64),
    torch.tensor([255, 3, 255], dtype=torch.uint8),
    torch.tensor([[1.0, 2.0], [3.0, 4.5]]),
    torch.tensor([True, False, True]),
    torch.tensor([1, 5, 0], dtype=torch.int32),
    torch.tensor([float("inf"), float("-inf")]),
    torch.tensor([float("inf"), 0.1], dtype=torch.float16),
    torch.empty(1, 0, dtype=torch.float64),
    torch.tensor([-128, 127], dtype=torch.int8),
    torch.tensor([[1], [-1]], dtype=torch.int16),
    torch.tensor([0.1, 3.0], dtype=torch.bfloat16),
]
for t in values:
    print(t.dtype, tuple(t.shape), t.tolist())
