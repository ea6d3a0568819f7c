// The bindings' store handle (`swig/store_binding.h`) under concurrent use,
// as Python and Java threads use it: a close racing gathers, appends,
// deletes and verifies waits for the calls in flight and refuses later ones
// with FailedPrecondition; nothing touches a freed store (run under
// --config=asan to see it). Also read-only opens and verify through it,
// with its progress passed to a sink.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "swig/binding.h"
#include "swig/store_binding.h"

namespace loaderx::binding {
namespace {

constexpr int64_t kRecords = 300;
constexpr int64_t kWidth = 32;

std::string Records(int64_t first, int64_t count) {
  std::string bytes;
  for (int64_t i = first; i < first + count; ++i) {
    bytes.append(kWidth, static_cast<char>(i % 251));
  }
  return bytes;
}

OpenRequest DenseRequest() {
  OpenRequest request;
  request.set_dtype(DType::Simple("|u1"));
  request.set_item_shape({kWidth});
  request.set_codec("zstd");
  return request;
}

// The unified surface's buffer calls, for byte strings.
void Append(StoreHandle& store, const std::string& records) {
  store.append_array(DType(),
                     {static_cast<int64_t>(records.size()) / kWidth, kWidth},
                     {records.data(), records.size()});
}

IndexBuffer Indices(const Int64Array& indices) {
  return {IndexBuffer::Kind::kSigned, indices.data(), indices.size(), 1};
}

Bytes Gather(const StoreHandle& store, const Int64Array& indices) {
  Bytes out(indices.size() * kWidth, '\0');
  store.gather_into(Indices(indices), {out.data(), out.size()});
  return out;
}

bool IsClosed(const BindingError& error) {
  return error.status_code() ==
             static_cast<int>(absl::StatusCode::kFailedPrecondition) &&
         std::string(error.what()).find("closed") != std::string::npos;
}

TEST(StoreHandleTest, CloseWaitsForCallsInFlightAndRefusesLaterOnes) {
  Filesystem fs("memory");
  {
    StoreHandle store(fs, "/s", "dense", DenseRequest());
    Append(store, Records(0, kRecords));
  }
  // The first records, which the deletes below never reach.
  Int64Array all(kRecords / 2);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  for (int round = 0; round < 30; ++round) {
    StoreHandle store(fs, "/s", "", OpenRequest());
    std::atomic<int> unexpected{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        try {
          for (int i = 0;; ++i) {
            switch ((t + i) % 4) {
              case 0:
              case 1: {
                const Bytes got = Gather(store, all);
                if (got != Records(0, kRecords / 2)) ++unexpected;
                break;
              }
              case 2:
                Append(store, Records(i, 1));
                break;
              default:
                if (!store.verify().ok()) ++unexpected;
                break;
            }
            if (t == 0 && i % 8 == 0 && store.size() > kRecords) {
              const Int64Array last = {store.size() - 1};
              store.delete_records(Indices(last));
            }
          }
        } catch (const BindingError& error) {
          if (!IsClosed(error)) {
            ++unexpected;
            ADD_FAILURE() << error.what();
          }
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200 * (round % 5)));
    store.close();
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(unexpected.load(), 0);
    try {
      store.size();
      ADD_FAILURE() << "a call after close succeeded";
    } catch (const BindingError& error) {
      EXPECT_TRUE(IsClosed(error)) << error.what();
    }
    store.close();  // Idempotent.
  }
}

TEST(StoreHandleTest, ReadOnlyHandlesShareAndVerify) {
  Filesystem fs("memory");
  {
    StoreHandle store(fs, "/s", "dense", DenseRequest());
    Append(store, Records(0, 5));
  }
  OpenRequest read_only;
  read_only.set_read_only(true);
  StoreHandle first(fs, "/s", "dense", read_only);
  StoreHandle second(fs, "/s", "", read_only);
  EXPECT_TRUE(first.read_only());
  EXPECT_EQ(Gather(second, {4}), Records(4, 1));
  EXPECT_THROW(Append(first, Records(0, 1)), BindingError);
  const VerifyResult report = second.verify();
  EXPECT_EQ(report.records(), 5);
  EXPECT_EQ(report.verified(), 5);
  EXPECT_EQ(report.unverified(), 0);
  EXPECT_TRUE(report.damaged().empty());
  EXPECT_TRUE(report.metadata_verified());
  EXPECT_TRUE(report.ok());
  try {
    StoreHandle writer(fs, "/s", "", OpenRequest());
    ADD_FAILURE() << "a writer opened beside readers";
  } catch (const BindingError& error) {
    EXPECT_TRUE(error.busy()) << error.what();
  }
}

// A language's sink as the tests see it: every report, and a callback that
// fails at report `fail_at` (0: never).
class RecordingSink final : public ProgressSink {
 public:
  explicit RecordingSink(int fail_at = 0) : fail_at_(fail_at) {}

  bool Report(uint64_t done, uint64_t total) override {
    reports.push_back({done, total});
    return static_cast<int>(reports.size()) != fail_at_;
  }
  void RestoreError() override { ++restored; }

  std::vector<std::pair<uint64_t, uint64_t>> reports;
  int restored = 0;

 private:
  int fail_at_;
};

TEST(StoreHandleTest, VerifyPassesProgressToTheSink) {
  Filesystem fs("memory");
  StoreHandle store(fs, "/s", "dense", DenseRequest());
  Append(store, Records(0, 10000));
  RecordingSink sink;
  const VerifyResult report = store.verify(&sink);
  EXPECT_EQ(report.records(), 10000);
  ASSERT_FALSE(sink.reports.empty());
  uint64_t previous = 0;
  for (const auto& [done, total] : sink.reports) {
    EXPECT_GE(done, previous);
    EXPECT_EQ(total, 10000u);
    previous = done;
  }
  EXPECT_EQ(sink.reports.back(),
            std::make_pair(uint64_t{10000}, uint64_t{10000}));
  EXPECT_EQ(sink.restored, 0);
}

TEST(StoreHandleTest, AFailedReportStopsReportsAndRaisesAfterTheWork) {
  Filesystem fs("memory");
  StoreHandle store(fs, "/s", "dense", DenseRequest());
  Append(store, Records(0, 10000));  // More than one report.
  RecordingSink sink(/*fail_at=*/1);
  EXPECT_THROW(store.verify(&sink), CallbackRaised);
  EXPECT_EQ(sink.reports.size(), 1u);
  EXPECT_EQ(sink.restored, 1);
  // The store is untouched.
  RecordingSink again;
  EXPECT_EQ(store.verify(&again).records(), 10000);
  EXPECT_EQ(store.size(), 10000);
  EXPECT_EQ(again.restored, 0);
}

}  // namespace
}  // namespace loaderx::binding
