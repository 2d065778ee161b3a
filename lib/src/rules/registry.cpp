// The rule registry: registry.def's lines as the catalogue (in code order), the rules a Linter
// runs, and the order in which rules leave each other's claims alone.
#include <algorithm>
#include <array>
#include <iterator>

#include "rules/rule.h"
#include "text/syntax.h"

namespace asyncfix::rules {

#define ASYNCFIX_RULE(file, Name, claims, when)                                                                        \
  extern const RuleInfo k##Name;                                                                                       \
  std::unique_ptr<Rule> make##Name();
#include "rules/registry.def"
#undef ASYNCFIX_RULE

namespace {

/// When a rule's claims hold (registry.def's last column).
enum class ClaimWhen : std::uint8_t { Always, Enabled };

struct Entry {
  const RuleInfo *info;
  std::unique_ptr<Rule> (*make)();
  unsigned claims; ///< Claim bits
  ClaimWhen when;
};

/// registry.def, in precedence order.
constexpr Entry kRegistry[] = {
#define ASYNCFIX_RULE(file, Name, claims, when) Entry{&k##Name, make##Name, claims, ClaimWhen::when},
#include "rules/registry.def"
#undef ASYNCFIX_RULE
};
constexpr std::size_t kRuleCount = std::size(kRegistry);

/// The entries sorted by code.
const std::array<const Entry *, kRuleCount> &byCode() {
  static const auto sorted = [] {
    std::array<const Entry *, kRuleCount> out{};
    for (std::size_t i = 0; i < kRuleCount; ++i) out[i] = &kRegistry[i];
    std::sort(out.begin(), out.end(), [](const Entry *a, const Entry *b) { return a->info->code < b->info->code; });
    return out;
  }();
  return sorted;
}

const std::array<const RuleInfo *, kRuleCount> &catalogue() {
  static const auto infos = [] {
    std::array<const RuleInfo *, kRuleCount> out{};
    for (std::size_t i = 0; i < kRuleCount; ++i) out[i] = byCode()[i]->info;
    return out;
  }();
  return infos;
}

/// One instance of each rule, in registry order, to ask about claims (rules are immutable).
const std::vector<std::unique_ptr<Rule>> &claimants() {
  static const auto rules = [] {
    std::vector<std::unique_ptr<Rule>> out;
    for (const Entry &e : kRegistry) out.push_back(e.make());
    return out;
  }();
  return rules;
}

/// `self`'s line in the registry.
std::size_t rankOf(const Rule &self) {
  for (std::size_t i = 0; i < kRuleCount; ++i)
    if (kRegistry[i].info == &self.info()) return i;
  return kRuleCount;
}

/// Whether the claims of `what` that line `i` declares hold under `config`: always, or while the
/// rule is enabled.
bool inForce(std::size_t i, unsigned what, const Config &config) {
  const Entry &e = kRegistry[i];
  return (e.claims & what) != 0 && (e.when == ClaimWhen::Always || config.rules.enables(e.info->code));
}

/// Does the rule on line `i` claim `node` as one of `what` (of those its line declares)?
bool claimsAt(std::size_t i, unsigned what, TSNode node, Context &ctx) {
  const unsigned asked = kRegistry[i].claims & what;
  for (unsigned bit = 1; bit != 0 && bit <= asked; bit <<= 1)
    if ((asked & bit) != 0 && claimants()[i]->claims(static_cast<Claim>(bit), node, ctx)) return true;
  return false;
}

} // namespace

TSNode Context::parentOf(TSNode node) const {
  const std::uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
  for (auto it = ancestors_.rbegin(); it != ancestors_.rend(); ++it) {
    if (it->tree != node.tree || ts_node_start_byte(*it) > start || ts_node_end_byte(*it) < end) continue;
    if (ts_node_eq(*it, node)) return std::next(it) == ancestors_.rend() ? ts_node_parent(node) : *std::next(it);
    for (TSNode parent = *it;;) {
      const TSNode child = ts_node_child_with_descendant(parent, node);
      if (ts_node_is_null(child)) break; // not below this ancestor after all
      if (ts_node_eq(child, node)) return parent;
      parent = child;
    }
    break;
  }
  return ts_node_parent(node);
}

TSNode Context::field(TSNode node, FieldName name) {
  // A node is its subtree in its tree at its start: a subtree appears once in a tree.
  const auto same = [&](TSNode a) {
    return a.id == node.id && a.tree == node.tree && ts_node_start_byte(a) == ts_node_start_byte(node);
  };
  for (const FieldMemo &m : fieldMemo_)
    if (m.field == name.index() && m.node.id != nullptr && same(m.node)) return m.child;
  const TSNode child = asyncfix::field(node, name);
  fieldMemo_[fieldMemoNext_] = {node, name.index(), child};
  fieldMemoNext_ = (fieldMemoNext_ + 1) % fieldMemo_.size();
  return child;
}

TSNode Context::nextStatement(TSNode statement, TSNode block) {
  if (!ts_node_is_null(block) && ts_node_symbol(block) != Kinds::get().module)
    return ts_node_next_named_sibling(statement);
  TSNode next = statement;
  do next = semantic().statementAfter(next);
  while (!ts_node_is_null(next) && !ts_node_is_named(next));
  return next;
}

bool Context::claimedByOther(const Rule &self, unsigned what, TSNode node) {
  for (std::size_t i = rankOf(self); i-- > 0;)
    if (inForce(i, what, config_) && claimsAt(i, what, node, *this)) return true;
  return false;
}

void Context::dropClaimedByOther(const Rule &self, unsigned what, std::vector<TSNode> &nodes) {
  if (nodes.empty()) return;
  std::vector<std::size_t> lines; // the rules that may claim some of them, nearest first
  for (std::size_t i = rankOf(self); i-- > 0;)
    if (inForce(i, what, config_)) lines.push_back(i);
  if (lines.empty()) return;
  std::erase_if(nodes, [&](TSNode n) {
    return std::any_of(lines.begin(), lines.end(), [&](std::size_t i) { return claimsAt(i, what, n, *this); });
  });
}

std::vector<std::unique_ptr<Rule>> makeAllRules() {
  std::vector<std::unique_ptr<Rule>> rules;
  for (const Entry *e : byCode()) rules.push_back(e->make());
  return rules;
}

Severity keywordSeverity(const Config &config) {
  return config.keywordsReserved() ? Severity::Error : Severity::Warning;
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

std::span<const RuleInfo *const> ruleCatalogue() { return rules::catalogue(); }

const RuleInfo *findRule(std::string_view codeOrName) {
  for (const RuleInfo *r : rules::catalogue())
    if (r->code == codeOrName || r->name == codeOrName) return r;
  return nullptr;
}

std::string ruleUrl(const RuleInfo &rule, std::string_view docsUrl) {
  std::string url(docsUrl.empty() ? defaultDocsUrl() : std::string(docsUrl));
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url + "/rules/" + std::string(rule.code) + ".md";
}

std::string ruleUrl(const RuleInfo &rule) { return ruleUrl(rule, {}); }

} // namespace asyncfix
