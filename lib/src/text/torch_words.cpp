#include "text/torch_words.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "text/cpu.h"
#include "text/prefilter_words.h"

namespace asyncfix {
std::span<const TorchWord> torchApiWords() {
  // One line per word, with the rule that needs it. Keep words as specific as the rule allows:
  // each occurrence in a file makes it worth parsing.
  static const std::vector<TorchWord> kWords{
      // "word", // AF3xx rule-name: what it starts
      {"torch.nn.init import", kPackageTorch}, // AF310 renamed-torch-api: `from torch.nn.init import normal`
      {"retain_variables", kPackageTorch},     // AF312 renamed-torch-kwarg: `backward(retain_variables=…)`
      {"device_id=", kPackageTorch},           // AF312 renamed-torch-kwarg: `.cuda(device_id=…)`
      {"size_average", kPackageTorch},         // AF313 legacy-loss-reduction: `MSELoss(size_average=False)`
      {"reduce=", kPackageTorch},              // AF313 legacy-loss-reduction: `F.nll_loss(x, y, reduce=False)`
      {"volatile", kPackageTorch},             // AF314 volatile-variable: `Variable(x, volatile=True)`
      {"F.upsample", kPackageTorch},           // AF315 upsample-to-interpolate: `F.upsample`, `F.upsample_bilinear`
      {"functional.upsample", kPackageTorch},  // AF315 upsample-to-interpolate: `nn.functional.upsample(…)`
      {"torch.utils.serialization", kPackageTorch}, // AF316 removed-torch-api: `load_lua`
      {"torch.utils.ffi", kPackageTorch},           // AF316 removed-torch-api: `create_extension`
      {"scipy.misc import", kPackageScipy},         // AF316 removed-torch-api: `from scipy.misc import imread`
      {"misc.imread", kPackageScipy},               // AF316 removed-torch-api: `scipy.misc.imread(…)`
      {"misc.imresize", kPackageScipy},             // AF316 removed-torch-api: `scipy.misc.imresize(…)`
      {"misc.imsave", kPackageScipy},               // AF316 removed-torch-api: `scipy.misc.imsave(…)`
      {".data[0]", kPackageTorch},                  // AF301 zero-dim-tensor-index: `loss.data[0]`
      {"].view(-1)", kPackageTorch},                // AF302 transposed-slice-view: `correct[:k].view(-1)`
      {"Function)", kPackageTorch},                 // AF303 legacy-autograd-function: `class F(Function):`
      {"Function,", kPackageTorch},                 // AF303 legacy-autograd-function: `class F(Function, Base):`
      {"accuracy(",
       kPackageTorch}, // AF301 zero-dim-tensor-index: `prec1, prec5 = accuracy(…)`, whose `prec1[0]` it finds
      {"softmax(", kPackageTorch},           // AF304 implicit-softmax-dim: `F.softmax(x)`
      {"log_softmax(", kPackageTorch},       // AF304 implicit-softmax-dim: `F.log_softmax(x)`
      {"softmin(", kPackageTorch},           // AF304 implicit-softmax-dim: `F.softmin(x)`
      {"Softmax(", kPackageTorch},           // AF304 implicit-softmax-dim: `nn.Softmax()`
      {"LogSoftmax(", kPackageTorch},        // AF304 implicit-softmax-dim: `nn.LogSoftmax()`
      {"Softmin(", kPackageTorch},           // AF304 implicit-softmax-dim: `nn.Softmin()`
      {".byte()", kPackageTorch},            // AF305 uint8-mask: `(x > 0).byte()`
      {"ByteTensor", kPackageTorch},         // AF305 uint8-mask: `torch.ByteTensor(…)`, `x.type(torch.ByteTensor)`
      {"StepLR(", kPackageTorch},            // AF306 scheduler-step-order: the scheduler it follows
      {"MultiStepLR(", kPackageTorch},       // AF306 scheduler-step-order: the scheduler it follows
      {"ExponentialLR(", kPackageTorch},     // AF306 scheduler-step-order: the scheduler it follows
      {"CosineAnnealingLR(", kPackageTorch}, // AF306 scheduler-step-order: the scheduler it follows
      {"LambdaLR(", kPackageTorch},          // AF306 scheduler-step-order: the scheduler it follows
      {"MultiplicativeLR(", kPackageTorch},  // AF306 scheduler-step-order: the scheduler it follows
      {"CyclicLR(", kPackageTorch},          // AF306 scheduler-step-order: the scheduler it follows
      {"OneCycleLR(", kPackageTorch},        // AF306 scheduler-step-order: the scheduler it follows
      {"CosineAnnealingWarmRestarts(", kPackageTorch}, // AF306 scheduler-step-order: the scheduler it follows
      {"LinearLR(", kPackageTorch},                    // AF306 scheduler-step-order: the scheduler it follows
      {"ConstantLR(", kPackageTorch},                  // AF306 scheduler-step-order: the scheduler it follows
      {"PolynomialLR(", kPackageTorch},                // AF306 scheduler-step-order: the scheduler it follows
      {"scheduler.step(", kPackageTorch},     // AF306 scheduler-step-order: a function's `scheduler` parameter stepped
      {"lr_scheduler.step(", kPackageTorch},  // AF306 scheduler-step-order: the same, named `lr_scheduler`
      {"sched.step(", kPackageTorch},         // AF306 scheduler-step-order: the same, named `sched`
      {"FloatTensor(", kPackageTorch},        // AF318 legacy-tensor-constructor: `torch.cuda.FloatTensor(…)`, a call
      {"DoubleTensor(", kPackageTorch},       // AF318 legacy-tensor-constructor
      {"HalfTensor(", kPackageTorch},         // AF318 legacy-tensor-constructor
      {"BFloat16Tensor(", kPackageTorch},     // AF318 legacy-tensor-constructor
      {"CharTensor(", kPackageTorch},         // AF318 legacy-tensor-constructor
      {"ShortTensor(", kPackageTorch},        // AF318 legacy-tensor-constructor
      {"IntTensor(", kPackageTorch},          // AF318 legacy-tensor-constructor
      {"LongTensor(", kPackageTorch},         // AF318 legacy-tensor-constructor
      {"BoolTensor(", kPackageTorch},         // AF318 legacy-tensor-constructor (`ByteTensor` is AF305's, above)
      {"cuda.FloatTensor", kPackageTorch},    // AF318 legacy-tensor-constructor: `dtype = torch.cuda.FloatTensor`
      {"cuda.DoubleTensor", kPackageTorch},   // AF318 legacy-tensor-constructor: the same
      {"cuda.HalfTensor", kPackageTorch},     // AF318 legacy-tensor-constructor
      {"cuda.BFloat16Tensor", kPackageTorch}, // AF318 legacy-tensor-constructor
      {"cuda.CharTensor", kPackageTorch},     // AF318 legacy-tensor-constructor
      {"cuda.ShortTensor", kPackageTorch},    // AF318 legacy-tensor-constructor
      {"cuda.IntTensor", kPackageTorch},      // AF318 legacy-tensor-constructor
      {"cuda.LongTensor", kPackageTorch},     // AF318 legacy-tensor-constructor
      {"cuda.BoolTensor", kPackageTorch},     // AF318 legacy-tensor-constructor
      {"FloatTensor as", kPackageTorch},  // AF318 legacy-tensor-constructor: `from torch.cuda import FloatTensor as FT`
      {"DoubleTensor as", kPackageTorch}, // AF318 legacy-tensor-constructor
      {"HalfTensor as", kPackageTorch},   // AF318 legacy-tensor-constructor
      {"BFloat16Tensor as", kPackageTorch}, // AF318 legacy-tensor-constructor
      {"CharTensor as", kPackageTorch},     // AF318 legacy-tensor-constructor
      {"ShortTensor as", kPackageTorch},    // AF318 legacy-tensor-constructor
      {"IntTensor as", kPackageTorch},      // AF318 legacy-tensor-constructor
      {"LongTensor as", kPackageTorch},     // AF318 legacy-tensor-constructor
      {"BoolTensor as", kPackageTorch},     // AF318 legacy-tensor-constructor
      // Names that only a star import provides (`from torch import *`): counted where one is spelt.
      {"upsample", kPackageStarImport},     // AF315 upsample-to-interpolate: `upsample_bilinear(x)`
      {"eig(", kPackageStarImport},         // AF316 removed-torch-api: `eig(A)`
      {"solve(", kPackageStarImport},       // AF316 removed-torch-api: `solve(B, A)`
      {"lstsq(", kPackageStarImport},       // AF316 removed-torch-api: `lstsq(B, A)`
      {"matrix_rank(", kPackageStarImport}, // AF316 removed-torch-api: `matrix_rank(A)`
      {"imread(", kPackageStarImport},      // AF316 removed-torch-api: `imread(path)` after `from scipy.misc import *`
      {"imsave(", kPackageStarImport},      // AF316 removed-torch-api
      {"imresize(", kPackageStarImport},    // AF316 removed-torch-api
      {"load(", kPackageStarImport},        // AF317 torch-load-full-pickle: `load(path)`
  };
  return kWords;
}

std::span<const TorchWord> torchApiWholeWords() {
  // The same, for names whose longer spellings are today's API (`xavier_uniform_`, `np.float32`).
  static const std::vector<TorchWord> kWords{
      {"Scale", kPackageTorchvision},           // AF310 renamed-torch-api: `transforms.Scale`
      {"RandomSizedCrop", kPackageTorchvision}, // AF310 renamed-torch-api: `transforms.RandomSizedCrop`
      {"init.uniform", kPackageTorch},          // AF310 renamed-torch-api: `nn.init.uniform` (not `uniform_`)
      {"init.normal", kPackageTorch},           // AF310 renamed-torch-api
      {"init.constant", kPackageTorch},         // AF310 renamed-torch-api
      {"init.eye", kPackageTorch},              // AF310 renamed-torch-api
      {"init.dirac", kPackageTorch},            // AF310 renamed-torch-api
      {"init.orthogonal", kPackageTorch},       // AF310 renamed-torch-api
      {"init.sparse", kPackageTorch},           // AF310 renamed-torch-api
      {"xavier_uniform", kPackageTorch},        // AF310 renamed-torch-api: also imported by name
      {"xavier_normal", kPackageTorch},         // AF310 renamed-torch-api
      {"kaiming_uniform", kPackageTorch},       // AF310 renamed-torch-api
      {"kaiming_normal", kPackageTorch},        // AF310 renamed-torch-api
      {"clip_grad_norm", kPackageTorch},        // AF310 renamed-torch-api: `clip_grad_norm` (not `clip_grad_norm_`)
      {"F.sigmoid", kPackageTorch},             // AF310 renamed-torch-api: `F.sigmoid` → `torch.sigmoid`
      {"F.tanh", kPackageTorch},                // AF310 renamed-torch-api
      {"functional.sigmoid", kPackageTorch},    // AF310 renamed-torch-api: `torch.nn.functional.sigmoid`
      {"functional.tanh", kPackageTorch},       // AF310 renamed-torch-api
      {"np.float", kPackageNumpy},              // AF311 numpy-removed-alias: `np.float` (not `np.float32`)
      {"np.int", kPackageNumpy},                // AF311 numpy-removed-alias
      {"np.bool", kPackageNumpy},               // AF311 numpy-removed-alias
      {"np.object", kPackageNumpy},             // AF311 numpy-removed-alias
      {"np.str", kPackageNumpy},                // AF311 numpy-removed-alias
      {"np.complex", kPackageNumpy},            // AF311 numpy-removed-alias
      {"np.long", kPackageNumpy},               // AF311 numpy-removed-alias
      {"np.unicode", kPackageNumpy},            // AF311 numpy-removed-alias
      {"numpy.float", kPackageNumpy},           // AF311 numpy-removed-alias: `import numpy` without an alias
      {"numpy.int", kPackageNumpy},             // AF311 numpy-removed-alias
      {"numpy.bool", kPackageNumpy},            // AF311 numpy-removed-alias
      {"numpy.object", kPackageNumpy},          // AF311 numpy-removed-alias
      {"numpy.str", kPackageNumpy},             // AF311 numpy-removed-alias
      {"numpy.complex", kPackageNumpy},         // AF311 numpy-removed-alias
      {"numpy.long", kPackageNumpy},            // AF311 numpy-removed-alias
      {"numpy.unicode", kPackageNumpy},         // AF311 numpy-removed-alias
      {"gesv", kPackageTorch},                  // AF316 removed-torch-api: `torch.gesv`, `b.gesv(A)`
      {"potrf", kPackageTorch},                 // AF316 removed-torch-api
      {"trtrs", kPackageTorch},                 // AF316 removed-torch-api
      {"gels", kPackageTorch},                  // AF316 removed-torch-api
      {"symeig", kPackageTorch},                // AF316 removed-torch-api
      {"torch.eig", kPackageTorch},             // AF316 removed-torch-api (`torch.linalg.eig` is today's)
      {"torch.solve", kPackageTorch},           // AF316 removed-torch-api
      {"torch.lstsq", kPackageTorch},           // AF316 removed-torch-api
      {"torch.matrix_rank", kPackageTorch},     // AF316 removed-torch-api
      {"torch.load", kPackageTorch},            // AF317 torch-load-full-pickle: `torch.load(path)`
      {"torch.legacy",
       kPackageTorch}, // AF316 removed-torch-api: the Lua-style `nn` (not `torch.legacy_contiguous_format`)
  };
  return kWords;
}

namespace {

#if defined(__x86_64__) && defined(__GNUC__)
#define ASYNCFIX_FAMILY_AVX2 1

/// familyNames() 32 positions at a time from `i`, as far as the loads stay in the text (`i` is
/// left at the first position not visited); true when `visit` asked to stop.
template <class V>
__attribute__((target("avx2"))) bool familyNamesAvx2(const char *s, std::size_t &i, std::size_t n, V &visit) {
  const __m256i t = _mm256_set1_epi8('t'), r = _mm256_set1_epi8('r'), h = _mm256_set1_epi8('h'),
                nn = _mm256_set1_epi8('n'), mm = _mm256_set1_epi8('m'), sc = _mm256_set1_epi8('s'),
                ii = _mm256_set1_epi8('i'), y = _mm256_set1_epi8('y');
  for (; i + 4 + 32 <= n; i += 32) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 2));
    const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 4));
    const __m256i torch =
        _mm256_and_si256(_mm256_and_si256(_mm256_cmpeq_epi8(a, t), _mm256_cmpeq_epi8(c, r)), _mm256_cmpeq_epi8(e, h));
    const __m256i numpy = _mm256_and_si256(_mm256_cmpeq_epi8(a, nn), _mm256_cmpeq_epi8(c, mm));
    const __m256i scipy = _mm256_and_si256(_mm256_cmpeq_epi8(a, sc), _mm256_cmpeq_epi8(c, ii));
    const __m256i m = _mm256_or_si256(torch, _mm256_and_si256(_mm256_or_si256(numpy, scipy), _mm256_cmpeq_epi8(e, y)));
    for (auto mask = static_cast<unsigned>(_mm256_movemask_epi8(m)); mask != 0; mask &= mask - 1)
      if (visit(i + static_cast<std::size_t>(__builtin_ctz(mask)))) return true;
  }
  return false;
}

