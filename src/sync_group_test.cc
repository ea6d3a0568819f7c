// `SyncGroup`: its members overlap when the VFS allows it (each waits here
// until all are in flight, which a one-after-another run never reaches),
// run in order and stop at the first failure when it does not, report every
// failure, and finish even when every sync thread is held by another group.

#include "src/sync_group.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "loaderx/error_code.h"
#include "loaderx/vfs_wrapper.h"
#include "tests/status_testing.h"

namespace loaderx {
namespace {

// Only `ConcurrentSyncs` is asked of the VFS.
class SyncPolicyVfs final : public VfsWrapper {
 public:
  explicit SyncPolicyVfs(bool concurrent)
      : VfsWrapper(static_cast<Vfs*>(nullptr)), concurrent_(concurrent) {}
  bool ConcurrentSyncs() const override { return concurrent_; }

 private:
  const bool concurrent_;
};

// Releases its waiters once `count` have arrived; a waiter gives up after a
// minute (a busy machine is slow, never that slow).
class Latch {
 public:
  explicit Latch(int count) : left_(count) {}
  void CountDown() {
    std::lock_guard lock(mu_);
    if (--left_ <= 0) released_.notify_all();
  }
  bool Wait() {
    std::unique_lock lock(mu_);
    return released_.wait_for(lock, std::chrono::minutes(1),
                              [&] { return left_ <= 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable released_;
  int left_;
};

TEST(SyncGroupTest, MembersAreInFlightTogether) {
  SyncPolicyVfs vfs(/*concurrent=*/true);
  SyncGroup group(vfs);
  constexpr int kMembers = 5;  // A creation's group.
  Latch all_started(kMembers);
  for (int i = 0; i < kMembers; ++i) {
    group.Add([&all_started, i]() -> absl::Status {
      all_started.CountDown();
      if (!all_started.Wait()) {
        return absl::DeadlineExceededError(
            absl::StrCat("member ", i, ": the others never started"));
      }
      return absl::OkStatus();
    });
  }
  EXPECT_OK(group.Run());
  EXPECT_TRUE(group.all_succeeded(0, kMembers));
}

TEST(SyncGroupTest, OneMemberRunsOnTheCaller) {
  SyncPolicyVfs vfs(/*concurrent=*/true);
  SyncGroup group(vfs);
  std::thread::id ran_on;
  group.Add([&] {
    ran_on = std::this_thread::get_id();
    return absl::OkStatus();
  });
  EXPECT_OK(group.Run());
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(SyncGroupTest, EveryFailureIsReportedTheFirstAddedLeads) {
  SyncPolicyVfs vfs(/*concurrent=*/true);
  SyncGroup group(vfs);
  std::atomic<int> ran{0};
  for (int i = 0; i < 4; ++i) {
    group.Add([&ran, i]() -> absl::Status {
      ++ran;
      if (i == 1) {
        return WithErrorCode(absl::DataLossError("sync of b failed"),
                             ErrorCode::kBadFormat);
      }
      if (i == 3) return absl::ResourceExhaustedError("sync of d failed");
      return absl::OkStatus();
    });
  }
  const absl::Status status = group.Run();
  EXPECT_EQ(ran.load(), 4);  // A failure stops none of the others.
  EXPECT_TRUE(absl::IsDataLoss(status)) << status;
  EXPECT_EQ(ErrorCodeOf(status), ErrorCode::kBadFormat);
  EXPECT_TRUE(absl::StrContains(status.message(), "sync of b failed"));
  EXPECT_TRUE(absl::StrContains(status.message(), "sync of d failed"))
      << status;
  EXPECT_TRUE(group.succeeded(0));
  EXPECT_FALSE(group.succeeded(1));
  EXPECT_TRUE(group.succeeded(2));
  EXPECT_FALSE(group.succeeded(3));
  EXPECT_FALSE(group.all_succeeded(0, 2));
  EXPECT_TRUE(group.all_succeeded(2, 3));
}

TEST(SyncGroupTest, OneFailureIsReturnedAsItIs) {
  SyncPolicyVfs vfs(/*concurrent=*/true);
  SyncGroup group(vfs);
  const absl::Status failure = absl::UnavailableError("power cut");
  group.Add([] { return absl::OkStatus(); });
  group.Add([&] { return failure; });
  EXPECT_EQ(group.Run(), failure);
}

TEST(SyncGroupTest, WithoutConcurrentSyncsMembersRunInOrderUntilOneFails) {
  SyncPolicyVfs vfs(/*concurrent=*/false);
  SyncGroup group(vfs);
  std::vector<int> order;
  for (int i = 0; i < 4; ++i) {
    group.Add([&order, i]() -> absl::Status {
      EXPECT_EQ(order.size(), static_cast<size_t>(i));
      order.push_back(i);
      if (i == 2) return absl::DataLossError("third failed");
      return absl::OkStatus();
    });
  }
  const absl::Status status = group.Run();
  EXPECT_TRUE(absl::IsDataLoss(status)) << status;
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(group.all_succeeded(0, 2));
  EXPECT_FALSE(group.succeeded(2));
  EXPECT_FALSE(group.succeeded(3));  // Never ran.
}

TEST(SyncGroupTest, FinishesWhileAnotherGroupHoldsEverySyncThread) {
  SyncPolicyVfs vfs(/*concurrent=*/true);
  Latch other_done(1);
  std::atomic<int> holding{0};
  std::thread holder([&] {
    SyncGroup group(vfs);
    // More members than threads: its caller and every sync thread wait.
    for (int i = 0; i < 8; ++i) {
      group.Add([&]() -> absl::Status {
        ++holding;
        return other_done.Wait() ? absl::OkStatus()
                                 : absl::DeadlineExceededError("held");
      });
    }
    EXPECT_OK(group.Run());
  });
  // Once the holder's threads are all waiting, this group's members can
  // only run on this thread.
  while (holding.load() < 5) std::this_thread::yield();
  SyncGroup group(vfs);
  std::atomic<int> ran{0};
  for (int i = 0; i < 3; ++i) {
    group.Add([&] {
      ++ran;
      return absl::OkStatus();
    });
  }
  EXPECT_OK(group.Run());
  EXPECT_EQ(ran.load(), 3);
  other_done.CountDown();
  holder.join();
}

}  // namespace
}  // namespace loaderx
