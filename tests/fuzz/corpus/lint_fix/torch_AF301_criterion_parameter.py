# expect-before: IndexError: invalid index of a 0-dim tensor
# fixes: safe
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(89)


def train(batches, model, criterion, optimizer):
    for input, target in batches:
        loss = criterion(model(input), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print('%.5f' % loss.data[0])


def main():
    model = nn.Linear(6, 6)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = [(torch.randn(7, 6), torch.randint(0, 6, (7,))) for i in range(2)]
    train(batches, model, criterion, optimizer)


main()