/// familyNamesAvx2 64 positions at a time with AVX-512's compare masks.
template <class V>
__attribute__((target("avx512f,avx512bw"))) bool familyNamesAvx512(const char *s, std::size_t &i, std::size_t n,
                                                                   V &visit) {
  const __m512i t = _mm512_set1_epi8('t'), r = _mm512_set1_epi8('r'), h = _mm512_set1_epi8('h'),
                nn = _mm512_set1_epi8('n'), mm = _mm512_set1_epi8('m'), sc = _mm512_set1_epi8('s'),
                ii = _mm512_set1_epi8('i'), y = _mm512_set1_epi8('y');
  for (; i + 4 + 64 <= n; i += 64) {
    const __m512i a = _mm512_loadu_si512(s + i), c = _mm512_loadu_si512(s + i + 2), e = _mm512_loadu_si512(s + i + 4);
    const std::uint64_t torch =
        _mm512_cmpeq_epi8_mask(a, t) & _mm512_cmpeq_epi8_mask(c, r) & _mm512_cmpeq_epi8_mask(e, h);
    const std::uint64_t numpyOrScipy = ((_mm512_cmpeq_epi8_mask(a, nn) & _mm512_cmpeq_epi8_mask(c, mm)) |
                                        (_mm512_cmpeq_epi8_mask(a, sc) & _mm512_cmpeq_epi8_mask(c, ii))) &
                                       _mm512_cmpeq_epi8_mask(e, y);
    for (std::uint64_t mask = torch | numpyOrScipy; mask != 0; mask &= mask - 1)
      if (visit(i + static_cast<std::size_t>(__builtin_ctzll(mask)))) return true;
  }
  return false;
}
#endif

