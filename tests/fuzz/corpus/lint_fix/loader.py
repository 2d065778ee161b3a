from torch.utils.data import DataLoader
loader = DataLoader(ds, batch_size=4)
for x, y in loader:
    x = x.cuda(non_blocking=True)
    v = x.to('cpu', non_blocking=True)
    print(v.numpy())
