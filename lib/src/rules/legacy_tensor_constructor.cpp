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
together, as everyone writes them), resolved through the file's imports and assignments
(`FloatTensor = torch.cuda.FloatTensor`, then `FloatTensor(3)`). A reference that is not called
(`isinstance(x, torch.LongTensor)`, `x.type(torch.cuda.FloatTensor)`) is not flagged, nor is the
untyped `torch.Tensor(…)`, nor a
`torch.ByteTensor(…)` that AF305 (uint8-mask) reports as a mask: a uint8 mask wants
`dtype=torch.bool`, which this rule's fix would not write (and its `dtype=torch.uint8` would
hide the mask from AF305).

The CUDA classes are also followed where old code gives them another name, and reported
without a fix:
- a call of a name that the program binds to the CUDA or the CPU class as it runs
  (`FloatTensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor`, or an `if`/`else`
  of assignments), then `FloatTensor(3)`: the device (or the dtype) is the program's choice;
- `torch.cuda.FloatTensor` bound to another name (`dtype = torch.cuda.FloatTensor`, `self.Tensor
  = …`, a branch of a conditional), whose calls `dtype(…)` this rule cannot see (it looks for the
  class's name and its `(` together) and whose `.type(dtype)` hard-codes CUDA: reported at the
  binding, as information (the calls are what warns);
- `from torch.cuda import FloatTensor as FT`: the calls `FT(…)` are legacy constructors under
  a name the rule cannot see in them.
A CPU class under another name (`dtype = torch.FloatTensor`) is not followed: `.type(dtype)` is
today's API, and its calls run without a warning. Nor is `x.type(torch.cuda.FloatTensor)`
written out: a conversion, not a constructor, that neither warns nor computes something else
on a machine with CUDA (the GPU-only code that writes it, a data prefetcher, runs there).

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
`torch.tensor` copies, with a warning). Where only a star import may make the class PyTorch's
(`from torch import *`, then `FloatTensor(2)`), the finding names the star import and has no fix.

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

/// A legacy class that an expression may denote.
struct Denoted {
  const TypedClass *cls = nullptr;
  bool cuda = false;
  friend bool operator==(const Denoted &, const Denoted &) = default;
};

/// The legacy classes `e` denotes, through the file's imports: a path (`torch.cuda.FloatTensor`),
/// either branch of a conditional (`torch.cuda.FloatTensor if cuda else torch.FloatTensor`), a
/// name every assignment of which denotes some (`depth` bounds names through names). False when
/// one of its values is anything else.
bool legacyClasses(TSNode e, Context &ctx, int depth, std::vector<Denoted> &out) {
  const Kinds &k = Kinds::get();
  if (depth > 4) return false;
  while (symbolOf(e) == k.parenthesizedExpression && ts_node_named_child_count(e) == 1) e = ts_node_named_child(e, 0);
  if (symbolOf(e) == TorchKinds::get().conditionalExpression) {
    if (ts_node_named_child_count(e) != 3) return false; // a comment inside
    return legacyClasses(ts_node_named_child(e, 0), ctx, depth + 1, out) &&
           legacyClasses(ts_node_named_child(e, 2), ctx, depth + 1, out);
  }
  const ResolvedPath r = resolvedPath(e, ctx);
  if (r.how == Resolved::Proven) {
    std::string_view path = r.path;
    if (!path.starts_with("torch.")) return false;
    path.remove_prefix(6);
    const bool cuda = path.starts_with("cuda.");
    if (cuda) path.remove_prefix(5);
    const TypedClass *cls = classNamed(path);
    if (!cls) return false;
    if (std::find(out.begin(), out.end(), Denoted{cls, cuda}) == out.end()) out.push_back({cls, cuda});
    return true;
  }
  if (!isIdentifier(e)) return false;
  const std::optional<std::vector<TSNode>> values = boundValues(e, ctx);
  if (!values) return false;
  return std::all_of(values->begin(), values->end(), [&](TSNode v) { return legacyClasses(v, ctx, depth + 1, out); });
}

std::string pathOf(const Denoted &d) {
  return std::string(d.cuda ? "torch.cuda." : "torch.") + std::string(d.cls->name);
}

class LegacyTensorConstructor final : public Rule {
public:
  const RuleInfo &info() const override { return kLegacyTensorConstructor; }
  unsigned triggers() const override { return kTriggerTorchApi; }
  std::vector<TSSymbol> subscriptions() const override {
    const Kinds &k = Kinds::get();
    return {k.call, k.attribute, k.importFromStatement};
  }

