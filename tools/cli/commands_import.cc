// `import`: a .npy file, the arrays of a .npz archive, or a directory of
// files, into new stores. Nothing is created until the input's header has
// been checked, and the destination appears only when complete (see
// `staged_output.h`).

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tools/cli/byte_source.h"
#include "tools/cli/command.h"
#include "tools/cli/interrupt.h"
#include "tools/cli/new_store_options.h"
#include "tools/cli/npy_format.h"
#include "tools/cli/npz_archive.h"
#include "tools/cli/staged_output.h"
#include "tools/cli/store_access.h"

namespace loaderx::cli {
namespace {

namespace fs = std::filesystem;

using Filler = std::function<absl::Status(TypedStore&)>;

// Creates the store at `path` and fills it with `fill`. A zstd_dict store
// is filled raw in a scratch store first, its dictionary trained on that
// (as `recode` trains it), then encoded into `path`.
absl::Status BuildStore(const std::string& path, absl::string_view kind,
                        const TypeIdentity& identity,
                        const NewStoreSettings& settings,
                        CommandContext& context, const Filler& fill) {
  if (!NeedsDictionary(settings) || settings.dictionary_file) {
    std::string dictionary;
    if (NeedsDictionary(settings)) {
      // Read from the file: no records needed.
      absl::StatusOr<std::string> given =
          DictionaryFor(settings, /*records=*/nullptr, context);
      if (!given.ok()) return given.status();
      dictionary = *std::move(given);
    }
    absl::StatusOr<OpenedStore> store = CreateStore(
        path, kind, identity,
        NewStoreOptions(settings.codec, settings.level, dictionary));
    if (!store.ok()) return store.status();
    if (absl::Status filled = fill(*store->store); !filled.ok()) return filled;
    return SyncAndClose(*store);
  }
  std::unique_ptr<StagedOutput> scratch = StagedOutput::Scratch(path, "raw");
  absl::StatusOr<OpenedStore> raw = CreateStore(scratch->path(), kind, identity,
                                                NewStoreOptions("raw", 0, ""));
  if (!raw.ok()) return raw.status();
  if (absl::Status filled = fill(*raw->store); !filled.ok()) return filled;
  absl::StatusOr<std::string> dictionary =
      DictionaryFor(settings, raw->store.get(), context);
  if (!dictionary.ok()) return dictionary.status();
  absl::StatusOr<OpenedStore> store =
      CreateStore(path, kind, identity,
                  NewStoreOptions(settings.codec, settings.level, *dictionary));
  if (!store.ok()) return store.status();
  Progress progress(context.progress, context.progress_stream, "encode",
                    raw->store->size(), "records");
  if (absl::Status copied = CopyRecords(*raw->store, *store->store, progress);
      !copied.ok()) {
    return copied;
  }
  progress.Finish();
  return SyncAndClose(*store);
}

// Reads the .npy header at the start of `source`.
absl::StatusOr<NpyHeader> ReadNpyHeader(ByteSource& source) {
  std::string prefix(kNpyPreambleV1, '\0');
  if (absl::Status read = ReadExactly(source, absl::MakeSpan(prefix));
      !read.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source.name(), " is not a .npy file (too short)"));
  }
  if (prefix.substr(0, 6) == "\x93NUMPY" && prefix[6] != 1) {
    prefix.resize(kNpyPreambleV2);
    if (absl::Status read =
            ReadExactly(source, absl::MakeSpan(prefix).subspan(kNpyPreambleV1));
        !read.ok()) {
      return read;
    }
  }
  absl::StatusOr<uint64_t> length = NpyHeaderLength(prefix);
  if (!length.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source.name(), ": ", length.status().message()));
  }
  const size_t have = prefix.size();
  prefix.resize(*length);
  if (absl::Status read =
          ReadExactly(source, absl::MakeSpan(prefix).subspan(have));
      !read.ok()) {
    return read;
  }
  absl::StatusOr<NpyHeader> header = ParseNpyHeader(prefix);
  if (!header.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source.name(), ": ", header.status().message()));
  }
  if (header->shape.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source.name(), " holds a 0-d array: there is no axis of records"));
  }
  if (header->fortran_order && header->shape.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        source.name(),
        " is Fortran-ordered; save it C-ordered (np.ascontiguousarray) "
        "to import it"));
  }
  return header;
}

