// tack::arrays::Strided: rows start, start + step, ... of an array, over the same memory. A
// kernel binds the bytes from its first row to the end of its last under the shape (count, ...)
// and steps its first index by the pitch (docs/design/strided.md).
#include "tack/strided.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "memory/device_buffer.hpp"
#include "runtime/backend.hpp"
#include "support/error.hpp"

namespace tack::arrays {

using detail::shape_str;

namespace {

std::int64_t row_scalars(const Array& a) {
  std::int64_t row = a.dtype().components();  // no overflow: the whole shape's count fits
  for (std::size_t k = 1; k < a.shape().size(); ++k) row *= a.shape()[k];
  return row;
}

// The rows of `base` the arguments name, checked: [first row, count).
std::int64_t checked_start(const Array& base, std::int64_t start) {
  const std::int64_t n = base.shape().front();
  const std::int64_t s = start < 0 ? start + n : start;
  if (s < 0 || (s >= n && n > 0) || (n == 0 && s != 0)) {
    throw IndexError("tack.arrays.Strided: start " + std::to_string(start) +
                     " is out of bounds for the first dimension of an array of shape " +
                     shape_str(base.shape()) + "; give a start in [" + std::to_string(-n) + ", " +
                     std::to_string(n) + ")");
  }
  return s;
}

}  // namespace

Strided::Strided(const Array& base, std::int64_t start, std::int64_t step,
                 std::optional<std::int64_t> count)
    : base_(base), spanned_(base) {
  if (base.ndim() == 0) {
    throw IndexError(
        "tack.arrays.Strided takes rows of the first dimension, and a zero-dimensional array "
        "has none; reshape it to (1,) first");
  }
  if (step < 1) {
    throw ValueError("tack.arrays.Strided: step is " + std::to_string(step) +
                     "; the step must be at least 1 (rows start, start + step, ...); for another "
                     "order write a kernel that indexes the array as it needs");
  }
  const std::int64_t n = base.shape().front();
  start_ = checked_start(base, start);
  step_ = step;
  const std::int64_t fit = n > start_ ? (n - start_ - 1) / step + 1 : 0;
  const std::int64_t rows = count.value_or(fit);
  if (rows < 0) {
    throw ValueError("tack.arrays.Strided: count is " + std::to_string(rows) +
                     "; give a count >= 0");
  }
  if (rows > fit) {
    // The last row it would need, unless that does not fit in 64 bits (a huge count or step).
    std::int64_t last = 0;
    const bool huge = __builtin_mul_overflow(rows - 1, step, &last) ||
                      __builtin_add_overflow(last, start_, &last);
    throw ValueError("tack.arrays.Strided: " + std::to_string(rows) + " rows from row " +
                     std::to_string(start_) + " with step " + std::to_string(step) + " need row " +
                     (huge ? std::string("past 2**63") : std::to_string(last)) +
                     ", but the array of shape " + shape_str(base.shape()) + " has " +
                     std::to_string(n) + " rows; at most " + std::to_string(fit) + " fit");
  }
  const std::int64_t row = row_scalars(base);
  // One row or none: no second row to step to (and step * row may not fit); otherwise the rows
  // fit in the base, so step * row does too.
  pitch_ = rows <= 1 ? row : step * row;
  Shape shape = base.shape();
  shape.front() = rows;
  const std::size_t row_bytes = static_cast<std::size_t>(row) * itemsize(base.dtype().scalar);
  if (rows == 0) {
    // Nothing to touch: an empty view at the start row, so it still shares the base's
    // allocation (its version, its address).
    spanned_ = Array(base.buffer()->make_view(static_cast<std::size_t>(start_) * row_bytes, 0),
                     base.dtype(), shape, base.writable());
    return;
  }
  // From the first row to the end of the last: every byte a kernel may touch through it.
  const std::size_t first = static_cast<std::size_t>(start_) * row_bytes;
  const std::size_t span = static_cast<std::size_t>((rows - 1) * step + 1) * row_bytes;
  spanned_ = Array(base.buffer()->make_view(first, span), base.dtype(), shape, base.writable());
}

std::size_t Strided::span_nbytes() const {
  if (count() == 0) return 0;
  const std::size_t row_bytes =
      static_cast<std::size_t>(row_scalars(base_)) * itemsize(dtype().scalar);
  return static_cast<std::size_t>((count() - 1) * step_ + 1) * row_bytes;
}

void Strided::to_host(void* dst, std::size_t dst_nbytes) const {
  const std::size_t row_bytes =
      spanned_.nbytes() / static_cast<std::size_t>(std::max<std::int64_t>(count(), 1));
  TACK_INTERNAL_ASSERT(dst_nbytes >= spanned_.nbytes(), "host destination too small");
  if (count() == 0 || row_bytes == 0) return;
  auto* out = static_cast<std::byte*>(dst);
  const detail::DeviceBuffer& buffer = *spanned_.buffer();
  const std::size_t stride = static_cast<std::size_t>(step_) * row_bytes;
  if (buffer.backend()->host_memory()) {
    for (std::int64_t r = 0; r < count(); ++r)
      buffer.to_host(out + static_cast<std::size_t>(r) * row_bytes,
                     static_cast<std::size_t>(r) * stride, row_bytes);
    return;
  }
  // A device: one read of the spanned bytes (one wait), then the rows gathered on the host.
  std::vector<std::byte> staging(span_nbytes());
  buffer.to_host(staging.data(), 0, staging.size());
  for (std::int64_t r = 0; r < count(); ++r)
    std::memcpy(out + static_cast<std::size_t>(r) * row_bytes,
                staging.data() + static_cast<std::size_t>(r) * stride, row_bytes);
}

Array Strided::copy() const {
  std::vector<std::byte> host(spanned_.nbytes());
  to_host(host.data(), host.size());
  Array out = empty(shape(), dtype(), device());
  if (!host.empty()) out.buffer()->from_host(host.data(), 0, host.size());
  return out;
}

void Strided::refuse_export(const char* how) const {
  throw ValueError(std::string(how) + " of a tack.arrays.Strided is refused: its rows are " +
                   std::to_string(step_) +
                   " rows apart, so it has no contiguous memory of its own to hand out; export "
                   "its base array (s.base), or a contiguous copy (s.copy())");
}

}  // namespace tack::arrays
