// A timing harness for libclassad (HTCondor's ClassAd library), so that the
// ClassAd benches can print a ratio against the original measured in the same
// run. Built by bench/native/build.sh; see there for where libclassad comes from.
//
// Usage:
//   classad-harness <job ad file> <machine ads file> N...
//       One job matched against the first N machine ads as the negotiator's
//       inner loop does: per machine, the symmetric match (both Requirements),
//       then the job's Rank for a match, keeping the best. Prints `<N> <µs>`
//       per size: CPU µs of one pass over N machines (median of samples).
//   classad-harness --ops <job ad file> <slot ad file>
//       Prints `<op> <µs>` lines, CPU µs per operation (median of samples):
//       parse (job and slot ads from text, expression cache off),
//       parse-slot (the slot ad alone, expression cache off),
//       parse-cached (the same with the expression cache on and warm),
//       requirements (the job's Requirements against the slot),
//       symmetric (both Requirements), rank (the job's Rank against the slot).
//
// Ads are in the old long form (`Name = Expr`, one a line, as `condor_q -l`
// prints them; a file of machine ads separates ads by blank lines) or in new
// syntax (`[ … ]`, one ad per file). Settings are the daemons' defaults: old
// ClassAd semantics (STRICT_CLASSAD_EVALUATION false) and, for the machine
// ads, which the collector holds, the expression cache on
// (ENABLE_CLASSAD_CACHING true). Both ads of the match loop are optimized for
// matchmaking once, as the negotiator does when it reads them; the --ops
// figures use the ads as parsed. CPU time is the process's
// (CLOCK_PROCESS_CPUTIME_ID), as our benches measure theirs.

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "classad/classad_distribution.h"
#include "classad/matchClassad.h"

namespace {

using classad::ClassAd;

double cpuMicros() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

std::string readFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path);
    std::exit(1);
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool isBlank(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c) != 0; });
}

// Reads one ad from its text: new syntax when it starts with '[', else the old
// long form, one `Name = Expr` a line through ClassAd::Insert (the library's
// reading of a long-form line). Returns null on a line or ad it rejects.
ClassAd* parseAd(const std::string& text, std::string& line) {
  size_t i = text.find_first_not_of(" \t\r\n");
  if (i != std::string::npos && text[i] == '[') {
    classad::ClassAdParser parser;
    return parser.ParseClassAd(text, true);
  }
  auto* ad = new ClassAd();
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    line.assign(text, at, end - at);
    at = end + 1;
    if (isBlank(line)) continue;
    if (!ad->Insert(line.c_str())) {
      std::fprintf(stderr, "libclassad rejects the line: %s\n", line.c_str());
      delete ad;
      return nullptr;
    }
  }
  return ad;
}

ClassAd* mustParse(const std::string& text) {
  std::string line;
  ClassAd* ad = parseAd(text, line);
  if (!ad) std::exit(1);
  return ad;
}

// The ads of a machine ads file: old long form separated by blank lines.
std::vector<std::string> splitAds(const std::string& text) {
  std::vector<std::string> ads;
  std::string cur;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    at = end + 1;
    if (isBlank(line)) {
      if (!cur.empty()) ads.push_back(cur), cur.clear();
    } else {
      cur += line;
      cur += '\n';
    }
  }
  if (!cur.empty()) ads.push_back(cur);
  return ads;
}

// CPU µs per call of `op`: enough calls per sample for `sampleMicros` of CPU,
// `samples` samples after one untimed warm-up sample; the median.
double timeOp(const std::function<void()>& op, double sampleMicros = 20000, int samples = 5) {
  long reps = 1;
  for (;;) {
    double t0 = cpuMicros();
    for (long i = 0; i < reps; i++) op();
    double spent = cpuMicros() - t0;
    if (spent >= sampleMicros / 4 || reps >= (1L << 30)) {
      reps = std::max(1L, static_cast<long>(reps * sampleMicros / std::max(spent, 1.0)));
      break;
    }
    reps *= 4;
  }
  std::vector<double> per;
  for (int s = 0; s <= samples; s++) {
    double t0 = cpuMicros();
    for (long i = 0; i < reps; i++) op();
    if (s > 0) per.push_back((cpuMicros() - t0) / reps);
  }
  std::sort(per.begin(), per.end());
  return per[per.size() / 2];
}

