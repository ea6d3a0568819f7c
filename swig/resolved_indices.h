// `ResolvedIndices`: a binding's index buffer (`IndexBuffer`) in the
// engine's terms, shared by the store and store-set handles.

#ifndef LOADERX_SWIG_RESOLVED_INDICES_H_
#define LOADERX_SWIG_RESOLVED_INDICES_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "swig/binding.h"
#include "swig/binding_status.h"
#include "swig/store_binding.h"

namespace loaderx::binding {

// Indices in the engine's terms: uint64 buffers as they are (no copy),
// int64 ones with negatives counted from the end once, masks as the
// positions they select. OutOfRange for a negative index past the start
// and for a mask of another shape than (length,); indices past the end are
// the store's to refuse.
class ResolvedIndices {
 public:
  ResolvedIndices(const IndexBuffer& buffer, uint64_t length) {
    switch (buffer.kind) {
      case IndexBuffer::Kind::kUnsigned:
        span_ = absl::MakeConstSpan(static_cast<const uint64_t*>(buffer.data),
                                    buffer.count);
        return;
      case IndexBuffer::Kind::kSigned: {
        const auto* values = static_cast<const int64_t*>(buffer.data);
        owned_.resize(buffer.count);
        for (size_t i = 0; i < buffer.count; ++i) {
          if (values[i] >= 0) {
            owned_[i] = static_cast<uint64_t>(values[i]);
            continue;
          }
          // -values[i], without overflow for INT64_MIN.
          const uint64_t back = static_cast<uint64_t>(-(values[i] + 1)) + 1;
          if (back > length) {
            ThrowIfError(absl::OutOfRangeError(
                absl::StrCat("index ", values[i], " (position ", i,
                             ") is out of range for ", length, " records")));
          }
          owned_[i] = length - back;
        }
        break;
      }
      case IndexBuffer::Kind::kMask: {
        if (buffer.ndim != 1 || buffer.count != length) {
          ThrowIfError(absl::OutOfRangeError(absl::StrCat(
              "a boolean mask selects from ", length, " records, so it has ",
              "shape (", length, ",); this one has ", buffer.count,
              " flags in ", buffer.ndim, " dimensions")));
        }
        const auto* flags = static_cast<const bool*>(buffer.data);
        for (size_t i = 0; i < buffer.count; ++i) {
          if (flags[i]) owned_.push_back(i);
        }
        break;
      }
    }
    span_ = owned_;
  }

  absl::Span<const uint64_t> span() const { return span_; }

 private:
  std::vector<uint64_t> owned_;
  absl::Span<const uint64_t> span_;
};

}  // namespace loaderx::binding

#endif  // LOADERX_SWIG_RESOLVED_INDICES_H_
