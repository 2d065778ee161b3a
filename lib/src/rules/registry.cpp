// The rule registry: every rule, one line each, in code order. Adding a rule = its file + a line.
#include <algorithm>
#include <array>

#include "rules/rule.h"
#include "syntax.h"

namespace asyncfix::rules {

extern const RuleInfo kAsyncIdentifier, kAwaitIdentifier, kTorchAsyncKwarg, kUnusedNoqa;
std::unique_ptr<Rule> makeAsyncIdentifier();
std::unique_ptr<Rule> makeAwaitIdentifier();
std::unique_ptr<Rule> makeTorchAsyncKwarg();
std::unique_ptr<Rule> makeUnusedNoqa();

std::vector<std::unique_ptr<Rule>> makeAllRules() {
  std::vector<std::unique_ptr<Rule>> rules;
  rules.push_back(makeAsyncIdentifier()); // AF001
  rules.push_back(makeAwaitIdentifier()); // AF002
  rules.push_back(makeTorchAsyncKwarg()); // AF101
  rules.push_back(makeUnusedNoqa());      // AF900
  return rules;
}

namespace {
const std::array<const RuleInfo *, 4> kCatalogue{&kAsyncIdentifier, &kAwaitIdentifier, &kTorchAsyncKwarg,
                                                 &kUnusedNoqa};
} // namespace

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