/// Calls `visit(i)` for each position whose first, third and fifth bytes are those of `torch`,
/// `numpy` or `scipy` (t-r-h, n-m-y, s-i-y), in order, until it returns true: 64 positions at a
/// time where the CPU has AVX-512, 32 with AVX2, 16 with SSE2, else every position (the tail, any position: visit
/// compares the name). The third byte keeps Python's many `s…y`, `n…y` and `t…h` (`self.y`,
/// `that`) from being visited one by one.
template <class V> void familyNames(std::string_view text, V &&visit) {
  const std::size_t n = text.size();
  std::size_t i = 0;
  [[maybe_unused]] const char *s = text.data();
#if defined(ASYNCFIX_FAMILY_AVX2)
  if (cpuHasAvx512Vbmi() && familyNamesAvx512(s, i, n, visit)) return;
  if (cpuHasAvx2() && familyNamesAvx2(s, i, n, visit)) return;
#endif
#if defined(__SSE2__)
  const __m128i t = _mm_set1_epi8('t'), r = _mm_set1_epi8('r'), h = _mm_set1_epi8('h'), nn = _mm_set1_epi8('n'),
                mm = _mm_set1_epi8('m'), sc = _mm_set1_epi8('s'), ii = _mm_set1_epi8('i'), y = _mm_set1_epi8('y');
  for (; i + 4 + 16 <= n; i += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i + 2));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i + 4));
    const __m128i torch =
        _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi8(a, t), _mm_cmpeq_epi8(c, r)), _mm_cmpeq_epi8(e, h));
    const __m128i numpy = _mm_and_si128(_mm_cmpeq_epi8(a, nn), _mm_cmpeq_epi8(c, mm));
    const __m128i scipy = _mm_and_si128(_mm_cmpeq_epi8(a, sc), _mm_cmpeq_epi8(c, ii));
    const __m128i m = _mm_or_si128(torch, _mm_and_si128(_mm_or_si128(numpy, scipy), _mm_cmpeq_epi8(e, y)));
    for (auto mask = static_cast<unsigned>(_mm_movemask_epi8(m)); mask != 0; mask &= mask - 1)
      if (visit(i + static_cast<std::size_t>(__builtin_ctz(mask)))) return;
  }
