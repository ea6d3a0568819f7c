// What every loaderx C++ benchmark shares: flags of its own taken off the
// command line before Google Benchmark sees it, and a reporter that, after
// the usual table, prints each benchmark's throughput as a ratio to a
// baseline measured in the same run (the median, with repetitions) and
// remembers whether anything failed, validation included.

#ifndef LOADERX_TOOLS_BENCHMARK_SUPPORT_H_
#define LOADERX_TOOLS_BENCHMARK_SUPPORT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"

namespace loaderx {

// Removes every `--name=value` whose name is in `flags` from the arguments,
// calling its handler with the value; returns the remaining arguments
// (argv[0] first) for `benchmark::Initialize`.
std::vector<char*> TakeFlags(
    int argc, char** argv,
    const std::map<std::string, std::function<void(const char*)>>& flags);

// `TakeFlags` handlers that parse a flag's value into `field`.
std::function<void(const char*)> UintFlag(uint64_t& field);
std::function<void(const char*)> IntFlag(int& field);
std::function<void(const char*)> StringFlag(std::string& field);

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  // `baseline` is a benchmark's function name; `context` is printed in the
  // ratio table's heading.
  RatioReporter(std::string baseline, std::string context);

  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  bool failed() const { return failed_; }

 private:
  const std::string baseline_;
  const std::string context_;
  std::map<std::string, double> throughput_;
  std::set<std::string> medians_;
  bool failed_ = false;
};

}  // namespace loaderx

#endif  // LOADERX_TOOLS_BENCHMARK_SUPPORT_H_
