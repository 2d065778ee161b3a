# expect-before: AttributeError: module 'numpy' has no attribute 'int'
# fixes: safe
# AF311: the aliases of builtins that NumPy 1.24 removed, as dtypes, calls and in isinstance.
import numpy as np
import torch

labels = np.array([3, 1, 2], dtype=np.int)
weights = labels.astype(np.float) / 4
names = np.array(["a", "b"], dtype=np.object)
print(labels.dtype, weights.dtype, names.dtype, weights.tolist())
print(isinstance(names[0], (np.str, np.unicode)), np.complex(1, 2).imag)
print(torch.from_numpy(weights).sum().item())