#endif
  for (; i + 5 <= n; ++i)
    if (visit(i)) return;
}

} // namespace

bool mayUseTorchFamily(std::string_view text) {
  bool found = false;
  familyNames(text, [&](std::size_t i) {
    const std::string_view w = text.substr(i, 5);
    return found = w == "torch" || w == "numpy" || w == "scipy";
  });
  return found;
}

namespace {

bool starImportAt(std::string_view text, std::size_t star);

/// What torchPackagesSpelt() still looks for, and the patterns of its vectorised pass: each a
/// byte per lane where the pattern is wanted, 0 where it is not (found already).
struct PackageSearch {
  std::string_view text;
  unsigned spelt = 0;
  bool star = false; ///< a star import of the family found
  static constexpr unsigned kAll = kPackageTorch | kPackageTorchvision | kPackageNumpy | kPackageScipy;

  bool done() const { return spelt == kAll && star; }
  /// A position the pass stopped at: a name's first, third and fifth bytes (t-r-h, n-m-y, s-i-y,
  /// and t-r-h-v for `torchvision`), the `py` of `numpy` and `scipy` or the `hv` of `torchvision`
  /// (once `torch` is found), or a `*`. True when nothing is left to find.
  bool visit(std::size_t i) {
    const char c = text[i];
    if (c == '*') {
      star = star || starImportAt(text, i);
      return done();
    }
    if (c == 'p' && i >= 3) name(i - 3);
    else if (c == 'h' && i >= 4) name(i - 4);
    name(i);
    return done();
  }
  /// Adds the package whose name starts at i, if one does.
  void name(std::size_t i) {
    const std::string_view w = text.substr(i, 5);
    if (w == "torch") spelt |= text.substr(i + 5, 6) == "vision" ? kPackageTorch | kPackageTorchvision : kPackageTorch;
    else if (w == "numpy") spelt |= kPackageNumpy;
    else if (w == "scipy") spelt |= kPackageScipy;
  }
  /// Whether position i may start something still looked for (the scalar path's filter).
  bool mayStart(std::size_t i) const {
    const char c = text[i];
    return (c == '*' && !star) || (c == 't' && (spelt & kPackageTorchvision) == 0) ||
           (c == 'n' && (spelt & kPackageNumpy) == 0) || (c == 's' && (spelt & kPackageScipy) == 0);
  }
};

#if defined(ASYNCFIX_FAMILY_AVX2)
/// The patterns PackageSearch still looks for, as lanes of all ones or zeros. (No lambdas in the
/// AVX2 functions: GCC does not give them the function's target.)
__attribute__((target("avx2"))) inline void wantedAvx2(const PackageSearch &search, __m256i *want) {
  const unsigned spelt = search.spelt;
  want[0] = _mm256_set1_epi8((spelt & kPackageTorch) == 0 ? static_cast<char>(0xff) : 0);
  want[1] = _mm256_set1_epi8((spelt & kPackageTorchvision) == 0 ? static_cast<char>(0xff) : 0);
  want[2] = _mm256_set1_epi8((spelt & kPackageNumpy) == 0 ? static_cast<char>(0xff) : 0);
  want[3] = _mm256_set1_epi8((spelt & kPackageScipy) == 0 ? static_cast<char>(0xff) : 0);
  want[4] = _mm256_set1_epi8(search.star ? 0 : static_cast<char>(0xff));
}

/// PackageSearch's pass 32 positions at a time from `i`, as far as the loads stay in the text (`i`
/// is left at the first position not visited); true when nothing is left to find. A name found is
/// no longer compared: `torch` every line of PyTorch code stopped the pass at each.
__attribute__((target("avx2"))) bool packagesAvx2(PackageSearch &search, std::size_t &i) {
  const char *s = search.text.data();
  const std::size_t n = search.text.size();
  __m256i want[5];
  wantedAvx2(search, want);
  const __m256i t = _mm256_set1_epi8('t'), r = _mm256_set1_epi8('r'), h = _mm256_set1_epi8('h'),
                v = _mm256_set1_epi8('v'), nn = _mm256_set1_epi8('n'), mm = _mm256_set1_epi8('m'),
                sc = _mm256_set1_epi8('s'), ii = _mm256_set1_epi8('i'), y = _mm256_set1_epi8('y'),
                star = _mm256_set1_epi8('*');
  const __m256i p = _mm256_set1_epi8('p');
  for (; i + 5 + 32 <= n; i += 32) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i));
    __m256i m;
    if ((search.spelt & kPackageTorch) != 0) {
      // `torch` found (in PyTorch code, at its first lines): the rest by two bytes each, `py` of
      // `numpy` and `scipy`, `hv` of `torchvision`, which code rarely spells otherwise.
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 1));
      const __m256i py = _mm256_and_si256(_mm256_cmpeq_epi8(a, p), _mm256_cmpeq_epi8(b, y));
      const __m256i hv = _mm256_and_si256(_mm256_cmpeq_epi8(a, h), _mm256_cmpeq_epi8(b, v));
      m = _mm256_or_si256(
          _mm256_or_si256(_mm256_and_si256(py, _mm256_or_si256(want[2], want[3])), _mm256_and_si256(hv, want[1])),
          _mm256_and_si256(_mm256_cmpeq_epi8(a, star), want[4]));
    } else {
      const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 2));
      const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 4));
      const __m256i f = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + i + 5));
      const __m256i torch =
          _mm256_and_si256(_mm256_and_si256(_mm256_cmpeq_epi8(a, t), _mm256_cmpeq_epi8(c, r)), _mm256_cmpeq_epi8(e, h));
      const __m256i vision = _mm256_and_si256(torch, _mm256_cmpeq_epi8(f, v));
      const __m256i ey = _mm256_cmpeq_epi8(e, y);
      const __m256i numpy = _mm256_and_si256(_mm256_and_si256(_mm256_cmpeq_epi8(a, nn), _mm256_cmpeq_epi8(c, mm)), ey);
      const __m256i scipy = _mm256_and_si256(_mm256_and_si256(_mm256_cmpeq_epi8(a, sc), _mm256_cmpeq_epi8(c, ii)), ey);
      m = _mm256_or_si256(
          _mm256_or_si256(_mm256_and_si256(torch, want[0]), _mm256_and_si256(vision, want[1])),
          _mm256_or_si256(_mm256_or_si256(_mm256_and_si256(numpy, want[2]), _mm256_and_si256(scipy, want[3])),
                          _mm256_and_si256(_mm256_cmpeq_epi8(a, star), want[4])));
    }
    auto mask = static_cast<unsigned>(_mm256_movemask_epi8(m));
    if (mask == 0) continue;
    for (; mask != 0; mask &= mask - 1)
      if (search.visit(i + static_cast<std::size_t>(__builtin_ctz(mask)))) return true;
    wantedAvx2(search, want);
  }
  return false;
}
#endif

} // namespace

