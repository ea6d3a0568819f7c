// Little-endian integer fields, byte by byte, so on-disk formats read the
// same on every host. Shared by the physical header, the record table, the
// typed header and ragged shape records.

#ifndef LOADERX_SPI_LITTLE_ENDIAN_H_
#define LOADERX_SPI_LITTLE_ENDIAN_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace loaderx {

// Writes the low `bytes` bytes of `value` (all of T by default) at `out`.
template <typename T>
void StoreLittle(char* out, T value, size_t bytes = sizeof(T)) {
  if constexpr (std::endian::native == std::endian::little) {
    if (bytes == sizeof(T)) {  // One store on a little-endian host.
      std::memcpy(out, &value, sizeof(T));
      return;
    }
  }
  for (size_t i = 0; i < bytes; ++i) {
    out[i] = static_cast<char>(value >> (8 * i));
  }
}

// Reads `bytes` bytes (all of T by default) at `in` as a T.
template <typename T>
T LoadLittle(const char* in, size_t bytes = sizeof(T)) {
  T value = 0;
  if constexpr (std::endian::native == std::endian::little) {
    if (bytes == sizeof(T)) {  // One load on a little-endian host.
      std::memcpy(&value, in, sizeof(T));
      return value;
    }
  }
  for (size_t i = 0; i < bytes; ++i) {
    value |= static_cast<T>(static_cast<uint8_t>(in[i])) << (8 * i);
  }
  return value;
}

}  // namespace loaderx

#endif  // LOADERX_SPI_LITTLE_ENDIAN_H_
