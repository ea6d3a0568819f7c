// The real-process kill loop: a child process appends, deletes, compacts
// and syncs a store on the real filesystem; the parent SIGKILLs it at a
// random instant, reopens the store (read-only, then for writing) and
// checks every record, then starts the next child. Repeats `--kills` times.
//
//   bazel run -c opt //tools/stress:kill_loop -- --kills=200 [--dir=DIR]
//       [--codec=zstd] [--seed=1] [--max_delay_ms=40]
//
// Records are a RaggedStore of bytes whose contents follow from an id
// (`Record`), so the parent can tell each one apart and check it byte for
// byte. The child logs to DIR/log, one line per write(2) (SIGKILL keeps
// them), what it is about to do and what it did:
//
//   a FIRST COUNT   about to append ids FIRST..FIRST+COUNT-1
//   A FIRST COUNT   the append returned
//   d ID ID ...     about to delete these ids
//   D               the delete returned
//
// After each kill the parent requires: every record is one of the
// generated ones, byte for byte; no id appears twice; every id present
// before or appended since (returned) is still there unless the child set
// out to delete it; every id a returned delete named is gone; the delete in
// flight, if any, happened for all its ids or for none; nothing is there
// that was never appended; `Verify` finds no damage. Exit status 0 and a
// closing "kill loop: ..." line if all held.
//
// `--create` kills creations instead (`create_kills.h`): SIGKILL before
// each mutating call of a typed store's creation, and the path must open
// or be created again ("0 stuck").

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "loaderx/ragged_store.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/vfs_registry.h"
#include "tools/stress/create_kills.h"