unsigned torchPackagesSpelt(std::string_view text) {
  // One pass for the names and the star imports (spellsStarImport), each looked for until found.
  PackageSearch search{text};
  std::size_t i = 0;
#if defined(ASYNCFIX_FAMILY_AVX2)
  if (cpuHasAvx2() && packagesAvx2(search, i)) return search.spelt | kPackageStarImport;
#endif
  // The rest one byte at a time, from a few bytes back: a name whose `py` or `hv` the vectorised
  // pass would have found past where it stopped.
  for (i = i >= 4 ? i - 4 : 0; i < text.size(); ++i)
    if (search.mayStart(i) && search.visit(i)) break;
  return search.star ? search.spelt | kPackageStarImport : search.spelt;
}

namespace {

/// Whether the star import whose `import` is at `at` may be of the family: `from M import *` with
/// M torch…, numpy…, scipy… or relative (a package's own modules, which may be torch's). Read
/// backwards to the `from` over the module's dotted name, its blanks and line continuations;
/// anything else there (no `from`, a byte of 0x80 and above in the name, which tree-sitter may
/// read as a blank or as no byte at all) counts as the family's.
bool starImportOfFamily(std::string_view text, std::size_t at) {
  std::size_t j = at;
  const auto continuation = [&](std::size_t k) { // the length of a `\` line continuation ending at k, or 0
    if (k >= 2 && text[k - 1] == '\n' && text[k - 2] == '\\') return 2;
    if (k >= 3 && text[k - 1] == '\n' && text[k - 2] == '\r' && text[k - 3] == '\\') return 3;
    return 0;
  };
  for (;;) {
    if (j == 0) break;
    const auto c = static_cast<unsigned char>(text[j - 1]);
    if (c == ' ' || c == '\t' || c == '\f' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
        (c >= '0' && c <= '9') || c == '_' || c >= 0x80)
      --j;
    else if (const int n = continuation(j); n != 0) j -= static_cast<std::size_t>(n);
    else break;
  }
  std::string module; // the module's name, blanks and continuations left out
  std::size_t k = j;
  while (k < at && (text[k] == ' ' || text[k] == '\t' || text[k] == '\f')) ++k;
  if (text.substr(k, 4) != "from") return true;
  for (k += 4; k < at; ++k) {
    if (static_cast<unsigned char>(text[k]) >= 0x80) return true;
    if (text[k] != ' ' && text[k] != '\t' && text[k] != '\f' && text[k] != '\\' && text[k] != '\n' && text[k] != '\r')
      module.push_back(text[k]);
  }
  return module.empty() || module.front() == '.' || module.starts_with("torch") || module.starts_with("numpy") ||
         module.starts_with("scipy");
}

} // namespace

