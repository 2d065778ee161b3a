#include "text/torch_words.h"

#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "text/prefilter_words.h"

namespace asyncfix {
std::span<const std::string_view> torchApiWords() {
  // One line per word, with the rule that needs it. Keep words as specific as the rule allows:
  // each occurrence in a file makes it worth parsing.
  static const std::vector<std::string_view> kWords{
      // "word", // AF3xx rule-name: what it starts
      "torch.nn.init import",      // AF310 renamed-torch-api: `from torch.nn.init import normal`
      "retain_variables",          // AF312 renamed-torch-kwarg: `backward(retain_variables=…)`
      "device_id=",                // AF312 renamed-torch-kwarg: `.cuda(device_id=…)`
      "size_average",              // AF313 legacy-loss-reduction: `MSELoss(size_average=False)`
      "reduce=",                   // AF313 legacy-loss-reduction: `F.nll_loss(x, y, reduce=False)`
      "volatile",                  // AF314 volatile-variable: `Variable(x, volatile=True)`
      "F.upsample",                // AF315 upsample-to-interpolate: `F.upsample`, `F.upsample_bilinear`
      "functional.upsample",       // AF315 upsample-to-interpolate: `nn.functional.upsample(…)`
      "torch.utils.serialization", // AF316 removed-torch-api: `load_lua`
      "torch.utils.ffi",           // AF316 removed-torch-api: `create_extension`
      "torch.legacy",              // AF316 removed-torch-api: the Lua-style `nn`
      "scipy.misc import",         // AF316 removed-torch-api: `from scipy.misc import imread`
      "misc.imread",               // AF316 removed-torch-api: `scipy.misc.imread(…)`
      "misc.imresize",             // AF316 removed-torch-api: `scipy.misc.imresize(…)`
      "misc.imsave",               // AF316 removed-torch-api: `scipy.misc.imsave(…)`
      ".data[0]",                  // AF301 zero-dim-tensor-index: `loss.data[0]`
      "].view(-1)",                // AF302 transposed-slice-view: `correct[:k].view(-1)`
      "Function)",                 // AF303 legacy-autograd-function: `class F(Function):`
      "Function,",                 // AF303 legacy-autograd-function: `class F(Function, Base):`
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
      "PolynomialLR(",                // AF306 scheduler-step-order: the scheduler it follows
      "scheduler.step(",              // AF306 scheduler-step-order: a function's `scheduler` parameter stepped
      "lr_scheduler.step(",           // AF306 scheduler-step-order: the same, named `lr_scheduler`
      "sched.step(",                  // AF306 scheduler-step-order: the same, named `sched`
      "FloatTensor(",                 // AF318 legacy-tensor-constructor: `torch.cuda.FloatTensor(…)`, a call
      "DoubleTensor(",                // AF318 legacy-tensor-constructor
      "HalfTensor(",                  // AF318 legacy-tensor-constructor
      "BFloat16Tensor(",              // AF318 legacy-tensor-constructor
      "CharTensor(",                  // AF318 legacy-tensor-constructor
      "ShortTensor(",                 // AF318 legacy-tensor-constructor
      "IntTensor(",                   // AF318 legacy-tensor-constructor
      "LongTensor(",                  // AF318 legacy-tensor-constructor
      "BoolTensor(",                  // AF318 legacy-tensor-constructor (`ByteTensor` is AF305's, above)
  };
  return kWords;
}

std::span<const std::string_view> torchApiWholeWords() {
  // The same, for names whose longer spellings are today's API (`xavier_uniform_`, `np.float32`).
  static const std::vector<std::string_view> kWords{
      "Scale",              // AF310 renamed-torch-api: `transforms.Scale`
      "RandomSizedCrop",    // AF310 renamed-torch-api: `transforms.RandomSizedCrop`
      "init.uniform",       // AF310 renamed-torch-api: `nn.init.uniform` (not `uniform_`)
      "init.normal",        // AF310 renamed-torch-api
      "init.constant",      // AF310 renamed-torch-api
      "init.eye",           // AF310 renamed-torch-api
      "init.dirac",         // AF310 renamed-torch-api
      "init.orthogonal",    // AF310 renamed-torch-api
      "init.sparse",        // AF310 renamed-torch-api
      "xavier_uniform",     // AF310 renamed-torch-api: also imported by name
      "xavier_normal",      // AF310 renamed-torch-api
      "kaiming_uniform",    // AF310 renamed-torch-api
      "kaiming_normal",     // AF310 renamed-torch-api
      "clip_grad_norm",     // AF310 renamed-torch-api: `clip_grad_norm` (not `clip_grad_norm_`)
      "F.sigmoid",          // AF310 renamed-torch-api: `F.sigmoid` → `torch.sigmoid`
      "F.tanh",             // AF310 renamed-torch-api
      "functional.sigmoid", // AF310 renamed-torch-api: `torch.nn.functional.sigmoid`
      "functional.tanh",    // AF310 renamed-torch-api
      "np.float",           // AF311 numpy-removed-alias: `np.float` (not `np.float32`)
      "np.int",             // AF311 numpy-removed-alias
      "np.bool",            // AF311 numpy-removed-alias
      "np.object",          // AF311 numpy-removed-alias
      "np.str",             // AF311 numpy-removed-alias
      "np.complex",         // AF311 numpy-removed-alias
      "np.long",            // AF311 numpy-removed-alias
      "np.unicode",         // AF311 numpy-removed-alias
      "numpy.float",        // AF311 numpy-removed-alias: `import numpy` without an alias
      "numpy.int",          // AF311 numpy-removed-alias
      "numpy.bool",         // AF311 numpy-removed-alias
      "numpy.object",       // AF311 numpy-removed-alias
      "numpy.str",          // AF311 numpy-removed-alias
      "numpy.complex",      // AF311 numpy-removed-alias
      "numpy.long",         // AF311 numpy-removed-alias
      "numpy.unicode",      // AF311 numpy-removed-alias
      "gesv",               // AF316 removed-torch-api: `torch.gesv`, `b.gesv(A)`
      "potrf",              // AF316 removed-torch-api
      "trtrs",              // AF316 removed-torch-api
      "gels",               // AF316 removed-torch-api
      "symeig",             // AF316 removed-torch-api
      "torch.eig",          // AF316 removed-torch-api (`torch.linalg.eig` is today's)
      "torch.solve",        // AF316 removed-torch-api
      "torch.lstsq",        // AF316 removed-torch-api
      "torch.matrix_rank",  // AF316 removed-torch-api
      "torch.load",         // AF317 torch-load-full-pickle: `torch.load(path)`
  };
  return kWords;
}

bool mayUseTorchFamily(std::string_view text) {
  // One pass for the three names: a position whose byte and the byte four further on are those of
  // `torch`, `numpy` or `scipy` (t…h, n…y, s…y) is compared; 16 positions at a time with SSE2.
  const std::size_t n = text.size();
  const auto named = [&](std::size_t i) {
    const std::string_view w = text.substr(i, 5);
    return w == "torch" || w == "numpy" || w == "scipy";
  };
  std::size_t i = 0;
#if defined(__SSE2__)
  const char *s = text.data();
  const __m128i t = _mm_set1_epi8('t'), h = _mm_set1_epi8('h'), nn = _mm_set1_epi8('n'), sc = _mm_set1_epi8('s'),
                y = _mm_set1_epi8('y');
  for (; i + 4 + 16 <= n; i += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i + 4));
    const __m128i m =
        _mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(a, t), _mm_cmpeq_epi8(e, h)),
                     _mm_and_si128(_mm_or_si128(_mm_cmpeq_epi8(a, nn), _mm_cmpeq_epi8(a, sc)), _mm_cmpeq_epi8(e, y)));
    for (auto mask = static_cast<unsigned>(_mm_movemask_epi8(m)); mask != 0; mask &= mask - 1)
      if (named(i + static_cast<std::size_t>(__builtin_ctz(mask)))) return true;
  }
#endif
  for (; i + 5 <= n; ++i)
    if (named(i)) return true;
  return false;
}

bool torchWordAt(std::string_view text, std::size_t at, std::string_view word, bool whole) {
  return wordCountsAt(text, at, word, whole);
}

namespace {

const WordSet &wordSet() {
  static const WordSet set = [] {
    std::vector<WordSet::Word> words;
    for (const std::string_view w : torchApiWords()) words.push_back({w, false});
    for (const std::string_view w : torchApiWholeWords()) words.push_back({w, true});
    return WordSet(words);
  }();
  return set;
}

} // namespace

void forEachTorchWord(std::string_view text, bool (*found)(void *state, std::size_t at), void *state) {
  wordSet().forEach(text, found, state);
}

bool startsTorchWord(std::string_view text, std::size_t at) {
  for (const std::string_view word : torchApiWords())
    if (torchWordAt(text, at, word, false)) return true;
  for (const std::string_view word : torchApiWholeWords())
    if (torchWordAt(text, at, word, true)) return true;
  return false;
}

} // namespace asyncfix
