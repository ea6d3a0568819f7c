// Test records whose bytes name their index, so a record read from the
// wrong place cannot pass for the right one.

#ifndef LOADERX_TESTS_RECORD_TESTING_H_
#define LOADERX_TESTS_RECORD_TESTING_H_

#include <cstdint>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"

namespace loaderx {

// Record `i`: `width` compressible bytes starting "record-i-".
inline std::string RecordFor(uint64_t i, size_t width) {
  std::string record = absl::StrCat("record-", i, "-");
  while (record.size() < width) record += static_cast<char>('a' + i % 26);
  record.resize(width);
  return record;
}

// Records [first, first + count) of `width` bytes, back to back.
inline std::string RecordsFor(uint64_t first, uint64_t count, size_t width) {
  std::string data;
  for (uint64_t i = first; i < first + count; ++i) data += RecordFor(i, width);
  return data;
}

// Record `i`: `width` pseudo-random (incompressible) bytes.
inline std::string NoiseRecordFor(uint64_t i, size_t width) {
  std::mt19937_64 random(i);
  std::string record(width, '\0');
  for (char& c : record) c = static_cast<char>(random());
  return record;
}

}  // namespace loaderx

#endif  // LOADERX_TESTS_RECORD_TESTING_H_
