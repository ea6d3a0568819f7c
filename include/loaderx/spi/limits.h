// The limits of the on-disk format that plugins must respect: a codec's
// frames, an owner's records and a VFS's files are bounded by them.

#ifndef LOADERX_SPI_LIMITS_H_
#define LOADERX_SPI_LIMITS_H_

#include <cstdint>

namespace loaderx {

// The largest record, in bytes, before and after encoding: record-table
// entries hold 32-bit lengths and the reference format caps them at 2^31.
inline constexpr uint64_t kMaxRecordBytes = uint64_t{1} << 31;

// A chunk file's address range: records are placed at 32-bit offsets.
inline constexpr uint64_t kChunkCapacity = uint64_t{1} << 32;

}  // namespace loaderx

#endif  // LOADERX_SPI_LIMITS_H_
