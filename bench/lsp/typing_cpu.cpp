// bench/lsp/typing_cpu.cpp — the typing traces of lsp_latency.cpp, in process: the engine's own
// work per keystroke (IncrementalLint over a chunked Document, as the language server's worker
// does it), in CPU time of this thread, so that a busy machine does not blur it.
//
//   asyncfix_typing_cpu [--lines N] [--first-async [--rejected [--no-adopt]]] [--no-contain] [--repeat N] [--each]
//   asyncfix_typing_cpu --bad-input [--lines N] [--no-contain]
//
// Types `    y = batch.cuda(async=True)` after a training function's `model.train()` in the
// middle of bench::generateTraining(N) (or, with --first-async, `async def prefetch(queue):` on a
// blank line of the script without coroutines), one character per edit, then deletes it, N times
// (5: 310 keystrokes; 0: none, the first lint alone, for a profiler). --no-contain never takes
// IncrementalLint's contained path (a statement left open linted on its own): the figures without
// that fast path. Reports median / p90 / p99 / max CPU milliseconds per keystroke, the keystroke
// that completes `async`, and the first lint (didOpen) against a bare parse of the text and the
// CLI's lint of the parsed tree (best of three each; the first didOpen of the three too), with
// how many statements the first lint's semantic model walked.
// --each prints every keystroke's CPU time and how many statements it linted again.
// --rejected types into the script without its `non_blocking=True` arguments, which the
// prefilter rejects as a whole: as the language server does, the text is parsed, not linted,
// and its statements are held as "no finding" (IncrementalLint::adoptRejected) until the
// keystroke that makes it worth linting; --no-adopt does what the server did before that: no
// lint held, a whole lint at that keystroke.
//
// --bad-input replays bad_input.h's traces over the script (an unclosed bracket high up, a `def`
// merged into the function before it and split again, DataLoader lines deleted and restored, a
// paste of N/4 lines and its undo), each from a fresh didOpen: per trace its keystrokes' median
// and slowest CPU time beside a fresh lint (parse and lint) of the text at that slowest
// keystroke, and whether the findings once settled (an update without the contained path)
// equal a fresh lint's.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "asyncfix/document.h"
#include "asyncfix/document_internals.h"
#include "asyncfix/incremental.h"
#include "asyncfix/linter.h"
#include "bad_input.h"
#include "training_script.h"

