// `Progress` draws a one-line progress bar with rate and ETA on a terminal
// ("recode  [#######.......]  52%  5.2k/10.0k records  1.3k/s  ETA 0:04"),
// redrawn at most ten times a second, and nothing at all when disabled
// (stderr is not a terminal, or `--quiet`). Single-threaded.

#ifndef LOADERX_TOOLS_CLI_PROGRESS_H_
#define LOADERX_TOOLS_CLI_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/strings/string_view.h"

namespace loaderx::cli {

class Progress {
 public:
  // Counts `total` `unit`s (0: unknown, no bar or ETA) under `label`,
  // drawing on `stream` if `enabled`.
  Progress(bool enabled, std::FILE* stream, std::string label, uint64_t total,
           std::string unit);
  ~Progress();  // Finishes the line if it was drawn.
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void Advance(uint64_t count);
  // Draws the final state and ends the line.
  void Finish();

 private:
  void Draw(bool final);

  const bool enabled_;
  std::FILE* const stream_;
  const std::string label_;
  const uint64_t total_;
  const std::string unit_;
  uint64_t done_ = 0;
  bool drawn_ = false;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

// Whether stderr is a terminal progress can be drawn on.
bool StderrIsTerminal();

// `count` with a k/M/G suffix: "5.2k", "13", "1.0G".
std::string HumanCount(double count);

}  // namespace loaderx::cli

#endif  // LOADERX_TOOLS_CLI_PROGRESS_H_
