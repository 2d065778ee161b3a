# expect-before: ImportError: cannot import name 'imread' from 'scipy\.misc'
# fixes: none
# AF316: scipy.misc.imread / imresize, removed in SciPy 1.2 / 1.3.
import numpy as np
from scipy.misc import imread, imresize

image = imresize(imread("image.png"), (8, 8))
print(np.asarray(image).shape)
