#include "tools/cli/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "absl/strings/str_format.h"

namespace loaderx::cli {
namespace {

constexpr int kBarWidth = 24;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

std::string Duration(double seconds) {
  const uint64_t whole = static_cast<uint64_t>(seconds + 0.5);
  if (whole >= 3600) {
    return absl::StrFormat("%d:%02d:%02d", whole / 3600, whole / 60 % 60,
                           whole % 60);
  }
  return absl::StrFormat("%d:%02d", whole / 60, whole % 60);
}

}  // namespace

bool StderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

std::string HumanCount(double count) {
  static constexpr const char* kSuffixes[] = {"", "k", "M", "G", "T"};
  int suffix = 0;
  while (count >= 1000 && suffix < 4) {
    count /= 1000;
    ++suffix;
  }
  if (suffix == 0) return absl::StrFormat("%.0f", count);
  return absl::StrFormat("%.1f%s", count, kSuffixes[suffix]);
}

Progress::Progress(bool enabled, std::FILE* stream, std::string label,
                   uint64_t total, std::string unit)
    : enabled_(enabled),
      stream_(stream),
      label_(std::move(label)),
      total_(total),
      unit_(std::move(unit)),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

Progress::~Progress() {
  if (drawn_ && !finished_) {
    std::fputc('\n', stream_);
    std::fflush(stream_);
  }
}

void Progress::Advance(uint64_t count) {
  done_ += count;
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  Draw(false);
}

void Progress::Finish() {
  if (!enabled_ || finished_) return;
  Draw(true);
  std::fputc('\n', stream_);
  std::fflush(stream_);
  finished_ = true;
}

void Progress::Draw(bool final) {
  const double elapsed = std::max(
      1e-6,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
          .count());
  const double rate = static_cast<double>(done_) / elapsed;
  std::string line = absl::StrFormat("\r%-8s", label_);
  if (total_ > 0) {
    const double fraction =
        std::min(1.0, static_cast<double>(done_) / static_cast<double>(total_));
    const int filled = static_cast<int>(fraction * kBarWidth);
    absl::StrAppendFormat(
        &line, " [%s%s] %3d%%  %s/%s %s", std::string(filled, '#'),
        std::string(kBarWidth - filled, '.'), static_cast<int>(fraction * 100),
        HumanCount(static_cast<double>(done_)),
        HumanCount(static_cast<double>(total_)), unit_);
  } else {
    absl::StrAppendFormat(&line, " %s %s", HumanCount(done_), unit_);
  }
  absl::StrAppendFormat(&line, "  %s/s", HumanCount(rate));
  if (final) {
    absl::StrAppendFormat(&line, "  in %s", Duration(elapsed));
  } else if (total_ > 0 && rate > 0 && done_ < total_) {
    absl::StrAppendFormat(&line, "  ETA %s",
                          Duration(static_cast<double>(total_ - done_) / rate));
  }
  line += "\x1b[K";  // Clear what a longer line left behind.
  std::fputs(line.c_str(), stream_);
  std::fflush(stream_);
  drawn_ = true;
}

}  // namespace loaderx::cli
