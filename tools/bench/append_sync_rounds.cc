// Sync rounds of the append workload: the score's append pass (a dense
// store of 64 B uint8 records created, appended to in batches, synced as
// its close syncs) on the POSIX VFS, each sync held for `--sync_ms` more
// (a slow disk, so that syncs issued at once are seen to overlap), once
// with the store's syncs issued one at a time (`Vfs::ConcurrentSyncs` off,
// as before they overlapped) and once as it issues them. A round is a run
// of syncs whose times overlap: what the pass waits for one after another.
// Counts, not times, are the result: they do not depend on how busy the
// machine is (a thread that starts a sync more than `--sync_ms` late would
// split a round; the default leaves ample margin).
//
//   bazel run //tools/bench:append_sync_rounds -- [--records=8192]
//       [--batch=4096] [--sync_ms=50] [--dir=/tmp] [--verbose]

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "loaderx/dense_store.h"
#include "loaderx/dtype.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/vfs_registry.h"
#include "loaderx/vfs_wrapper.h"

namespace loaderx {
namespace {

using Clock = std::chrono::steady_clock;

struct SyncCall {
  std::string what;
  Clock::time_point start, end;
};

// Every sync of a pass, each held `delay` longer than it took.
class SyncLog {
 public:
  explicit SyncLog(std::chrono::milliseconds delay) : delay_(delay) {}
  template <typename Sync>
  absl::Status Run(std::string what, Sync sync) {
    SyncCall call{std::move(what), Clock::now(), {}};
    absl::Status status = sync();
    std::this_thread::sleep_for(delay_);
    call.end = Clock::now();
    std::lock_guard lock(mu_);
    calls_.push_back(std::move(call));
    return status;
  }
  // The calls so far, by start; and forgets them.
  std::vector<SyncCall> Take() {
    std::lock_guard lock(mu_);
    std::vector<SyncCall> calls = std::move(calls_);
    calls_.clear();
    std::sort(
        calls.begin(), calls.end(),
        [](const SyncCall& a, const SyncCall& b) { return a.start < b.start; });
    return calls;
  }

 private:
  const std::chrono::milliseconds delay_;
  std::mutex mu_;
  std::vector<SyncCall> calls_;
};

class LoggedFile final : public VfsFile {
 public:
  LoggedFile(std::unique_ptr<VfsFile> file, SyncLog& log)
      : file_(std::move(file)), log_(log) {}
  const std::string& path() const override { return file_->path(); }
  absl::Status ReadAt(uint64_t offset, absl::Span<char> dst) const override {
    return file_->ReadAt(offset, dst);
  }
  absl::Status WriteAt(uint64_t offset, absl::string_view data) override {
    return file_->WriteAt(offset, data);
  }
  absl::Status WriteVectorAt(
      uint64_t offset, absl::Span<const absl::string_view> pieces) override {
    return file_->WriteVectorAt(offset, pieces);
  }
  absl::StatusOr<uint64_t> Size() const override { return file_->Size(); }
  absl::Status Truncate(uint64_t size) override {
    return file_->Truncate(size);
  }
  absl::Status SyncData() override {
    return log_.Run(Name(), [&] { return file_->SyncData(); });
  }
  absl::Status Sync() override {
    return log_.Run(Name(), [&] { return file_->Sync(); });
  }
  absl::Status TryLock() override { return file_->TryLock(); }
  absl::Status TryLockShared() override { return file_->TryLockShared(); }
  absl::StatusOr<std::unique_ptr<MappedRegion>> MapReadOnly(
      uint64_t offset, uint64_t length) const override {
    return file_->MapReadOnly(offset, length);
  }
  absl::StatusOr<uint64_t> ModificationStamp() const override {
    return file_->ModificationStamp();
  }

 private:
  std::string Name() const {
    const std::string& path = file_->path();
    return path.substr(path.rfind('/') + 1);
  }
  const std::unique_ptr<VfsFile> file_;
  SyncLog& log_;
};

// The POSIX VFS with its syncs logged; `ConcurrentSyncs` off unless
// `concurrent`.
class LoggedVfs final : public VfsWrapper {
 public:
  LoggedVfs(Vfs* target, SyncLog& log, bool concurrent, std::string store)
      : VfsWrapper(target),
        log_(log),
        concurrent_(concurrent),
        store_(std::move(store)) {}
  absl::StatusOr<std::unique_ptr<VfsFile>> Open(absl::string_view path,
                                                OpenMode mode) override {
    LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<VfsFile> file,
                             VfsWrapper::Open(path, mode));
    return std::unique_ptr<VfsFile>(new LoggedFile(std::move(file), log_));
  }
  absl::Status SyncDirectory(absl::string_view path) override {
    return log_.Run(path == store_ ? "store directory" : "parent directory",
                    [&] { return VfsWrapper::SyncDirectory(path); });
  }
  bool ConcurrentSyncs() const override {
    return concurrent_ && VfsWrapper::ConcurrentSyncs();
  }

