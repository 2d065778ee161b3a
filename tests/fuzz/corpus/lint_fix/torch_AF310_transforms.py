# expect-before: ImportError: cannot import name 'RandomSizedCrop' from 'torchvision\.transforms'
# fixes: safe
# AF310: transforms.Scale and RandomSizedCrop (removed in torchvision 0.12), as an attribute and
# imported by name.
import numpy as np
import torch
from PIL import Image
from torchvision import transforms
from torchvision.transforms import RandomSizedCrop

torch.manual_seed(0)
image = Image.fromarray((np.arange(48 * 40 * 3) % 251).astype(np.uint8).reshape(48, 40, 3))
pipeline = transforms.Compose([transforms.Scale(32), RandomSizedCrop(16), transforms.ToTensor()])
again = transforms.Compose([transforms.RandomSizedCrop(8), transforms.ToTensor()])
out = pipeline(image)
print(tuple(out.shape), round(out.sum().item(), 4))
print(tuple(again(image).shape), round(again(image).mean().item(), 4))
