// AF318 legacy-tensor-constructor — `torch.FloatTensor(…)`, `torch.cuda.LongTensor(…)` and the
// other typed constructors called to make a tensor.
#include <algorithm>
#include <array>

#include "rules/edits.h"
#include "rules/torch_api.h"
#include "rules/torch_values.h"
#include "text/syntax.h"
#include "text/torch_words.h"

namespace asyncfix::rules {

extern const RuleInfo kLegacyTensorConstructor;
const RuleInfo kLegacyTensorConstructor{
    "AF318",
    "legacy-tensor-constructor",
    "`torch.FloatTensor(…)`, `torch.cuda.FloatTensor(…)`: legacy typed constructors (use `torch.tensor`/`torch.empty`)",
    R"(## What it does
Flags calls of the typed tensor classes of PyTorch 0.3 — `torch.FloatTensor`, `DoubleTensor`,
`HalfTensor`, `BFloat16Tensor`, `ByteTensor`, `CharTensor`, `ShortTensor`, `IntTensor`,
`LongTensor`, `BoolTensor` and the same names under `torch.cuda` — made to construct a tensor
(`torch.cuda.FloatTensor(2, 3)`, `torch.LongTensor([1, 2])`; the name and its `(` written
together, as everyone writes them), resolved through the file's imports. A reference that is not called (`x.type(torch.cuda.FloatTensor)`,
`isinstance(x, torch.LongTensor)`) is not flagged, nor is the untyped `torch.Tensor(…)`, nor a
`torch.ByteTensor(…)` that AF305 (uint8-mask) reports as a mask: a uint8 mask wants
`dtype=torch.bool`, which this rule's fix would not write (and its `dtype=torch.uint8` would
hide the mask from AF305).

## Why is this bad?
PyTorch 0.4 gave tensors a `dtype` and a `device` and made `torch.tensor(data, dtype=…,
device=…)` and `torch.empty(*sizes, dtype=…, device=…)` the way to make them; the typed classes
stayed as legacy constructors, and their one call does three different things by the type of
its argument: ints are sizes (`torch.FloatTensor(3)` is three *uninitialised* floats, not
`[3.]`), a sequence is data, and a tensor is aliased (no copy, and a `TypeError` when its dtype
differs). They take no `dtype`, `requires_grad` nor other device (`torch.FloatTensor(2,
device='cuda')` is a `RuntimeError`).

