import torch


def collate(batch):
    return torch.tensor([int(target) for _, target in batch])


class Normalize(object):
    def __init__(self, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225)):
        self.mean = torch.tensor(mean).view(1, 3, 1, 1) * 255
        self.std = torch.tensor(std).view(1, 3, 1, 1) * 255


print(collate([(None, 3), (None, 1.9), (None, True)]).tolist())
n = Normalize()
print(n.mean.flatten().tolist(), n.std.dtype)
