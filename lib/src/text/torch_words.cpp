#include "text/torch_words.h"

#include <vector>

namespace asyncfix {

std::span<const std::string_view> torchApiWords() {
  // One line per word, with the rule that needs it. Keep words as specific as the rule allows:
  // each occurrence in a file makes it worth parsing.
  static const std::vector<std::string_view> kWords{
      // "word", // AF3xx rule-name: what it starts
      ".data[0]",           // AF301 zero-dim-tensor-index: `loss.data[0]`
      "].view(-1)",         // AF302 transposed-slice-view: `correct[:k].view(-1)`
      "Function)",          // AF303 legacy-autograd-function: `class F(Function):`
      "Function,",          // AF303 legacy-autograd-function: `class F(Function, Base):`
      "accuracy(",          // AF301 zero-dim-tensor-index: `prec1, prec5 = accuracy(…)`, whose `prec1[0]` it finds
      "softmax(",           // AF304 implicit-softmax-dim: `F.softmax(x)`
      "log_softmax(",       // AF304 implicit-softmax-dim: `F.log_softmax(x)`
      "softmin(",           // AF304 implicit-softmax-dim: `F.softmin(x)`
      "Softmax(",           // AF304 implicit-softmax-dim: `nn.Softmax()`
      "LogSoftmax(",        // AF304 implicit-softmax-dim: `nn.LogSoftmax()`
      "Softmin(",           // AF304 implicit-softmax-dim: `nn.Softmin()`
      ".byte()",            // AF305 uint8-mask: `(x > 0).byte()`
      "ByteTensor",         // AF305 uint8-mask: `torch.ByteTensor(…)`, `x.type(torch.ByteTensor)`
      "StepLR(",            // AF306 scheduler-step-order: the scheduler it follows
      "MultiStepLR(",       // AF306 scheduler-step-order: the scheduler it follows
      "ExponentialLR(",     // AF306 scheduler-step-order: the scheduler it follows
      "CosineAnnealingLR(", // AF306 scheduler-step-order: the scheduler it follows
      "LambdaLR(",          // AF306 scheduler-step-order: the scheduler it follows
      "MultiplicativeLR(",  // AF306 scheduler-step-order: the scheduler it follows
      "CyclicLR(",          // AF306 scheduler-step-order: the scheduler it follows
      "OneCycleLR(",        // AF306 scheduler-step-order: the scheduler it follows
      "CosineAnnealingWarmRestarts(", // AF306 scheduler-step-order: the scheduler it follows
      "LinearLR(",                    // AF306 scheduler-step-order: the scheduler it follows
      "ConstantLR(",                  // AF306 scheduler-step-order: the scheduler it follows
      "PolynomialLR(",
      "scheduler.step(",    // AF306 scheduler-step-order: a function's `scheduler` parameter stepped
      "lr_scheduler.step(", // AF306 scheduler-step-order: the same, named `lr_scheduler`
      "sched.step(",        // AF306 scheduler-step-order: the same, named `sched`                // AF306
                            // scheduler-step-order: the scheduler it follows
  };
  return kWords;
}

} // namespace asyncfix
