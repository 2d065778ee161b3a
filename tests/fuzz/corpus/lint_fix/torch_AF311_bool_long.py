# expect-before: AttributeError: module 'numpy' has no attribute 'bool'
# fixes: unsafe
# AF311: `np.bool` and `np.long` (unsafe fixes: NumPy 2 gave both names a new meaning).
import numpy as np

mask = np.array([0, 2, 0, 1]).astype(np.bool)
count = np.long(mask.sum())
print(mask.dtype, mask.tolist(), count, type(count).__name__)
