// Lints and fixes its argument with the installed C++ API; prints the JSON, then the fixed text.
#include <cstdio>
#include <string>

#include <asyncfix/linter.h>
#include <asyncfix/report.h>
#include <asyncfix/settings.h>

int main(int argc, char **argv) {
  const std::string source = argc > 1 ? argv[1] : "x.cuda(async=True)\n";
  auto settings = asyncfix::parseJsonSettings(R"({"select": ["AF1"]})");
  if (const auto *error = std::get_if<asyncfix::ConfigError>(&settings)) {
    std::fprintf(stderr, "%s\n", error->toString().c_str());
    return 2;
  }
  const asyncfix::Linter linter(std::get<asyncfix::ResolvedConfig>(settings).config);
  const asyncfix::Report report = linter.lint(source, "consumer.py");
  std::fputs(report.toJson().c_str(), stdout);
  std::fputs(linter.fix(source, "consumer.py").text.c_str(), stdout);
  return report.diagnostics().empty() ? 0 : 1;
}
