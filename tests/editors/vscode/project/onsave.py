import torch


def evaluate(model, images):
    with torch.no_grad():
        return model(images.cuda(async=True)).argmax(1)
