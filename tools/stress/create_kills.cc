#include "tools/stress/create_kills.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "loaderx/spi/status_macros.h"
#include "loaderx/typed_store.h"
#include "loaderx/vfs_registry.h"
#include "vfs/fault/fault_vfs.h"

namespace loaderx {
namespace {

constexpr const char* kKinds[] = {"dense", "ragged"};
constexpr const char* kCodecs[] = {"raw", "zstd", "zstd_dict"};

TypeIdentity IdentityOf(absl::string_view kind, const char* dtype) {
  TypeIdentity identity{DType::Simple(dtype), {}};
  if (kind == "dense") identity.item_shape = {2};
  return identity;
}

StoreOptions OptionsOf(absl::string_view codec) {
  StoreOptions options;
  options.codec = std::string(codec);
  if (codec == "zstd_dict") {
    // Raw-content dictionary: any bytes do.
    for (int i = 0; i < 64; ++i) absl::StrAppend(&options.dictionary, "d", i);
  }
  return options;
}

absl::Status CreateThrough(Vfs& vfs, const CreateKill& kill) {
  return TypedStore::Create(vfs, kill.path, kill.kind,
                            IdentityOf(kill.kind, "<u4"), OptionsOf(kill.codec))
      .status();
}

// The mutating calls one creation of `kind` and `codec` makes.
absl::StatusOr<int64_t> CountCalls(const std::string& dir,
                                   const std::string& kind,
                                   const std::string& codec) {
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<Vfs> posix, CreateVfs("posix"));
  FaultVfs vfs(posix.get());
  CreateKill dry{absl::StrCat(dir, "/count_", kind, "_", codec), kind, codec};
  LOADERX_RETURN_IF_ERROR(CreateThrough(vfs, dry));
  return vfs.MutatingCalls();
}

// What the parent counts after the kills.
struct Tally {
  int points = 0;
  int opened = 0;      // Opened as a (whole, empty) store.
  int unfinished = 0;  // Open said "unfinished creation at <path>".
  int nothing = 0;     // Open found no store (NotFound).
  std::vector<std::string> unclear;  // Open failed with anything else.
  std::vector<std::string> stuck;    // Neither opens nor is created again.
};

// What the parent finds after a kill. "" if the path is usable: it opens
// as an empty store, or a new creation (another dtype; the other kind when
// `other_kind`) takes it over and works. Else why it is stuck. An open
// error other than NotFound or the unfinished creation's DataLoss is noted
// in `tally.unclear`.
std::string CheckUsable(Vfs& vfs, const CreateKill& kill, bool other_kind,
                        Tally& tally) {
  absl::StatusOr<std::unique_ptr<TypedStore>> store =
      TypedStore::OpenAny(vfs, kill.path);
  if (store.ok()) {
    ++tally.opened;
    if ((*store)->size() != 0) return "opened with records it never had";
    return "";
  }
  const std::string open_error = store.status().ToString();
  if (absl::IsNotFound(store.status())) {
    ++tally.nothing;
  } else if (absl::IsDataLoss(store.status()) &&
             store.status().message().find(
                 absl::StrCat("unfinished creation at ", kill.path)) !=
                 absl::string_view::npos) {
    ++tally.unfinished;
  } else {
    tally.unclear.push_back(absl::StrCat(kill.path, ": ", open_error));
  }
  const std::string kind =
      !other_kind ? kill.kind : (kill.kind == "dense" ? "ragged" : "dense");
  absl::StatusOr<std::unique_ptr<TypedStore>> created = TypedStore::Create(
      vfs, kill.path, kind, IdentityOf(kind, "<f8"), OptionsOf("raw"));
  if (!created.ok()) {
    return absl::StrCat("open: ", open_error,
                        "; create: ", created.status().ToString());
  }
  const std::string record(16, 'r');
  ShapedRecord shaped;
  shaped.data = record;
  shaped.shape = {2};  // 2 <f8 items: the dense shape, a ragged record's.
  absl::Status appended = (*created)->Append({shaped}).status();
  created->reset();
  absl::StatusOr<std::unique_ptr<TypedStore>> reopened =
      TypedStore::OpenAny(vfs, kill.path);
  if (!appended.ok() || !reopened.ok() || (*reopened)->size() != 1) {
    return absl::StrCat("created again, but append: ", appended.ToString(),
                        ", reopen: ", reopened.status().ToString());
  }
  return "";
}

}  // namespace

absl::Status RunCreateChild(const CreateKill& kill) {
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<Vfs> posix, CreateVfs("posix"));
  FaultVfs vfs(posix.get());
  vfs.set_on_power_cut([] { ::raise(SIGKILL); });
  vfs.CutPowerAfter(kill.kill_at);
  LOADERX_RETURN_IF_ERROR(CreateThrough(vfs, kill));
  return absl::InternalError("the creation finished before the kill");
}

absl::Status RunCreateKills(const std::string& dir, const char* self) {
  LOADERX_ASSIGN_OR_RETURN(std::unique_ptr<Vfs> vfs, CreateVfs("posix"));
  Tally tally;
  for (const std::string kind : kKinds) {
    for (const std::string codec : kCodecs) {
      LOADERX_ASSIGN_OR_RETURN(const int64_t calls,
                               CountCalls(dir, kind, codec));
      for (int64_t at = 0; at < calls; ++at) {
        const CreateKill kill{absl::StrCat(dir, "/", kind, "_", codec, "_", at),
                              kind, codec, at};
        const pid_t child = ::fork();
        if (child < 0) return absl::InternalError("fork failed");
        if (child == 0) {
          const std::string path = absl::StrCat("--store=", kill.path);
          const std::string kind_flag = absl::StrCat("--kind=", kind);
          const std::string codec_flag = absl::StrCat("--codec=", codec);
          const std::string at_flag = absl::StrCat("--kill_at=", at);
          ::execl(self, self, "--create_child", path.c_str(), kind_flag.c_str(),
                  codec_flag.c_str(), at_flag.c_str(),
                  static_cast<char*>(nullptr));
          std::_Exit(127);
        }
        int status = 0;
        ::waitpid(child, &status, 0);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
          return absl::InternalError(
              absl::StrCat(kill.path, ": the child was not killed before call ",
                           at, " of ", calls, " (status ", status, ")"));
        }
        ++tally.points;
        const std::string why =
            CheckUsable(*vfs, kill, /*other_kind=*/at % 2 == 1, tally);
        if (!why.empty()) {
          tally.stuck.push_back(absl::StrCat(kill.path, ": ", why));
        }
      }
    }
  }
  std::printf(
      "kill loop (create): %d kill points (dense and ragged x raw, zstd, "
      "zstd_dict; SIGKILL before each mutating call): %d opened as a store, "
      "%d reported an unfinished creation, %d nothing there, %zu other open "
      "errors, %zu stuck\n",
      tally.points, tally.opened, tally.unfinished, tally.nothing,
      tally.unclear.size(), tally.stuck.size());
  for (const std::string& line : tally.unclear) {
    std::printf("  open error: %s\n", line.c_str());
  }
  for (const std::string& line : tally.stuck) {
    std::printf("  stuck: %s\n", line.c_str());
  }
  std::fflush(stdout);
  if (!tally.stuck.empty() || !tally.unclear.empty()) {
    return absl::DataLossError(absl::StrCat(
        tally.stuck.size(), " of ", tally.points,
        " killed creations left a path that can neither be opened nor "
        "created again, ",
        tally.unclear.size(), " an open error that does not say what it is"));
  }
  return absl::OkStatus();
}

}  // namespace loaderx
