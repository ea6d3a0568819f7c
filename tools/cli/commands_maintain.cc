// `compact` (in place, crash-safe by the engine's journal) and `recode`
// (every record into a new store with another codec).

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "loaderx/store_dictionary.h"
#include "tools/cli/command.h"
#include "tools/cli/interrupt.h"
#include "tools/cli/new_store_options.h"
#include "tools/cli/staged_output.h"
#include "tools/cli/store_access.h"

namespace loaderx::cli {
namespace {

// `compact --dry-run`: what a compaction would do and the space it needs,
// from a read-only open; nothing is written.
absl::Status RunCompactDryRun(const ParsedArguments& arguments,
                              CommandContext& context) {
  const std::string& path = arguments.positionals[0];
  absl::StatusOr<OpenedStore> opened = OpenStore(path, /*read_only=*/true);
  if (!opened.ok()) return opened.status();
  absl::StatusOr<CompactionEstimate> estimate =
      opened->store->EstimateCompaction();
  if (!estimate.ok()) return estimate.status();
  const bool fits = !estimate->available_bytes.has_value() ||
                    *estimate->available_bytes >= estimate->needed_bytes;
  Json report = Json::MakeObject();
  report.Set("path", path);
  report.Set("moves", estimate->moves);
  report.Set("batches", estimate->batches);
  report.Set("reclaimed_bytes", estimate->reclaimed_bytes);
  report.Set("needed_bytes", estimate->needed_bytes);
  report.Set("available_bytes", estimate->available_bytes.has_value()
                                    ? Json(*estimate->available_bytes)
                                    : Json());
  report.Set("fits", fits);
  if (arguments.Has("--json")) {
    PrintJson(context, report);
  } else {
    context.out << "compaction of " << path << " would move "
                << estimate->moves << " records in " << estimate->batches
                << " steps, give back " << estimate->reclaimed_bytes
                << " bytes, and needs " << estimate->needed_bytes
                << " bytes of free space (";
    if (estimate->available_bytes.has_value()) {
      context.out << *estimate->available_bytes << " available";
    } else {
      context.out << "the filesystem does not say how much is free";
    }
    context.out << ")" << (fits ? "" : ": not enough, it would refuse")
                << "\n";
  }
  return absl::OkStatus();
}

absl::Status RunCompact(const ParsedArguments& arguments,
                        CommandContext& context) {
  if (arguments.Has("--dry-run")) return RunCompactDryRun(arguments, context);
  const std::string& path = arguments.positionals[0];
  absl::StatusOr<OpenedStore> opened = OpenStore(path, /*read_only=*/false);
  if (!opened.ok()) return opened.status();
  absl::StatusOr<StoreStats> before = opened->store->Stats();
  if (!before.ok()) return before.status();
  if (absl::Status compacted = opened->store->Compact(); !compacted.ok()) {
    return compacted;
  }
  absl::StatusOr<StoreStats> after = opened->store->Stats();
  if (!after.ok()) return after.status();
  Json report = Json::MakeObject();
  report.Set("path", path);
  report.Set("records", after->records);
  report.Set("chunk_bytes_before", before->chunk_bytes);
  report.Set("chunk_bytes_after", after->chunk_bytes);
  report.Set("reclaimed_bytes", before->chunk_bytes - after->chunk_bytes);
  if (arguments.Has("--json")) {
    PrintJson(context, report);
  } else {
    context.out << "compacted " << path << ": " << before->chunk_bytes << " -> "
                << after->chunk_bytes << " chunk bytes ("
                << before->chunk_bytes - after->chunk_bytes << " reclaimed)\n";
  }
  return absl::OkStatus();
}

absl::Status RunRecode(const ParsedArguments& arguments,
                       CommandContext& context) {
  const std::string& source_path = arguments.positionals[0];
  const std::string& destination = arguments.positionals[1];
  absl::StatusOr<NewStoreSettings> settings = NewStoreSettingsFrom(arguments);
  if (!settings.ok()) return settings.status();
  absl::StatusOr<OpenedStore> source =
      OpenStore(source_path, /*read_only=*/true);
  if (!source.ok()) return source.status();
  const TypedStore& from = *source->store;
  absl::StatusOr<std::unique_ptr<StagedOutput>> staged =
      StagedOutput::Reserve(destination);
  if (!staged.ok()) return staged.status();

  absl::StatusOr<std::string> dictionary =
      DictionaryFor(*settings, &from, context);
  if (!dictionary.ok()) return dictionary.status();
  if (absl::Status interrupted = CheckInterrupted(); !interrupted.ok()) {
    return interrupted;
  }
  absl::StatusOr<OpenedStore> target = CreateStore(
      (*staged)->path(), from.kind(), from.identity(),
      NewStoreOptions(settings->codec, settings->level, *dictionary));
  if (!target.ok()) return target.status();
  Progress progress(context.progress, context.progress_stream, "recode",
                    from.size(), "records");
  if (absl::Status copied = CopyRecords(from, *target->store, progress);
      !copied.ok()) {
    return copied;
  }
  absl::StatusOr<StoreStats> before = from.Stats();
  absl::StatusOr<StoreStats> after = target->store->Stats();
  if (!before.ok()) return before.status();
  if (!after.ok()) return after.status();
  if (absl::Status closed = SyncAndClose(*target); !closed.ok()) return closed;
  if (absl::Status committed = (*staged)->Commit(); !committed.ok()) {
    return committed;
  }
  progress.Finish();

  Json report = Json::MakeObject();
  report.Set("source", source_path);
  report.Set("destination", destination);
  report.Set("records", after->records);
  report.Set("source_codec", from.codec());
  report.Set("codec", settings->codec);
  report.Set("source_bytes", before->live_bytes);
  report.Set("bytes", after->live_bytes);
  report.Set("dictionary_bytes",
             dictionary->empty() ? Json() : Json(uint64_t{dictionary->size()}));
  if (arguments.Has("--json")) {
    PrintJson(context, report);
  } else {
    context.out << "recoded " << after->records << " records from "
                << from.codec() << " to " << settings->codec << ": "
                << before->live_bytes << " -> " << after->live_bytes
                << " bytes";
    if (!dictionary->empty()) {
      context.out << " (dictionary " << dictionary->size() << " bytes)";
    }
    context.out << "\n";
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<Command> MaintainCommands() {
  std::vector<Command> commands;
  commands.push_back(
      {{"compact",
        "STORE",
        "Reclaim the bytes that deleted records left behind, in place.",
        "Compaction is journaled by the engine: interrupted or crashed, it "
        "resumes or rolls back on the next open, and no committed record is "
        "lost. It needs the store to itself (no other process may hold it).\n"
        "\nRecords that cannot move into the holes before them are staged "
        "past the end first, which needs free space: when the filesystem "
        "says there is less than that, compact refuses and changes nothing; "
        "--dry-run prints what it would move, give back and need.\n",
        {JsonOption(),
         {"--dry-run", "",
          "print the records it would move, the bytes it would give back and "
          "the free space it needs, and change nothing"}},
        1,
        1},
       RunCompact});
  std::vector<OptionSpec> options = NewStoreOptionSpecs();
  options.push_back(JsonOption());
  options.push_back(QuietOption());
  commands.push_back(
      {{"recode", "SOURCE DESTINATION",
        "Copy every record of a store into a new store with another codec "
        "(raw, zstd, zstd_dict).",
        "The source is opened read-only and left untouched. The destination "
        "must not exist: it is written beside its final path and moved into "
        "place when complete, so an interrupted or failed recode leaves no "
        "destination at all.\n\nFor zstd_dict the dictionary is trained on "
        "an evenly strided sample of the source's records, as "
        "loaderx.utils.train_dict(store, tier) does (tiers: fast 32 KiB "
        "trained on 4 MiB, balanced 128 KiB on 16 MiB, max 1 MiB on 64 MiB), "
        "unless --dictionary gives one.\n",
        options, 2, 2},
       RunRecode,
       /*catches_interrupts=*/true});
  return commands;
}

}  // namespace loaderx::cli
