// `checksum_kernels.h`'s block check for AVX-512 (F, BW and DQ): XXH3-64 of
// eight short records, and of their eight 16-byte table entries, at once,
// one record per 64-bit lane. A verified gather of small records spends a
// third of its instructions on these two hashes one record at a time
// (callgrind, 64 B records: 80 of ~210). The lanes compute XXH3's
// short-input paths exactly (the 9-16 byte path for the entries, the
// 17-128 byte one for the records), so the values are xxHash's own;
// `checksum_test.cc` compares them with `XXH3_64bits` for every lane count.
// Records of 64 and 128 bytes are transposed into lanes from plain loads;
// other widths are hashed one by one. The records are read where the
// gather copied them from, not from the copies: a load of 64 bytes just
// written by a copy's narrower stores waits for them to reach the cache.
// Compiled with -mavx512f -mavx512bw -mavx512dq alone, and handed out only on a
// CPU with all three.

// GCC 12's own avx512fintrin.h trips its (maybe-)uninitialized warnings
// at -O2 (its _mm512_undefined_* idiom) where it is inlined here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <immintrin.h>
#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "src/checksum_kernels.h"

namespace loaderx::checksum_internal {
namespace {

using Lanes = __m512i;

// XXH3's default secret, read as little-endian 64-bit words.
uint64_t SecretWord(size_t byte) {
  uint64_t word;
  std::memcpy(&word, reinterpret_cast<const char*>(XXH3_kSecret) + byte, 8);
  return word;
}

// The low 64 bits of each lane's 128-bit product a * b, folded with its
// high 64 (`XXH3_mul128_fold64`), from four 32 x 32 -> 64 products.
inline Lanes Mul128Fold64(Lanes a, Lanes b) {
  const Lanes a_high = _mm512_srli_epi64(a, 32);
  const Lanes b_high = _mm512_srli_epi64(b, 32);
  const Lanes low_low = _mm512_mul_epu32(a, b);
  const Lanes high_low = _mm512_mul_epu32(a_high, b);
  const Lanes low_high = _mm512_mul_epu32(a, b_high);
  const Lanes high_high = _mm512_mul_epu32(a_high, b_high);
  const Lanes low_32 = _mm512_set1_epi64(0xFFFFFFFF);
  const Lanes cross =
      _mm512_add_epi64(_mm512_add_epi64(_mm512_srli_epi64(low_low, 32),
                                        _mm512_and_si512(high_low, low_32)),
                       low_high);
  const Lanes upper =
      _mm512_add_epi64(_mm512_add_epi64(_mm512_srli_epi64(high_low, 32),
                                        _mm512_srli_epi64(cross, 32)),
                       high_high);
  const Lanes lower =
      _mm512_mask_blend_epi32(0x5555, _mm512_slli_epi64(cross, 32), low_low);
  return _mm512_xor_si512(lower, upper);
}

// `XXH3_avalanche`.
inline Lanes Avalanche(Lanes h) {
  h = _mm512_xor_si512(h, _mm512_srli_epi64(h, 37));
  h = _mm512_mullo_epi64(h, _mm512_set1_epi64(0x165667919E3779F9ULL));
  return _mm512_xor_si512(h, _mm512_srli_epi64(h, 32));
}

// `XXH3_mix16B` with seed 0, of input words `low` and `high` against the
// secret's 16 bytes at `secret`.
inline Lanes Mix16(Lanes low, Lanes high, size_t secret) {
  return Mul128Fold64(
      _mm512_xor_si512(low, _mm512_set1_epi64(SecretWord(secret))),
      _mm512_xor_si512(high, _mm512_set1_epi64(SecretWord(secret + 8))));
}

// Transposes eight rows of eight words: afterwards `rows[w]` holds word w
// of every row, row r in lane r. The loops here are unrolled, so their
// arrays stay in registers: left as loops, GCC kept them on the stack, and
// the block check spent a good part of its time storing and reloading them.
inline void Transpose8x8(Lanes rows[8]) {
  Lanes pairs[8];
#pragma GCC unroll 8
  for (int r = 0; r < 8; r += 2) {
    pairs[r] = _mm512_unpacklo_epi64(rows[r], rows[r + 1]);
    pairs[r + 1] = _mm512_unpackhi_epi64(rows[r], rows[r + 1]);
  }
  Lanes quads[8];
#pragma GCC unroll 8
  for (int r = 0; r < 8; r += 4) {
#pragma GCC unroll 8
    for (int j = 0; j < 2; ++j) {
      quads[r + j] = _mm512_shuffle_i64x2(pairs[r + j], pairs[r + 2 + j], 0x88);
      quads[r + 2 + j] =
          _mm512_shuffle_i64x2(pairs[r + j], pairs[r + 2 + j], 0xDD);
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < 4; ++j) {
    rows[j] = _mm512_shuffle_i64x2(quads[j], quads[4 + j], 0x88);
    rows[4 + j] = _mm512_shuffle_i64x2(quads[j], quads[4 + j], 0xDD);
  }
}

// XXH3-64 (`XXH3_len_17to128_64b`, seed 0) of eight records of `kWidth`
// (64 or 128) bytes at `records[0..7]`.
template <size_t kWidth>
Lanes HashRecords(const char* const* records) {
  static_assert(kWidth == 64 || kWidth == 128);
  constexpr size_t kWords = kWidth / 8;
  Lanes words[kWords];
#pragma GCC unroll 8
  for (size_t half = 0; half < kWords / 8; ++half) {
    Lanes* rows = words + 8 * half;
#pragma GCC unroll 8
    for (size_t r = 0; r < 8; ++r) {
      rows[r] = _mm512_loadu_si512(records[r] + 64 * half);
    }
    Transpose8x8(rows);
  }
  const auto mix_at = [&](size_t offset, size_t secret) {
    return Mix16(words[offset / 8], words[offset / 8 + 1], secret);
  };
  Lanes acc = _mm512_set1_epi64(kWidth * 0x9E3779B185EBCA87ULL);  // PRIME64_1
  if constexpr (kWidth > 64) {
    acc = _mm512_add_epi64(acc, mix_at(48, 96));
    acc = _mm512_add_epi64(acc, mix_at(kWidth - 64, 112));
    acc = _mm512_add_epi64(acc, mix_at(32, 64));
    acc = _mm512_add_epi64(acc, mix_at(kWidth - 48, 80));
  }
  acc = _mm512_add_epi64(acc, mix_at(16, 32));
  acc = _mm512_add_epi64(acc, mix_at(kWidth - 32, 48));
  acc = _mm512_add_epi64(acc, mix_at(0, 0));
  acc = _mm512_add_epi64(acc, mix_at(kWidth - 16, 16));
  return Avalanche(acc);
}

// The first and second 64-bit words of the 16 bytes at each of `at[0..7]`,
// lane k from `at[k]`. Loaded 16 bytes at a time: a wider load of bytes
// the gather has just stored in narrower pieces would wait for the stores.
inline void LoadPairs(const char* const* at, Lanes* first, Lanes* second) {
  Lanes quads[2];
#pragma GCC unroll 8
  for (int q = 0; q < 2; ++q) {
    const char* const* four = at + 4 * q;
    const __m256i low = _mm256_inserti128_si256(
        _mm256_castsi128_si256(
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(four[0]))),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(four[1])), 1);
    const __m256i high = _mm256_inserti128_si256(
        _mm256_castsi128_si256(
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(four[2]))),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(four[3])), 1);
    quads[q] = _mm512_inserti64x4(_mm512_castsi256_si512(low), high, 1);
  }
  // quads[q] holds the pairs of records 4q..4q+3, first word, then second.
  *first = _mm512_permutex2var_epi64(
      quads[0], _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), quads[1]);
  *second = _mm512_permutex2var_epi64(
      quads[0], _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1), quads[1]);
}

