// tack::arrays::Strided: every step-th row of an array's first dimension, without copying (the
// views rule "A step other than 1 is refused. tack.arrays.Strided reads every k-th element
// without copying"). Python: tack.arrays.Strided(a, start, step, count). See
// docs/memory-model.md, "Strided arrays", and docs/design/strided.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "tack/array.hpp"

namespace tack {
struct KernelArg;
}

namespace tack::arrays {

class Strided {
 public:
  // Rows start, start + step, ..., count of them, of `base`'s first dimension. `start` follows
  // Python's bounds (negative from the end; IndexError outside the rows), `step` >= 1 (ValueError
  // otherwise), `count` defaults to every row that fits and must fit (ValueError naming the last
  // row it would need). A zero-dimensional base is an IndexError.
  Strided(const Array& base, std::int64_t start, std::int64_t step,
          std::optional<std::int64_t> count = std::nullopt);

  const Array& base() const { return base_; }
  std::int64_t start() const { return start_; }
  std::int64_t step() const { return step_; }
  std::int64_t count() const { return shape().front(); }

  // As an array of `count` rows: what a kernel, len() and numpy() see.
  DType dtype() const { return spanned_.dtype(); }
  const Shape& shape() const { return spanned_.shape(); }
  Shape numpy_shape() const { return spanned_.numpy_shape(); }
  int ndim() const { return spanned_.ndim(); }
  std::int64_t size() const { return spanned_.size(); }
  // Writable exactly when its base is.
  bool writable() const { return spanned_.writable(); }
  Device device() const { return spanned_.device(); }
  // The write counter of the whole allocation (shared with the base and every view of it).
  std::uint64_t version() const { return spanned_.version(); }

  // The bytes it can touch: from its first row to the end of its last, the step's gaps
  // included. The CPU's disjointness check and the read-only check read this range.
  std::uintptr_t address() const { return spanned_.address(); }
  std::size_t span_nbytes() const;
  // Elements of the dtype's scalar from one row to the next (step * the scalars of a row).
  std::int64_t pitch() const { return pitch_; }

  // Copies its rows to host memory, C-contiguous, in numpy_shape() and the array's dtype
  // (waiting for the device's queued launches, as any host read).
  void to_host(void* dst, std::size_t dst_nbytes) const;
  template <class T>
  std::vector<T> to_vector() const {
    std::vector<T> v(static_cast<std::size_t>(size()) * dtype().components());
    if (sizeof(T) != tack::itemsize(dtype().scalar) || scalar_type_of<T>() != dtype().scalar)
      throw TypeError("Strided::to_vector: the element type does not match the array's " +
                      dtype().str());
    to_host(v.data(), v.size() * sizeof(T));
    return v;
  }
  // A new contiguous array holding its rows, on the same device.
  Array copy() const;

  // Refused: a strided array has no contiguous memory to hand out. ValueError naming what to
  // do instead (export the base, or copy()).
  [[noreturn]] void refuse_export(const char* how) const;

 private:
  friend struct ::tack::KernelArg;
  // The array a kernel binds: the spanned bytes under the shape (count, ...), read as if its rows
  // were contiguous, so only the dispatch sees it (its checks read the address, the byte range
  // and the writable flag of exactly these bytes); never a host read or write.
  const Array& spanned() const { return spanned_; }

  Array base_;
  Array spanned_;
  std::int64_t start_ = 0;
  std::int64_t step_ = 1;
  std::int64_t pitch_ = 0;
};

}  // namespace tack::arrays
