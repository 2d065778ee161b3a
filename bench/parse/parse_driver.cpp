// bench/parse/parse_driver.cpp — the physical limits asyncfix is measured against.
//
//   asyncfix_bench_parse MODE [-j N] [--files-from LIST] PATHS...
//
// MODE
//   read        read every .py file under PATHS (the I/O floor)
//   parse       read and tree-sitter-parse every file, no rules (the parse floor)
//   prefilter   read every file, run asyncfix's prefilter, parse only the files it keeps — the
//               bare parse cost of exactly the files `asyncfix check` has to parse
//   list        print the files the prefilter keeps, one per line (to time `asyncfix check` on them)
//   explain     for each file the prefilter keeps, the hit that kept it (the first one no judgement
//               rejected): `path:line:column: trigger: the line`, one per kept file
//   scan        read every file into memory first, then run the prefilter over them all, one
//               thread, --repeat N times (default 5): the prefilter's own cost with no read in it,
//               as the least CPU time of the rounds (steadier than `list` − `read` on a loaded
//               machine); prints scan_cpu_ms and scan_gbps besides the usual fields
//   verify      lint with every rule each file the prefilter skips — any finding is a prefilter bug —
//               and lint each file it keeps both with the pruned walk and visiting every node —
//               any difference is a pruning bug (both printed; exit 1)
//
// Files are found like `asyncfix check` finds them (recursive *.py, hidden directories skipped),
// shared by N threads through one atomic index. Prints one JSON object: files, bytes, kept
// (files parsed), kept_bytes, seconds, findings (verify).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tree_sitter/api.h>

#include "asyncfix/config.h"
#include "asyncfix/document.h"
#include "asyncfix/linter.h"
#include "asyncfix/linter_internals.h"

extern "C" const TSLanguage *tree_sitter_python(void);

namespace fs = std::filesystem;

