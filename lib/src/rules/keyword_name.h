// rules/keyword_name.h — the shared engine of AF001 (`async` as a name) and AF002 (`await`).
#pragma once

#include "rules/rule.h"

namespace asyncfix::rules {

/// Flags every use of `keyword` as a name and offers a scope-aware rename of the binding.
class KeywordNameRule : public Rule {
public:
  KeywordNameRule(std::string_view keyword, const RuleInfo &info) : keyword_(keyword), info_(info) {}
  const RuleInfo &info() const override { return info_; }
  std::vector<TSSymbol> subscriptions() const override;
  void check(TSNode node, Context &ctx) const override;

private:
  void checkToken(TSNode token, Context &ctx) const;
  void checkIdentifier(TSNode node, Context &ctx) const;
  std::string message(Context &ctx, std::string_view what) const;

  std::string_view keyword_;
  const RuleInfo &info_;
};

} // namespace asyncfix::rules
