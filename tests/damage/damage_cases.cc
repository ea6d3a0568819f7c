#include "tests/damage/damage_cases.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/integrity_format.h"
#include "src/journal.h"
#include "src/store_format.h"
#include "tests/damage/file_edits.h"

namespace loaderx::damage {
namespace {

namespace fs = std::filesystem;
namespace sf = store_format;
namespace itf = integrity_format;

struct Field {
  const char* name;
  uint64_t offset;
  uint64_t size;
};

// The header fields of each file, from its format's diagram.
const std::vector<Field> kMetaFields = {
    {"magic", 0, 4},      {"version", 4, 1},      {"codec", 5, 1},
    {"tail_chunk", 6, 4}, {"tail_offset", 10, 4}, {"length", 14, 8},
    {"reserved", 22, 10}};
const std::vector<Field> kTypedHeaderFields = {
    {"magic", 0, 4},      {"version", 4, 1},      {"kind", 5, 1},
    {"reserved", 6, 2},   {"record_bytes", 8, 8}, {"identity_len", 16, 8},
    {"reserved2", 24, 8}, {"identity[0]", 32, 1}, {"identity[1..4]", 33, 4}};
const std::vector<Field> kSlotFields = {{"magic", 0, 4},
                                        {"version", 4, 1},
                                        {"flags", 5, 1},
                                        {"reserved", 6, 2},
                                        {"sequence", 8, 8},
                                        {"epoch", 16, 4},
                                        {"reserved2", 20, 4},
                                        {"meta.zr.length", 24 + 14, 8},
                                        {"meta.zr.tail", 24 + 10, 4},
                                        {"stamp", 56, 8},
                                        {"store.zr", 64, 8},
                                        {"dict.zr", 72, 8},
                                        {"reserved3", 80, 40},
                                        {"checksum", 120, 8}};
const std::vector<Field> kSealFields = {{"magic", 0, 4},
                                        {"version", 4, 1},
                                        {"pending", 5, 1},
                                        {"reserved", 6, 2},
                                        {"meta.zr.length", 8 + 14, 8},
                                        {"previous.length", 40 + 14, 8},
                                        {"stamp", 72, 8},
                                        {"reserved2", 80, 8},
                                        {"checksum", 88, 8}};
const std::vector<Field> kLocFields = {{"offset", 0, 4},
                                       {"phys_length", 4, 4},
                                       {"logic_length", 8, 4},
                                       {"chunk_id", 12, 4}};
const std::vector<Field> kChecksumEntryFields = {{"checksum", 0, 8},
                                                 {"binding", 8, 8},
                                                 {"epoch", 16, 4},
                                                 {"reserved", 20, 4}};

using Edit = std::function<void(std::string&)>;

class CaseList {
 public:
  explicit CaseList(std::string pristine) : pristine_(std::move(pristine)) {}

  void Add(std::string group, std::string name,
           std::function<absl::Status(const std::string&, const std::string&)>
               apply) {
    cases_.push_back({std::move(group), std::move(name), std::move(apply)});
  }

  // A case that edits the bytes of `file` in place (times kept).
  void AddEdit(const std::string& group, const std::string& file,
               const std::string& what, Edit edit) {
    Add(group, absl::StrCat(file, " ", what),
        [file, edit](const std::string& dir, const std::string&) {
          const std::string path = dir + "/" + file;
          absl::StatusOr<std::string> bytes = ReadBytes(path);
          if (!bytes.ok()) return bytes.status();
          edit(*bytes);
          return RewriteKeepingTimes(path, *bytes);
        });
  }

  // Zeroed, maxed, low and high bit flipped: whichever change the bytes.
  void AddFieldCases(const std::string& group, const std::string& file,
                     const std::string& prefix, uint64_t base,
                     const std::vector<Field>& fields, uint64_t file_size) {
    for (const Field& field : fields) {
      const uint64_t at = base + field.offset;
      if (at + field.size > file_size) continue;
      const std::string name = absl::StrCat(prefix, field.name);
      AddEdit(group, file, name + " zeroed", [at, field](std::string& b) {
        std::fill_n(&b[at], field.size, '\0');
      });
      AddEdit(group, file, name + " maxed", [at, field](std::string& b) {
        std::fill_n(&b[at], field.size, '\xff');
      });
      AddEdit(group, file, name + " low bit flipped",
              [at](std::string& b) { b[at] ^= 0x01; });
      AddEdit(group, file, name + " high bit flipped",
              [at, field](std::string& b) { b[at + field.size - 1] ^= 0x80; });
    }
  }