- `torch.cuda.*Tensor(…)` hard-codes CUDA: on a machine without it (a laptop, a CPU CI job,
  Debian's PyTorch) it raises `TypeError: type torch.cuda.FloatTensor not available. Torch not
  compiled with CUDA enabled.` Since PyTorch 2.1 every such call also warns: `UserWarning: The
  torch.cuda.*DtypeTensor constructors are no longer recommended. It's best to use methods such
  as torch.tensor(data, dtype=*, device='cuda') to create tensors.` These are warnings.
- `torch.FloatTensor(…)` and the other CPU classes still run on PyTorch 1.13 and 2.x without a
  warning: they are reported as information (PyTorch's documentation calls the legacy
  constructors discouraged), for the ambiguity above.

## Example
```python
buf = torch.cuda.FloatTensor(batch, 3)
labels = torch.LongTensor([0, 2, 1])
```

## Use instead
```python
buf = torch.empty(batch, 3, dtype=torch.float32, device='cuda')
labels = torch.tensor([0, 2, 1], dtype=torch.int64)
```

## Fix safety
The fix writes `torch.empty` for sizes and `torch.tensor` for data, with the class's dtype
(`FloatTensor` → `torch.float32`, `LongTensor` → `torch.int64`, `ByteTensor` → `torch.uint8`, …)
and, for `torch.cuda.*`, `device='cuda'` — the current CUDA device, where the legacy class
allocates too. It is safe where the call's form shows which of the three meanings it has:

- no argument: an empty tensor, `torch.empty(0, dtype=…)`;
- two or more positional arguments: they can only be sizes (the legacy constructor has no other
  signature with more than one), and `torch.empty` reads them the same way (ints, NumPy ints,
  0-dim integer tensors; on PyTorch 1.13 both raise for anything else);
- one integer literal: a size;
- one list or tuple literal of numbers and bools (nested): data. `torch.tensor(…, dtype=…)`
  converts each element exactly as the legacy class does (PyTorch 1.13: truncation of floats to
  integer types, wrap-around of negative ints into `uint8`, `inf` on float overflow, the same
  errors for integer overflow and ragged lists).

It is unsafe where the form only suggests the meaning: `torch.FloatTensor(*shape)` (a star that
unpacks to one list would be data), `torch.FloatTensor(x.size())` (sizes when `x` is a tensor;
a plain tuple would be data), a list or tuple literal holding names or calls (tensors and
NumPy values among them convert the same way on PyTorch 1.13, but the rule cannot see what
they are), a list comprehension, and a name whose every assignment, or parameter default, the
file shows is a list or tuple (`def __init__(self, mean=(0.485, 0.456, 0.406))`, then
`torch.FloatTensor(mean)`: a caller may still pass a tensor, which the legacy class aliases and
`torch.tensor` copies, with a warning). It is unsafe as well where the class is only spelt like PyTorch's (a star import).

No fix, only the report, for one argument of any other form (another name, a NumPy array, a tensor:
size, data or alias is decided at run time; write `torch.tensor(x, dtype=…)`,
`torch.empty(n, dtype=…)` or `x.to(dtype)` as the program means), for keyword arguments and
`**kwargs`, and where the file does not bind `torch` to the module everywhere (the fix writes
`torch.empty`, `torch.float32`).
)",
    FixAvailability::Sometimes,
    true};

namespace {

struct TypedClass {
  std::string_view name, dtype;
};
constexpr std::array<TypedClass, 10> kClasses{{{"FloatTensor", "float32"},
                                               {"DoubleTensor", "float64"},
                                               {"HalfTensor", "float16"},
                                               {"BFloat16Tensor", "bfloat16"},
                                               {"ByteTensor", "uint8"},
                                               {"CharTensor", "int8"},
                                               {"ShortTensor", "int16"},
                                               {"IntTensor", "int32"},
                                               {"LongTensor", "int64"},
                                               {"BoolTensor", "bool"}}};

const TypedClass *classNamed(std::string_view name) {
  const auto it = std::find_if(kClasses.begin(), kClasses.end(), [&](const TypedClass &c) { return c.name == name; });
  return it == kClasses.end() ? nullptr : &*it;
}

/// What a call's arguments say it makes.
enum class Form : std::uint8_t {
  Empty,      ///< no argument
  Sizes,      ///< sizes, provably
  SizesGuess, ///< sizes by the look of it (`*shape`, `x.size()`)
  Data,       ///< a literal of numbers, provably data
  DataGuess,  ///< a list or tuple literal of anything
  Unknown,    ///< decided at run time, or keywords: no fix
};

bool isNumberLiteral(TSNode e, std::string_view text) {
  const TorchKinds &t = TorchKinds::get();
  const TSSymbol s = symbolOf(e);
  if (s == t.integer || s == t.floatLiteral || isType(e, "true") || isType(e, "false")) return true;
  if (s != t.unaryOperator) return false;
  const std::string_view op = textOf(field(e, "operator"), text);
  const TSSymbol operand = symbolOf(field(e, "argument"));
  return (op == "-" || op == "+") && (operand == t.integer || operand == t.floatLiteral);
}

/// Whether the list or tuple literal `e` holds only numbers, bools and such literals (`depth`
/// bounds the nesting the rule looks into).
bool isNumbersLiteral(TSNode e, std::string_view text, int depth = 0) {
  const Kinds &k = Kinds::get();
  if (depth > 32 || (symbolOf(e) != k.list && symbolOf(e) != k.tuple)) return false;
  for (std::uint32_t i = 0, n = ts_node_named_child_count(e); i < n; ++i) {
    const TSNode c = ts_node_named_child(e, i);
    if (symbolOf(c) == k.comment) continue;
    if (!isNumberLiteral(c, text) && !isNumbersLiteral(c, text, depth + 1)) return false;
  }
  return true;
}

/// The arguments of `args` that are not comments.
std::vector<TSNode> argumentsOf(TSNode args) {
  std::vector<TSNode> out;
  for (std::uint32_t i = 0, n = ts_node_named_child_count(args); i < n; ++i)
    if (const TSNode a = ts_node_named_child(args, i); symbolOf(a) != Kinds::get().comment) out.push_back(a);
  return out;
}

bool isSequence(TSNode e) {
  const Kinds &k = Kinds::get();
  const TSSymbol s = symbolOf(e);
  return s == k.list || s == k.tuple || s == k.listComprehension;
}

/// Whether every value the name `identifier` may hold that the file shows is a list or tuple
/// (a literal or a list comprehension): each assignment's right side, a parameter's default.
bool holdsSequence(TSNode identifier, Context &ctx) {
  const Kinds &k = Kinds::get();
  const SemanticModel &model = ctx.semantic();
  const NameUse *use = model.nameAt(ts_node_start_byte(identifier));
  if (!use || use->inError) return false;
  bool any = false;
  for (const NameUse *u : model.usesOf(model.resolve(*use))) {
    if (u->role == NameRole::Reference) continue;
    TSNode value = u->value;
    if (u->role == NameRole::Parameter) {
      const TSNode parameter = ts_node_parent(u->node);
      const TSSymbol s = symbolOf(parameter);
      value = s == k.defaultParameter || s == k.typedDefaultParameter ? field(parameter, "value") : TSNode{};
    } else if (u->role != NameRole::Binding || u->iterated) {
      return false;
    }
    if (!isSequence(value)) return false;
    any = true;
  }
  return any;
}

Form formOf(TSNode args, Context &ctx) {
  const std::string_view text = ctx.text();
  const Kinds &k = Kinds::get();
  if (symbolOf(args) != k.argumentList) return Form::Unknown; // `FloatTensor(x for x in y)`
  const std::vector<TSNode> arguments = argumentsOf(args);
  bool splat = false;
  for (const TSNode a : arguments) {
    const TSSymbol s = symbolOf(a);
    if (s == k.keywordArgument || s == TorchKinds::get().dictionarySplat) return Form::Unknown;
    splat = splat || s == k.listSplat;
  }
  if (arguments.empty()) return Form::Empty;
  if (splat) return Form::SizesGuess;
  if (arguments.size() >= 2) return Form::Sizes;
  const TSNode only = arguments.front();
  if (symbolOf(only) == TorchKinds::get().integer) return Form::Sizes;
  if (symbolOf(only) == k.list || symbolOf(only) == k.tuple)
    return isNumbersLiteral(only, text) ? Form::Data : Form::DataGuess;
  if (symbolOf(only) == k.listComprehension || (isIdentifier(only) && holdsSequence(only, ctx))) return Form::DataGuess;
  if (symbolOf(only) == k.call) {
    const TSNode fn = field(only, "function");
    const TSNode inner = field(only, "arguments");
    if (symbolOf(fn) == k.attribute && textOf(field(fn, "attribute"), text) == "size" &&
        symbolOf(inner) == k.argumentList && argumentsOf(inner).empty())
      return Form::SizesGuess;
  }
  return Form::Unknown;
}

bool isSafe(Form f) { return f == Form::Empty || f == Form::Sizes || f == Form::Data; }
bool makesData(Form f) { return f == Form::Data || f == Form::DataGuess; }

class LegacyTensorConstructor final : public Rule {
public:
  const RuleInfo &info() const override { return kLegacyTensorConstructor; }
  unsigned triggers() const override { return kTriggerTorchApi; }
  std::vector<TSSymbol> subscriptions() const override { return {Kinds::get().call}; }

  void check(TSNode call, Context &ctx) const override {
    if (ctx.insideError()) return;
    const std::string_view text = ctx.text();
    const Kinds &k = Kinds::get();
    const TSNode fn = field(call, "function");
    const TSNode last = symbolOf(fn) == k.attribute ? field(fn, "attribute") : fn;
    if (!isIdentifier(last)) return;
    const TypedClass *cls = classNamed(textOf(last, text));
    if (!cls || !startsTorchWord(text, ts_node_start_byte(last))) return;
    const std::string cudaPath = "torch.cuda." + std::string(cls->name);
    Resolved how = resolvesTo(fn, cudaPath, ctx);
    bool cuda = how != Resolved::No;
    if (how == Resolved::Guess && textOf(fn, text).find("cuda") == std::string_view::npos) cuda = false;
    if (!cuda) how = resolvesTo(fn, "torch." + std::string(cls->name), ctx);
    if (how == Resolved::No || ctx.claimedByOther(*this, kClaimCall, call)) return;

    const TSNode args = field(call, "arguments");
    const Form form = formOf(args, ctx);
    const std::string dtype = "dtype=torch." + std::string(cls->dtype) + (cuda ? ", device='cuda'" : "");
    const std::string written = std::string(cuda ? "torch.cuda." : "torch.") + std::string(cls->name);
    std::string message = "`" + written + "(…)` is a legacy constructor";
    message += cuda ? " (a TypeError without CUDA, a UserWarning since PyTorch 2.1)"
                    : " (an int argument is a size, a sequence is data, a tensor is aliased)";
    if (form == Form::Unknown)
      message += ": use `torch.tensor(data, " + dtype + ")` for data, `torch.empty(*sizes, " + dtype + ")` for sizes";
    else message += std::string(": use `") + (makesData(form) ? "torch.tensor" : "torch.empty") + "(…, " + dtype + ")`";
    Diagnostic d =
        makeDiagnostic(kLegacyTensorConstructor, cuda ? Severity::Warning : Severity::Info, call, std::move(message));
    if (form != Form::Unknown && namesModuleEverywhere("torch", ctx)) d.fix = fixFor(fn, args, form, dtype, how);
    ctx.report(std::move(d));
  }

private:
  static std::optional<Fix> fixFor(TSNode fn, TSNode args, Form form, const std::string &dtype, Resolved how) {
    const std::string callee = makesData(form) ? "torch.tensor" : "torch.empty";
    Fix fix{"Replace with `" + callee + "(…, " + dtype + ")`",
            isSafe(form) && how == Resolved::Proven ? Applicability::Safe : Applicability::Unsafe,
            {replaceNode(fn, callee)}};
    if (how != Resolved::Proven) fix.title += " (the class is not resolved to PyTorch through this file's imports)";
    const std::vector<TSNode> arguments = argumentsOf(args);
    if (arguments.empty()) {
      if (ts_node_named_child_count(args) != 0) return std::nullopt; // a comment inside `( )`
      fix.edits.push_back(replaceNode(args, "(0, " + dtype + ")"));
    } else {
      const auto end = ts_node_end_byte(arguments.back());
      fix.edits.push_back(TextEdit{end, end, ", " + dtype});
    }
    return fix;
  }
};

} // namespace

std::unique_ptr<Rule> makeLegacyTensorConstructor() { return std::make_unique<LegacyTensorConstructor>(); }

} // namespace asyncfix::rules
