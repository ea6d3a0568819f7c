#include "tests/damage/store_probe.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "loaderx/store_options.h"
#include "loaderx/typed_store.h"
#include "loaderx/vfs_registry.h"

namespace loaderx::damage {
namespace {

// A batch buffer larger than this for a store of a few hundred bytes means
// the engine sized an allocation by a field read from disk.
constexpr uint64_t kMaxBatchBytes = uint64_t{64} << 20;

// The ids present after the probe's append (one past the sample's).
constexpr uint64_t kIdLimit = kSampleRecords + 1;

class Probe {
 public:
  Probe(const std::string& kind, const std::string& path)
      : kind_(kind), path_(path) {}

  ProbeResult Run();

 private:
  // What one pass of reads saw: index -> id for records read back exactly.
  struct Reads {
    std::vector<std::optional<uint64_t>> ids;
    std::set<uint64_t> refused;  // indices whose read returned a status
  };

  // Reads every record of `store`, alone and in one batch. `in_order`:
  // record i must be sample i.
  Reads ReadAll(const TypedStore& store, bool in_order);
  // `store.Read(indices)` into `buffer`; a buffer request past
  // `kMaxBatchBytes` is a `kMemoryCap` failure.
  absl::StatusOr<ShapedBatch> ReadBatch(const TypedStore& store,
                                        absl::Span<const uint64_t> indices,
                                        std::string& buffer);
  // Record `index` alone: its bytes, or nullopt after a status.
  std::optional<std::string> ReadOne(const TypedStore& store, uint64_t index);
  // Whether `Verify` names every refused record (and, if it finds nothing,
  // whether some records are unverified).
  void CheckVerify(const TypedStore& store, const Reads& reads);
  // `present_before`: what the read-only open read (nullopt: it failed).
  void Maintain(const std::optional<std::set<uint64_t>>& present_before);

  void Fail(Outcome outcome, std::string detail) {
    if (failed_) return;
    failed_ = true;
    result_ = {outcome, std::move(detail)};
  }
  void Note(const absl::Status& status) {
    if (first_status_.empty() && !status.ok()) {
      first_status_ = status.ToString();
    }
  }