// Appends the array's records (its first axis) from `source`, positioned
// at the data, and checks that the data ends where the header says.
absl::Status AppendNpyRecords(ByteSource& source, const NpyHeader& header,
                              TypedStore& store, CommandContext& context) {
  const uint64_t count = header.shape[0];
  const std::vector<uint64_t> item_shape(header.shape.begin() + 1,
                                         header.shape.end());
  const uint64_t record_bytes = count == 0 ? 0 : header.data_bytes / count;
  const uint64_t batch = std::max<uint64_t>(
      1, kCopyBatchBytes / std::max<uint64_t>(record_bytes, 1));
  Progress progress(context.progress, context.progress_stream, "import", count,
                    "records");
  std::string buffer;
  for (uint64_t first = 0; first < count;) {
    if (absl::Status interrupted = CheckInterrupted(); !interrupted.ok()) {
      return interrupted;
    }
    const uint64_t n = std::min(batch, count - first);
    buffer.resize(n * record_bytes);
    if (absl::Status read = ReadExactly(source, absl::MakeSpan(buffer));
        !read.ok()) {
      return read;
    }
    ShapedRecord records{buffer, {n}};
    records.shape.insert(records.shape.end(), item_shape.begin(),
                         item_shape.end());
    if (absl::Status appended = store.AppendBatch(records).status();
        !appended.ok()) {
      return appended;
    }
    first += n;
    progress.Advance(n);
  }
  char extra;
  absl::StatusOr<size_t> more = source.Read(absl::MakeSpan(&extra, 1));
  if (!more.ok()) return more.status();
  if (*more != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        source.name(), " has bytes after the array its header describes"));
  }
  progress.Finish();
  return absl::OkStatus();
}

// Imports the array in `source` as a store of `kind` at `path`.
absl::Status ImportArray(ByteSource& source, const std::string& path,
                         absl::string_view kind,
                         const NewStoreSettings& settings,
                         CommandContext& context) {
  absl::StatusOr<NpyHeader> header = ReadNpyHeader(source);
  if (!header.ok()) return header.status();
  TypeIdentity identity{header->dtype, {}};
  if (kind == "dense") {
    identity.item_shape.assign(header->shape.begin() + 1, header->shape.end());
  }
  return BuildStore(path, kind, identity, settings, context,
                    [&](TypedStore& store) {
                      return AppendNpyRecords(source, *header, store, context);
                    });
}

// The regular files under `directory`, by relative path in byte order.
absl::StatusOr<std::vector<fs::path>> ListFiles(const fs::path& directory) {
  std::vector<fs::path> files;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(directory, error);
       !error && it != fs::recursive_directory_iterator();
       it.increment(error)) {
    if (it->is_regular_file(error)) files.push_back(it->path());
  }
  if (error) {
    return absl::UnavailableError(absl::StrCat(
        "cannot list ", directory.string(), ": ", error.message()));
  }
  std::sort(files.begin(), files.end(),
            [&](const fs::path& a, const fs::path& b) {
              return a.lexically_relative(directory).generic_string() <
                     b.lexically_relative(directory).generic_string();
            });
  if (files.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(directory.string(), " holds no files to import"));
  }
  for (const fs::path& file : files) {
    if (fs::file_size(file, error) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          file.string(), " is empty, and a store's records are never empty"));
    }
  }
  return files;
}

absl::Status AppendFiles(const std::vector<fs::path>& files, TypedStore& store,
                         CommandContext& context) {
  Progress progress(context.progress, context.progress_stream, "import",
                    files.size(), "files");
  std::vector<std::string> contents;
  uint64_t batch_bytes = 0;
  const auto flush = [&]() -> absl::Status {
    if (contents.empty()) return absl::OkStatus();
    std::vector<ShapedRecord> records;
    for (const std::string& content : contents) {
      records.push_back({content, {content.size()}});
    }
    absl::Status appended = store.Append(records).status();
    progress.Advance(contents.size());
    contents.clear();
    batch_bytes = 0;
    return appended;
  };
  for (const fs::path& file : files) {
    if (absl::Status interrupted = CheckInterrupted(); !interrupted.ok()) {
      return interrupted;
    }
    absl::StatusOr<std::unique_ptr<FileSource>> source =
        FileSource::Open(file.string());
    if (!source.ok()) return source.status();
    std::string content((*source)->size(), '\0');
    if (absl::Status read = ReadExactly(**source, absl::MakeSpan(content));
        !read.ok()) {
      return read;
    }
    batch_bytes += content.size();
    contents.push_back(std::move(content));
    if (batch_bytes >= kCopyBatchBytes) {
      if (absl::Status flushed = flush(); !flushed.ok()) return flushed;
    }
  }
  if (absl::Status flushed = flush(); !flushed.ok()) return flushed;
  progress.Finish();
  return absl::OkStatus();
}

absl::Status ImportNpz(const std::string& input, StagedOutput& staged,
                       const ParsedArguments& arguments, absl::string_view kind,
                       const NewStoreSettings& settings,
                       CommandContext& context, Json& report) {
  absl::StatusOr<std::unique_ptr<NpzArchive>> archive = NpzArchive::Open(input);
  if (!archive.ok()) return archive.status();
  std::vector<std::string> arrays = (*archive)->arrays();
  const std::optional<std::string> selected = arguments.Value("--array");
  if (selected) arrays = {*selected};
  if (!selected) {
    std::error_code error;
    if (!fs::create_directory(staged.path(), error)) {
      return absl::UnavailableError(
          absl::StrCat("cannot create ", staged.path(), ": ", error.message()));
    }
  }
  Json stores = Json::MakeArray();
  for (const std::string& name : arrays) {
    absl::StatusOr<std::unique_ptr<ByteSource>> member =
        (*archive)->OpenArray(name);
    if (!member.ok()) return member.status();
    const std::string path =
        selected ? staged.path() : (fs::path(staged.path()) / name).string();
    if (absl::Status imported =
            ImportArray(**member, path, kind, settings, context);
        !imported.ok()) {
      return imported;
    }
    stores.Push(selected ? staged.destination()
                         : (fs::path(staged.destination()) / name).string());
  }
  report.Set("stores", std::move(stores));
  return absl::OkStatus();
}