namespace {

enum class Mode { Read, Parse, Prefilter, List, Explain, Verify, Scan };

/// The CPU time of this process so far, in milliseconds.
double processCpuMs() {
  timespec t{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

bool readFile(const std::string &path, std::string &out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return false;
  }
  out.resize(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  out.resize(done);
  ::close(fd);
  return true;
}

void collect(const fs::path &root, std::vector<std::string> &files) {
  std::error_code ec;
  if (fs::is_regular_file(root, ec)) {
    files.push_back(root.string());
    return;
  }
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const fs::path &p = it->path();
    const std::string name = p.filename().string();
    if (it->is_directory(ec)) {
      if (!name.empty() && name[0] == '.') it.disable_recursion_pending();
      continue;
    }
    if (p.extension() == ".py" && it->is_regular_file(ec)) files.push_back(p.string());
  }
}

/// `path:line:column: trigger: line` for the hit at byte `offset` of `text` (1-based line and
/// byte column; the line cut at 160 bytes).
std::string explainHit(const std::string &path, std::string_view text, std::string_view trigger, std::uint32_t offset) {
  const std::string_view before = text.substr(0, offset);
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  const std::size_t start = before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
  const std::size_t end = std::min(text.find_first_of("\r\n", offset), text.size());
  std::string out = path + ":" + std::to_string(line) + ":" + std::to_string(offset - start + 1) + ": ";
  out.append(trigger).append(": ").append(text.substr(start, std::min<std::size_t>(end - start, 160)));
  return out;
}

[[noreturn]] void usage() {
  std::fputs("usage: asyncfix_bench_parse read|parse|prefilter|list|explain|verify|scan [-j N] [--repeat N] "
             "[--files-from LIST] "
             "PATHS...\n",
             stderr);
  std::exit(2);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) usage();
  const std::string m = argv[1];
  Mode mode;
  if (m == "read") mode = Mode::Read;
  else if (m == "parse") mode = Mode::Parse;
  else if (m == "prefilter") mode = Mode::Prefilter;
  else if (m == "list") mode = Mode::List;
  else if (m == "explain") mode = Mode::Explain;
  else if (m == "verify") mode = Mode::Verify;
  else if (m == "scan") mode = Mode::Scan;
  else usage();

  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  int repeat = 5;
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-j" && i + 1 < argc) threads = static_cast<unsigned>(std::max(1, std::atoi(argv[++i])));
    else if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--files-from" && i + 1 < argc) {
      std::ifstream in(argv[++i]);
      for (std::string line; std::getline(in, line);)
        if (!line.empty()) files.push_back(line);
    } else collect(a, files);
  }
  std::sort(files.begin(), files.end());

  const asyncfix::Linter linter{asyncfix::Config{}};
  if (mode == Mode::Scan) {
    std::vector<std::string> texts;
    std::size_t total = 0, keptFiles = 0;
    for (const std::string &f : files)
      if (std::string t; readFile(f, t)) total += t.size(), texts.push_back(std::move(t));
    double best = 0;
    for (int r = 0; r < repeat; ++r) {
      keptFiles = 0;
      const double begin = processCpuMs();
      for (const std::string &t : texts) keptFiles += linter.mayHaveFindings(t) ? 1 : 0;
      const double spent = processCpuMs() - begin;
      best = r == 0 ? spent : std::min(best, spent);
    }
    std::printf("{\"files\": %zu, \"bytes\": %zu, \"kept\": %zu, \"scan_cpu_ms\": %.3f, \"scan_gbps\": %.3f}\n",
                texts.size(), total, keptFiles, best, best > 0 ? static_cast<double>(total) / 1e6 / best : 0.0);
    return 0;
  }
  std::atomic<std::size_t> next{0}, bytes{0}, kept{0}, keptBytes{0}, findings{0};
  std::vector<char> keep(files.size(), 0);
  std::vector<std::string> why(mode == Mode::Explain ? files.size() : 0);
  std::mutex outMutex;

  const auto start = std::chrono::steady_clock::now();
  auto work = [&] {
    TSParser *parser = ts_parser_new();
    ts_parser_set_language(parser, tree_sitter_python());
    std::string text;
    for (;;) {
      const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= files.size()) break;
      if (!readFile(files[i], text)) continue;
      bytes += text.size();
      bool parse = mode == Mode::Parse;
      if (mode == Mode::Prefilter || mode == Mode::List || mode == Mode::Explain || mode == Mode::Verify) {
        const bool may = linter.mayHaveFindings(text);
        if (mode == Mode::Verify && may) {
          const asyncfix::Document doc(text);
          if (linter.lint(doc) != asyncfix::LinterInternals::lintWithoutPruning(linter, doc)) {
            ++findings;
            const std::lock_guard lock(outMutex);
            std::fprintf(stderr, "the pruned walk misses or adds findings in %s\n", files[i].c_str());
          }
          continue;
        }
        if (mode == Mode::Verify) {
          const auto diagnostics = asyncfix::LinterInternals::lintWithoutPruning(linter, asyncfix::Document(text));
          if (!diagnostics.empty()) {
            findings += diagnostics.size();
            const std::lock_guard lock(outMutex);
            for (const auto &d : diagnostics)
              std::fprintf(stderr, "prefilter skipped %s but %.*s fires at byte %u\n", files[i].c_str(),
                           static_cast<int>(d.code.size()), d.code.data(), static_cast<unsigned>(d.start));
          }
          continue;
        }
        parse = may && mode == Mode::Prefilter;
        if (may && mode == Mode::Explain) {
          const auto hit = asyncfix::LinterInternals::keptBy(linter, text);
          why[i] = explainHit(files[i], text, hit.trigger, hit.offset);
        }
        if (may) {
          keep[i] = 1;
          ++kept;
          keptBytes += text.size();
        }
      }
      if (parse) {
        TSTree *tree = ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size()));
        ts_tree_delete(tree);
      }
    }
    ts_parser_delete(parser);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto &t : pool) t.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (mode == Mode::List || mode == Mode::Explain)
    for (std::size_t i = 0; i < files.size(); ++i)
      if (keep[i]) std::printf("%s\n", mode == Mode::List ? files[i].c_str() : why[i].c_str());
  std::fprintf(mode == Mode::List || mode == Mode::Explain ? stderr : stdout,
               "{\"files\": %zu, \"bytes\": %zu, \"kept\": %zu, \"kept_bytes\": %zu, \"seconds\": %.6f, "
               "\"findings\": %zu}\n",
               files.size(), bytes.load(), kept.load(), keptBytes.load(), seconds, findings.load());
  return findings.load() == 0 ? 0 : 1;
}