namespace loaderx {
namespace {

struct Flags {
  int kills = 200;
  std::string dir;
  std::string codec = "zstd";
  uint64_t seed = 1;
  int max_delay_ms = 40;
  bool child = false;
  bool create = false;        // The create mode's parent.
  bool create_child = false;  // One killed creation (`create_kill`).
  CreateKill create_kill;
};

// Record `id`: 32..2079 bytes starting "record-<id>-".
std::string Record(uint64_t id) {
  std::string record = absl::StrCat("record-", id, "-");
  const size_t size = 32 + (id * 2654435761u) % 2048;
  std::mt19937_64 random(id);
  while (record.size() < size) {
    record += static_cast<char>('a' + (random() % 4 == 0 ? random() % 26 : 0));
  }
  return record;
}

std::string StorePath(const Flags& flags) { return flags.dir + "/store"; }

// The ids the store holds, in index order; an error names a record that is
// not a generated one.
absl::StatusOr<std::vector<uint64_t>> ReadIds(const RaggedStore& store) {
  std::vector<uint64_t> ids;
  for (uint64_t i = 0; i < store.size(); ++i) {
    LOADERX_ASSIGN_OR_RETURN(auto shapes, store.Shapes({i}));
    std::string bytes(shapes[0].empty() ? 1 : shapes[0][0], '\0');
    const absl::Span<char> slot = absl::MakeSpan(bytes);
    LOADERX_RETURN_IF_ERROR(store.Gather({i}, {slot}));
    uint64_t id = 0;
    const std::vector<absl::string_view> parts = absl::StrSplit(bytes, '-');
    if (parts.size() < 2 || !absl::SimpleAtoi(parts[1], &id) ||
        bytes != Record(id)) {
      return absl::DataLossError(
          absl::StrCat("record ", i, " is not a generated record"));
    }
    ids.push_back(id);
  }
  return ids;
}

// --- The child: a random workload until it is killed. -----------------

void Log(int fd, const std::string& line) {
  const std::string out = line + "\n";
  if (::write(fd, out.data(), out.size()) != static_cast<ssize_t>(out.size())) {
    std::_Exit(3);
  }
}

absl::Status RunChild(const Flags& flags) {
  std::unique_ptr<Vfs> vfs = *CreateVfs("posix");
  StoreOptions options;
  options.codec = flags.codec;
  absl::StatusOr<std::unique_ptr<RaggedStore>> opened =
      RaggedStore::Open(*vfs, StorePath(flags), options);
  LOADERX_RETURN_IF_ERROR(opened.status());
  RaggedStore& store = **opened;
  LOADERX_ASSIGN_OR_RETURN(std::vector<uint64_t> ids, ReadIds(store));
  uint64_t next_id = 0;
  for (uint64_t id : ids) next_id = std::max(next_id, id + 1);
  // Ids the parent has seen are below its high-water mark too.
  next_id = std::max<uint64_t>(next_id, flags.seed << 32);
  const int log = ::open((flags.dir + "/log").c_str(),
                         O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (log < 0) return absl::InternalError("cannot open the log");
  std::mt19937_64 random(flags.seed ^ ::getpid());
  for (;;) {
    const int action = random() % 10;
    if (action < 5 || store.size() == 0) {
      const uint64_t count = 1 + random() % 40;
      std::vector<std::string> records;
      std::vector<RaggedRecord> batch;
      for (uint64_t id = next_id; id < next_id + count; ++id) {
        records.push_back(Record(id));
      }
      for (const std::string& record : records) {
        batch.push_back({record, {record.size()}});
      }
      Log(log, absl::StrCat("a ", next_id, " ", count));
      LOADERX_RETURN_IF_ERROR(store.Append(batch).status());
      Log(log, absl::StrCat("A ", next_id, " ", count));
      next_id += count;
    } else if (action < 7 || store.size() > 3000) {
      std::vector<uint64_t> indices;
      const uint64_t count = 1 + random() % 30;
      for (uint64_t k = 0; k < count; ++k) {
        indices.push_back(random() % store.size());
      }
      LOADERX_ASSIGN_OR_RETURN(std::vector<uint64_t> all, ReadIds(store));
      std::string line = "d";
      for (uint64_t index : indices) absl::StrAppend(&line, " ", all[index]);
      Log(log, line);
      LOADERX_RETURN_IF_ERROR(store.Delete(indices));
      Log(log, "D");
    } else if (action < 8) {
      LOADERX_RETURN_IF_ERROR(store.Compact());
    } else {
      LOADERX_RETURN_IF_ERROR(store.Sync());
    }
  }
}

// --- The parent: kill, reopen, check. -----------------------------------

struct Expectations {
  std::set<uint64_t> live;       // Present before the child started.
  std::set<uint64_t> appended;   // Appends that returned.
  std::set<uint64_t> maybe;      // The append in flight.
  std::set<uint64_t> deleting;   // Named by a delete that started.
  std::set<uint64_t> deleted;    // Named by a delete that returned.
  std::set<uint64_t> in_flight;  // The delete in flight.
};

absl::StatusOr<Expectations> ReadLog(const Flags& flags,
                                     const std::set<uint64_t>& live) {
  Expectations expect;
  expect.live = live;
  absl::StatusOr<std::string> log =
      ReadFileToString(**CreateVfs("posix"), flags.dir + "/log");
  if (absl::IsNotFound(log.status())) return expect;
  LOADERX_RETURN_IF_ERROR(log.status());
  std::vector<uint64_t> pending_delete;
  for (absl::string_view line : absl::StrSplit(*log, '\n', absl::SkipEmpty())) {
    std::vector<absl::string_view> words = absl::StrSplit(line, ' ');
    std::vector<uint64_t> numbers;
    for (size_t i = 1; i < words.size(); ++i) {
      uint64_t n = 0;
      if (!absl::SimpleAtoi(words[i], &n)) {
        return absl::InternalError(absl::StrCat("bad log line: ", line));
      }
      numbers.push_back(n);
    }
    if (words[0] == "a") {
      expect.maybe.clear();
      for (uint64_t id = numbers[0]; id < numbers[0] + numbers[1]; ++id) {
        expect.maybe.insert(id);
      }
    } else if (words[0] == "A") {
      for (uint64_t id : expect.maybe) expect.appended.insert(id);
      expect.maybe.clear();
    } else if (words[0] == "d") {
      pending_delete = numbers;
      for (uint64_t id : numbers) expect.deleting.insert(id);
    } else if (words[0] == "D") {
      for (uint64_t id : pending_delete) expect.deleted.insert(id);
      pending_delete.clear();
    }
  }
  expect.in_flight.insert(pending_delete.begin(), pending_delete.end());
  return expect;
}

absl::Status Check(const std::vector<uint64_t>& ids, const Expectations& e) {
  std::set<uint64_t> present;
  for (uint64_t id : ids) {
    if (!present.insert(id).second) {
      return absl::DataLossError(absl::StrCat("id ", id, " is duplicated"));
    }
    if (!e.live.count(id) && !e.appended.count(id) && !e.maybe.count(id)) {
      return absl::DataLossError(absl::StrCat("id ", id, " was never added"));
    }
    if (e.deleted.count(id) && !e.in_flight.count(id)) {
      return absl::DataLossError(absl::StrCat("id ", id, " was deleted"));
    }
  }
  for (const std::set<uint64_t>* kept : {&e.live, &e.appended}) {
    for (uint64_t id : *kept) {
      if (!present.count(id) && !e.deleting.count(id)) {
        return absl::DataLossError(absl::StrCat("id ", id, " was lost"));
      }
    }
  }
  // The delete in flight named records that were all there when it
  // started: it happened for all of them or for none.
  size_t kept = 0;
  for (uint64_t id : e.in_flight) kept += present.count(id);
  if (kept != 0 && kept != e.in_flight.size()) {
    return absl::DataLossError(absl::StrCat(
        "the interrupted delete removed ", e.in_flight.size() - kept,
        " of its ", e.in_flight.size(), " records: not atomic"));
  }
  return absl::OkStatus();
}

// Flips the first stored byte of record 0's payload (found through the
// record table, 0.loc: offset, stored length, length, chunk, u32 each) and
// expects `Verify` to report record 0 damaged.
absl::Status ExpectDamageFound(const Flags& flags) {
  const int table =
      ::open((StorePath(flags) + "/0.loc").c_str(), O_RDONLY | O_CLOEXEC);
  unsigned char entry[16];
  const bool read = table >= 0 && ::pread(table, entry, 16, 0) == 16;
  if (table >= 0) ::close(table);
  if (!read) return absl::InternalError("cannot read 0.loc");
  auto field = [&](int at) {
    return uint32_t{entry[at]} | uint32_t{entry[at + 1]} << 8 |
           uint32_t{entry[at + 2]} << 16 | uint32_t{entry[at + 3]} << 24;
  };
  const std::string chunk =
      absl::StrCat(StorePath(flags), "/", field(12), ".chunk");
  const int fd = ::open(chunk.c_str(), O_RDWR | O_CLOEXEC);
  char byte = 0;
  if (fd < 0 || ::pread(fd, &byte, 1, field(0)) != 1) {
    return absl::InternalError(absl::StrCat("cannot read ", chunk));
  }
  byte ^= 0x20;
  const bool written = ::pwrite(fd, &byte, 1, field(0)) == 1;
  ::close(fd);
  if (!written)
    return absl::InternalError(absl::StrCat("cannot write ", chunk));
  std::unique_ptr<Vfs> vfs = *CreateVfs("posix");
  StoreOptions options;
  options.codec = flags.codec;
  LOADERX_ASSIGN_OR_RETURN(auto store,
                           RaggedStore::Open(*vfs, StorePath(flags), options));
  LOADERX_ASSIGN_OR_RETURN(VerifyReport report, store->Verify());
  if (report.damaged != std::vector<uint64_t>{0} || report.unverified != 0) {
    return absl::DataLossError(
        absl::StrCat("after the kills a flipped byte was not found as damage: ",
                     report.damaged.size(), " damaged, ", report.unverified,
                     " unverified of ", report.records));
  }
  return absl::OkStatus();
}

absl::Status RunParent(const Flags& flags, const char* self) {
  std::unique_ptr<Vfs> vfs = *CreateVfs("posix");
  {
    // The store is made once, here: what the kills interrupt is its use.
    StoreOptions options;
    options.codec = flags.codec;
    if (flags.codec == "zstd_dict") options.dictionary = Record(1) + Record(2);
    LOADERX_RETURN_IF_ERROR(RaggedStore::Create(*vfs, StorePath(flags),
                                                DType::Simple("|u1"), options)
                                .status());
  }
  std::set<uint64_t> live;
  uint64_t checked = 0;
  std::mt19937_64 random(flags.seed);
  for (int kill = 1; kill <= flags.kills; ++kill) {
    (void)::unlink((flags.dir + "/log").c_str());
    const pid_t child = ::fork();
    if (child < 0) return absl::InternalError("fork failed");
    if (child == 0) {
      const std::string seed = absl::StrCat("--seed=", flags.seed + kill);
      const std::string dir = absl::StrCat("--dir=", flags.dir);
      const std::string codec = absl::StrCat("--codec=", flags.codec);
      ::execl(self, self, "--child", seed.c_str(), dir.c_str(), codec.c_str(),
              static_cast<char*>(nullptr));
      std::_Exit(127);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(
        2000 + random() % (1000 * static_cast<uint64_t>(flags.max_delay_ms))));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    if (!WIFSIGNALED(status)) {
      return absl::InternalError(absl::StrCat(
          "kill ", kill, ": the child ended by itself (status ", status, ")"));
    }
    LOADERX_ASSIGN_OR_RETURN(Expectations expect, ReadLog(flags, live));
    StoreOptions read_only;
    read_only.codec = flags.codec;
    read_only.read_only = true;
    std::vector<uint64_t> seen;
    {
      LOADERX_ASSIGN_OR_RETURN(
          auto reader, RaggedStore::Open(*vfs, StorePath(flags), read_only));
      LOADERX_ASSIGN_OR_RETURN(seen, ReadIds(*reader));
    }
    StoreOptions writable;
    writable.codec = flags.codec;
    LOADERX_ASSIGN_OR_RETURN(
        auto writer, RaggedStore::Open(*vfs, StorePath(flags), writable));
    LOADERX_ASSIGN_OR_RETURN(std::vector<uint64_t> ids, ReadIds(*writer));
    if (ids != seen) {
      return absl::DataLossError(absl::StrCat(
          "kill ", kill, ": read-only and writable opens disagree"));
    }
    absl::Status checked_ok = Check(ids, expect);
    if (!checked_ok.ok()) {
      return absl::Status(
          checked_ok.code(),
          absl::StrCat("kill ", kill, ": ", checked_ok.message()));
    }
    LOADERX_ASSIGN_OR_RETURN(VerifyReport report, writer->Verify());
    if (!report.damaged.empty()) {
      return absl::DataLossError(
          absl::StrCat("kill ", kill, ": Verify found ", report.damaged.size(),
                       " damaged records: ", report.problems[0]));
    }
    checked += ids.size();
    live = std::set<uint64_t>(ids.begin(), ids.end());
  }
  // The kills cost no checksum its authority: a flipped byte is damage.
  if (!live.empty()) LOADERX_RETURN_IF_ERROR(ExpectDamageFound(flags));
  std::printf(
      "kill loop: %d kills, %lu records checked, 0 lost, 0 duplicated, 0 "
      "corrupt, %zu live at the end; a flipped byte was found\n",
      flags.kills, static_cast<unsigned long>(checked), live.size());
  return absl::OkStatus();
}

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    auto value = [&](absl::string_view name) -> std::optional<std::string> {
      if (!absl::ConsumePrefix(&arg, absl::StrCat("--", name, "="))) {
        return std::nullopt;
      }
      return std::string(arg);
    };
    if (arg == "--child") {
      flags.child = true;
    } else if (arg == "--create") {
      flags.create = true;
    } else if (arg == "--create_child") {
      flags.create_child = true;
    } else if (auto v = value("store")) {
      flags.create_kill.path = *v;
    } else if (auto v = value("kind")) {
      flags.create_kill.kind = *v;
    } else if (auto v = value("kill_at")) {
      flags.create_kill.kill_at = std::strtoll(v->c_str(), nullptr, 10);
    } else if (auto v = value("kills")) {
      flags.kills = std::atoi(v->c_str());
    } else if (auto v = value("dir")) {
      flags.dir = *v;
    } else if (auto v = value("codec")) {
      flags.codec = *v;
    } else if (auto v = value("seed")) {
      flags.seed = std::strtoull(v->c_str(), nullptr, 10);
    } else if (auto v = value("max_delay_ms")) {
      flags.max_delay_ms = std::max(1, std::atoi(v->c_str()));
    } else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      std::exit(2);
    }
  }
  return flags;
}

}  // namespace
}  // namespace loaderx

int main(int argc, char** argv) {
  loaderx::Flags flags = loaderx::ParseFlags(argc, argv);
  if (flags.create_child) {
    flags.create_kill.codec = flags.codec;
    const absl::Status status = loaderx::RunCreateChild(flags.create_kill);
    std::fprintf(stderr, "create child: %s\n", status.ToString().c_str());
    return 1;
  }
  if (flags.child) {
    const absl::Status status = loaderx::RunChild(flags);
    std::fprintf(stderr, "child: %s\n", status.ToString().c_str());
    return 1;
  }
  if (flags.dir.empty()) {
    char pattern[] = "/tmp/loaderx_kill_loop.XXXXXX";
    if (::mkdtemp(pattern) == nullptr) return 2;
    flags.dir = pattern;
  }
  const absl::Status status =
      flags.create ? loaderx::RunCreateKills(flags.dir, "/proc/self/exe")
                   : loaderx::RunParent(flags, "/proc/self/exe");
  if (!status.ok()) {
    std::fprintf(stderr, "kill loop FAILED: %s (store left in %s)\n",
                 status.ToString().c_str(), flags.dir.c_str());
    return 1;
  }
  return 0;
}
