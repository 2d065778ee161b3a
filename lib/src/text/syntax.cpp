#include "text/syntax.h"

#include <algorithm>
#include <cstring>

namespace asyncfix {

ParserPtr makePythonParser() {
  ParserPtr parser(ts_parser_new());
  if (!ts_parser_set_language(parser.get(), tree_sitter_python())) return nullptr;
  return parser;
}

TSParser *threadParser() {
#if defined(_WIN32)
  // Never deleted on Windows: mingw-w64's emulated TLS may free a thread's storage before the
  // thread's thread_local destructors run, which would then read freed memory (docs/windows.md).
  // A thread's parser is left to the end of the process.
  thread_local TSParser *parser = makePythonParser().release();
  return parser;
#else
  thread_local ParserPtr parser = makePythonParser();
  return parser.get();
#endif
}

namespace {

TSSymbol named(const TSLanguage *lang, const char *name) {
  return ts_language_symbol_for_name(lang, name, static_cast<std::uint32_t>(std::strlen(name)), true);
}
TSSymbol anonymous(const TSLanguage *lang, const char *name) {
  return ts_language_symbol_for_name(lang, name, static_cast<std::uint32_t>(std::strlen(name)), false);
}

Kinds buildKinds() {
  const TSLanguage *lang = tree_sitter_python();
  Kinds k{};
  const std::uint32_t count = ts_language_symbol_count(lang);
  for (TSSymbol s = 0; s < count; ++s) {
    if (ts_language_symbol_type(lang, s) == TSSymbolTypeRegular &&
        std::strcmp(ts_language_symbol_name(lang, s), "identifier") == 0)
      k.identifier.push_back(s);
  }
  k.keywordArgument = named(lang, "keyword_argument");
  k.argumentList = named(lang, "argument_list");
  k.call = named(lang, "call");
  k.attribute = named(lang, "attribute");
  k.error = named(lang, "ERROR");
  k.module = named(lang, "module");
  k.functionDefinition = named(lang, "function_definition");
  k.classDefinition = named(lang, "class_definition");
  k.lambda = named(lang, "lambda");
  k.decoratedDefinition = named(lang, "decorated_definition");
  k.listComprehension = named(lang, "list_comprehension");
  k.setComprehension = named(lang, "set_comprehension");
  k.dictionaryComprehension = named(lang, "dictionary_comprehension");
  k.generatorExpression = named(lang, "generator_expression");
  k.forInClause = named(lang, "for_in_clause");
  k.parameters = named(lang, "parameters");
  k.lambdaParameters = named(lang, "lambda_parameters");
  k.defaultParameter = named(lang, "default_parameter");
  k.typedParameter = named(lang, "typed_parameter");
  k.typedDefaultParameter = named(lang, "typed_default_parameter");
  k.listSplatPattern = named(lang, "list_splat_pattern");
  k.dictionarySplatPattern = named(lang, "dictionary_splat_pattern");
  k.keywordSeparator = named(lang, "keyword_separator");
  k.assignment = named(lang, "assignment");
  k.augmentedAssignment = named(lang, "augmented_assignment");
  k.forStatement = named(lang, "for_statement");
  k.asPattern = named(lang, "as_pattern");
  k.asPatternTarget = named(lang, "as_pattern_target");
  k.namedExpression = named(lang, "named_expression");
  k.patternList = named(lang, "pattern_list");
  k.tuplePattern = named(lang, "tuple_pattern");
  k.listPattern = named(lang, "list_pattern");
  k.importStatement = named(lang, "import_statement");
  k.importFromStatement = named(lang, "import_from_statement");
  k.aliasedImport = named(lang, "aliased_import");
  k.dottedName = named(lang, "dotted_name");
  k.futureImport = named(lang, "future_import_statement");
  k.globalStatement = named(lang, "global_statement");
  k.nonlocalStatement = named(lang, "nonlocal_statement");
  k.await = named(lang, "await");
  k.parenthesizedExpression = named(lang, "parenthesized_expression");
  k.string = named(lang, "string");
  k.comment = named(lang, "comment");
  k.tuple = named(lang, "tuple");
  k.list = named(lang, "list");
  k.listSplat = named(lang, "list_splat");
  k.block = named(lang, "block");
  k.anonAsync = anonymous(lang, "async");
  k.anonAwait = anonymous(lang, "await");
  return k;
}

} // namespace

const Kinds &Kinds::get() {
  static const Kinds kinds = buildKinds(); // immutable after first use; thread-safe init
  return kinds;
}

const std::array<TSFieldId, kFieldNames.size()> &fieldIds() {
  static const std::array<TSFieldId, kFieldNames.size()> ids = [] { // immutable; thread-safe init
    std::array<TSFieldId, kFieldNames.size()> out{};
    const TSLanguage *language = tree_sitter_python();
    for (std::size_t i = 0; i < kFieldNames.size(); ++i)
      out[i] = ts_language_field_id_for_name(language, kFieldNames[i].data(),
                                             static_cast<std::uint32_t>(kFieldNames[i].size()));
    return out;
  }();
  return ids;
}

std::size_t countSyntaxErrors(TSNode root) {
  if (!ts_node_has_error(root)) return 0;
  // A MISSING token of a hidden rule (`_newline`) has no visible node for the walk below to
  // find; the root still knows the tree has an error: count it as one.
  std::size_t count = 0;
  Cursor cursor(root);
  TSTreeCursor *c = cursor.get();
  // Iterative pre-order walk that only descends into subtrees that contain an error.
  for (;;) {
    TSNode node = ts_tree_cursor_current_node(c);
    if (ts_node_is_error(node) || ts_node_is_missing(node)) ++count;
    if (ts_node_has_error(node) && !ts_node_is_error(node) && ts_tree_cursor_goto_first_child(c)) continue;
    while (!ts_tree_cursor_goto_next_sibling(c)) {
      if (!ts_tree_cursor_goto_parent(c)) return std::max<std::size_t>(count, 1);
    }
  }
}

bool insideError(TSNode node) {
  const TSSymbol error = Kinds::get().error;
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n))
    if (ts_node_symbol(n) == error) return true;
  return false;
}

TSNode nextLeaf(TSNode node) {
  for (TSNode n = node; !ts_node_is_null(n); n = ts_node_parent(n)) {
    TSNode next = ts_node_next_sibling(n);
    if (!ts_node_is_null(next)) {
      while (ts_node_child_count(next) > 0) next = ts_node_child(next, 0);
      return next;
    }
  }
  return TSNode{};
}

TSNode prevLeaf(TSNode node) {
  for (TSNode n = node; !ts_node_is_null(n); n = ts_node_parent(n)) {
    TSNode prev = ts_node_prev_sibling(n);
    if (!ts_node_is_null(prev)) {
      while (ts_node_child_count(prev) > 0) prev = ts_node_child(prev, ts_node_child_count(prev) - 1);
      return prev;
    }
  }
  return TSNode{};
}

} // namespace asyncfix
