def to_device(batch, device):
    return [t.to(device, async=True) for t in batch]
