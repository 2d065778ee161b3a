// The rule registry: every rule, one line each, in code order. Adding a rule = its file + a line.
#include <algorithm>
#include <array>

#include "rules/rule.h"
#include "syntax.h"

namespace asyncfix::rules {

// Each rule's file defines its RuleInfo and a factory; one line here lists it.
#define ASYNCFIX_RULE(info, factory)                                                               \
  extern const RuleInfo info;                                                                     \
  std::unique_ptr<Rule> factory();
ASYNCFIX_RULE(kAsyncIdentifier, makeAsyncIdentifier)
ASYNCFIX_RULE(kAwaitIdentifier, makeAwaitIdentifier)
ASYNCFIX_RULE(kTorchAsyncKwarg, makeTorchAsyncKwarg)
ASYNCFIX_RULE(kUnsupportedNonBlocking, makeUnsupportedNonBlocking)
ASYNCFIX_RULE(kToPositionalNonBlocking, makeToPositionalNonBlocking)
ASYNCFIX_RULE(kNonBlockingWithoutPinnedMemory, makeNonBlockingWithoutPinnedMemory)
ASYNCFIX_RULE(kAsyncCompatShim, makeAsyncCompatShim)
ASYNCFIX_RULE(kNonBlockingDeviceToHost, makeNonBlockingDeviceToHost)
ASYNCFIX_RULE(kRenamedAsyncModule, makeRenamedAsyncModule)
ASYNCFIX_RULE(kRenamedAsyncFunction, makeRenamedAsyncFunction)
ASYNCFIX_RULE(kRenamedAsyncKwarg, makeRenamedAsyncKwarg)
ASYNCFIX_RULE(kUnusedNoqa, makeUnusedNoqa)
#undef ASYNCFIX_RULE

namespace {

struct Entry {
  const RuleInfo *info;
  std::unique_ptr<Rule> (*make)();
};

/// The registry, in code order: one line per rule.
const std::array kRegistry{
    Entry{&kAsyncIdentifier, makeAsyncIdentifier},               // AF001
    Entry{&kAwaitIdentifier, makeAwaitIdentifier},               // AF002
    Entry{&kTorchAsyncKwarg, makeTorchAsyncKwarg},               // AF101
    Entry{&kUnsupportedNonBlocking, makeUnsupportedNonBlocking}, // AF102
    Entry{&kToPositionalNonBlocking, makeToPositionalNonBlocking}, // AF103
    Entry{&kNonBlockingWithoutPinnedMemory, makeNonBlockingWithoutPinnedMemory}, // AF104
    Entry{&kAsyncCompatShim, makeAsyncCompatShim},               // AF105
    Entry{&kNonBlockingDeviceToHost, makeNonBlockingDeviceToHost}, // AF106
    Entry{&kRenamedAsyncModule, makeRenamedAsyncModule},         // AF201
    Entry{&kRenamedAsyncFunction, makeRenamedAsyncFunction},     // AF202
    Entry{&kRenamedAsyncKwarg, makeRenamedAsyncKwarg},           // AF203
    Entry{&kUnusedNoqa, makeUnusedNoqa},                         // AF900
};

const auto kCatalogue = [] {
  std::array<const RuleInfo *, kRegistry.size()> out{};
  for (std::size_t i = 0; i < kRegistry.size(); ++i) out[i] = kRegistry[i].info;
  return out;
}();

} // namespace

std::vector<std::unique_ptr<Rule>> makeAllRules() {
  std::vector<std::unique_ptr<Rule>> rules;
  for (const Entry &e : kRegistry) rules.push_back(e.make());
  return rules;
}

Severity keywordSeverity(const Config &config) {
  return config.target >= PythonVersion{3, 7} ? Severity::Error : Severity::Warning;
}

Diagnostic makeDiagnostic(const RuleInfo &rule, Severity severity, TSNode node, std::string message) {
  Diagnostic d;
  d.code = rule.code;
  d.name = rule.name;
  d.severity = severity;
  d.message = std::move(message);
  d.start = ts_node_start_byte(node);
  d.end = ts_node_end_byte(node);
  return d;
}

} // namespace asyncfix::rules

namespace asyncfix {

std::span<const RuleInfo *const> ruleCatalogue() { return rules::kCatalogue; }

const RuleInfo *findRule(std::string_view codeOrName) {
  for (const RuleInfo *r : rules::kCatalogue)
    if (r->code == codeOrName || r->name == codeOrName) return r;
  return nullptr;
}

std::string ruleUrl(const RuleInfo &rule) {
  return "https://asyncfix.dev/rules/" + std::string(rule.name);
}

} // namespace asyncfix