  std::vector<DamageCase> Take() { return std::move(cases_); }

 private:
  std::string pristine_;
  std::vector<DamageCase> cases_;
};

void AddHeaderCases(CaseList& cases, const std::string& file, uint64_t size) {
  if (file == sf::kHeaderFile) {
    cases.AddFieldCases("field", file, "", 0, kMetaFields, size);
  } else if (file == sf::kTypedHeaderFile) {
    cases.AddFieldCases("field", file, "", 0, kTypedHeaderFields, size);
  } else if (file == itf::kIntegrityFile) {
    cases.AddFieldCases("field", file, "slot A ", itf::kSlotOffset[0],
                        kSlotFields, size);
    cases.AddFieldCases("field", file, "slot B ", itf::kSlotOffset[1],
                        kSlotFields, size);
    cases.AddFieldCases("field", file, "seal ", itf::kSealOffset, kSealFields,
                        size);
  } else if (file == sf::kDictionaryFile) {
    cases.AddFieldCases("field", file, "", 0, {{"byte 0", 0, 1}}, size);
    cases.AddFieldCases("field", file, "", size / 2, {{"middle byte", 0, 1}},
                        size);
    cases.AddFieldCases("field", file, "", size - 1, {{"last byte", 0, 1}},
                        size);
  }
}

// Table entries, checksum entries and the payloads they point at.
void AddEntryCases(CaseList& cases, const std::string& table,
                   uint64_t integrity_size) {
  const uint64_t entries = table.size() / sf::kRecordLocBytes;
  const std::string loc = sf::SegmentFileName(0);
  for (uint64_t e = 0; e < entries; ++e) {
    const uint64_t at = e * sf::kRecordLocBytes;
    cases.AddFieldCases("entry", loc, absl::StrCat("entry ", e, " "), at,
                        kLocFields, table.size());
    const uint64_t checksum_at = itf::kEntriesOffset + e * itf::kEntryBytes;
    cases.AddFieldCases("entry", std::string(itf::kIntegrityFile),
                        absl::StrCat("checksum ", e, " "), checksum_at,
                        kChecksumEntryFields, integrity_size);
    if (e + 1 < entries) {
      const uint64_t n = sf::kRecordLocBytes;
      cases.AddEdit("entry", loc,
                    absl::StrCat("entries ", e, ",", e + 1, " swapped"),
                    [at, n](std::string& b) {
                      std::swap_ranges(&b[at], &b[at + n], &b[at + n]);
                    });
      cases.AddEdit(
          "entry", loc, absl::StrCat("entry ", e, " duplicated over ", e + 1),
          [at, n](std::string& b) { std::copy_n(&b[at], n, &b[at + n]); });
    }
    const sf::RecordLoc record = sf::DecodeRecordLoc(&table[at]);
    const std::string chunk = sf::ChunkFileName(record.chunk_id);
    const uint64_t start = record.offset, length = record.phys_length;
    cases.AddEdit("payload", chunk,
                  absl::StrCat("record ", e, " middle byte flipped"),
                  [start, length](std::string& b) {
                    if (start + length <= b.size()) b[start + length / 2] ^= 1;
                  });
    cases.AddEdit("payload", chunk, absl::StrCat("record ", e, " zeroed"),
                  [start, length](std::string& b) {
                    if (start + length <= b.size()) {
                      std::fill_n(&b[start], length, '\0');
                    }
                  });
  }
}

// journal.lx holding intact records of steps that cannot be: their headers
// and entries point outside the store.
void AddJournalCases(CaseList& cases, const std::string& meta) {
  absl::StatusOr<sf::PhysicalHeader> header = sf::DecodeHeader(meta, "meta");
  if (!header.ok()) return;
  struct Bogus {
    const char* name;
    std::function<void(JournalRecord&)> edit;
  };
  const std::vector<Bogus> bogus = {
      {"a delete growing the store",
       [](JournalRecord& r) { r.header.length += 1000; }},
      {"a delete of an entry past the table",
       [](JournalRecord& r) { r.entries[0].index = uint64_t{1} << 40; }},
      {"an entry past the frontier",
       [](JournalRecord& r) { r.entries[0].loc.offset = 1u << 30; }},
      {"an entry of 4 GiB",
       [](JournalRecord& r) {
         r.entries[0].loc.phys_length = 0xffffffffu;
         r.entries[0].loc.logic_length = 0x80000000u;
       }},
      {"an entry in a missing chunk",
       [](JournalRecord& r) { r.entries[0].loc.chunk_id = 7; }},
      {"a compaction end past the frontier",
       [](JournalRecord& r) {
         r.op = JournalOp::kCompactionEnd;
         r.header.tail_offset = 0xfffffff0u;
       }},
  };
  for (const Bogus& b : bogus) {
    JournalRecord record;
    record.op = JournalOp::kDelete;
    record.header = *header;
    record.entries.push_back({0, sf::RecordLoc{0, 1, 1, 0}, {}});
    b.edit(record);
    const std::string bytes = EncodeJournal(record);
    cases.Add("journal", absl::StrCat("journal.lx holding ", b.name),
              [bytes](const std::string& dir, const std::string&) {
                return RewriteKeepingTimes(dir + "/journal.lx", bytes);
              });
  }
  cases.AddEdit("journal", "journal.lx", "torn record (garbage)",
                [](std::string& b) {
                  std::mt19937 random(7);
                  b.assign(56 + 48, '\0');
                  for (char& c : b) c = static_cast<char>(random());
                  std::copy_n("LXJN\x01\x01", 6, b.data());
                });
}

void AddShapeCases(CaseList& cases, const std::string& file, uint64_t size,
                   std::set<uint64_t> cuts) {
  cuts.insert({0, 1, size / 2});
  if (size > 0) cuts.insert(size - 1);
  for (uint64_t cut : cuts) {
    if (cut >= size) continue;
    cases.Add("truncate", absl::StrCat(file, " cut at ", cut),
              [file, cut](const std::string& dir, const std::string&) {
                absl::StatusOr<std::string> b = ReadBytes(dir + "/" + file);
                if (!b.ok()) return b.status();
                return RewriteKeepingTimes(dir + "/" + file, b->substr(0, cut));
              });
  }
  for (uint64_t extra : {uint64_t{1}, uint64_t{4096}}) {
    cases.AddEdit("extend", file, absl::StrCat("+", extra, " garbage bytes"),
                  [extra](std::string& b) {
                    std::mt19937 random(static_cast<unsigned>(extra));
                    for (uint64_t i = 0; i < extra; ++i) {
                      b += static_cast<char>(random() | 1);
                    }
                  });
  }
}

absl::Status Check(int rc, const std::string& what) {
  if (rc == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(errno)));
}

void AddFileTypeCases(CaseList& cases, const std::string& file) {
  using Apply =
      std::function<absl::Status(const std::string&, const std::string&)>;
  auto replace = [&](const std::string& what, Apply make) {
    cases.Add("file type", absl::StrCat(file, " ", what),
              [file, make](const std::string& dir, const std::string& scratch) {
                const std::string path = dir + "/" + file;
                if (absl::Status s = RemoveTree(path); !s.ok()) return s;
                return make(path, scratch);
              });
  };
  replace("removed", [](const std::string&, const std::string&) {
    return absl::OkStatus();
  });
  replace("a directory", [](const std::string& path, const std::string&) {
    return Check(::mkdir(path.c_str(), 0755), "mkdir " + path);
  });
  replace("a FIFO", [](const std::string& path, const std::string&) {
    return Check(::mkfifo(path.c_str(), 0644), "mkfifo " + path);
  });
  replace("a dangling symlink", [](const std::string& path,
                                   const std::string& scratch) {
    return Check(::symlink((scratch + "/nothing").c_str(), path.c_str()),
                 "symlink " + path);
  });
  replace("a symlink loop", [](const std::string& path, const std::string&) {
    return Check(::symlink(path.c_str(), path.c_str()), "symlink " + path);
  });
  replace("a symlink to /dev/zero", [](const std::string& path,
                                       const std::string&) {
    return Check(::symlink("/dev/zero", path.c_str()), "symlink " + path);
  });
  // The same bytes, elsewhere: data must read back.
  cases.Add("file type", absl::StrCat(file, " a symlink to a copy elsewhere"),
            [file](const std::string& dir, const std::string& scratch) {
              const std::string path = dir + "/" + file;
              const std::string moved = scratch + "/moved-" + file;
              return Check(::rename(path.c_str(), moved.c_str()) ||
                               ::symlink(moved.c_str(), path.c_str()),
                           "symlink " + path);
            });
  for (int mode : {0000, 0444}) {
    cases.Add("access",
              absl::StrCat(file, " mode 0", mode == 0 ? "000" : "444"),
              [file, mode](const std::string& dir, const std::string&) {
                const std::string path = dir + "/" + file;
                return Check(::chmod(path.c_str(), mode), "chmod " + path);
              });
  }
}

void AddDirectoryCases(CaseList& cases) {
  for (int mode : {0555, 0000}) {
    cases.Add("directory",
              absl::StrCat("store directory mode 0", mode == 0 ? "000" : "555"),
              [mode](const std::string& dir, const std::string&) {
                return Check(::chmod(dir.c_str(), mode), "chmod " + dir);
              });
  }
  cases.Add("directory", "store directory a symlink to a copy",
            [](const std::string& dir, const std::string& scratch) {
              const std::string moved = scratch + "/moved-store";
              return Check(::rename(dir.c_str(), moved.c_str()) ||
                               ::symlink(moved.c_str(), dir.c_str()),
                           "symlink " + dir);
            });
  cases.Add("directory", "store directory replaced by a file",
            [](const std::string& dir, const std::string&) {
              if (absl::Status s = RemoveTree(dir); !s.ok()) return s;
              return WriteBytes(dir, "ZREC");
            });
}

// A metadata file grown to 1 GiB and to 8 GiB (sparse, its bytes in front,
// so it still starts as itself): a reader that allocates the file's size
// hits the probe's memory cap; a bounded one refuses it
// (`src/metadata_file.h`).
void AddHugeCases(CaseList& cases, const std::string& file) {
  for (uint64_t gib : {uint64_t{1}, uint64_t{8}}) {
    cases.Add("huge", absl::StrCat(file, " grown to ", gib, " GiB (sparse)"),
              [file, gib](const std::string& dir, const std::string&) {
                return GrowSparseKeepingTimes(dir + "/" + file, gib << 30);
              });
  }
}

}  // namespace

