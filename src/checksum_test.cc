// The checksum is XXH3-64 whatever vector unit hashes it, in one call or
// in pieces while copying, and in the forms compiled for short inputs: every
// variant this CPU can run gives the inline SSE2 build's value, at every input
// size around XXH3's block and stripe boundaries, and a hash-and-copy copies
// every byte and no more.

#include "src/checksum.h"

#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace loaderx {
namespace {

using checksum_internal::KernelsFor;
using checksum_internal::VectorKernels;
using checksum_internal::VectorUnit;

struct Unit {
  const char* name;
  const VectorKernels* kernels;
};

// Every vector unit this build and this CPU have, the baseline included.
std::vector<Unit> Units() {
  std::vector<Unit> units;
  for (const auto& [unit, name] : {std::pair{VectorUnit::kBaseline, "baseline"},
                                   std::pair{VectorUnit::kAvx2, "AVX2"},
                                   std::pair{VectorUnit::kAvx512, "AVX-512"}}) {
    if (const VectorKernels* kernels = KernelsFor(unit)) {
      units.push_back({name, kernels});
    }
  }
  return units;
}

std::string RandomBytes(size_t size, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::string bytes(size, '\0');
  for (char& byte : bytes) byte = static_cast<char>(random());
  return bytes;
}

std::vector<size_t> Sizes() {
  std::vector<size_t> sizes;
  for (size_t size = 0; size <= 1100; ++size) sizes.push_back(size);
  for (size_t size : {4095, 4096, 4097, 65536, 65537, 262144, 1000003}) {
    sizes.push_back(size);
  }
  return sizes;
}

TEST(ChecksumTest, IsXxh3OfTheBytes) {
  EXPECT_EQ(Checksum(""), uint64_t{0x2D06800538D394C2});  // XXH3-64 of "".
  for (size_t size : Sizes()) {
    const std::string bytes = RandomBytes(size, size);
    // This file's own inline XXH3 (SSE2, as compiled here).
    ASSERT_EQ(Checksum(bytes), XXH3_64bits(bytes.data(), bytes.size()))
        << size << " bytes";
    if (size <= checksum_internal::kShortInputBytes) {
      ASSERT_EQ(ChecksumShort(bytes.data(), size), Checksum(bytes))
          << size << " bytes";
    }
    if (size == 16) {
      ASSERT_EQ(Checksum16(bytes.data()), Checksum(bytes));
    }
    ChecksumStream stream;
    stream.Update(absl::string_view(bytes).substr(0, size / 3));
    stream.Update(absl::string_view(bytes).substr(size / 3));
    ASSERT_EQ(stream.Digest(), Checksum(bytes)) << size << " bytes";
  }
}

TEST(ChecksumTest, EveryVectorUnitGivesTheSameHash) {
  for (const Unit& unit : Units()) {
    for (size_t size : Sizes()) {
      const std::string bytes = RandomBytes(size, ~size);
      ASSERT_EQ(unit.kernels->hash(bytes.data(), size),
                XXH3_64bits(bytes.data(), bytes.size()))
          << size << " bytes, " << unit.name;
    }
  }
}

TEST(ChecksumTest, HashAndCopyGivesTheChecksumAndTheBytes) {
  std::vector<size_t> sizes = Sizes();
  // Around the piecewise threshold and the piece boundaries.
  for (size_t size : {checksum_internal::kPiecewiseBytes,
                      checksum_internal::kPiecewiseBytes + 1,
                      checksum_internal::kPiecewiseBytes + 241,
                      5 * checksum_internal::kPieceBytes - 1,
                      5 * checksum_internal::kPieceBytes,
                      5 * checksum_internal::kPieceBytes + 1}) {
    sizes.push_back(size);
  }
  for (size_t size : sizes) {
    const std::string bytes = RandomBytes(size, size ^ 0x5a);
    for (bool bypass_cache : {false, true}) {
      // Guard bytes on both sides; the copy starts at an odd address, so
      // the streaming copy's unaligned head and tail are exercised.
      std::string copy(size + 3, '\x7f');
      ASSERT_EQ(ChecksumAndCopy(bytes, copy.data() + 1, bypass_cache),
                Checksum(bytes))
          << size << " bytes";
      if (bypass_cache) FenceStreamedCopies();
      ASSERT_EQ(copy.substr(1, size), bytes) << size << " bytes";
      ASSERT_EQ(copy[0], '\x7f') << size << " bytes";
      ASSERT_EQ(copy.substr(size + 1), "\x7f\x7f") << size << " bytes";
    }
  }
}

TEST(ChecksumTest, CopyBytesCopiesEveryByteAndNoMore) {
  for (size_t size :
       {size_t{0}, size_t{1}, size_t{63}, size_t{1023}, size_t{1024},
        size_t{1025}, size_t{4096}, size_t{4161}, size_t{65536 + 17}}) {
    const std::string bytes = RandomBytes(size, size * 7);
    for (bool bypass_cache : {false, true}) {
      for (size_t offset : {size_t{0}, size_t{1}, size_t{33}}) {
        std::string copy(size + offset + 2, '\x7f');
        CopyBytes(copy.data() + offset, bytes, bypass_cache);
        if (bypass_cache) FenceStreamedCopies();
        ASSERT_EQ(copy.substr(offset, size), bytes)
            << size << " bytes at offset " << offset;
        ASSERT_EQ(copy.substr(0, offset), std::string(offset, '\x7f'));
        ASSERT_EQ(copy.substr(offset + size), "\x7f\x7f");
      }
    }
  }
}

TEST(ChecksumTest, EveryVectorUnitHashesPiecesAlike) {
  // Pieces of odd sizes too: a piece boundary inside XXH3's stripes and
  // blocks.
  for (const Unit& unit : Units()) {
    for (size_t piece : {size_t{1}, size_t{63}, size_t{1000}, size_t{16384}}) {
      for (size_t size : {size_t{0}, size_t{240}, size_t{241}, size_t{1025},
                          size_t{70001}, size_t{262144}}) {
        const std::string bytes = RandomBytes(size, size + piece);
        const uint64_t want = XXH3_64bits(bytes.data(), bytes.size());
        for (bool bypass : {false, true}) {
          std::string copy(size, '\0');
          ASSERT_EQ(unit.kernels->hash_and_copy(bytes.data(), size, copy.data(),
                                                piece, bypass),
                    want)
              << size << " bytes in pieces of " << piece << ", " << unit.name;
          ASSERT_EQ(copy, bytes) << unit.name;
        }
      }
    }
  }
}

TEST(ChecksumTest, EveryVectorUnitCopiesAroundTheCacheExactly) {
  for (const Unit& unit : Units()) {
    for (size_t size :
         {size_t{0}, size_t{1}, size_t{65}, size_t{16384}, size_t{70001}}) {
      const std::string bytes = RandomBytes(size, size ^ 0x33);
      for (size_t offset : {size_t{0}, size_t{1}, size_t{33}}) {
        std::string copy(size + offset + 2, '\x7f');
        unit.kernels->copy_around_cache(copy.data() + offset, bytes.data(),
                                        size);
        ASSERT_EQ(copy.substr(offset, size), bytes)
            << size << " bytes at offset " << offset << ", " << unit.name;
        ASSERT_EQ(copy.substr(0, offset), std::string(offset, '\x7f'));
        ASSERT_EQ(copy.substr(offset + size), "\x7f\x7f");
      }
    }
  }
}

// The block check gives XXH3's verdict for each record and entry of a
// block, at every count and at widths around its vector ones: a block of
// intact records passes whole, and each damaged record or entry sets its
// own bit and no other.
TEST(ChecksumTest, TheBlockCheckFindsExactlyTheDamagedRecordsAndEntries) {
  using checksum_internal::BestBlockCheck;
  using checksum_internal::BlockCheck;
  using checksum_internal::kBlockRecords;
  const BlockCheck check = BestBlockCheck();
  if (check == nullptr) GTEST_SKIP() << "this CPU has no block check";
  uint64_t seed = 1;
  for (size_t width : {16, 17, 32, 48, 63, 64, 65, 96, 127, 128, 129, 240}) {
    for (size_t count = 1; count <= kBlockRecords; ++count) {
      std::string records = RandomBytes(width * count, ++seed);
      std::string entries = RandomBytes(16 * count, ++seed);
      // Each record's checksum, then its entry's hash (the binding), as
      // checksums.lx lays them out, 24 bytes apart.
      std::string checksum_entries(24 * count, '\0');
      std::vector<const char*> record_at(count), entry_at(count),
          checksum_entry_at(count);
      for (size_t k = 0; k < count; ++k) {
        record_at[k] = records.data() + k * width;
        entry_at[k] = entries.data() + k * 16;
        checksum_entry_at[k] = checksum_entries.data() + k * 24;
        const uint64_t checksum = XXH3_64bits(record_at[k], width);
        const uint64_t binding = XXH3_64bits(entry_at[k], 16);
        std::memcpy(checksum_entries.data() + k * 24, &checksum, 8);
        std::memcpy(checksum_entries.data() + k * 24 + 8, &binding, 8);
      }
      const auto run = [&] {
        return check(record_at.data(), width, entry_at.data(),
                     checksum_entry_at.data(), count);
      };
      ASSERT_EQ(run(), 0u) << "width " << width << ", count " << count;
      for (size_t k = 0; k < count; ++k) {
        for (size_t at : {size_t{0}, width / 2 + 3, width - 1}) {
          records[k * width + at] ^= 1;
          ASSERT_EQ(run(), 1u << k) << "record " << k << " of " << count
                                    << ", width " << width << ", byte " << at;
          records[k * width + at] ^= 1;
        }
        entries[k * 16 + k % 16] ^= 0x80;
        ASSERT_EQ(run(), 1u << k) << "entry " << k << " of " << count;
        entries[k * 16 + k % 16] ^= 0x80;
        for (size_t word : {0, 8}) {  // The checksum, then the binding.
          checksum_entries[k * 24 + word] ^= 1;
          ASSERT_EQ(run(), 1u << k)
              << "checksum entry " << k << " of " << count << ", word " << word;
          checksum_entries[k * 24 + word] ^= 1;
        }
      }
    }
  }
}

}  // namespace
}  // namespace loaderx
