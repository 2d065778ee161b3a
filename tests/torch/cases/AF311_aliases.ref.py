import numpy as np
import torch

labels = np.array([3, 1, 2], dtype=int)
weights = labels.astype(float) / 4
names = np.array(["a", "b"], dtype=object)
print(labels.dtype, weights.dtype, names.dtype, weights.tolist())
print(isinstance(names[0], (str, str)), complex(1, 2).imag)
print(torch.from_numpy(weights).sum().item())