  void check(TSNode node, Context &ctx) const override {
    if (ctx.insideError()) return;
    const TSSymbol s = symbolOf(node);
    if (s == Kinds::get().attribute) return checkReference(node, ctx);
    if (s == Kinds::get().importFromStatement) return checkImport(node, ctx);
    checkCall(node, ctx);
  }

private:
  void checkCall(TSNode call, Context &ctx) const {
    const std::string_view text = ctx.text();
    const Kinds &k = Kinds::get();
    const TSNode fn = ctx.field(call, "function");
    const TSNode last = symbolOf(fn) == k.attribute ? ctx.field(fn, "attribute") : fn;
    if (!isIdentifier(last)) return;
    const TypedClass *cls = classNamed(textOf(last, text));
    if (!cls || !startsTorchWord(text, ts_node_start_byte(last))) return;
    const std::string cudaPath = "torch.cuda." + std::string(cls->name);
    Resolved how = resolvesTo(fn, cudaPath, ctx);
    const bool cuda = how != Resolved::No;
    if (!cuda) how = resolvesTo(fn, "torch." + std::string(cls->name), ctx);
    if (how == Resolved::No && isIdentifier(fn)) return checkAliasCall(call, fn, ctx);
    if (how == Resolved::No || ctx.claimedByOther(*this, kClaimCall, call)) return;

    const TSNode args = field(call, "arguments");
    const Form form = formOf(args, ctx);
    const std::string dtype = "dtype=torch." + std::string(cls->dtype) + (cuda ? ", device='cuda'" : "");
    const std::string written = std::string(cuda ? "torch.cuda." : "torch.") + std::string(cls->name);
    std::string message = how == Resolved::Star ? starMessageFor(fn, written, ctx) : std::string();
    message += "`" + written + "(…)` is a legacy constructor";
    message += cuda ? " (a TypeError without CUDA, a UserWarning since PyTorch 2.1)"
                    : " (an int argument is a size, a sequence is data, a tensor is aliased)";
    if (form == Form::Unknown)
      message += ": use `torch.tensor(data, " + dtype + ")` for data, `torch.empty(*sizes, " + dtype + ")` for sizes";
    else message += std::string(": use `") + (makesData(form) ? "torch.tensor" : "torch.empty") + "(…, " + dtype + ")`";
    Diagnostic d =
        makeDiagnostic(kLegacyTensorConstructor, cuda ? Severity::Warning : Severity::Info, call, std::move(message));
    if (form != Form::Unknown && how == Resolved::Proven && namesModuleEverywhere("torch", ctx))
      d.fix = fixFor(fn, args, form, dtype);
    ctx.report(std::move(d));
  }

  /// `FloatTensor(3)` where `FloatTensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor`
  /// (or assignments that disagree): a legacy constructor whose class the program chooses as it
  /// runs, so no fix can name its device (or dtype).
  void checkAliasCall(TSNode call, TSNode fn, Context &ctx) const {
    std::vector<Denoted> classes;
    if (!legacyClasses(fn, ctx, 0, classes) || classes.size() < 2) return;
    if (ctx.claimedByOther(*this, kClaimCall, call)) return;
    const bool sameDtype =
        std::all_of(classes.begin(), classes.end(), [&](const Denoted &d) { return d.cls == classes.front().cls; });
    const bool anyCuda = std::any_of(classes.begin(), classes.end(), [](const Denoted &d) { return d.cuda; });
    std::string message = "`" + std::string(textOf(fn, ctx.text())) + "` is ";
    for (std::size_t i = 0; i < classes.size(); ++i)
      message += (i == 0 ? "`" : i + 1 == classes.size() ? " or `" : ", `") + pathOf(classes[i]) + "`";
    message += " as the program runs: a legacy constructor";
    if (anyCuda) message += " (a TypeError without CUDA, a UserWarning since PyTorch 2.1)";
    message += ": use `torch.empty(*sizes, …)` or `torch.tensor(data, …)` with ";
    message += sameDtype ? "`dtype=torch." + std::string(classes.front().cls->dtype) + "`" : std::string("the `dtype`");
    message += " and the `device` the program chooses (not fixed: no one device is right)";
    ctx.report(makeDiagnostic(kLegacyTensorConstructor, anyCuda ? Severity::Warning : Severity::Info, call,
                              std::move(message)));
  }

