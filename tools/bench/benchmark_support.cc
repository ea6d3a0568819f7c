#include "tools/bench/benchmark_support.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace loaderx {

std::vector<char*> TakeFlags(
    int argc, char** argv,
    const std::map<std::string, std::function<void(const char*)>>& flags) {
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t equals = arg.find('=');
    auto it = equals == std::string::npos ? flags.end()
                                          : flags.find(arg.substr(0, equals));
    if (it == flags.end()) {
      rest.push_back(argv[i]);
    } else {
      it->second(argv[i] + equals + 1);
    }
  }
  return rest;
}

std::function<void(const char*)> UintFlag(uint64_t& field) {
  return [&field](const char* value) {
    field = std::strtoull(value, nullptr, 10);
  };
}

std::function<void(const char*)> IntFlag(int& field) {
  return [&field](const char* value) { field = std::atoi(value); };
}

std::function<void(const char*)> StringFlag(std::string& field) {
  return [&field](const char* value) { field = value; };
}

RatioReporter::RatioReporter(std::string baseline, std::string context)
    : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_ColorTabular : OO_Tabular),
      baseline_(std::move(baseline)),
      context_(std::move(context)) {}

void RatioReporter::ReportRuns(const std::vector<Run>& runs) {
  ConsoleReporter::ReportRuns(runs);
  for (const Run& run : runs) {
    if (run.error_occurred) failed_ = true;
    const bool median =
        run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
    if (run.error_occurred || !(median || run.run_type == Run::RT_Iteration)) {
      continue;
    }
    auto it = run.counters.find("bytes_per_second");
    if (it == run.counters.end()) continue;
    const std::string name = run.run_name.function_name;
    // A median replaces the single runs it summarises.
    if (median || !medians_.count(name)) throughput_[name] = it->second.value;
    if (median) medians_.insert(name);
  }
}

void RatioReporter::Finalize() {
  ConsoleReporter::Finalize();
  auto base = throughput_.find(baseline_);
  if (base == throughput_.end() || base->second <= 0) return;
  std::printf("\nthroughput relative to %s (%s):\n", baseline_.c_str(),
              context_.c_str());
  for (const auto& [name, bytes_per_second] : throughput_) {
    std::printf("  %-28s %9.1f MiB/s  %5.2fx\n", name.c_str(),
                bytes_per_second / (1 << 20), bytes_per_second / base->second);
  }
}

}  // namespace loaderx
