// bench/lsp/training_script.h — the training script the typing benchmarks type into.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace bench {

/// A training script as people write them (issue 29): module-level loaders with and without
/// `pin_memory` and loops over them, loaders built in functions (with `pin_memory`, and every
/// 100th block without: an AF104 finding, as with the loop over the unpinned one), training loops
/// over `enumerate(loader)` with `non_blocking=True` copies, a loss and `.item()` in every
/// function, a device-to-host copy read after a synchronize, and — with `asyncio` — a coroutine
/// in every fifth block. Without it, the file holds no `async` or `await` at all (the trace that
/// types the first one). Every training function has the line `    model.train()`, after which
/// the typing trace types.
inline std::string generateTraining(int lines, bool asyncio) {
  std::string text = asyncio ? "import asyncio\n" : "";
  text += "import torch\n"
          "import torch.nn as nn\n"
          "from torch.utils.data import DataLoader, TensorDataset\n"
          "\n"
          "device = torch.device(\"cuda\")\n"
          "train_set = TensorDataset(torch.zeros(64, 3), torch.zeros(64))\n"
          "train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4, pin_memory=True)\n"
          "val_loader = DataLoader(train_set, batch_size=256, num_workers=2)\n"
          "\n\n";
  // Lines counted as blocks are added (counting the whole text each time took longer than the
  // benchmark's didOpen at 20 000 lines).
  int counted = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  std::size_t countedTo = text.size();
  for (int block = 0; counted < lines; ++block) {
    const std::string n = std::to_string(block);
    switch (block % 5) {
    case 0:
      text += "def make_loader_" + n +
              "(dataset, workers=4):\n"
              "    return DataLoader(dataset, batch_size=64, shuffle=True, num_workers=workers, pin_memory=True)\n\n\n";
      break;
    case 1:
      text += "def train_" + n +
              "(loader, model, criterion, optimizer):\n"
              "    model.train()\n"
              "    for step, (images, target) in enumerate(loader):\n"
              "        images = images.to(device, non_blocking=True)\n"
              "        target = target.to(device, non_blocking=True)\n"
              "        output = model(images)\n"
              "        loss = criterion(output, target)\n"
              "        optimizer.zero_grad()\n"
              "        loss.backward()\n"
              "        optimizer.step()\n"
              "        if step % 100 == 0:\n"
              "            print(step, loss.item())\n"
              "    return loss.item()\n\n\n";
      break;
    case 2:
      text += "def evaluate_" + n +
              "(dataset, model, criterion):\n"
              "    loader = DataLoader(dataset, batch_size=256, num_workers=2" +
              std::string(block % 100 == 2 ? "" : ", pin_memory=True") +
              ")\n"
              "    model.eval()\n"
              "    correct, total = 0, 0\n"
              "    with torch.no_grad():\n"
              "        for images, target in loader:\n"
              "            images = images.cuda(non_blocking=True)\n"
              "            target = target.cuda(non_blocking=True)\n"
              "            output = model(images)\n"
              "            loss = criterion(output, target)\n"
              "            correct += (output.argmax(1) == target).sum().item()\n"
              "            total += target.size(0)\n"
              "    return correct / total, loss.item()\n\n\n";
      break;
    case 3:
      text += "def epoch_" + n +
              "(model, criterion, optimizer):\n"
              "    model.train()\n"
              "    for images, target in " +
              std::string(block % 100 == 3 ? "val_loader" : "train_loader") +
              ":\n"
              "        images = images.to(device, non_blocking=True)\n"
              "        target = target.to(device, non_blocking=True)\n"
              "        loss = criterion(model(images), target)\n"
              "        loss.backward()\n"
              "        optimizer.step()\n"
              "    scores = model(images).to(\"cpu\", non_blocking=True)\n"
              "    torch.cuda.synchronize()\n"
              "    return scores.numpy(), loss.item()\n\n\n";
      break;
    default:
      if (asyncio)
        text += "async def serve_" + n +
                "(queue, model):\n"
                "    batch = await queue.get()\n"
                "    scores = model(batch.to(device, non_blocking=True))\n"
                "    await asyncio.sleep(0)\n"
                "    return scores.cpu().tolist()\n\n\n";
      else
        text += "def summarize_" + n +
                "(model, batch):\n"
                "    scores = model(batch.to(device, non_blocking=True))\n"
                "    values = scores.cpu().tolist()\n"
                "    return sum(values) / len(values)\n\n\n";
    }
    counted += static_cast<int>(std::count(text.begin() + static_cast<std::ptrdiff_t>(countedTo), text.end(), '\n'));
    countedTo = text.size();
  }
  return text;
}

/// `text` without its `non_blocking=True` arguments: a script the prefilter rejects as a whole
/// (nothing in it can be a finding), for the trace that types the first `async` into such a file.
inline std::string withoutCandidates(std::string text) {
  for (const std::string_view arg : {", non_blocking=True", "non_blocking=True"})
    for (std::size_t at = text.find(arg); at != std::string::npos; at = text.find(arg, at)) text.erase(at, arg.size());
  return text;
}

} // namespace bench