std::vector<DamageCase> DamageCases(const std::string& kind,
                                    const std::string& pristine) {
  (void)kind;
  CaseList cases(pristine);
  std::vector<std::string> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(pristine)) {
    files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  const std::string table =
      ReadBytes(pristine + "/" + sf::SegmentFileName(0)).value_or("");
  const std::string meta =
      ReadBytes(pristine + "/" + std::string(sf::kHeaderFile)).value_or("");
  std::set<uint64_t> record_starts;
  for (uint64_t at = 0; at + sf::kRecordLocBytes <= table.size();
       at += sf::kRecordLocBytes) {
    record_starts.insert(sf::DecodeRecordLoc(&table[at]).offset);
  }
  for (const std::string& file : files) {
    const uint64_t size = fs::file_size(pristine + "/" + file);
    AddHeaderCases(cases, file, size);
    if (file == itf::kIntegrityFile) AddEntryCases(cases, table, size);
    if (file == kJournalFile) AddJournalCases(cases, meta);
    std::set<uint64_t> cuts;
    if (file == sf::kHeaderFile) cuts = {sf::kHeaderBytes - 1};
    if (file == sf::kTypedHeaderFile) cuts = {31, 32};
    if (file == itf::kIntegrityFile) {
      cuts = {itf::kSlotBytes, itf::kBlockBytes, itf::kSealOffset,
              itf::kEntriesOffset, itf::kEntriesOffset + itf::kEntryBytes};
    }
    if (file == sf::SegmentFileName(0)) {
      for (uint64_t at = 0; at < size; at += sf::kRecordLocBytes) {
        cuts.insert(at);
      }
    }
    if (file == sf::ChunkFileName(0)) cuts = record_starts;
    AddShapeCases(cases, file, size, cuts);
    if (file == sf::kTypedHeaderFile || file == sf::kDictionaryFile ||
        file == sf::kHeaderFile || file == kJournalFile) {
      AddHugeCases(cases, file);
    }
    AddFileTypeCases(cases, file);
  }
  AddDirectoryCases(cases);
  return cases.Take();
}

}  // namespace loaderx::damage
