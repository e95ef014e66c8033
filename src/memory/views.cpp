// Views: reshape and row slices, with the rules of the views seed (docs/design/arrays.md).
#include <algorithm>

#include "memory/device_buffer.hpp"
#include "runtime/backend.hpp"
#include "support/error.hpp"
#include "tack/array.hpp"

namespace tack {

using detail::element_count;
using detail::shape_str;

Array Array::reshape(const Shape& requested) const {
  // One dimension may be -1: inferred from the others, as in NumPy.
  Shape shape = requested;
  int inferred = -1;
  std::int64_t known = 1;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == -1) {
      if (inferred >= 0) {
        throw ValueError("reshape to " + shape_str(requested) + ": only one dimension may be -1");
      }
      inferred = static_cast<int>(k);
    } else {
      known *= std::max<std::int64_t>(shape[k], 0);
    }
  }
  if (inferred >= 0 && known != 0) shape[static_cast<std::size_t>(inferred)] = size() / known;
  const std::int64_t n = element_count(shape, "reshape");
  if (n != size()) {
    throw ValueError("cannot reshape an array of shape " + shape_str(shape_) + " (" +
                     std::to_string(size()) + " elements) to " + shape_str(requested) + " (" +
                     std::to_string(n) + " elements); the element count must stay the same");
  }
  // Same buffer: the view shares the version, the shared flag and any import hold.
  Array view(buffer_, dtype_, shape, writable_);
  view.reshaped_ = true;
  return view;
}

Array Array::slice(std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                   std::optional<std::int64_t> step) const {
  if (shape_.empty()) {
    throw IndexError(
        "a zero-dimensional array has no rows to slice; read it with a[()] "
        "or reshape it to (1,) first");
  }
  if (step && *step != 1) {
    throw ValueError("a view takes a contiguous run of rows, so the step must be 1, got step " +
                     std::to_string(*step) + "; tack.arrays.Strided(a, start, " +
                     std::to_string(*step) +
                     ") reads every k-th row without copying (C++ tack::arrays::Strided)");
  }
  // Python's bounds: negative from the end, then clamped to [0, n].
  const std::int64_t n = shape_.front();
  auto clamp = [n](std::optional<std::int64_t> v, std::int64_t dflt) {
    if (!v) return dflt;
    std::int64_t x = *v;
    if (x < 0) x += n;
    return std::clamp<std::int64_t>(x, 0, n);
  };
  const std::int64_t b = clamp(start, 0);
  const std::int64_t e = std::max(b, clamp(stop, n));
  Shape shape = shape_;
  shape.front() = e - b;
  if (e == b) {
    // An empty range is a new empty array, not a view; read-only as its root is.
    return Array(buffer_->backend()->allocate(0), dtype_, shape, writable_);
  }
  std::int64_t row = 1;  // elements per row; no overflow: the whole shape's count fits
  for (std::size_t k = 1; k < shape_.size(); ++k) row *= shape_[k];
  const std::size_t row_bytes = static_cast<std::size_t>(row) * dtype_.itemsize();
  auto view = buffer_->make_view(static_cast<std::size_t>(b) * row_bytes,
                                 static_cast<std::size_t>(e - b) * row_bytes);
  return Array(std::move(view), dtype_, shape, writable_);
}

SoaArray::SoaArray(std::vector<Array> components) : components_(std::move(components)) {
  if (components_.empty()) {
    throw ValueError("a structure-of-arrays array needs at least one component array");
  }
  for (const auto& c : components_) {
    if (c.shape() != components_.front().shape()) {
      throw ValueError("structure-of-arrays components must share one shape; got " +
                       shape_str(components_.front().shape()) + " and " + shape_str(c.shape()));
    }
  }
}

SoaArray SoaArray::slice(std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                         std::optional<std::int64_t> step) const {
  std::vector<Array> parts;
  parts.reserve(components_.size());
  for (const auto& c : components_) parts.push_back(c.slice(start, stop, step));
  return SoaArray(std::move(parts));
}

SoaArray empty_soa(const Shape& shape, const std::vector<DType>& dtypes, const Device& device) {
  std::vector<Array> parts;
  for (const auto& d : dtypes) parts.push_back(empty(shape, d, device));
  return SoaArray(std::move(parts));
}

}  // namespace tack