// The negotiator's pass over the machines for one job: IsAMatch (the
// symmetric match in the shared match ad), then EvalFloat(ATTR_RANK) of the
// job against the machine for each match; the best rank wins.
long matchPass(classad::MatchClassAd& mad, ClassAd* job, const std::vector<ClassAd*>& machines, size_t n) {
  long best = -1;
  double bestRank = 0;
  mad.ReplaceLeftAd(job);
  for (size_t i = 0; i < n; i++) {
    mad.ReplaceRightAd(machines[i]);
    if (mad.symmetricMatch()) {
      double rank = 0;
      if (!job->EvaluateAttrNumber("Rank", rank)) rank = 0;
      if (best < 0 || rank > bestRank) best = static_cast<long>(i), bestRank = rank;
    }
    mad.RemoveRightAd();
  }
  mad.RemoveLeftAd();
  return best;
}

int runMatch(int argc, char** argv) {
  ClassAd* job = mustParse(readFile(argv[1]));
  std::vector<size_t> sizes;
  for (int i = 3; i < argc; i++) sizes.push_back(std::strtoul(argv[i], nullptr, 10));
  size_t most = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  classad::ClassAdSetExpressionCaching(true);
  std::vector<std::string> texts = splitAds(readFile(argv[2]));
  if (texts.size() < most) {
    std::fprintf(stderr, "%zu machine ads, %zu needed\n", texts.size(), most);
    return 1;
  }
  std::vector<ClassAd*> machines;
  std::string line;
  std::string err;
  for (size_t i = 0; i < most; i++) {
    ClassAd* m = parseAd(texts[i], line);
    if (!m) return 1;
    classad::MatchClassAd::OptimizeRightAdForMatchmaking(m, &err);
    machines.push_back(m);
  }
  texts.clear();
  classad::MatchClassAd::OptimizeLeftAdForMatchmaking(job, &err);
  classad::MatchClassAd mad;
  if (matchPass(mad, job, machines, 1) < 0) {
    std::fprintf(stderr, "the job does not match the first machine\n");
    return 1;
  }
  for (size_t n : sizes) {
    long best = -1;
    double us = timeOp([&] { best = matchPass(mad, job, machines, n); }, 50000, 3);
    if (best < 0) return 1;
    std::printf("%zu %.3f\n", n, us);
  }
  return 0;
}

int runOps(char** argv) {
  std::string jobText = readFile(argv[2]);
  std::string slotText = readFile(argv[3]);
  std::string line;
  auto parseBoth = [&] {
    ClassAd* a = parseAd(jobText, line);
    ClassAd* b = parseAd(slotText, line);
    if (!a || !b) std::exit(1);
    delete a;
    delete b;
  };
  auto parseSlot = [&] {
    ClassAd* b = parseAd(slotText, line);
    if (!b) std::exit(1);
    delete b;
  };
  classad::ClassAdSetExpressionCaching(false);
  std::printf("parse %.3f\n", timeOp(parseBoth));
  std::printf("parse-slot %.3f\n", timeOp(parseSlot));
  classad::ClassAdSetExpressionCaching(true);
  parseBoth();
  std::printf("parse-cached %.3f\n", timeOp(parseBoth));
  classad::ClassAdSetExpressionCaching(false);

  ClassAd* job = mustParse(jobText);
  ClassAd* slot = mustParse(slotText);
  classad::MatchClassAd mad(job, slot);
  bool req = false;
  if (!job->EvaluateAttrBool("Requirements", req) || !req || !mad.symmetricMatch()) {
    std::fprintf(stderr, "the job and slot ads do not match\n");
    return 1;
  }
  std::printf("requirements %.3f\n", timeOp([&] { job->EvaluateAttrBool("Requirements", req); }));
  std::printf("symmetric %.3f\n", timeOp([&] { req = mad.symmetricMatch(); }));
  double rank = 0;
  std::printf("rank %.3f\n", timeOp([&] { job->EvaluateAttrNumber("Rank", rank); }));
  mad.RemoveLeftAd();
  mad.RemoveRightAd();
  delete job;
  delete slot;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  classad::SetOldClassAdSemantics(true);
  if (argc == 4 && std::strcmp(argv[1], "--ops") == 0) return runOps(argv);
  if (argc >= 4 && argv[1][0] != '-') return runMatch(argc, argv);
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
    std::string v;
    classad::ClassAdLibraryVersion(v);
    std::printf("%s\n", v.c_str());
    return 0;
  }
  std::fprintf(stderr,
               "usage: classad-harness <job ad> <machine ads> N... | --ops <job ad> <slot ad> | --version\n");
  return 2;
}