namespace {

/// Whether the `*` at `star` ends a star import that may be of the family: an `import` with only
/// blanks (line continuations too) between it and the star, whose module starImportOfFamily()
/// takes.
bool starImportAt(std::string_view text, std::size_t star) {
  const auto between = [](unsigned char c) {
    return c == ' ' || c == '\t' || c == '\\' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c >= 0x80;
  };
  std::size_t k = star;
  while (k > 0 && between(static_cast<unsigned char>(text[k - 1]))) --k;
  return k >= 6 && text.substr(k - 6, 6) == "import" && starImportOfFamily(text, k - 6);
}

} // namespace

namespace {

/// isAsciiWordByte() of a char (text/prefilter_words.h).
bool asciiNameByte(char c) { return isAsciiWordByte(static_cast<unsigned char>(c)); }

/// Whether the names after the `import` that ends at `end` read whole (unreadImportAt).
bool importListReads(std::string_view text, std::size_t end) {
  const std::size_t n = text.size();
  std::size_t k = end;
  const auto blanks = [&](bool lineBreaks) {
    for (;;) {
      while (k < n && (text[k] == ' ' || text[k] == '\t' || text[k] == '\f' ||
                       (lineBreaks && (text[k] == '\n' || text[k] == '\r'))))
        ++k;
      if (k + 1 < n && text[k] == '\\' && (text[k + 1] == '\n' || text[k + 1] == '\r')) {
        k += text[k + 1] == '\r' && k + 2 < n && text[k + 2] == '\n' ? 3 : 2;
        continue;
      }
      if (lineBreaks && k < n && text[k] == '#') { // a comment in the brackets (no string can stand there)
        while (k < n && text[k] != '\n' && text[k] != '\r') ++k;
        continue;
      }
      return;
    }
  };
  static constexpr std::array<std::string_view, 8> kNoNames{"as",   "import", "from", "if",
                                                            "else", "lambda", "not",  "in"};
  const auto word = [&] { // a name that no keyword of those is
    if (k >= n || !asciiNameByte(text[k]) || (text[k] >= '0' && text[k] <= '9')) return false;
    const std::size_t b = k;
    while (k < n && asciiNameByte(text[k])) ++k;
    if (k < n && static_cast<unsigned char>(text[k]) >= 0x80) return false;
    return std::find(kNoNames.begin(), kNoNames.end(), text.substr(b, k - b)) == kNoNames.end();
  };
  const auto name = [&] { // a dotted one (`import torch.nn`; the grammar reads one after `from … import` too)
    if (!word()) return false;
    while (k < n && text[k] == '.') {
      ++k;
      if (!word()) return false;
    }
    return true;
  };
  blanks(false);
  if (k < n && text[k] == '*') return true; // a star import: spellsStarImport's
  const bool bracketed = k < n && text[k] == '(';
  if (bracketed) ++k;
  for (;;) {
    blanks(bracketed);
    if (bracketed && k < n && text[k] == ')') break; // `(a, b,)`
    if (!name()) return false;
    blanks(bracketed);
    if (text.substr(k, 2) == "as" && (k + 2 >= n || !asciiNameByte(text[k + 2]))) {
      k += 2;
      blanks(bracketed);
      if (!name()) return false;
      blanks(bracketed);
    }
    if (k < n && text[k] == ',') {
      ++k;
      continue;
    }
    if (bracketed && (k >= n || text[k] != ')')) return false;
    break;
  }
  if (bracketed) ++k;
  blanks(false);
  return k >= n || text[k] == '\n' || text[k] == '\r' || text[k] == ';' || text[k] == '#';
}

} // namespace

