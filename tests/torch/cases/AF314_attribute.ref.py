# The modern reference of AF314_attribute.py: no volatile to ask about.
import torch

torch.manual_seed(314)
x = torch.randn(3)
print("training", x.sum().item())
keep_graph = True
print(keep_graph)
