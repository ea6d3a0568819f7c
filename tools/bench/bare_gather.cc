// The limits a store's gather is scored against (tools/bench/bench_score.py
// runs this): the same records of the same store, located once from its
// record table before timing, then gathered by bare loops with no store
// logic at all, on `--threads` threads (the caller plus persistent workers
// that meet at a barrier per batch):
//
//   memcpy   memcpy each record's stored bytes out of a read-only mapping
//            of its chunk file, made by the "posix" VFS as the store's
//            own mappings are (placed for huge pages)
//   pread    one pread per record from its chunk file
//   zstd     ZSTD_decompressDCtx of each record's stored frame, from the
//            mapping, one context per thread (zstd stores)
//
// The destination is one page-aligned buffer per thread, record i at the
// running sum of the sizes before it. `--plan` is a file of little-endian
// uint64 indices, `--batch` of them per batch. Prints one line per
// repetition: the seconds the whole plan took.
//
//   bare_gather --store=DIR --plan=FILE --batch=256 --mode=memcpy
//       --threads=2 --repeat=3   (one line)

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/vfs.h"
#include "loaderx/vfs_registry.h"
#include "src/record_engine.h"
#include "src/store_format.h"

namespace loaderx {
namespace {

struct Settings {
  std::string store, plan, mode = "memcpy";
  uint64_t batch = 256, threads = 2, repeat = 3;
};

struct Chunk {
  int fd = -1;
  std::unique_ptr<MappedRegion> mapping;
  const char* data = nullptr;
};

absl::Status Run(const Settings& s) {
  std::ifstream in(s.plan, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  std::vector<uint64_t> plan(bytes.size() / 8);
  std::memcpy(plan.data(), bytes.data(), plan.size() * 8);
  if (plan.empty() || plan.size() % s.batch != 0) {
    return absl::InvalidArgumentError("the plan is not whole batches");
  }
  // The table entries, read straight from the segment files (no lock: the
  // store may be open elsewhere).
  std::vector<store_format::RecordLoc> locs(plan.size());
  std::vector<std::string> segments;
  for (size_t i = 0; i < plan.size(); ++i) {
    const uint64_t id = store_format::SegmentOf(plan[i]);
    if (id >= segments.size()) segments.resize(id + 1);
    if (segments[id].empty()) {
      std::ifstream table(
          absl::StrCat(s.store, "/", store_format::SegmentFileName(id)),
          std::ios::binary);
      segments[id].assign(std::istreambuf_iterator<char>(table),
                          std::istreambuf_iterator<char>());
    }
    const uint64_t at = store_format::OffsetInSegment(plan[i]);
    if (at + store_format::kRecordLocBytes > segments[id].size()) {
      return absl::OutOfRangeError(absl::StrCat("no entry for ", plan[i]));
    }
    locs[i] = store_format::DecodeRecordLoc(&segments[id][at]);
  }
  std::vector<Chunk> chunks;
  for (const store_format::RecordLoc& loc : locs) {
    if (loc.chunk_id < chunks.size()) continue;
    chunks.resize(loc.chunk_id + 1);
  }
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<Vfs> vfs, CreateVfs("posix"));
  for (size_t id = 0; id < chunks.size(); ++id) {
    const std::string path =
        absl::StrCat(s.store, "/", store_format::ChunkFileName(id));
    chunks[id].fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (chunks[id].fd < 0) return absl::NotFoundError(path);
    LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<VfsFile> file,
                             vfs->Open(path, OpenMode::kReadOnly));
    LOADERX_ASSIGN_OR_RETURN(const uint64_t size, file->Size());
    LOADERX_ASSIGN_OR_RETURN(chunks[id].mapping, file->MapReadOnly(0, size));
    chunks[id].data = chunks[id].mapping->data().data();
  }
  uint64_t widest = 0;
  std::vector<uint64_t> offsets(plan.size());  // Within the batch buffer.
  for (size_t b = 0; b < plan.size(); b += s.batch) {
    uint64_t offset = 0;
    for (size_t i = b; i < b + s.batch; ++i) {
      offsets[i] = offset;
      offset += locs[i].logic_length;
    }
    widest = std::max(widest, offset);
  }
  const int threads = static_cast<int>(std::max<uint64_t>(s.threads, 1));
  // Destinations as good as the gather's best: huge pages where the kernel
  // gives them on request (numpy asks for them for its large arrays, and
  // loaderx's Python result buffers do), faulted in before timing.
  std::vector<char*> buffers(threads);
  const size_t buffer_bytes = (widest + 4095) / 4096 * 4096;
  for (char*& buffer : buffers) {
    void* map = ::mmap(nullptr, buffer_bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return absl::ResourceExhaustedError("mmap");
    ::madvise(map, buffer_bytes, MADV_HUGEPAGE);  // Advice: may be refused.
    buffer = static_cast<char*>(map);
    std::memset(buffer, 0, widest);
  }
  // Every thread writes its own buffer: the bare loops share nothing.
  std::atomic<bool> failed{false};
  auto shard = [&](int t, size_t b) {
    const size_t begin = b + s.batch * t / threads;
    const size_t end = b + s.batch * (t + 1) / threads;
    // One context per thread, made once (as the store keeps its own).
    thread_local ZSTD_DCtx* const context = ZSTD_createDCtx();
    char* out = buffers[t];
    for (size_t i = begin; i < end; ++i) {
      const store_format::RecordLoc& loc = locs[i];
      char* dst = out + offsets[i];
      const Chunk& chunk = chunks[loc.chunk_id];
      if (s.mode == "memcpy") {
        std::memcpy(dst, chunk.data + loc.offset, loc.phys_length);
      } else if (s.mode == "pread") {
        if (::pread(chunk.fd, dst, loc.phys_length, loc.offset) !=
            static_cast<ssize_t>(loc.phys_length)) {
          failed = true;
        }
      } else {
        const size_t n =
            ZSTD_decompressDCtx(context, dst, loc.logic_length,
                                chunk.data + loc.offset, loc.phys_length);
        if (ZSTD_isError(n) || n != loc.logic_length) failed = true;
      }
    }
  };
  const size_t batches = plan.size() / s.batch;
  std::barrier sync(threads);
  std::vector<std::thread> workers;
  std::atomic<bool> stop{false};
  for (int t = 1; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (;;) {
        sync.arrive_and_wait();
        if (stop) return;
        for (size_t b = 0; b < batches; ++b) {
          shard(t, b * s.batch);
          sync.arrive_and_wait();
        }
      }
    });
  }
  for (uint64_t r = 0; r <= s.repeat; ++r) {  // Pass 0 warms up.
    const auto start = std::chrono::steady_clock::now();
    sync.arrive_and_wait();
    for (size_t b = 0; b < batches; ++b) {
      shard(0, b * s.batch);
      sync.arrive_and_wait();
    }
    const std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - start;
    if (r > 0) std::printf("%.9f\n", took.count());
  }
  stop = true;
  sync.arrive_and_wait();
  for (std::thread& worker : workers) worker.join();
  if (failed) return absl::DataLossError("a bare read failed");
  return absl::OkStatus();
}

}  // namespace
}  // namespace loaderx

int main(int argc, char** argv) {
  loaderx::Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq), value = arg.substr(eq + 1);
    bool ok = eq != std::string::npos;
    if (name == "--store") {
      s.store = value;
    } else if (name == "--plan") {
      s.plan = value;
    } else if (name == "--mode") {
      s.mode = value;
      ok = ok && (value == "memcpy" || value == "pread" || value == "zstd");
    } else if (name == "--batch") {
      ok = ok && absl::SimpleAtoi(value, &s.batch) && s.batch > 0;
    } else if (name == "--threads") {
      ok = ok && absl::SimpleAtoi(value, &s.threads);
    } else if (name == "--repeat") {
      ok = ok && absl::SimpleAtoi(value, &s.repeat);
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr, "bare_gather: bad argument %s\n", argv[i]);
      return 2;
    }
  }
  const absl::Status status = loaderx::Run(s);
  if (!status.ok()) {
    std::fprintf(stderr, "bare_gather: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
