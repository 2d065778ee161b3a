// syntax.h — RAII wrappers around tree-sitter handles and small helpers over TSNode. Private.
#pragma once

#include <tree_sitter/api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

extern "C" const TSLanguage *tree_sitter_python(void);

namespace asyncfix {

struct TreeDeleter {
  void operator()(TSTree *t) const { ts_tree_delete(t); }
};
struct ParserDeleter {
  void operator()(TSParser *p) const { ts_parser_delete(p); }
};
using TreePtr = std::unique_ptr<TSTree, TreeDeleter>;
using ParserPtr = std::unique_ptr<TSParser, ParserDeleter>;

/// A parser set up for Python. Null only if the grammar's ABI is not supported by the runtime.
ParserPtr makePythonParser();
/// This thread's parser (made on first use), shared by the thread's documents and fix
/// verification: a parser's stacks and buffers are worth keeping warm, not worth keeping once
/// per open document. Whoever sets its included ranges resets them before returning.
TSParser *threadParser();

/// A TSTreeCursor that is deleted when it goes out of scope.
class Cursor {
public:
  explicit Cursor(TSNode node) : cursor_(ts_tree_cursor_new(node)) {}
  ~Cursor() { ts_tree_cursor_delete(&cursor_); }
  Cursor(const Cursor &) = delete;
  Cursor &operator=(const Cursor &) = delete;
  TSTreeCursor *get() { return &cursor_; }
  TSNode node() const { return ts_tree_cursor_current_node(&cursor_); }

private:
  TSTreeCursor cursor_;
};

/// Interned symbol ids of the node kinds the engine looks at. A kind can have several ids (an
/// alias such as keyword_identifier → identifier has its own), so tests use `is(node, kinds)`.
struct Kinds {
  std::vector<TSSymbol> identifier;
  TSSymbol keywordArgument, argumentList, call, attribute, error;
  TSSymbol module, functionDefinition, classDefinition, lambda, decoratedDefinition;
  TSSymbol listComprehension, setComprehension, dictionaryComprehension, generatorExpression, forInClause;
  TSSymbol parameters, lambdaParameters, defaultParameter, typedParameter, typedDefaultParameter, listSplatPattern,
      dictionarySplatPattern, keywordSeparator;
  TSSymbol assignment, augmentedAssignment, forStatement, asPattern, asPatternTarget, namedExpression, patternList,
      tuplePattern, listPattern;
  TSSymbol importStatement, importFromStatement, aliasedImport, dottedName, futureImport;
  TSSymbol globalStatement, nonlocalStatement;
  TSSymbol await, parenthesizedExpression, string, comment, tuple, list, listSplat, block;
  TSSymbol anonAsync, anonAwait; ///< the keyword tokens

