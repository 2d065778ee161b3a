"""Overlap host-to-device copies with compute (PyTorch 0.3, Python 3.6).

A prefetcher in the style of the ones every ImageNet repository carried in 2018: it loads the
next batch on a side CUDA stream while the current one is being used.
"""
import torch


def fast_collate(batch, async=False):
    """Stack uint8 images into one tensor; pinned so that `async` copies can overlap."""
    imgs = [img for img, _ in batch]
    targets = torch.LongTensor([target for _, target in batch])
    tensor = torch.stack([torch.from_numpy(img) for img in imgs])
    if async:
        tensor, targets = tensor.pin_memory(), targets.pin_memory()
    return tensor, targets


class DataPrefetcher(object):
    def __init__(self, loader, async=True, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225)):
        self.loader = loader
        self.async = async
        self.stream = torch.cuda.Stream() if async else None
        self.mean = torch.FloatTensor(mean).view(1, 3, 1, 1).cuda(async=async) * 255
        self.std = torch.FloatTensor(std).view(1, 3, 1, 1).cuda(async=async) * 255

    def __iter__(self):
        self.iter = iter(self.loader)
        self.preload()
        while self.next_input is not None:
            if self.stream is not None:
                torch.cuda.current_stream().wait_stream(self.stream)
            input, target = self.next_input, self.next_target
            self.preload()
            yield input, target

    def __len__(self):
        return len(self.loader)

    def _copy(self, tensor, async):
        return tensor.cuda(async=async)

    def preload(self):
        try:
            self.next_input, self.next_target = next(self.iter)
        except StopIteration:
            self.next_input = self.next_target = None
            return
        if self.stream is None:
            self.next_input = self._copy(self.next_input, async=False).float()
            self.next_target = self._copy(self.next_target, async=False)
        else:
            with torch.cuda.stream(self.stream):
                self.next_input = self.next_input.cuda(async=self.async).float()
                self.next_target = self.next_target.type(torch.cuda.LongTensor, async=True)
        self.next_input = self.next_input.sub_(self.mean).div_(self.std)