// XXH3-64 (`XXH3_len_9to16_64b`, seed 0) of the 16 bytes whose words are
// `first` and `second`.
Lanes Hash16(Lanes first, Lanes second) {
  const Lanes low = _mm512_xor_si512(
      first, _mm512_set1_epi64(SecretWord(24) ^ SecretWord(32)));
  const Lanes high = _mm512_xor_si512(
      second, _mm512_set1_epi64(SecretWord(40) ^ SecretWord(48)));
  // Byte-reverses each 64-bit lane (`XXH_swap64`).
  const Lanes reverse = _mm512_set_epi64(
      0x08090A0B0C0D0E0F, 0x0001020304050607, 0x08090A0B0C0D0E0F,
      0x0001020304050607, 0x08090A0B0C0D0E0F, 0x0001020304050607,
      0x08090A0B0C0D0E0F, 0x0001020304050607);
  Lanes acc = _mm512_add_epi64(_mm512_set1_epi64(16),
                               _mm512_shuffle_epi8(low, reverse));
  acc = _mm512_add_epi64(acc, high);
  acc = _mm512_add_epi64(acc, Mul128Fold64(low, high));
  return Avalanche(acc);
}

uint32_t CheckBlock(const char* const* records, size_t width,
                    const char* const* entries,
                    const char* const* checksum_entries, size_t count) {
  // Eight lanes are always computed: a short block's missing ones repeat
  // its first record, and are not compared.
  const char* padded[3][kBlockRecords];
  if (count < kBlockRecords) {
    for (size_t k = 0; k < kBlockRecords; ++k) {
      const size_t from = k < count ? k : 0;
      padded[0][k] = records[from];
      padded[1][k] = entries == nullptr ? nullptr : entries[from];
      padded[2][k] = checksum_entries[from];
    }
    records = padded[0];
    if (entries != nullptr) entries = padded[1];
    checksum_entries = padded[2];
  }
  const __mmask8 lanes = static_cast<__mmask8>((1u << count) - 1);
  Lanes checksums, bindings;
  LoadPairs(checksum_entries, &checksums, &bindings);
  uint32_t mismatches = 0;
  if (entries != nullptr) {
    Lanes entry_first, entry_second;
    LoadPairs(entries, &entry_first, &entry_second);
    mismatches = _mm512_mask_cmpneq_epu64_mask(
        lanes, Hash16(entry_first, entry_second), bindings);
  }
  if (width == 64 || width == 128) {
    const Lanes hashes =
        width == 64 ? HashRecords<64>(records) : HashRecords<128>(records);
    return mismatches | _mm512_mask_cmpneq_epu64_mask(lanes, hashes, checksums);
  }
  alignas(64) uint64_t expected[kBlockRecords];
  _mm512_store_si512(expected, checksums);
  for (size_t k = 0; k < count; ++k) {
    if (XXH3_64bits(records[k], width) != expected[k]) mismatches |= 1u << k;
  }
  return mismatches;
}

}  // namespace

extern const BlockCheck kAvx512BlockCheck = &CheckBlock;

}  // namespace loaderx::checksum_internal