  std::string kind_;
  std::string path_;
  std::unique_ptr<Vfs> vfs_;
  bool failed_ = false;
  bool damage_seen_ = false;
  bool unverified_ = false;
  // Records `Verify` listed as removed past the length (first open).
  uint64_t removed_records_ = 0;
  std::string first_status_;
  ProbeResult result_;
};

absl::StatusOr<ShapedBatch> Probe::ReadBatch(const TypedStore& store,
                                             absl::Span<const uint64_t> indices,
                                             std::string& buffer) {
  return store.Read(
      indices, [&](uint64_t bytes) -> absl::StatusOr<absl::Span<char>> {
        if (bytes > kMaxBatchBytes) {
          Fail(Outcome::kMemoryCap,
               absl::StrCat("a read of ", indices.size(), " records from ",
                            indices[0], " asked for ", bytes, " bytes"));
          return absl::ResourceExhaustedError("over the probe's cap");
        }
        buffer.resize(bytes);
        return absl::MakeSpan(buffer);
      });
}

std::optional<std::string> Probe::ReadOne(const TypedStore& store,
                                          uint64_t index) {
  std::string buffer;
  const uint64_t indices[] = {index};
  auto batch = ReadBatch(store, indices, buffer);
  if (!batch.ok()) {
    Note(batch.status());
    return std::nullopt;
  }
  if (batch->shapes.size() != 1) {
    Fail(Outcome::kWrongData, absl::StrCat("record ", index, " read as ",
                                           batch->shapes.size(), " shapes"));
    return std::nullopt;
  }
  const absl::Span<const uint64_t> shape = batch->shapes[0];
  if (shape.size() != 1 || shape[0] != buffer.size()) {
    Fail(Outcome::kWrongData,
         absl::StrCat("record ", index, " read with shape (",
                      absl::StrJoin(shape, ","), ") for ", buffer.size(),
                      " bytes"));
  }
  return buffer;
}

Probe::Reads Probe::ReadAll(const TypedStore& store, bool in_order) {
  Reads reads;
  const uint64_t size = store.size();
  if (size > 4 * kIdLimit) {
    Fail(Outcome::kWrongData,
         absl::StrCat("the store claims ", size, " records and opened"));
    return reads;
  }
  std::set<uint64_t> seen;
  std::vector<uint64_t> all;
  for (uint64_t i = 0; i < size; ++i) {
    all.push_back(i);
    std::optional<std::string> bytes = ReadOne(store, i);
    reads.ids.push_back(std::nullopt);
    if (!bytes.has_value()) {
      reads.refused.insert(i);
      continue;
    }
    std::optional<uint64_t> id = IdentifySample(kind_, *bytes, kIdLimit);
    if (!id.has_value() || (in_order && *id != i) || !seen.insert(*id).second) {
      Fail(Outcome::kWrongData,
           absl::StrCat("record ", i, " read back as ",
                        id.has_value() ? absl::StrCat("sample ", *id)
                                       : "bytes of no sample",
                        in_order ? "" : " (or twice)"));
      continue;
    }
    reads.ids.back() = id;
  }
  if (!all.empty()) {
    std::string buffer;
    auto batch = ReadBatch(store, all, buffer);
    Note(batch.status());
    if (batch.ok()) {
      for (uint64_t i = 0; i < size; ++i) {
        const uint64_t end =
            i + 1 < size ? batch->offsets[i + 1] : batch->total_bytes;
        const std::string bytes =
            buffer.substr(batch->offsets[i], end - batch->offsets[i]);
        if (!reads.ids[i].has_value() ||
            IdentifySample(kind_, bytes, kIdLimit) != reads.ids[i]) {
          Fail(Outcome::kWrongData,
               absl::StrCat("record ", i, " of a batch read differs from its ",
                            "read alone"));
        }
      }
    }
  }
  absl::StatusOr<StoreStats> stats = store.Stats();
  Note(stats.status());
  if (stats.ok() && stats->records != size) {
    Fail(Outcome::kWrongData,
         absl::StrCat("stats count ", stats->records, " records of ", size));
  }
  if (!reads.refused.empty()) damage_seen_ = true;
  return reads;
}

void Probe::CheckVerify(const TypedStore& store, const Reads& reads) {
  absl::StatusOr<VerifyReport> report = store.Verify();
  if (!report.ok()) {
    Note(report.status());
    damage_seen_ = true;
    return;
  }
  const std::set<uint64_t> damaged(report->damaged.begin(),
                                   report->damaged.end());
  for (uint64_t index : reads.refused) {
    if (!damaged.contains(index)) {
      Fail(Outcome::kWrongData,
           absl::StrCat("record ", index, " fails to read but Verify does ",
                        "not name it"));
    }
  }
  if (!damaged.empty()) damage_seen_ = true;
  if (report->unverified > 0) unverified_ = true;
  if (report->removed_records > 0) {
    if (report->ok()) {
      Fail(Outcome::kWrongData,
           absl::StrCat(report->removed_records,
                        " records removed and Verify says ok"));
    }
    removed_records_ += report->removed_records;
  }
}

void Probe::Maintain(const std::optional<std::set<uint64_t>>& present_before) {
  StoreOptions writable;
  auto store = TypedStore::OpenAny(*vfs_, path_, writable);
  if (!store.ok()) {
    Note(store.status());
    return;
  }
  Reads reads = ReadAll(**store, /*in_order=*/true);
  std::set<uint64_t> expected;
  for (const auto& id : reads.ids) {
    if (id.has_value()) expected.insert(*id);
  }
  if (present_before.has_value() && expected != *present_before) {
    Fail(Outcome::kWrongData,
         absl::StrCat("a writable open reads samples {",
                      absl::StrJoin(expected, ","), "}, a read-only one {",
                      absl::StrJoin(*present_before, ","), "}"));
  }
  const DType bytes = DType::Simple("|u1");
  const std::string record = SampleRecord(kind_, kSampleRecords);
  const ShapedRecord append[] = {{record, {record.size()}, &bytes}};
  absl::StatusOr<uint64_t> appended = (*store)->Append(append);
  Note(appended.status());
  if (appended.ok()) expected.insert(kSampleRecords);
  if ((*store)->size() > 0) {
    // The sample read at position 0, if one was. (Not kept as an optional:
    // GCC 12 at -O2 takes erasing its value for a read of an uninitialized
    // one, and -Werror stops the optimised build.)
    const bool first_known =
        !reads.ids.empty() && reads.ids.front().has_value();
    const uint64_t first = first_known ? *reads.ids.front() : 0;
    const uint64_t zero[] = {0};
    absl::Status deleted = (*store)->Delete(zero);
    Note(deleted);
    if (deleted.ok() && first_known) expected.erase(first);
  }
  Note((*store)->Compact());
  Note((*store)->Sync());
  store->reset();

  StoreOptions read_only;
  read_only.read_only = true;
  auto reopened = TypedStore::OpenAny(*vfs_, path_, read_only);
  if (!reopened.ok()) {
    Fail(Outcome::kWrongData,
         absl::StrCat("opened before maintenance, not after: ",
                      reopened.status().ToString()));
    return;
  }
  Reads after = ReadAll(**reopened, /*in_order=*/false);
  std::set<uint64_t> found;
  for (const auto& id : after.ids) {
    if (id.has_value()) found.insert(*id);
  }
  std::vector<uint64_t> lost;
  std::set_difference(expected.begin(), expected.end(), found.begin(),
                      found.end(), std::back_inserter(lost));
  if (lost.size() > after.refused.size()) {
    Fail(Outcome::kWrongData, absl::StrCat("maintenance lost samples {",
                                           absl::StrJoin(lost, ","), "}"));
  }
}

ProbeResult Probe::Run() {
  auto vfs = CreateVfs("posix");
  if (!vfs.ok()) return {Outcome::kCrash, vfs.status().ToString()};
  vfs_ = std::move(*vfs);

  StoreOptions read_only;
  read_only.read_only = true;
  auto store = TypedStore::OpenAny(*vfs_, path_, read_only);
  if (!store.ok()) {
    Note(store.status());
    // A writable open may repair what a read-only one cannot, but what it
    // reads must be right, and maintenance must lose none of it.
    Maintain(std::nullopt);
    if (failed_) return result_;
    return {Outcome::kOpenRefused, first_status_};
  }
  Reads reads = ReadAll(**store, /*in_order=*/true);
  CheckVerify(**store, reads);
  std::set<uint64_t> present;
  for (const auto& id : reads.ids) {
    if (id.has_value()) present.insert(*id);
  }
  if (!damage_seen_ && present.size() + removed_records_ < kSampleRecords) {
    Fail(Outcome::kWrongData,
         absl::StrCat("opened with ", present.size(), " of ", kSampleRecords,
                      " records and no damage reported"));
  }
  store->reset();
  Maintain(present);
  if (failed_) return result_;
  if (damage_seen_) return {Outcome::kDamageReported, first_status_};
  if (removed_records_ > 0) return {Outcome::kShrinkReported, first_status_};
  if (unverified_) return {Outcome::kCorrectUnverified, first_status_};
  return {Outcome::kCorrectData, first_status_};
}

}  // namespace

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOpenRefused:
      return "open refused";
    case Outcome::kDamageReported:
      return "damage reported";
    case Outcome::kShrinkReported:
      return "shrink reported";
    case Outcome::kCorrectData:
      return "correct data";
    case Outcome::kCorrectUnverified:
      return "correct, unverified";
    case Outcome::kWrongData:
      return "WRONG DATA";
    case Outcome::kCrash:
      return "CRASH";
    case Outcome::kTimeout:
      return "HANG";
    case Outcome::kMemoryCap:
      return "MEMORY CAP";
  }
  return "?";
}

bool IsFailure(Outcome outcome) {
  return static_cast<int>(outcome) >= static_cast<int>(Outcome::kWrongData);
}

ProbeResult ProbeStore(const std::string& kind, const std::string& path) {
  return Probe(kind, path).Run();
}

}  // namespace loaderx::damage
