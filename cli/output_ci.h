// cli/output_ci.h — the formats CI systems read: SARIF (output_sarif.cpp), GitHub workflow
// commands, GitLab Code Quality and JUnit XML (output_ci.cpp). Internal to the CLI; the public
// entry point is renderDiagnostics() in output.h.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asyncfix/report.h"

namespace asyncfix::cli {

/// `docsUrl`: the manual's address for the rules' helpUri (ruleUrl(); empty for the default).
std::string renderSarif(std::span<const FileDiagnostics> files, std::string_view docsUrl = {});
std::string renderGithub(std::span<const FileDiagnostics> files);
std::string renderGitlab(std::span<const FileDiagnostics> files);
std::string renderJunit(std::span<const FileDiagnostics> files);

/// How a reported path is spelt in CI reports: relative to the working directory when it lies
/// under it ("./a/../b.py" → "b.py", "/cwd/b.py" → "b.py"), else absolute ("../x.py" →
/// "/parent/x.py"). Lexical only (no symlinks resolved); bytes are kept as they are.
struct ReportPath {
  std::string path;
  bool relative = true;
};
ReportPath reportPath(std::string_view path);

/// The working directory, absolute, without a trailing slash ("" when it cannot be read).
std::string workingDirectory();

/// One fingerprint per diagnostic of `file`, stable while the flagged line's content stays the
/// same: a hash of the path, the code, the line's text without surrounding blanks, and how many
/// earlier diagnostics of the file share those three (so that lines moving up or down keep their
/// fingerprints, and two identical findings still differ). 16 lowercase hex digits. In a
/// notebook the line is the cell's and the cell number is not part of the hash, so inserting or
/// moving cells keeps the fingerprints too.
std::vector<std::string> fingerprints(const FileDiagnostics &file);

} // namespace asyncfix::cli