absl::Status RunImport(const ParsedArguments& arguments,
                       CommandContext& context) {
  const std::string& input = arguments.positionals[0];
  const std::string& destination = arguments.positionals[1];
  absl::StatusOr<NewStoreSettings> settings = NewStoreSettingsFrom(arguments);
  if (!settings.ok()) return settings.status();
  const std::string kind = arguments.Value("--kind").value_or("dense");
  if (kind != "dense" && kind != "ragged") {
    return absl::InvalidArgumentError(
        absl::StrCat("--kind is dense or ragged, not '", kind, "'"));
  }
  std::error_code error;
  const fs::file_status status = fs::status(input, error);
  if (status.type() == fs::file_type::not_found) {
    return absl::NotFoundError(
        absl::StrCat("cannot import ", input, ": it does not exist"));
  }
  const bool is_directory = status.type() == fs::file_type::directory;
  const bool is_npz = !is_directory && absl::EndsWith(input, ".npz");
  if (arguments.Has("--array") && !is_npz) {
    return absl::InvalidArgumentError(
        "--array selects an array of a .npz file");
  }
  if (is_directory && arguments.Has("--kind")) {
    return absl::InvalidArgumentError(
        "a directory is imported as a ragged uint8 store; --kind is for "
        "arrays");
  }
  absl::StatusOr<std::unique_ptr<StagedOutput>> staged =
      StagedOutput::Reserve(destination);
  if (!staged.ok()) return staged.status();

  Json report = Json::MakeObject();
  report.Set("source", input);
  if (is_directory) {
    absl::StatusOr<std::vector<fs::path>> files = ListFiles(input);
    if (!files.ok()) return files.status();
    const TypeIdentity identity{DType::Simple("|u1"), {}};
    if (absl::Status built = BuildStore(
            (*staged)->path(), "ragged", identity, *settings, context,
            [&](TypedStore& store) {
              return AppendFiles(*files, store, context);
            });
        !built.ok()) {
      return built;
    }
    report.Set("stores", Json::Array{Json(destination)});
  } else if (is_npz) {
    if (absl::Status imported = ImportNpz(input, **staged, arguments, kind,
                                          *settings, context, report);
        !imported.ok()) {
      return imported;
    }
  } else {
    absl::StatusOr<std::unique_ptr<FileSource>> source =
        FileSource::Open(input);
    if (!source.ok()) return source.status();
    if (absl::Status imported =
            ImportArray(**source, (*staged)->path(), kind, *settings, context);
        !imported.ok()) {
      return imported;
    }
    report.Set("stores", Json::Array{Json(destination)});
  }
  if (absl::Status committed = (*staged)->Commit(); !committed.ok()) {
    return committed;
  }
  report.Set("codec", settings->codec);
  if (arguments.Has("--json")) {
    PrintJson(context, report);
  } else {
    context.out << "imported " << input << " into " << destination << "\n";
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<Command> ImportCommands() {
  std::vector<OptionSpec> options = NewStoreOptionSpecs();
  options.push_back(
      {"--kind", "KIND",
       "an array's store: dense (default; records of one shape) or ragged"});
  options.push_back(
      {"--array", "NAME", ".npz: import only this array, as DESTINATION"});
  options.push_back(JsonOption());
  options.push_back(QuietOption());
  return {{{"import", "INPUT DESTINATION",
            "Import a .npy file, a .npz archive or a directory of files into "
            "a new store.",
            "INPUT is one of:\n"
            "  FILE.npy   one store; its first axis counts the records, the "
            "rest is each\n"
            "             record's shape (dense) or a ragged store's record "
            "shape.\n"
            "  FILE.npz   one store per array, DESTINATION/NAME (or only "
            "--array NAME,\n"
            "             as DESTINATION itself).\n"
            "  DIRECTORY  a ragged uint8 store, one record per file, the "
            "files (searched\n"
            "             recursively) in byte order of their relative "
            "paths.\n"
            "DESTINATION must not exist; it appears only once complete "
            "(Ctrl-C or an error leaves none). For zstd_dict the records are "
            "imported raw first and the dictionary trained on them, as "
            "`recode` does.\n",
            options, 2, 2},
           RunImport,
           /*catches_interrupts=*/true}};
}

}  // namespace loaderx::cli