bool unreadImportAt(std::string_view text, std::size_t at) {
  if (text.substr(at, 6) != "import" || (at > 0 && asciiNameByte(text[at - 1])) ||
      (at + 6 < text.size() && asciiNameByte(text[at + 6])))
    return false;
  return !importListReads(text, at + 6) && starImportOfFamily(text, at);
}

bool spellsStarImport(std::string_view text) {
  // Found from the `*` backwards: the star is far rarer than the `i` a search for the word stops
  // at (each `if`, `in`, `is`).
  for (std::size_t star = text.find('*'); star != std::string_view::npos; star = text.find('*', star + 1))
    if (starImportAt(text, star)) return true;
  return false;
}

bool torchWordAt(std::string_view text, std::size_t at, std::string_view word, bool whole) {
  return wordCountsAt(text, at, word, whole);
}

namespace {

/// Each word's key (where in it the filter's four bytes start) and bucket, measured on the bench
/// corpora by bench/words (`asyncfix_word_layout ~/.cache/asyncfix-bench/torch 1
/// ~/.cache/asyncfix-bench/dense-clean 0.5`, 2026-12-07): on PyTorch code the filter passes 4 100
/// positions per MB for nothing where WordSet's own layout passes 9 500. Only speed depends on it;
/// rerun the tool after adding a word (a word missing here makes the set use WordSet's layout).
struct WordKey {
  std::string_view text;
  std::uint8_t offset, bucket;
};
constexpr std::array<WordKey, 123> kTorchWordLayout{{
    {"torch.nn.init import", 8, 7},
    {"retain_variables", 4, 3},
    {"device_id=", 6, 6},
    {"size_average", 5, 1},
    {"reduce=", 3, 6},
    {"volatile", 0, 7},
    {"F.upsample", 0, 4},
    {"functional.upsample", 7, 3},
    {"torch.utils.serialization", 11, 7},
    {"torch.utils.ffi", 11, 7},
    {"scipy.misc import", 4, 7},
    {"misc.imread", 1, 3},
    {"misc.imresize", 1, 3},
    {"misc.imsave", 1, 3},
    {".data[0]", 3, 1},
    {"].view(-1)", 2, 7},
    {"Function)", 0, 4},
    {"Function,", 0, 4},
    {"accuracy(", 0, 3},
    {"softmax(", 1, 5},
    {"log_softmax(", 5, 5},
    {"softmin(", 1, 5},
    {"Softmax(", 0, 4},
    {"LogSoftmax(", 4, 5},
    {"Softmin(", 0, 4},
    {".byte()", 0, 5},
    {"ByteTensor", 0, 4},
    {"StepLR(", 0, 4},
    {"MultiStepLR(", 0, 0},
    {"ExponentialLR(", 9, 5},
    {"CosineAnnealingLR(", 0, 4},
    {"LambdaLR(", 4, 1},
    {"MultiplicativeLR(", 0, 0},
    {"CyclicLR(", 0, 4},
    {"OneCycleLR(", 0, 6},
    {"CosineAnnealingWarmRestarts(", 0, 4},
    {"LinearLR(", 4, 5},
    {"ConstantLR(", 0, 4},
    {"PolynomialLR(", 8, 5},
    {"scheduler.step(", 2, 3},
    {"lr_scheduler.step(", 5, 3},
    {"sched.step(", 2, 3},
    {"FloatTensor(", 0, 4},
    {"DoubleTensor(", 0, 1},
    {"HalfTensor(", 0, 2},
    {"BFloat16Tensor(", 0, 0},
    {"CharTensor(", 0, 4},
    {"ShortTensor(", 0, 0},
    {"IntTensor(", 0, 5},
    {"LongTensor(", 0, 7},
    {"BoolTensor(", 0, 4},
    {"cuda.FloatTensor", 2, 1},
    {"cuda.DoubleTensor", 5, 1},
    {"cuda.HalfTensor", 5, 6},
    {"cuda.BFloat16Tensor", 3, 6},
    {"cuda.CharTensor", 4, 7},
    {"cuda.ShortTensor", 7, 5},
    {"cuda.IntTensor", 5, 5},
    {"cuda.LongTensor", 5, 7},
    {"cuda.BoolTensor", 3, 6},
    {"FloatTensor as", 0, 4},
    {"DoubleTensor as", 0, 1},
    {"HalfTensor as", 0, 2},
    {"BFloat16Tensor as", 0, 0},
    {"CharTensor as", 0, 4},
    {"ShortTensor as", 0, 0},
    {"IntTensor as", 0, 5},
    {"LongTensor as", 0, 7},
    {"BoolTensor as", 0, 4},
    {"upsample", 0, 2},
    {"eig(", 0, 0},
    {"solve(", 0, 3},
    {"lstsq(", 0, 2},
    {"matrix_rank(", 0, 1},
    {"imread(", 3, 6},
    {"imsave(", 0, 2},
    {"imresize(", 3, 3},
    {"load(", 1, 6},
    {"Scale", 0, 4},
    {"RandomSizedCrop", 1, 6},
    {"init.uniform", 0, 0},
    {"init.normal", 0, 0},
    {"init.constant", 0, 0},
    {"init.eye", 0, 0},
    {"init.dirac", 0, 0},
    {"init.orthogonal", 0, 0},
    {"init.sparse", 0, 0},
    {"xavier_uniform", 0, 2},
    {"xavier_normal", 0, 2},
    {"kaiming_uniform", 0, 2},
    {"kaiming_normal", 0, 2},
    {"clip_grad_norm", 0, 0},
    {"F.sigmoid", 1, 7},
    {"F.tanh", 0, 4},
    {"functional.sigmoid", 10, 7},
    {"functional.tanh", 7, 3},
    {"np.float", 0, 2},
    {"np.int", 0, 2},
    {"np.bool", 0, 0},
    {"np.object", 0, 0},
    {"np.str", 0, 2},
    {"np.complex", 0, 2},
    {"np.long", 1, 6},
    {"np.unicode", 2, 7},
    {"numpy.float", 0, 2},
    {"numpy.int", 0, 2},
    {"numpy.bool", 0, 2},
    {"numpy.object", 0, 2},
    {"numpy.str", 0, 2},
    {"numpy.complex", 0, 0},
    {"numpy.long", 0, 2},
    {"numpy.unicode", 0, 0},
    {"gesv", 0, 2},
    {"potrf", 0, 1},
    {"trtrs", 0, 5},
    {"gels", 0, 2},
    {"symeig", 1, 7},
    {"torch.eig", 5, 7},
    {"torch.solve", 6, 3},
    {"torch.lstsq", 5, 5},
    {"torch.matrix_rank", 6, 1},
    {"torch.load", 4, 6},
    {"torch.legacy", 5, 7},
}};

/// The lists with their keys, or none when a word has no row in kTorchWordLayout.
std::vector<WordSet::Keyed> laidOutWords() {
  std::vector<WordSet::Keyed> keyed;
  for (const auto &[list, whole] : {std::pair{torchApiWords(), false}, std::pair{torchApiWholeWords(), true}})
    for (const TorchWord &w : list) {
      const auto *row = std::find_if(kTorchWordLayout.begin(), kTorchWordLayout.end(),
                                     [&](const WordKey &k) { return k.text == w.text; });
      if (row == kTorchWordLayout.end()) return {};
      keyed.push_back({{w.text, whole}, row->offset, row->bucket});
    }
  return keyed;
}

const WordSet &wordSet() {
  static const WordSet set = [] {
    if (const std::vector<WordSet::Keyed> keyed = laidOutWords(); !keyed.empty())
      return WordSet(std::span<const WordSet::Keyed>(keyed));
    std::vector<WordSet::Word> words;
    for (const TorchWord &w : torchApiWords()) words.push_back({w.text, false});
    for (const TorchWord &w : torchApiWholeWords()) words.push_back({w.text, true});
    return WordSet(words);
  }();
  return set;
}

} // namespace

void forEachTorchWord(std::string_view text, bool (*found)(void *state, std::size_t at), void *state) {
  wordSet().forEach(text, found, state);
}

bool torchWordLayoutComplete() { return !laidOutWords().empty(); }

std::span<const TorchWordRef> torchWordsStartingWith(unsigned char first) {
  static const std::array<std::vector<TorchWordRef>, 256> kByFirst = [] {
    std::array<std::vector<TorchWordRef>, 256> byFirst;
    for (const TorchWord &w : torchApiWords())
      byFirst[static_cast<unsigned char>(w.text.front())].push_back({&w, false});
    for (const TorchWord &w : torchApiWholeWords())
      byFirst[static_cast<unsigned char>(w.text.front())].push_back({&w, true});
    return byFirst;
  }();
  return kByFirst[first];
}

bool startsTorchWord(std::string_view text, std::size_t at) {
  if (at >= text.size()) return false;
  for (const TorchWordRef &w : torchWordsStartingWith(static_cast<unsigned char>(text[at])))
    if (torchWordAt(text, at, w.word->text, w.whole)) return true;
  return false;
}

} // namespace asyncfix