  /// `torch.cuda.FloatTensor` not called but bound to another name (`dtype =
  /// torch.cuda.FloatTensor`), whose calls `dtype(…)` the rule cannot see. Reported, never fixed.
  void checkReference(TSNode attribute, Context &ctx) const {
    const std::string_view text = ctx.text();
    const Kinds &k = Kinds::get();
    const TSNode name = field(attribute, "attribute"), object = field(attribute, "object");
    const TypedClass *cls = classNamed(textOf(name, text));
    if (!cls || cls->name == "ByteTensor") return; // a uint8 type: AF305's (masks)
    const TSNode objectName = symbolOf(object) == k.attribute ? field(object, "attribute") : object;
    if (ts_node_is_null(objectName) || !startsTorchWord(text, ts_node_start_byte(objectName))) return;
    if (resolvesTo(attribute, "torch.cuda." + std::string(cls->name), ctx) != Resolved::Proven) return;
    TSNode value = attribute, parent = ctx.parentOf(attribute);
    if (symbolOf(parent) == k.call && ts_node_eq(field(parent, "function"), attribute)) return; // checkCall's
    bool conditional = false;
    for (int steps = 0; steps < 8; ++steps) {
      const TSSymbol s = symbolOf(parent);
      if (s == TorchKinds::get().conditionalExpression && !ts_node_eq(ts_node_named_child(parent, 1), value))
        conditional = true;
      else if (s != k.parenthesizedExpression) break;
      value = parent;
      parent = ctx.parentOf(parent);
    }
    const std::string written = "torch.cuda." + std::string(cls->name);
    const std::string dtype = "torch." + std::string(cls->dtype);
    if (symbolOf(parent) == k.assignment && ts_node_eq(field(parent, "right"), value)) {
      TSNode target = field(parent, "left");
      if (symbolOf(target) == k.attribute) target = field(target, "attribute");
      if (!isIdentifier(target)) return;
      const std::string_view bound = textOf(target, text);
      if (bound == cls->name) return; // its calls `FloatTensor(…)` are reported where they are
      std::string message = "`" + std::string(bound) + "` holds the legacy type `" + written + "`";
      message += conditional ? " on one branch" : "";
      message += ": its calls are legacy constructors (a TypeError without CUDA, a UserWarning since PyTorch 2.1) "
                 "and `.type(" +
                 std::string(bound) + ")` hard-codes CUDA; use `dtype=" + dtype +
                 "` with a `device` (`torch.empty(…, dtype=…, device=…)`, `x.to(device, dtype)`)";
      ctx.report(makeDiagnostic(kLegacyTensorConstructor, Severity::Info, attribute, std::move(message)));
    }
  }

  /// `from torch.cuda import FloatTensor as FT`: the calls `FT(…)` are legacy constructors under a
  /// name the rule cannot see in them.
  void checkImport(TSNode statement, Context &ctx) const {
    const std::string_view text = ctx.text();
    const Kinds &k = Kinds::get();
    const TSNode module = field(statement, "module_name");
    if (textOf(module, text) != "torch.cuda") return;
    for (std::uint32_t i = 0, n = ts_node_named_child_count(statement); i < n; ++i) {
      const TSNode child = ts_node_named_child(statement, i);
      if (symbolOf(child) != k.aliasedImport) continue;
      const TSNode name = field(child, "name");
      const TypedClass *cls = classNamed(textOf(name, text));
      const TSNode alias = field(child, "alias");
      if (!cls || ts_node_is_null(alias) || textOf(alias, text) == cls->name) continue;
      if (!startsTorchWord(text, ts_node_start_byte(name))) continue; // `FloatTensor as`
      const std::string dtype = "dtype=torch." + std::string(cls->dtype) + ", device='cuda'";
      ctx.report(makeDiagnostic(
          kLegacyTensorConstructor, Severity::Warning, alias,
          "`" + std::string(textOf(alias, text)) + "` is `torch.cuda." + std::string(cls->name) +
              "`, a legacy constructor (a TypeError without CUDA, a UserWarning since PyTorch 2.1): replace its calls "
              "with `torch.empty(*sizes, " +
              dtype + ")` or `torch.tensor(data, " + dtype + ")` (not fixed: the calls are under another name)"));
    }
  }

  static std::optional<Fix> fixFor(TSNode fn, TSNode args, Form form, const std::string &dtype) {
    const std::string callee = makesData(form) ? "torch.tensor" : "torch.empty";
    Fix fix{"Replace with `" + callee + "(…, " + dtype + ")`",
            isSafe(form) ? Applicability::Safe : Applicability::Unsafe,
            {replaceNode(fn, callee)}};
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
