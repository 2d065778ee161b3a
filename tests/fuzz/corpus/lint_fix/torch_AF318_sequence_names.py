# expect-before: nothing
# fixes: unsafe
# AF318: data the rule sees only as a sequence (a list comprehension, a parameter whose default
# is a tuple, as in the prefetchers of 2018): the unsafe fix, torch.tensor(…, dtype=…), computes
# what the legacy class did for the values the file passes.
import torch


def collate(batch):
    return torch.LongTensor([target for _, target in batch])


class Normalize(object):
    def __init__(self, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225)):
        self.mean = torch.FloatTensor(mean).view(1, 3, 1, 1) * 255
        self.std = torch.FloatTensor(std).view(1, 3, 1, 1) * 255


print(collate([(None, 3), (None, 1.9), (None, True)]).tolist())
n = Normalize()
print(n.mean.flatten().tolist(), n.std.dtype)
