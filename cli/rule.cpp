// cli/rule.cpp — `asyncfix rule CODE` / `asyncfix rule --all`: the rule documentation.
#include <cstdio>
#include <vector>

#include "asyncfix/rules.h"
#include "commands.h"

namespace asyncfix::cli {

int runRule(const RuleOptions &options) {
  std::vector<const RuleInfo *> rules;
  if (options.all) {
    const auto catalogue = ruleCatalogue();
    rules.assign(catalogue.begin(), catalogue.end());
  }
  bool unknown = false;
  for (const std::string &code : options.codes) {
    if (const RuleInfo *rule = findRule(code)) {
      rules.push_back(rule);
    } else {
      std::fprintf(stderr, "error: unknown rule `%s` (see `asyncfix rule --all`)\n", code.c_str());
      unknown = true;
    }
  }
  if (unknown) {
    return kExitFailure;
  }
  if (rules.empty()) {
    std::fputs("error: name a rule (`asyncfix rule AF101`) or use --all\n", stderr);
    return kExitFailure;
  }
  const std::string text = renderRules(rules, options.json, options.all || options.codes.size() > 1, options.docsUrl);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitClean;
}

} // namespace asyncfix::cli
