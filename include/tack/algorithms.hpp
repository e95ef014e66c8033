// tack.algorithms (docs/algorithms.md; docs/design/algorithms.md): reductions over a whole array
// (a view too), in one defined order, so the result is the same bits on every device and thread
// count. Python: tack.sum(a), a.sum(), ...
#pragma once

#include <optional>

#include "tack/array.hpp"
#include "tack/dtype.hpp"

namespace tack {

// The sum of every element, in the accumulator type NumPy uses (i64 for signed integers, u64
// for unsigned ones, the float's own type) or `dtype`; 0 for an empty array.
Scalar sum(const Array& a, std::optional<DType> dtype = std::nullopt);
// The product, likewise; 1 for an empty array.
Scalar prod(const Array& a, std::optional<DType> dtype = std::nullopt);
// The smallest / largest element; NaN if any element is NaN (NumPy's rule). ValueError for an
// empty array (no identity).
Scalar min(const Array& a);
Scalar max(const Array& a);

}  // namespace tack