  static const Kinds &get(); ///< built once per process from the grammar (immutable)
};

/// The node's text; empty for a null node (an absent field), which is safe to pass here.
inline std::string_view textOf(TSNode node, std::string_view text) {
  if (ts_node_is_null(node)) return {};
  const std::uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
  if (start >= text.size() || end < start) return {};
  return text.substr(start, end - start);
}

inline bool isIdentifier(TSNode node) {
  if (ts_node_is_null(node)) return false;
  const TSSymbol s = ts_node_symbol(node);
  for (TSSymbol id : Kinds::get().identifier)
    if (s == id) return true;
  return false;
}

/// The Python grammar's field names, as its node-types spell them.
inline constexpr std::array<std::string_view, 32> kFieldNames{"alias",
                                                              "alternative",
                                                              "argument",
                                                              "arguments",
                                                              "attribute",
                                                              "body",
                                                              "cause",
                                                              "code",
                                                              "condition",
                                                              "consequence",
                                                              "definition",
                                                              "expression",
                                                              "format_specifier",
                                                              "function",
                                                              "guard",
                                                              "key",
                                                              "left",
                                                              "module_name",
                                                              "name",
                                                              "object",
                                                              "operator",
                                                              "operators",
                                                              "parameters",
                                                              "return_type",
                                                              "right",
                                                              "subject",
                                                              "subscript",
                                                              "superclasses",
                                                              "type",
                                                              "type_conversion",
                                                              "type_parameters",
                                                              "value"};

/// A field named by a literal (`field(node, "name")`): the name becomes its place in
/// kFieldNames when the code is compiled (a name the grammar lacks does not compile), and
/// fieldIds() gives the grammar's id from there, with no lookup by name when it runs.
class FieldName {
public:
  // Implicit: a literal is how a field is named (`field(node, "name")`).
  consteval FieldName(const char *name) : index_(indexOf(name)) {
    if (index_ == kFieldNames.size()) notAFieldOfThePythonGrammar(); // not constexpr: a compile error
  }
  constexpr std::size_t index() const { return index_; }

private:
  /// The place of `name` in kFieldNames; its size when it is none. (No `throw` here: g++ 10,
  /// which builds the manylinux wheels, rejects one in a function evaluated at compile time.)
  static constexpr std::uint8_t indexOf(std::string_view name) {
    std::size_t i = 0;
    while (i < kFieldNames.size() && kFieldNames[i] != name) ++i;
    return static_cast<std::uint8_t>(i);
  }
  static void notAFieldOfThePythonGrammar(); // never defined: only named where a build must fail
  std::uint8_t index_;
};

/// The grammar's id of each of kFieldNames (0 for one it lacks), looked up once per process.
const std::array<TSFieldId, kFieldNames.size()> &fieldIds();
/// The grammar's id of the field `name` (0 when it has none).
inline TSFieldId fieldId(FieldName name) { return fieldIds()[name.index()]; }

/// The child in `field` (null node when absent).
inline TSNode field(TSNode node, FieldName name) { return ts_node_child_by_field_id(node, fieldId(name)); }

/// ts_node_symbol / a field, tolerating a null node (0 is no kind the rules look for).
inline TSSymbol symbolOf(TSNode n) { return ts_node_is_null(n) ? TSSymbol{0} : ts_node_symbol(n); }
inline TSNode fieldOf(TSNode n, FieldName name) { return ts_node_is_null(n) ? TSNode{} : field(n, name); }

/// True when `node` is not null and of the node type named `type` ("try_statement").
inline bool isType(TSNode node, const char *type) {
  return !ts_node_is_null(node) && std::strcmp(ts_node_type(node), type) == 0;
}

/// The first node of `root`'s subtree, in pre-order and `root` included, for which `pred` is
/// true; a null node when there is none. Iterative: a deep tree cannot overflow the stack.
template <class Pred> TSNode findNode(TSNode root, Pred pred) {
  Cursor cursor(root);
  TSTreeCursor *c = cursor.get();
  for (;;) {
    const TSNode n = ts_tree_cursor_current_node(c);
    if (pred(n)) return n;
    if (ts_tree_cursor_goto_first_child(c)) continue;
    while (!ts_tree_cursor_goto_next_sibling(c))
      if (!ts_tree_cursor_goto_parent(c)) return TSNode{};
  }
}

/// True when `node` lies inside an ERROR node.
bool insideError(TSNode node);
/// Number of ERROR and MISSING nodes under `root` (at least 1 when it has an error).
std::size_t countSyntaxErrors(TSNode root);

/// The method a keyword argument is passed to (`cuda` for `x.cuda(async=True)`), given the
/// argument's parent and grandparent (Context::parentOf finds them cheaply); "" when they are
/// not an argument list and a call, or the callee is not an attribute free of syntax errors.
/// `fieldOf(node, name)` looks the call's fields up (Context::field remembers them).
template <class FieldOf>
std::string_view calledMethod(TSNode args, TSNode call, std::string_view text, FieldOf fieldOf) {
  if (ts_node_is_null(args) || ts_node_symbol(args) != Kinds::get().argumentList) return {};
  if (ts_node_is_null(call) || ts_node_symbol(call) != Kinds::get().call) return {};
  const TSNode fn = fieldOf(call, "function");
  // `x.~cpu(…)`, `.\xffcpu(…)`: tree-sitter skips what it cannot read and names the method;
  // the call is broken, and which method it meant a guess.
  if (ts_node_symbol(fn) != Kinds::get().attribute || ts_node_has_error(fn)) return {};
  return textOf(fieldOf(fn, "attribute"), text);
}
inline std::string_view calledMethod(TSNode args, TSNode call, std::string_view text) {
  return calledMethod(args, call, text, [](TSNode n, FieldName name) { return field(n, name); });
}

/// The first leaf after `node` in source order (null at the end).
TSNode nextLeaf(TSNode node);
/// The last leaf before `node` in source order (null at the start).
TSNode prevLeaf(TSNode node);

} // namespace asyncfix
