import numpy as np

mask = np.array([0, 2, 0, 1]).astype(bool)
count = int(mask.sum())
print(mask.dtype, mask.tolist(), count, type(count).__name__)
