// `head` and `cat`: records to stdout, as a one-line summary each (shape,
// size, the first values), as JSON, or as their raw bytes (--raw).

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "loaderx/store_set.h"
#include "tools/cli/command.h"
#include "tools/cli/commands_set.h"
#include "tools/cli/interrupt.h"
#include "tools/cli/store_access.h"

namespace loaderx::cli {
namespace {

constexpr size_t kShownValues = 8;

// The first values of a record of a little-endian (or byte-order-free)
// numeric dtype; empty for any other dtype, whose bytes are shown in hex.
Json FirstValues(const DType& dtype, absl::string_view bytes) {
  Json values = Json::MakeArray();
  if (dtype.structured || dtype.str.size() != 3 ||
      (dtype.str[0] != '<' && dtype.str[0] != '|')) {
    return values;
  }
  const char kind = dtype.str[1];
  const int size = dtype.str[2] - '0';
  if (size <= 0 || bytes.size() % size != 0) return values;
  for (size_t at = 0; at < bytes.size() && at / size < kShownValues;
       at += size) {
    const char* p = bytes.data() + at;
    uint64_t u = 0;
    std::memcpy(&u, p, size);  // Little-endian host.
    if (kind == 'u') {
      values.Push(u);
    } else if (kind == 'i') {
      const int shift = 64 - 8 * size;
      values.Push(static_cast<int64_t>(u << shift) >> shift);
    } else if (kind == 'b') {
      values.Push(u != 0);
    } else if (kind == 'f' && size == 4) {
      float f;
      std::memcpy(&f, p, 4);
      values.Push(static_cast<double>(f));
    } else if (kind == 'f' && size == 8) {
      double d;
      std::memcpy(&d, p, 8);
      values.Push(d);
    } else {
      return Json::MakeArray();
    }
  }
  return values;
}

std::string Hex(absl::string_view bytes, size_t limit) {
  std::string out;
  for (size_t i = 0; i < bytes.size() && i < limit; ++i) {
    absl::StrAppendFormat(&out, "%02x", static_cast<uint8_t>(bytes[i]));
  }
  if (bytes.size() > limit) out += "...";
  return out;
}

// "3", "5:9" (5 to 8) or "5:" (5 to the end), each checked against `size`.
absl::StatusOr<std::vector<uint64_t>> ParseIndices(
    const std::vector<std::string>& words, uint64_t size) {
  std::vector<uint64_t> indices;
  for (const std::string& word : words) {
    std::vector<std::string> parts = absl::StrSplit(word, ':');
    uint64_t first = 0, last = 0;
    const bool range = parts.size() == 2;
    if (parts.size() > 2 || !absl::SimpleAtoi(parts[0], &first) ||
        (range && !parts[1].empty() && !absl::SimpleAtoi(parts[1], &last)) ||
        parts[0].find_first_not_of("0123456789") != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", word, "' is not an index or a range FIRST:END"));
    }
    if (!range) last = first + 1;
    if (range && parts[1].empty()) last = size;
    if (first >= size || last > size || first >= last) {
      return absl::OutOfRangeError(absl::StrCat(
          "'", word, "' is out of range: the store has ", size, " records"));
    }
    for (uint64_t i = first; i < last; ++i) indices.push_back(i);
  }
  return indices;
}

// `Store` is a `TypedStore` or a `StoreSet`: both `Read` a batch into one
// buffer and have a dtype and item size.
template <typename Store>
absl::Status PrintRecords(const Store& store,
                          const std::vector<uint64_t>& indices,
                          const ParsedArguments& arguments,
                          CommandContext& context) {
  const bool raw = arguments.Has("--raw");
  const bool json = arguments.Has("--json");
  if (raw && json) {
    return absl::InvalidArgumentError("--raw and --json exclude each other");
  }
  Json records = Json::MakeArray();
  constexpr size_t kBatch = 256;
  std::string buffer;
  for (size_t first = 0; first < indices.size(); first += kBatch) {
    if (absl::Status interrupted = CheckInterrupted(); !interrupted.ok()) {
      return interrupted;
    }
    const absl::Span<const uint64_t> batch =
        absl::MakeConstSpan(indices).subspan(first, kBatch);
    absl::StatusOr<ShapedBatch> read = store.Read(
        batch, [&](uint64_t bytes) -> absl::StatusOr<absl::Span<char>> {
          buffer.resize(bytes);
          return absl::MakeSpan(buffer);
        });
    if (!read.ok()) return read.status();
    for (size_t i = 0; i < batch.size(); ++i) {
      const uint64_t end =
          i + 1 < batch.size() ? read->offsets[i + 1] : read->total_bytes;
      const absl::string_view bytes = absl::string_view(buffer).substr(
          read->offsets[i], end - read->offsets[i]);
      if (raw) {
        context.out.write(bytes.data(), bytes.size());
        continue;
      }
      const Json values = FirstValues(store.dtype(), bytes);
      Json record = Json::MakeObject();
      record.Set("index", batch[i]);
      record.Set("shape", Json::Numbers(read->shapes[i]));
      record.Set("bytes", uint64_t{bytes.size()});
      if (json) {
        if (values.Dump(false) != "[]") {
          record.Set("values", values);
        } else {
          record.Set("hex", Hex(bytes, 32));
        }
        records.Push(std::move(record));
        continue;
      }
      std::string line =
          absl::StrFormat("%d\tshape %s\t%d bytes\t", batch[i],
                          ShapeText(read->shapes[i]), bytes.size());
      if (values.Dump(false) != "[]") {
        std::string shown = values.Dump(false);
        if (bytes.size() / store.item_size() > kShownValues) {
          shown.insert(shown.size() - 1, ", ...");
        }
        line += shown;
      } else {
        line += Hex(bytes, 32);
      }
      context.out << line << "\n";
    }
  }
  if (json) {
    Json report = Json::MakeObject();
    report.Set("dtype", DTypeToString(store.dtype()));
    report.Set("records", std::move(records));
    PrintJson(context, report);
  }
  return absl::OkStatus();
}

// Runs `body` with the store, or the store set, at `path`, opened
// read-only.
absl::Status WithRecords(
    const std::string& path,
    const std::function<absl::Status(const TypedStore*, const StoreSet*)>&
        body) {
  if (LooksLikeStoreSet(path)) {
    absl::StatusOr<std::unique_ptr<Vfs>> vfs = LocalVfs();
    if (!vfs.ok()) return vfs.status();
    absl::StatusOr<std::unique_ptr<StoreSet>> set = StoreSet::Open(**vfs, path);
    if (!set.ok()) return set.status();
    return body(nullptr, set->get());
  }
  absl::StatusOr<OpenedStore> opened = OpenStore(path, /*read_only=*/true);
  if (!opened.ok()) return opened.status();
  return body(opened->store.get(), nullptr);
}

absl::Status RunHead(const ParsedArguments& arguments,
                     CommandContext& context) {
  absl::StatusOr<uint64_t> count = arguments.Number("-n", 10);
  if (!count.ok()) return count.status();
  return WithRecords(arguments.positionals[0], [&](const TypedStore* store,
                                                   const StoreSet* set) {
    const uint64_t size = store != nullptr ? store->size() : set->size();
    std::vector<uint64_t> indices;
    for (uint64_t i = 0; i < std::min(*count, size); ++i) indices.push_back(i);
    return store != nullptr ? PrintRecords(*store, indices, arguments, context)
                            : PrintRecords(*set, indices, arguments, context);
  });
}

absl::Status RunCat(const ParsedArguments& arguments, CommandContext& context) {
  return WithRecords(arguments.positionals[0], [&](const TypedStore* store,
                                                   const StoreSet* set) {
    const uint64_t size = store != nullptr ? store->size() : set->size();
    std::vector<std::string> words(arguments.positionals.begin() + 1,
                                   arguments.positionals.end());
    if (words.empty() && size > 0) words = {"0:"};
    absl::StatusOr<std::vector<uint64_t>> indices = ParseIndices(words, size);
    if (!indices.ok()) return indices.status();
    return store != nullptr ? PrintRecords(*store, *indices, arguments, context)
                            : PrintRecords(*set, *indices, arguments, context);
  });
}

std::vector<OptionSpec> OutputOptions() {
  return {{"--raw", "", "write the records' bytes, back to back, nothing else"},
          JsonOption()};
}

}  // namespace

std::vector<Command> RecordCommands() {
  std::vector<OptionSpec> head_options = OutputOptions();
  head_options.insert(head_options.begin(),
                      {"-n", "COUNT", "how many records (default 10)"});
  return {
      {{"head", "STORE", "Print the first records of a store (or a store set).",
        "One line per record: its index, shape, size and first values (hex "
        "for dtypes other than little-endian numbers). --raw writes the "
        "records' bytes instead, --json a document.\n",
        head_options, 1, 1},
       RunHead},
      {{"cat", "STORE [INDEX|FIRST:END ...]",
        "Print records of a store (or a store set): all of them, or those "
        "named.",
        "Records are named by index (3), range (5:9 is 5 to 8) or open range "
        "(5: to the end). Output as for `head`.\n",
        OutputOptions(), 1, 1 << 20},
       RunCat},
  };
}

}  // namespace loaderx::cli
