# expect-before: AttributeError: scipy\.misc is deprecated and has no attribute imsave
# fixes: none
# AF316: scipy.misc.imsave, removed in SciPy 1.2.
import numpy as np
import scipy.misc
import torch

img = np.zeros((2, 2), dtype=np.uint8)
print(torch.from_numpy(img).sum().item())
scipy.misc.imsave('out.png', img)
