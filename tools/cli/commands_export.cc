// `export`: a store's records to .npy, exactly as numpy would write them.
// A dense store is one array (records, *item_shape). A ragged store is one
// array too when all its records share a shape; otherwise it is refused,
// naming the first record that differs, unless --per-record asks for a
// directory of one .npy per record.

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "loaderx/store_set.h"
#include "tools/cli/command.h"
#include "tools/cli/commands_set.h"
#include "tools/cli/interrupt.h"
#include "tools/cli/npy_format.h"
#include "tools/cli/staged_output.h"
#include "tools/cli/store_access.h"

namespace loaderx::cli {
namespace {

namespace fs = std::filesystem;

// A file written and synced, or an error naming it.
class OutputFile {
 public:
  static absl::StatusOr<std::unique_ptr<OutputFile>> Create(std::string path) {
    std::FILE* file = std::fopen(path.c_str(), "wbx");
    if (file == nullptr) {
      return absl::UnavailableError(
          absl::StrCat("cannot create ", path, ": ", std::strerror(errno)));
    }
    return std::unique_ptr<OutputFile>(new OutputFile(std::move(path), file));
  }
  ~OutputFile() {
    if (file_ != nullptr) std::fclose(file_);
  }

  absl::Status Write(absl::string_view bytes) {
    if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
      return Error("write");
    }
    return absl::OkStatus();
  }
  absl::Status Close() {
    const bool ok = std::fflush(file_) == 0 && fsync(fileno(file_)) == 0;
    const int closed = std::fclose(file_);
    file_ = nullptr;
    if (!ok || closed != 0) return Error("close");
    return absl::OkStatus();
  }

 private:
  OutputFile(std::string path, std::FILE* file)
      : path_(std::move(path)), file_(file) {}
  absl::Status Error(absl::string_view operation) const {
    return absl::UnavailableError(absl::StrCat("cannot ", operation, " ", path_,
                                               ": ", std::strerror(errno)));
  }

  std::string path_;
  std::FILE* file_;
};

// Reads records [first, first + count) into `buffer`.
template <typename Store>
absl::StatusOr<ShapedBatch> ReadRange(const Store& store, uint64_t first,
                                      uint64_t count, std::string& buffer) {
  std::vector<uint64_t> indices(count);
  std::iota(indices.begin(), indices.end(), first);
  return store.Read(indices,
                    [&](uint64_t bytes) -> absl::StatusOr<absl::Span<char>> {
                      buffer.resize(bytes);
                      return absl::MakeSpan(buffer);
                    });
}

// The one shape every record has, or the error naming the first that
// differs from record 0.
template <typename Store>
absl::StatusOr<std::vector<uint64_t>> CommonShape(const Store& store) {
  if (store.fixed_width()) return store.identity().item_shape;
  if (store.size() == 0) {
    return absl::InvalidArgumentError(
        "an empty ragged store has no record shape to export as one array");
  }
  std::vector<uint64_t> common;
  constexpr uint64_t kBatch = 4096;
  for (uint64_t first = 0; first < store.size(); first += kBatch) {
    std::vector<uint64_t> indices(std::min(kBatch, store.size() - first));
    std::iota(indices.begin(), indices.end(), first);
    absl::StatusOr<std::vector<std::vector<uint64_t>>> shapes =
        store.Shapes(indices);
    if (!shapes.ok()) return shapes.status();
    if (first == 0) common = (*shapes)[0];
    for (size_t i = 0; i < shapes->size(); ++i) {
      if ((*shapes)[i] != common) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the records have different shapes (record 0 is ",
            ShapeText(common), ", record ", first + i, " is ",
            ShapeText((*shapes)[i]),
            "), so they are not one array; --per-record writes one .npy per "
            "record into a directory"));
      }
    }
  }
  return common;
}

template <typename Store>
absl::Status ExportArray(const Store& store, const std::string& path,
                         CommandContext& context) {
  absl::StatusOr<std::vector<uint64_t>> record_shape = CommonShape(store);
  if (!record_shape.ok()) return record_shape.status();
  std::vector<uint64_t> shape = {store.size()};
  shape.insert(shape.end(), record_shape->begin(), record_shape->end());
  absl::StatusOr<std::unique_ptr<OutputFile>> file = OutputFile::Create(path);
  if (!file.ok()) return file.status();
  if (absl::Status written =
          (*file)->Write(EncodeNpyHeader(store.dtype(), shape));
      !written.ok()) {
    return written;
  }
  uint64_t record_bytes = store.item_size();
  for (uint64_t dim : *record_shape) record_bytes *= dim;
  const uint64_t batch = std::max<uint64_t>(
      1, kCopyBatchBytes / std::max<uint64_t>(record_bytes, 1));
  Progress progress(context.progress, context.progress_stream, "export",
                    store.size(), "records");
  std::string buffer;
  for (uint64_t first = 0; first < store.size(); first += batch) {
    if (absl::Status interrupted = CheckInterrupted(); !interrupted.ok()) {
      return interrupted;
    }
    const uint64_t n = std::min(batch, store.size() - first);
    absl::StatusOr<ShapedBatch> read = ReadRange(store, first, n, buffer);
    if (!read.ok()) return read.status();
    if (absl::Status written = (*file)->Write(buffer); !written.ok()) {
      return written;
    }
    progress.Advance(n);
  }
  if (absl::Status closed = (*file)->Close(); !closed.ok()) return closed;
  progress.Finish();
  return absl::OkStatus();
}

