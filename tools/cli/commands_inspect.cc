// `info`, `stats` and `verify`: read-only looks at one store (or, given a
// store-set manifest, at the set: commands_set.cc).

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/cli/command.h"
#include "tools/cli/commands_set.h"
#include "tools/cli/progress.h"
#include "tools/cli/store_access.h"

namespace loaderx::cli {
namespace {

constexpr char kStoreArgument[] = "STORE";

// Prints `report` as JSON or as one "name  value" line per member.
void PrintReport(const ParsedArguments& arguments, CommandContext& context,
                 const Json& report) {
  if (arguments.Has("--json")) {
    PrintJson(context, report);
    return;
  }
  std::vector<std::pair<std::string, std::string>> fields;
  for (const auto& [key, value] : report.members()) {
    std::string label = key;
    for (char& c : label) c = c == '_' ? ' ' : c;
    fields.emplace_back(label, value.Text());
  }
  PrintFields(context, fields);
}

absl::Status RunInfo(const ParsedArguments& arguments,
                     CommandContext& context) {
  const std::string& path = arguments.positionals[0];
  if (LooksLikeStoreSet(path)) return RunSetInfo(arguments, context);
  absl::StatusOr<OpenedStore> opened = OpenStore(path, /*read_only=*/true);
  if (!opened.ok()) return opened.status();
  absl::StatusOr<Json> info = DescribeStore(path, *opened->store);
  if (!info.ok()) return info.status();
  PrintReport(arguments, context, *info);
  return absl::OkStatus();
}

absl::Status RunStats(const ParsedArguments& arguments,
                      CommandContext& context) {
  const std::string& path = arguments.positionals[0];
  if (LooksLikeStoreSet(path)) return RunSetStats(arguments, context);
  absl::StatusOr<OpenedStore> opened = OpenStore(path, /*read_only=*/true);
  if (!opened.ok()) return opened.status();
  absl::StatusOr<StoreStats> stats = opened->store->Stats();
  if (!stats.ok()) return stats.status();
  Json report = Json::MakeObject();
  report.Set("path", path);
  report.Set("records", stats->records);
  report.Set("live_bytes", stats->live_bytes);
  report.Set("chunk_bytes", stats->chunk_bytes);
  report.Set("reclaimable_bytes", stats->reclaimable);
  report.Set("mean_record_bytes",
             stats->records == 0 ? Json()
                                 : Json(static_cast<double>(stats->live_bytes) /
                                        static_cast<double>(stats->records)));
  report.Set("reclaimable_fraction",
             stats->chunk_bytes == 0
                 ? Json(0.0)
                 : Json(static_cast<double>(stats->reclaimable) /
                        static_cast<double>(stats->chunk_bytes)));
  PrintReport(arguments, context, report);
  return absl::OkStatus();
}

absl::Status RunVerify(const ParsedArguments& arguments,
                       CommandContext& context) {
  const std::string& path = arguments.positionals[0];
  if (LooksLikeStoreSet(path)) return RunSetVerify(arguments, context);
  // Accepting writes checksums.lx: the store is opened for writing then.
  const bool accept = arguments.Has("--accept-shrink");
  absl::StatusOr<OpenedStore> opened = OpenStore(path, /*read_only=*/!accept);
  if (!opened.ok()) return opened.status();
  absl::StatusOr<VerifyReport> verified;
  {
    Progress progress(context.progress, context.progress_stream, "verify",
                      opened->store->size(), "records");
    uint64_t shown = 0;
    verified = opened->store->Verify([&](uint64_t done, uint64_t) {
      progress.Advance(done - shown);
      shown = done;
    });
    if (verified.ok()) progress.Finish();
  }
  if (!verified.ok()) return verified.status();
  const bool accepted = accept && !verified->metadata_problems.empty();
  if (accepted) {
    if (absl::Status done = opened->store->AcceptMetadataProblems();
        !done.ok()) {
      return done;
    }
  }
  Json report = Json::MakeObject();
  report.Set("path", path);
  report.Set("ok", verified->ok());
  report.Set("records", verified->records);
  report.Set("verified", verified->verified);
  report.Set("unverified", verified->unverified);
  report.Set("damaged", Json::Numbers(verified->damaged));
  Json problems = Json::MakeArray();
  for (const std::string& problem : verified->problems) problems.Push(problem);
  report.Set("problems", std::move(problems));
  report.Set("metadata_verified", verified->metadata_verified);
  report.Set("removed_records", verified->removed_records);
  Json metadata_problems = Json::MakeArray();
  for (const std::string& problem : verified->metadata_problems) {
    metadata_problems.Push(problem);
  }
  report.Set("metadata_problems", std::move(metadata_problems));
  Json notes = Json::MakeArray();
  for (const std::string& note : verified->notes) notes.Push(note);
  report.Set("notes", std::move(notes));
  report.Set("accepted", accepted);
  if (arguments.Has("--json")) {
    PrintJson(context, report);
  } else {
    PrintFields(context,
                {{"path", path},
                 {"records", absl::StrCat(verified->records)},
                 {"verified", absl::StrCat(verified->verified)},
                 {"unverified", absl::StrCat(verified->unverified,
                                             verified->unverified > 0
                                                 ? " (no checksum to compare)"
                                                 : "")},
                 {"damaged", absl::StrCat(verified->damaged.size())}});
    for (const std::string& problem : verified->problems) {
      context.out << "  " << problem << "\n";
    }
    if (!verified->damaged.empty()) {
      context.out << "damaged records: "
                  << Json::Numbers(verified->damaged).Dump(false) << "\n";
    }
    for (const std::string& problem : verified->metadata_problems) {
      context.out << "metadata problem: " << problem << "\n";
    }
    for (const std::string& note : verified->notes) {
      context.out << "note: " << note << "\n";
    }
    if (accepted) {
      context.out << "accepted: checksums.lx now records the store as it "
                     "is\n";
    }
  }
  if (!verified->damaged.empty()) {
    return absl::DataLossError(
        absl::StrFormat("%s: %d of %d records are damaged", path,
                        verified->damaged.size(), verified->records));
  }
  if (verified->metadata_problems.empty() || accepted) {
    return absl::OkStatus();
  }
  return absl::DataLossError(absl::StrCat(
      path, ": ", verified->metadata_problems.front(),
      " (run verify --accept-shrink to accept it)"));
}

}  // namespace

std::vector<Command> InspectCommands() {
  std::vector<Command> commands;
  commands.push_back(
      {{"info",
        kStoreArgument,
        "Show a store's kind, dtype, shape, codec, records, bytes, chunks and "
        "dictionary.",
        "Opens the store read-only: it works on read-only files and beside "
        "other readers, and changes nothing.\n",
        {JsonOption()},
        1,
        1},
       RunInfo});
  commands.push_back(
      {{"stats",
        kStoreArgument,
        "Show a store's record and byte counts and what compaction would "
        "reclaim.",
        "The byte counts are the reference's: live bytes include a ragged "
        "store's shape records; chunk bytes measure how far the chunk files "
        "reach.\n",
        {JsonOption()},
        1,
        1},
       RunStats});
  commands.push_back(
      {{"verify",
        kStoreArgument,
        "Read every record once and check it against its checksum.",
        "Every record is decoded and compared with the checksum written with "
        "it; damaged records are reported by index, all of them, not only "
        "the first. Records that vanished past the length (meta.zr says "
        "fewer than checksums.lx recorded: another program's delete, or "
        "damage) are a metadata problem too, until accepted with "
        "--accept-shrink. Exit status: 0 when every record checks out, 1 "
        "when any is damaged (or the store's metadata is), 2 for a path that "
        "is not a store, 3 for an I/O error.\n",
        {JsonOption(),
         {"--accept-shrink", "",
          "accept records removed past the length (or reappeared) as "
          "intended: opens the store for writing and records its current "
          "length in checksums.lx, so later verifies pass"}},
        1,
        1},
       RunVerify});
  return commands;
}

}  // namespace loaderx::cli
