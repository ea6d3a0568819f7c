#include "tests/damage/capped_subprocess.h"

#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define LOADERX_SHADOW_MEMORY 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LOADERX_SHADOW_MEMORY 1
#endif

namespace loaderx::damage {
namespace {

int result_fd = -1;

void WriteAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// Called when an allocation fails at the cap: that is the outcome.
void OnOutOfMemory() {
  WriteAll(result_fd, absl::StrCat(static_cast<int>(Outcome::kMemoryCap),
                                   " an allocation failed at the cap"));
  ::_exit(0);
}

// Clears every capability (effective, permitted, inheritable).
void DropCapabilities() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  ::syscall(SYS_capset, &header, data);
}

[[noreturn]] void Child(const std::function<ProbeResult()>& body, int seconds,
                        uint64_t address_space) {
  if (MemoryCapAvailable()) {
    const rlimit limit{address_space, address_space};
    ::setrlimit(RLIMIT_AS, &limit);
  }
  std::set_new_handler(OnOutOfMemory);
  DropCapabilities();
  ::alarm(static_cast<unsigned>(seconds));
  const ProbeResult result = body();
  WriteAll(result_fd,
           absl::StrCat(static_cast<int>(result.outcome), " ", result.detail));
  ::_exit(0);
}

}  // namespace

bool MemoryCapAvailable() {
#ifdef LOADERX_SHADOW_MEMORY
  return false;
#else
  return true;
#endif
}

ProbeResult RunCapped(const std::function<ProbeResult()>& body, int seconds,
                      uint64_t address_space) {
  int fds[2];
  if (::pipe(fds) != 0) return {Outcome::kCrash, "pipe failed"};
  const pid_t pid = ::fork();
  if (pid < 0) return {Outcome::kCrash, "fork failed"};
  if (pid == 0) {
    ::close(fds[0]);
    result_fd = fds[1];
    Child(body, seconds, address_space);
  }
  ::close(fds[1]);
  // Read until the child closes the pipe, or the deadline (the alarm's,
  // and then some) passes.
  std::string reply;
  bool deadline_passed = false;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(seconds + 10);
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      deadline_passed = true;
      break;
    }
    pollfd poll_fd{fds[0], POLLIN, 0};
    const int ready = ::poll(&poll_fd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buffer[4096];
    const ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reply.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  if (deadline_passed) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (deadline_passed) {
    return {Outcome::kTimeout,
            absl::StrCat("no end after ", seconds + 10, "s")};
  }
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    if (signal == SIGALRM) {
      return {Outcome::kTimeout, absl::StrCat("past the ", seconds, "s cap")};
    }
    return {Outcome::kCrash, absl::StrCat("killed by ", strsignal(signal))};
  }
  const size_t space = reply.find(' ');
  int outcome = 0;
  if (WEXITSTATUS(status) != 0 || space == std::string::npos ||
      !absl::SimpleAtoi(reply.substr(0, space), &outcome) || outcome < 0 ||
      outcome >= kOutcomeCount) {
    return {Outcome::kCrash,
            absl::StrCat("exit status ", WEXITSTATUS(status), ", reply '",
                         reply.substr(0, 200), "'")};
  }
  return {static_cast<Outcome>(outcome), reply.substr(space + 1)};
}

}  // namespace loaderx::damage
