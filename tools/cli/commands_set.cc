// `set create`, and `info` / `stats` / `verify` of a store set.

#include "tools/cli/commands_set.h"

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "loaderx/dtype.h"
#include "loaderx/store_set.h"
#include "tools/cli/command.h"
#include "tools/cli/store_access.h"

namespace loaderx::cli {
namespace {

struct OpenedSet {
  std::unique_ptr<Vfs> vfs;
  std::unique_ptr<StoreSet> set;
};

absl::StatusOr<OpenedSet> OpenSet(absl::string_view path) {
  OpenedSet opened;
  absl::StatusOr<std::unique_ptr<Vfs>> vfs = LocalVfs();
  if (!vfs.ok()) return vfs.status();
  opened.vfs = *std::move(vfs);
  absl::StatusOr<std::unique_ptr<StoreSet>> set =
      StoreSet::Open(*opened.vfs, path);
  if (!set.ok()) return set.status();
  opened.set = *std::move(set);
  return opened;
}

void Print(const ParsedArguments& arguments, CommandContext& context,
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

absl::Status RunSetCreate(const ParsedArguments& arguments,
                          CommandContext& context) {
  if (arguments.positionals[0] != "create") {
    return absl::InvalidArgumentError(
        absl::StrCat("set: unknown action '", arguments.positionals[0],
                     "'; the action is 'create MANIFEST STORE...'"));
  }
  const std::string& manifest = arguments.positionals[1];
  const std::vector<std::string> members(arguments.positionals.begin() + 2,
                                         arguments.positionals.end());
  absl::StatusOr<std::unique_ptr<Vfs>> vfs = LocalVfs();
  if (!vfs.ok()) return vfs.status();
  if (absl::Status status = StoreSet::Create(**vfs, manifest, members);
      !status.ok()) {
    return status;
  }
  absl::StatusOr<OpenedSet> opened = OpenSet(manifest);
  if (!opened.ok()) return opened.status();
  Json report = Json::MakeObject();
  report.Set("manifest", manifest);
  report.Set("members", static_cast<uint64_t>(opened->set->num_members()));
  report.Set("records", opened->set->size());
  Print(arguments, context, report);
  return absl::OkStatus();
}

}  // namespace

bool LooksLikeStoreSet(absl::string_view path) {
  std::ifstream file{std::string(path), std::ios::binary};
  char magic[4] = {};
  return file.read(magic, 4) && std::string(magic, 4) == "LXSS";
}

absl::Status RunSetInfo(const ParsedArguments& arguments,
                        CommandContext& context) {
  const std::string& path = arguments.positionals[0];
  absl::StatusOr<OpenedSet> opened = OpenSet(path);
  if (!opened.ok()) return opened.status();
  const StoreSet& set = *opened->set;
  absl::StatusOr<StoreStats> stats = set.Stats();
  if (!stats.ok()) return stats.status();
  Json info = Json::MakeObject();
  info.Set("path", path);
  info.Set("set", true);
  info.Set("kind", set.kind());
  info.Set("dtype", DTypeToString(set.identity().dtype));
  info.Set("item_size", set.item_size());
  if (set.fixed_width()) {
    info.Set("item_shape", Json::Numbers(set.identity().item_shape));
    info.Set("record_bytes", set.record_bytes());
  } else {
    info.Set("item_shape", Json());
    info.Set("record_bytes", Json());
  }
  info.Set("records", set.size());
  info.Set("bytes", stats->live_bytes);
  info.Set("members", static_cast<uint64_t>(set.num_members()));
  Json members = Json::MakeArray();
  for (size_t m = 0; m < set.num_members(); ++m) {
    Json member = Json::MakeObject();
    member.Set("path", set.member_path(m));
    member.Set("records", set.member(m).size());
    member.Set("first", set.member_start(m));
    members.Push(std::move(member));
  }
  if (arguments.Has("--json")) {
    info.Set("member_stores", std::move(members));
    PrintJson(context, info);
    return absl::OkStatus();
  }
  Print(arguments, context, info);
  for (size_t m = 0; m < set.num_members(); ++m) {
    context.out << absl::StrFormat("  member %d  %s  %d records from %d\n", m,
                                   set.member_path(m), set.member(m).size(),
                                   set.member_start(m));
  }
  return absl::OkStatus();
}

absl::Status RunSetStats(const ParsedArguments& arguments,
                         CommandContext& context) {
  const std::string& path = arguments.positionals[0];
  absl::StatusOr<OpenedSet> opened = OpenSet(path);
  if (!opened.ok()) return opened.status();
  absl::StatusOr<StoreStats> stats = opened->set->Stats();
  if (!stats.ok()) return stats.status();
  Json report = Json::MakeObject();
  report.Set("path", path);
  report.Set("members", static_cast<uint64_t>(opened->set->num_members()));
  report.Set("records", stats->records);
  report.Set("live_bytes", stats->live_bytes);
  report.Set("chunk_bytes", stats->chunk_bytes);
  report.Set("reclaimable_bytes", stats->reclaimable);
  Print(arguments, context, report);
  return absl::OkStatus();
}

absl::Status RunSetVerify(const ParsedArguments& arguments,
                          CommandContext& context) {
  const std::string& path = arguments.positionals[0];
  absl::StatusOr<OpenedSet> opened = OpenSet(path);
  if (!opened.ok()) return opened.status();
  absl::StatusOr<VerifyReport> verified = opened->set->Verify();
  if (!verified.ok()) return verified.status();
  Json report = Json::MakeObject();
  report.Set("path", path);
  report.Set("ok", verified->ok());
  report.Set("records", verified->records);
  report.Set("verified", verified->verified);
  report.Set("unverified", verified->unverified);
  report.Set("damaged", Json::Numbers(verified->damaged));
  Json problems = Json::MakeArray();
  for (const std::string& problem : verified->problems) problems.Push(problem);
  if (arguments.Has("--json")) {
    report.Set("problems", std::move(problems));
    PrintJson(context, report);
  } else {
    PrintFields(context, {{"path", path},
                          {"records", absl::StrCat(verified->records)},
                          {"verified", absl::StrCat(verified->verified)},
                          {"unverified", absl::StrCat(verified->unverified)},
                          {"damaged", absl::StrCat(verified->damaged.size())}});
    for (const std::string& problem : verified->problems) {
      context.out << "  " << problem << "\n";
    }
  }
  if (verified->ok()) return absl::OkStatus();
  return absl::DataLossError(
      absl::StrFormat("%s: %d of %d records of the set are damaged", path,
                      verified->damaged.size(), verified->records));
}

std::vector<Command> SetCommands() {
  return {{{"set",
            "create MANIFEST STORE...",
            "Write a store-set manifest: many stores of one type read as one.",
            "Opens every STORE read-only, checks that all share the first "
            "one's kind and type, and writes MANIFEST (format: "
            "docs/store-set-format.md) naming them relative to its directory, "
            "with each one's record count and fingerprint. The set reads the "
            "stores in the order given. info, stats, verify take a manifest "
            "wherever they take a store.\n",
            {JsonOption()},
            3,
            1u << 20},
           RunSetCreate}};
}

}  // namespace loaderx::cli