 private:
  SyncLog& log_;
  const bool concurrent_;
  const std::string store_;
};

// The calls as rounds: each round's members overlap the round's first.
std::vector<std::vector<std::string>> Rounds(
    const std::vector<SyncCall>& calls) {
  std::vector<std::vector<std::string>> rounds;
  Clock::time_point round_end;
  for (const SyncCall& call : calls) {
    if (rounds.empty() || call.start >= round_end) {
      rounds.emplace_back();
      round_end = call.end;
    }
    round_end = std::max(round_end, call.end);
    rounds.back().push_back(call.what);
  }
  return rounds;
}

struct Args {
  uint64_t records = 8192;
  uint64_t batch = 4096;
  int sync_ms = 50;
  std::string dir = "/tmp";
  bool verbose = false;
};

constexpr const char* kPhases[] = {"create", "appends", "close"};

// Removes the store directory a pass made (its files, then itself).
void RemoveStore(Vfs& vfs, const std::string& store) {
  absl::StatusOr<std::vector<std::string>> names = vfs.List(store);
  if (!names.ok()) return;
  for (const std::string& name : *names) {
    (void)vfs.Remove(absl::StrCat(store, "/", name));
  }
  (void)vfs.RemoveDirectory(store);
}

// One pass; prints its syncs and rounds by phase; false on failure.
bool Pass(const Args& args, bool concurrent, const std::string& store) {
  absl::StatusOr<std::unique_ptr<Vfs>> posix = CreateVfs("posix");
  if (!posix.ok()) {
    std::fprintf(stderr, "%s\n", posix.status().ToString().c_str());
    return false;
  }
  SyncLog log{std::chrono::milliseconds(args.sync_ms)};
  LoggedVfs vfs(posix->get(), log, concurrent, store);
  std::vector<std::vector<SyncCall>> phases;
  std::string data(args.records * 64, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  absl::Status status = [&]() -> absl::Status {
    RemoveStore(**posix, store);
    StoreOptions options;
    options.codec = "raw";
    LOADERX_ASSIGN_OR_RETURN(
        std::unique_ptr<DenseStore> created,
        DenseStore::Create(vfs, store, {DType::Simple("|u1"), {64}}, options));
    phases.push_back(log.Take());
    for (uint64_t first = 0; first < args.records; first += args.batch) {
      const uint64_t n = std::min(args.batch, args.records - first);
      LOADERX_RETURN_IF_ERROR(
          created->Append(absl::string_view(data).substr(first * 64, n * 64))
              .status());
    }
    phases.push_back(log.Take());
    LOADERX_RETURN_IF_ERROR(created->Sync());
    created.reset();
    phases.push_back(log.Take());
    return absl::OkStatus();
  }();
  RemoveStore(**posix, store);
  if (!status.ok()) {
    std::fprintf(stderr, "append pass failed: %s\n", status.ToString().c_str());
    return false;
  }
  std::printf("\n## %s\n", concurrent ? "overlapped (as the store syncs)"
                                      : "one at a time (ConcurrentSyncs off)");
  size_t syncs = 0, rounds = 0;
  for (size_t p = 0; p < phases.size(); ++p) {
    const auto phase_rounds = Rounds(phases[p]);
    syncs += phases[p].size();
    rounds += phase_rounds.size();
    std::printf("%-8s %2zu syncs in %2zu sequential rounds\n", kPhases[p],
                phases[p].size(), phase_rounds.size());
    if (!args.verbose) continue;
    for (const auto& round : phase_rounds) {
      std::string members;
      for (const std::string& what : round) {
        absl::StrAppend(&members, members.empty() ? "" : " | ", what);
      }
      std::printf("           %s\n", members.c_str());
    }
  }
  std::printf("pass     %2zu syncs in %2zu sequential rounds\n", syncs, rounds);
  return true;
}

bool ParseArgs(int argc, char** argv, Args& args) {
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    const size_t eq = arg.find('=');
    const absl::string_view name = arg.substr(0, eq);
    const absl::string_view value =
        eq == absl::string_view::npos ? "" : arg.substr(eq + 1);
    bool ok = true;
    if (name == "--records") {
      ok = absl::SimpleAtoi(value, &args.records) && args.records > 0;
    } else if (name == "--batch") {
      ok = absl::SimpleAtoi(value, &args.batch) && args.batch > 0;
    } else if (name == "--sync_ms") {
      ok = absl::SimpleAtoi(value, &args.sync_ms) && args.sync_ms >= 0;
    } else if (name == "--dir") {
      args.dir = std::string(value);
      ok = !args.dir.empty();
    } else if (name == "--verbose") {
      args.verbose = true;
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr,
                   "append_sync_rounds: bad argument %s (flags: --records=N "
                   "--batch=N --sync_ms=N --dir=PATH --verbose)\n",
                   argv[i]);
      return false;
    }
  }
  return true;
}

}  // namespace
}  // namespace loaderx

int main(int argc, char** argv) {
  loaderx::Args args;
  if (!loaderx::ParseArgs(argc, argv, args)) return 2;
  std::printf(
      "append pass: %llu records of 64 B (raw), appended %llu at a time, "
      "synced; each sync held %d ms longer\n",
      static_cast<unsigned long long>(args.records),
      static_cast<unsigned long long>(args.batch), args.sync_ms);
  const std::string base =
      absl::StrCat(args.dir, "/append_sync_rounds_", ::getpid());
  bool ok = true;
  for (bool concurrent : {false, true}) {
    // A directory the store creates, as `DenseStore(path)` does.
    const std::string store =
        absl::StrCat(base, concurrent ? "_overlapped" : "_sequential");
    ok = loaderx::Pass(args, concurrent, store) && ok;
  }
  return ok ? 0 : 1;
}