template <typename Store>
absl::Status ExportPerRecord(const Store& store, const std::string& path,
                             CommandContext& context) {
  std::error_code error;
  if (!fs::create_directory(path, error)) {
    return absl::UnavailableError(
        absl::StrCat("cannot create ", path, ": ", error.message()));
  }
  const int digits = std::max<int>(
      6, static_cast<int>(
             absl::StrCat(store.size() == 0 ? 0 : store.size() - 1).size()));
  Progress progress(context.progress, context.progress_stream, "export",
                    store.size(), "records");
  std::string buffer;
  for (uint64_t index = 0; index < store.size(); ++index) {
    if (absl::Status interrupted = CheckInterrupted(); !interrupted.ok()) {
      return interrupted;
    }
    absl::StatusOr<ShapedBatch> read = ReadRange(store, index, 1, buffer);
    if (!read.ok()) return read.status();
    absl::StatusOr<std::unique_ptr<OutputFile>> file = OutputFile::Create(
        (fs::path(path) / absl::StrFormat("%0*d.npy", digits, index)).string());
    if (!file.ok()) return file.status();
    for (absl::Status step :
         {(*file)->Write(EncodeNpyHeader(store.dtype(), read->shapes[0])),
          (*file)->Write(buffer), (*file)->Close()}) {
      if (!step.ok()) return step;
    }
    progress.Advance(1);
  }
  progress.Finish();
  return absl::OkStatus();
}

template <typename Store>
absl::Status Export(const Store& store, const std::string& path,
                    const std::string& destination,
                    const ParsedArguments& arguments, CommandContext& context);

absl::Status RunExport(const ParsedArguments& arguments,
                       CommandContext& context) {
  const std::string& path = arguments.positionals[0];
  const std::string& destination = arguments.positionals[1];
  if (LooksLikeStoreSet(path)) {
    absl::StatusOr<std::unique_ptr<Vfs>> vfs = LocalVfs();
    if (!vfs.ok()) return vfs.status();
    absl::StatusOr<std::unique_ptr<StoreSet>> set = StoreSet::Open(**vfs, path);
    if (!set.ok()) return set.status();
    return Export(**set, path, destination, arguments, context);
  }
  absl::StatusOr<OpenedStore> opened = OpenStore(path, /*read_only=*/true);
  if (!opened.ok()) return opened.status();
  return Export(*opened->store, path, destination, arguments, context);
}

// Exports `store` (a `TypedStore` or a `StoreSet`) read from `path`.
template <typename Store>
absl::Status Export(const Store& store, const std::string& path,
                    const std::string& destination,
                    const ParsedArguments& arguments, CommandContext& context) {
  const bool per_record = arguments.Has("--per-record");
  absl::StatusOr<std::unique_ptr<StagedOutput>> staged =
      StagedOutput::Reserve(destination);
  if (!staged.ok()) return staged.status();
  absl::Status exported =
      per_record ? ExportPerRecord(store, (*staged)->path(), context)
                 : ExportArray(store, (*staged)->path(), context);
  if (!exported.ok()) return exported;
  if (absl::Status committed = (*staged)->Commit(); !committed.ok()) {
    return committed;
  }
  Json report = Json::MakeObject();
  report.Set("store", path);
  report.Set("destination", destination);
  report.Set("records", store.size());
  report.Set("layout", per_record ? "per-record" : "array");
  if (arguments.Has("--json")) {
    PrintJson(context, report);
  } else {
    context.out << "exported " << store.size() << " records of " << path
                << " to " << destination << "\n";
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<Command> ExportCommands() {
  return {{{"export",
            "STORE OUTPUT",
            "Write a store's records to a .npy file (or, --per-record, a "
            "directory of them).",
            "A dense store becomes one array of shape (records, *item_shape), "
            "written as numpy writes it: importing a .npy and exporting it "
            "again gives the same bytes. A ragged store becomes one array "
            "when all its records share a shape; otherwise export refuses, "
            "naming the first record that differs, and --per-record writes "
            "OUTPUT/000000.npy, 000001.npy, ... instead. OUTPUT must not "
            "exist; it appears only once complete.\n",
            {{"--per-record", "", "one .npy per record, into directory OUTPUT"},
             JsonOption(),
             QuietOption()},
            2,
            2},
           RunExport,
           /*catches_interrupts=*/true}};
}

}  // namespace loaderx::cli