namespace {

double cpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

double at(std::vector<double> ms, double q) {
  std::sort(ms.begin(), ms.end());
  return ms[std::min(ms.size() - 1, static_cast<std::size_t>(q * static_cast<double>(ms.size())))];
}

/// --bad-input: see the file's comment.
int badInput(int lines, bool contain) {
  const std::string text = bench::generateTraining(lines, true);
  const asyncfix::Linter linter;
  const auto freshMs = [&](const std::string &t) {
    double best = 1e300;
    for (int i = 0; i < 2; ++i) {
      const double t0 = cpuMs();
      const asyncfix::Document fresh(t);
      (void)linter.lint(fresh);
      best = std::min(best, cpuMs() - t0);
    }
    return best;
  };
  bool allSettled = true, allFaster = true;
  for (const bench::Trace &trace : bench::badInputTraces(text, bench::generateTraining(lines / 4, true))) {
    asyncfix::Document doc(text);
    asyncfix::DocumentInternals::setChunking(doc, 1); // as the language server holds its documents
    asyncfix::IncrementalLint lint;
    (void)lint.update(linter, doc, contain);
    std::vector<double> ms;
    double slowest = -1;
    std::string slowestText;
    for (const bench::Edit &e : trace.edits) {
      const double t0 = cpuMs();
      lint.willEdit(doc, e.start, e.end, e.text);
      doc.edit(e.start, e.end, e.text);
      (void)lint.update(linter, doc, contain);
      ms.push_back(cpuMs() - t0);
      if (ms.back() > slowest) {
        slowest = ms.back();
        slowestText = doc.text();
      }
    }
    const bool settled = lint.update(linter, doc) == linter.lint(asyncfix::Document(doc.text()));
    const double fresh = freshMs(slowestText);
    allSettled = allSettled && settled;
    allFaster = allFaster && slowest <= fresh;
    std::printf("bad input \"%s\", %d lines: %zu keystrokes: median %.2f ms, slowest %.2f ms; a fresh lint of that "
                "text %.2f ms (slowest / fresh %.2f); settled findings %s a fresh lint's (CPU time)\n",
                trace.name.c_str(), lines, ms.size(), at(ms, 0.5), slowest, fresh, slowest / fresh,
                settled ? "equal" : "DIFFER FROM");
  }
  return allSettled && allFaster ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  int lines = 20000, repeat = 5;
  bool firstAsync = false, contain = true, rejected = false, adopt = true, bad = false, each = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--first-async") firstAsync = true;
    else if (arg == "--no-contain") contain = false;
    else if (arg == "--rejected") rejected = firstAsync = true;
    else if (arg == "--no-adopt") adopt = false;
    else if (arg == "--bad-input") bad = true;
    else if (arg == "--each") each = true;
    else if (arg == "--lines" && i + 1 < argc) lines = std::atoi(argv[++i]);
    else if (arg == "--repeat" && i + 1 < argc) repeat = std::max(0, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: asyncfix_typing_cpu [--lines N] [--first-async [--rejected [--no-adopt]]] "
                           "[--no-contain] [--repeat N] [--each]\n       asyncfix_typing_cpu --bad-input [--lines N] "
                           "[--no-contain]\n");
      return 2;
    }
  }
  if (bad) return badInput(lines, contain);
  const std::string text = rejected ? bench::withoutCandidates(bench::generateTraining(lines, false))
                                    : bench::generateTraining(lines, !firstAsync);
  const std::string anchor = firstAsync ? "\n\n\ndef " : "    model.train()\n";
  std::size_t where = text.find(anchor, text.size() / 2);
  if (where == std::string::npos) return 1;
  where = firstAsync ? where + 2 : where + anchor.size();
  const std::string typed = firstAsync ? "async def prefetch(queue):\n" : "    y = batch.cuda(async=True)\n";
  const std::size_t completing = typed.find("async") + 4;

  const asyncfix::Linter linter;
  // What the first lint is made of, as the CLI does it: a bare parse of the text, then a lint of
  // that tree (the best of three each).
  double parseMs = 1e300, lintMs = 1e300;
  for (int i = 0; i < 3; ++i) {
    const asyncfix::Document fresh(text);
    const double t0 = cpuMs();
    (void)asyncfix::DocumentInternals::parse(fresh);
    const double t1 = cpuMs();
    (void)linter.lint(fresh);
    parseMs = std::min(parseMs, t1 - t0);
    lintMs = std::min(lintMs, cpuMs() - t1);
  }
  // As the language server's worker: a text the prefilter rejects is parsed, not linted.
  const auto open = [&](const asyncfix::Document &d, asyncfix::IncrementalLint &l) -> std::size_t {
    if (!l.holdsResults() && !linter.mayHaveFindings(d.text())) {
      (void)d.parsed();
      if (adopt) l.adoptRejected(linter, d);
      return 0;
    }
    return l.update(linter, d, contain).size();
  };
  if (rejected && linter.mayHaveFindings(text)) {
    std::fprintf(stderr, "asyncfix_typing_cpu: the --rejected text is kept by the prefilter\n");
    return 1;
  }
  // didOpen is timed as the bare parse is, the best of three (each a fresh document): one cold
  // run against a best of three would count the machine's noise on one side only. The first
  // of them is reported too. --repeat 0 (for a profiler) opens once.
  double firstOpenMs = -1, openMs = 1e300;
  for (int i = 0; i < 2 && repeat > 0; ++i) {
    asyncfix::Document d(text);
    asyncfix::DocumentInternals::setChunking(d, 1);
    asyncfix::IncrementalLint l;
    const double t0 = cpuMs();
    (void)open(d, l);
    const double ms = cpuMs() - t0;
    if (firstOpenMs < 0) firstOpenMs = ms;
    openMs = std::min(openMs, ms);
  }
  asyncfix::Document doc(text);
  asyncfix::DocumentInternals::setChunking(doc, 1); // as the language server holds its documents
  asyncfix::IncrementalLint lint;
  const auto analyze = [&] { return open(doc, lint); };
  double start = cpuMs();
  const std::size_t findings = analyze();
  const double lastOpenMs = cpuMs() - start;
  if (firstOpenMs < 0) firstOpenMs = lastOpenMs;
  openMs = std::min(openMs, lastOpenMs);
  const asyncfix::IncrementalLint::Stats opened = lint.stats();
  if (repeat == 0) { // the first lint alone, for a profiler
    std::printf("first lint %.2f ms (%.2fx a bare parse of %.2f ms; the semantic model walked %zu of %zu statements)\n",
                openMs, openMs / parseMs, parseMs, opened.walked, opened.statements);
    return 0;
  }
  std::vector<double> ms, completingMs;
  std::size_t judgedLocally = 0; // keystrokes whose text stayed rejected, judged around the edit
  const auto key = [&](std::size_t from, std::size_t to, const std::string &insert) {
    start = cpuMs();
    lint.willEdit(doc, from, to, insert);
    doc.edit(from, to, insert);
    (void)analyze();
    ms.push_back(cpuMs() - start);
    if (each)
      std::printf("keystroke %zu: %.3f ms, %zu of %zu statements linted%s\n", ms.size(), ms.back(), lint.stats().linted,
                  lint.stats().statements, lint.stats().contained ? ", contained" : "");
    judgedLocally += lint.stats().rejectedLocally ? 1 : 0;
  };
  for (int r = 0; r < repeat; ++r) {
    for (std::size_t k = 0; k < typed.size(); ++k) {
      key(where + k, where + k, typed.substr(k, 1));
      if (k == completing) completingMs.push_back(ms.back());
    }
    for (std::size_t k = typed.size(); k > 0; --k) key(where + k - 1, where + k, "");
  }
  std::printf("%s, %d lines, %zu bytes, %zu findings%s: first lint %.2f ms, best of three (%.2fx a bare parse of "
              "%.2f ms; the first of them %.2f ms, %.2fx; the CLI's lint of a parsed tree %.2f ms; the semantic model "
              "walked %zu of %zu statements); %zu keystrokes: "
              "median %.2f ms, p90 "
              "%.2f ms, p99 %.2f ms, max %.2f ms; the keystroke completing `async`: median %.2f ms, max %.2f ms "
              "(CPU time); %zu kept rejected by the edited statements alone\n",
              rejected ? (adopt ? "first-async trace, rejected file" : "first-async trace, rejected file, not adopted")
              : firstAsync ? "first-async trace"
                           : "typing trace",
              lines, text.size(), findings, contain ? "" : " (no contained path)", openMs, openMs / parseMs, parseMs,
              firstOpenMs, firstOpenMs / parseMs, lintMs, opened.walked, opened.statements, ms.size(), at(ms, 0.5),
              at(ms, 0.9), at(ms, 0.99), at(ms, 1.0), at(completingMs, 0.5), at(completingMs, 1.0), judgedLocally);
  return 0;
}
